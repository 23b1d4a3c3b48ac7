#include "Recipe.h"

#include "domain/ToolJson.h"
#include "domain/web/LiteralPath.h"
#include "domain/web/TestOverrides.h"

#include <QHash>
#include <QJsonArray>
#include <QSet>
#include <QUrl>

#include <algorithm>

namespace veetbot {

namespace {

// Every refusal of the format is recipe.invalid with a message that names the rule it broke;
// the document's text never reaches an error, as a recipe may come from anywhere.
Error invalid(const char *rule)
{
    return Error{QStringLiteral("recipe.invalid"), QString::fromLatin1(rule)};
}

// The YAML reader gives every scalar as its text; the schema types it. Integers are plain
// decimal digits, so "+1", "01", "1e3" or "0x10" mean nothing here. Nine digits cover every
// bound of the format, so a longer number is out of range whatever it says.
std::optional<qint64> decimal(const QJsonValue &value, bool allowMinus = false)
{
    if (!value.isString())
        return std::nullopt;
    const QString whole = value.toString();
    QStringView text = whole;
    const bool negative = allowMinus && text.startsWith(u'-');
    if (negative)
        text = text.mid(1);
    if (text.isEmpty() || text.size() > 9 || (text.size() > 1 && text.front() == u'0'))
        return std::nullopt;
    qint64 number = 0;
    for (const QChar c : text) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        number = number * 10 + (c.unicode() - u'0');
    }
    if (negative && number == 0)
        return std::nullopt;
    return negative ? -number : number;
}

std::optional<qint64> decimalWithin(const QJsonValue &value, qint64 minimum, qint64 maximum)
{
    const std::optional<qint64> number = decimal(value);
    if (!number || *number < minimum || *number > maximum)
        return std::nullopt;
    return number;
}

std::optional<bool> boolean(const QJsonValue &value)
{
    if (value == QJsonValue(QStringLiteral("true")))
        return true;
    if (value == QJsonValue(QStringLiteral("false")))
        return false;
    return std::nullopt;
}

bool hasControlCharacter(const QString &text)
{
    for (const QChar c : text) {
        if (c.category() == QChar::Other_Control)
            return true;
    }
    return false;
}

bool isLowerAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9');
}

// ^[a-z0-9]+([.-][a-z0-9]+)*$
bool isRecipeId(const QString &id)
{
    if (id.size() < 3 || id.size() > Recipe::kMaxIdUnits)
        return false;
    bool afterSeparator = true;
    for (const QChar c : id) {
        if (isLowerAlnum(c)) {
            afterSeparator = false;
        } else if ((c == u'.' || c == u'-') && !afterSeparator) {
            afterSeparator = true;
        } else {
            return false;
        }
    }
    return !afterSeparator;
}

// The one key of a map that must hold exactly one ({navigate: ...}, {control: ...}).
std::optional<QString> soleKey(const QJsonValue &value)
{
    if (!value.isObject() || value.toObject().size() != 1)
        return std::nullopt;
    return value.toObject().constBegin().key();
}

// A list of strings, as cells and failure texts are; the predicate bounds them.
bool isTextList(const QJsonValue &value)
{
    if (!value.isArray())
        return false;
    const QJsonArray array = value.toArray();
    return std::all_of(array.cbegin(), array.cend(),
                       [](const QJsonValue &item) { return item.isString(); });
}

Result<VisiblePredicate> controlOf(const QJsonValue &value)
{
    const Error refused = invalid("A control postcondition is {role, name, checked?, disabled?, "
                                  "timeout_ms?} within the bounds of browser.act.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"role", "name", "checked", "disabled", "timeout_ms"},
                               {"role", "name"}))
        return refused;
    QJsonObject typed{{QStringLiteral("role"), object.value(QLatin1String("role"))},
                      {QStringLiteral("name"), object.value(QLatin1String("name"))}};
    for (const char *flag : {"checked", "disabled"}) {
        if (!object.contains(QLatin1String(flag)))
            continue;
        const std::optional<bool> state = boolean(object.value(QLatin1String(flag)));
        if (!state)
            return refused;
        typed.insert(QLatin1String(flag), *state);
    }
    if (object.contains(QLatin1String("timeout_ms"))) {
        const std::optional<qint64> timeout = decimal(object.value(QLatin1String("timeout_ms")));
        if (!timeout)
            return refused;
        typed.insert(QStringLiteral("timeout_ms"), *timeout);
    }
    Result<VisiblePredicate> predicate = VisiblePredicate::fromJson(typed);
    if (!predicate)
        return refused;
    return predicate;
}

Result<CompletionPredicate> completionOf(const QJsonValue &value)
{
    const Error refused =
        invalid("A completion postcondition is a text, region or row predicate of veetbot_expect.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    // A recipe stays on its origin's pages by its navigate steps; an address predicate would
    // be a second, unreviewed statement of where it ends.
    const QString kind = object.value(QLatin1String("kind")).toString();
    if (kind != QLatin1String("text") && kind != QLatin1String("region") &&
        kind != QLatin1String("row"))
        return refused;
    for (const char *list : {"cells", "failure_texts"}) {
        if (object.contains(QLatin1String(list)) && !isTextList(object.value(QLatin1String(list))))
            return refused;
    }
    Result<CompletionPredicate> predicate = CompletionPredicate::fromJson(object);
    if (!predicate)
        return refused;
    return predicate;
}

Result<RecipeStep> navigateOf(const QJsonValue &value)
{
    if (!value.isString() || !isLiteralPath(value.toString(), Recipe::kMaxPathUnits))
        return invalid("A navigate step's path begins with \"/\" and holds at most 512 literal "
                       "URL characters: no \"//\", no \".\" or \"..\" segment, no percent sign, "
                       "back slash, fragment, brace or white space.");
    RecipeStep step;
    step.kind = RecipeStep::Kind::Navigate;
    step.path = value.toString();
    return step;
}

// The field of browser.act that an act of this kind carries besides its target, if any.
const char *ownFieldOf(ActRequest::Kind kind)
{
    switch (kind) {
    case ActRequest::Kind::Click:
        return nullptr;
    case ActRequest::Kind::Type:
        return "text";
    case ActRequest::Kind::Select:
        return "option";
    case ActRequest::Kind::Check:
        return "checked";
    case ActRequest::Kind::Press:
        return "key";
    case ActRequest::Kind::Scroll:
        return "delta";
    }
    Q_UNREACHABLE();
    return nullptr;
}

Result<RecipeStep> actOf(const QJsonValue &value)
{
    const Error refused = invalid("An act step is {kind, target: {role, name}, the one field of "
                                  "its kind, postcondition} within the bounds of browser.act.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    const std::optional<ActRequest::Kind> kind =
        actKindFromString(object.value(QLatin1String("kind")).toString());
    if (!object.value(QLatin1String("kind")).isString() || !kind)
        return refused;
    if (!object.contains(QLatin1String("postcondition")))
        return invalid("Every act step has a postcondition.");
    const char *own = ownFieldOf(*kind);
    const bool shapeOk =
        own ? ToolJson::hasOnlyKeys(object, {"kind", "target", "postcondition", own},
                                    {"kind", "target", "postcondition", own})
            : ToolJson::hasOnlyKeys(object, {"kind", "target", "postcondition"},
                                    {"kind", "target", "postcondition"});
    if (!shapeOk)
        return refused;

    RecipeStep step;
    step.kind = RecipeStep::Kind::Act;
    step.act = *kind;
    const QJsonValue target = object.value(QLatin1String("target"));
    if (!target.isObject() ||
        !ToolJson::hasOnlyKeys(target.toObject(), {"role", "name"}, {"role", "name"}))
        return invalid("An act's target is {role, name}.");
    const std::optional<QString> role = ToolJson::string(
        target.toObject().value(QLatin1String("role")), 1, VisiblePredicate::kMaxRoleUnits);
    const std::optional<QString> name = ToolJson::string(
        target.toObject().value(QLatin1String("name")), 1, VisiblePredicate::kMaxNameUnits);
    if (!role || !name)
        return invalid("An act's target has a role of 1 to 64 and a name of 1 to 1,024 UTF-16 "
                       "units.");
    step.target = RecipeTarget{*role, *name};

    // The request the runner will build, with a placeholder revision and ref: the factories
    // hold browser.act's bounds, so a recipe cannot carry an act the tool would refuse.
    const QString revision = QStringLiteral("r");
    const QString ref = QStringLiteral("e1");
    const QJsonValue field = own ? object.value(QLatin1String(own)) : QJsonValue();
    switch (*kind) {
    case ActRequest::Kind::Click:
        break;
    case ActRequest::Kind::Type:
    case ActRequest::Kind::Select:
        if (!field.isString())
            return refused;
        step.text = field.toString();
        break;
    case ActRequest::Kind::Check: {
        const std::optional<bool> checked = boolean(field);
        if (!checked)
            return refused;
        step.checked = *checked;
        break;
    }
    case ActRequest::Kind::Press: {
        const std::optional<ActRequest::Key> key =
            field.isString() ? actKeyFromString(field.toString()) : std::nullopt;
        if (!key)
            return refused;
        step.key = *key;
        break;
    }
    case ActRequest::Kind::Scroll: {
        const std::optional<qint64> delta = decimal(field, true);
        if (!delta)
            return refused;
        step.delta = int(*delta);
        break;
    }
    }
    // The act's own bounds, on a placeholder revision and ref.
    if (!step.actOn(revision, ref))
        return refused;

    const std::optional<QString> postcondition =
        soleKey(object.value(QLatin1String("postcondition")));
    const QJsonValue predicate = object.value(QLatin1String("postcondition"))
                                     .toObject()
                                     .value(postcondition.value_or(QString()));
    if (postcondition == QLatin1String("control")) {
        Result<VisiblePredicate> control = controlOf(predicate);
        if (!control)
            return control.error();
        step.control = std::move(control).value();
        if (!step.actOn(revision, ref))
            return refused;
    } else if (postcondition == QLatin1String("completion")) {
        Result<CompletionPredicate> completion = completionOf(predicate);
        if (!completion)
            return completion.error();
        step.completion = std::move(completion).value();
    } else {
        return invalid("An act's postcondition has exactly one of control and completion.");
    }
    return step;
}

Result<RecipeStep> extractOf(const QJsonValue &value)
{
    const Error refused = invalid("An extract step is {kind, index?, columns, limit} within the "
                                  "bounds of browser.observe's extract mode.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"kind", "index", "columns", "limit"},
                               {"kind", "columns", "limit"}))
        return refused;
    const std::optional<qint64> index = object.contains(QLatin1String("index"))
                                            ? decimal(object.value(QLatin1String("index")))
                                            : std::optional<qint64>(0);
    const std::optional<qint64> limit = decimal(object.value(QLatin1String("limit")));
    const QJsonValue columns = object.value(QLatin1String("columns"));
    if (!index || !limit || !columns.isArray())
        return refused;
    QJsonArray typedColumns;
    for (const QJsonValue &column : columns.toArray()) {
        if (!column.isObject())
            return refused;
        QJsonObject typed = column.toObject();
        if (!ToolJson::hasOnlyKeys(typed, {"name", "type", "required"}, {"name", "type"}))
            return refused;
        if (typed.contains(QLatin1String("required"))) {
            const std::optional<bool> required = boolean(typed.value(QLatin1String("required")));
            if (!required)
                return refused;
            typed.insert(QStringLiteral("required"), *required);
        }
        typedColumns.append(typed);
    }
    // The revision is the runner's, taken from the observation before the step; a placeholder
    // lets the request's own reader hold every other bound.
    Result<ExtractRequest> request = ExtractRequest::fromJson(
        QJsonObject{{QStringLiteral("revision"), QStringLiteral("r")},
                    {QStringLiteral("kind"), object.value(QLatin1String("kind"))},
                    {QStringLiteral("index"), *index},
                    {QStringLiteral("columns"), typedColumns},
                    {QStringLiteral("limit"), *limit}});
    if (!request)
        return refused;
    RecipeStep step;
    step.kind = RecipeStep::Kind::Extract;
    step.extract = std::move(request).value();
    step.extract.revision.clear();
    return step;
}

// {collect: {kind, index?, columns, limit, next: {role, name}, pages}}: an extract of each page,
// following the one "next" control, at most `pages` pages.
Result<RecipeStep> collectOf(const QJsonValue &value)
{
    const Error refused = invalid("A collect step is {kind, index?, columns, limit, next: {role, "
                                  "name}, pages}: an extract, the control to the next page and "
                                  "2 to 10 pages.");
    if (!value.isObject())
        return refused;
    QJsonObject object = value.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"kind", "index", "columns", "limit", "next", "pages"},
                               {"kind", "columns", "limit", "next", "pages"}))
        return refused;
    const std::optional<qint64> pages = decimal(object.take(QLatin1String("pages")));
    const QJsonValue next = object.take(QLatin1String("next"));
    if (!pages || *pages < 2 || *pages > Recipe::kMaxCollectPages || !next.isObject() ||
        !ToolJson::hasOnlyKeys(next.toObject(), {"role", "name"}, {"role", "name"}))
        return refused;
    const std::optional<QString> role = ToolJson::string(
        next.toObject().value(QLatin1String("role")), 1, VisiblePredicate::kMaxRoleUnits);
    const std::optional<QString> name = ToolJson::string(
        next.toObject().value(QLatin1String("name")), 1, VisiblePredicate::kMaxNameUnits);
    if (!role || !name)
        return refused;
    Result<RecipeStep> extract = extractOf(object);
    if (!extract)
        return refused;
    RecipeStep step = std::move(extract).value();
    step.kind = RecipeStep::Kind::Collect;
    step.target = RecipeTarget{*role, *name};
    step.pages = int(*pages);
    return step;
}

Result<RecipeStep> stepOf(const QJsonValue &value)
{
    const std::optional<QString> kind = soleKey(value);
    if (!kind)
        return invalid("Each step is a map with exactly one key: navigate, observe, act, "
                       "extract or collect.");
    const QJsonValue body = value.toObject().value(*kind);
    if (kind == QLatin1String("navigate"))
        return navigateOf(body);
    if (kind == QLatin1String("observe")) {
        if (!body.isObject() || !body.toObject().isEmpty())
            return invalid("An observe step is {observe: {}}.");
        RecipeStep step;
        step.kind = RecipeStep::Kind::Observe;
        return step;
    }
    if (kind == QLatin1String("act"))
        return actOf(body);
    if (kind == QLatin1String("extract"))
        return extractOf(body);
    if (kind == QLatin1String("collect"))
        return collectOf(body);
    return invalid("Each step is a map with exactly one key: navigate, observe, act, extract or "
                   "collect.");
}

Result<QStringList> intentsOf(const QJsonValue &value)
{
    const Error refused = invalid("A recipe has 1 to 8 intents, each a phrase of at most 256 "
                                  "UTF-16 units, none empty and no two alike.");
    if (!value.isArray())
        return refused;
    const QJsonArray array = value.toArray();
    if (array.isEmpty() || array.size() > Recipe::kMaxIntents)
        return refused;
    QStringList intents;
    QSet<QString> normalized;
    for (const QJsonValue &item : array) {
        const std::optional<QString> intent = ToolJson::string(item, 1, Recipe::kMaxIntentUnits);
        if (!intent)
            return refused;
        const QString phrase = normalizedIntent(*intent);
        if (phrase.isEmpty() || phrase.size() > Recipe::kMaxIntentUnits ||
            normalized.contains(phrase))
            return refused;
        normalized.insert(phrase);
        intents << *intent;
    }
    return intents;
}

QJsonObject completionJson(const CompletionPredicate &completion)
{
    QJsonObject json;
    switch (completion.kind) {
    case CompletionPredicate::Kind::Text:
        json.insert(QStringLiteral("kind"), QStringLiteral("text"));
        json.insert(QStringLiteral("text"), completion.text);
        break;
    case CompletionPredicate::Kind::Region:
        json.insert(QStringLiteral("kind"), QStringLiteral("region"));
        json.insert(QStringLiteral("name"), completion.name);
        if (!completion.regionKind.isEmpty())
            json.insert(QStringLiteral("region_kind"), completion.regionKind);
        break;
    case CompletionPredicate::Kind::Url:
        // Never in a recipe (completionOf refuses it); written as the tool reads it all the
        // same, so nothing is silently dropped.
        json.insert(QStringLiteral("kind"), QStringLiteral("url"));
        json.insert(QStringLiteral("url"), completion.url.toString(QUrl::FullyEncoded));
        break;
    case CompletionPredicate::Kind::Row:
        json.insert(QStringLiteral("kind"), QStringLiteral("row"));
        json.insert(QStringLiteral("cells"), QJsonArray::fromStringList(completion.cells));
        break;
    }
    if (!completion.failureTexts.isEmpty())
        json.insert(QStringLiteral("failure_texts"),
                    QJsonArray::fromStringList(completion.failureTexts));
    return json;
}

QJsonObject actJson(const RecipeStep &step)
{
    QJsonObject json{
        {QStringLiteral("kind"), actKindString(step.act)},
        {QStringLiteral("target"), QJsonObject{{QStringLiteral("role"), step.target.role},
                                               {QStringLiteral("name"), step.target.name}}}};
    switch (step.act) {
    case ActRequest::Kind::Click:
        break;
    case ActRequest::Kind::Type:
        json.insert(QStringLiteral("text"), step.text);
        break;
    case ActRequest::Kind::Select:
        json.insert(QStringLiteral("option"), step.text);
        break;
    case ActRequest::Kind::Check:
        json.insert(QStringLiteral("checked"), step.checked);
        break;
    case ActRequest::Kind::Press:
        json.insert(QStringLiteral("key"), actKeyString(step.key));
        break;
    case ActRequest::Kind::Scroll:
        json.insert(QStringLiteral("delta"), step.delta);
        break;
    }
    if (step.control)
        json.insert(QStringLiteral("postcondition"),
                    QJsonObject{{QStringLiteral("control"), step.control->toJson()}});
    else if (step.completion)
        json.insert(QStringLiteral("postcondition"),
                    QJsonObject{{QStringLiteral("completion"), completionJson(*step.completion)}});
    return json;
}

QJsonObject stepJson(const RecipeStep &step)
{
    switch (step.kind) {
    case RecipeStep::Kind::Navigate:
        return QJsonObject{{QStringLiteral("navigate"), step.path}};
    case RecipeStep::Kind::Observe:
        return QJsonObject{{QStringLiteral("observe"), QJsonObject()}};
    case RecipeStep::Kind::Act:
        return QJsonObject{{QStringLiteral("act"), actJson(step)}};
    case RecipeStep::Kind::Extract: {
        QJsonObject extract = step.extract.toJson();
        extract.remove(QLatin1String("revision"));
        return QJsonObject{{QStringLiteral("extract"), extract}};
    }
    case RecipeStep::Kind::Collect: {
        QJsonObject collect = step.extract.toJson();
        collect.remove(QLatin1String("revision"));
        collect.insert(QStringLiteral("next"),
                       QJsonObject{{QStringLiteral("role"), step.target.role},
                                   {QStringLiteral("name"), step.target.name}});
        collect.insert(QStringLiteral("pages"), step.pages);
        return QJsonObject{{QStringLiteral("collect"), collect}};
    }
    }
    Q_UNREACHABLE();
    return QJsonObject();
}

} // namespace

Error recipeError(const QString &code)
{
    static const QHash<QString, QString> messages{
        {QStringLiteral("recipe.invalid"),
         QStringLiteral("The recipe does not follow recipe format 1.")},
        {QStringLiteral("recipe.too_large"), QStringLiteral("The recipe is larger than 64 KiB.")},
        {QStringLiteral("recipe.not_found"), QStringLiteral("No recipe has this id.")},
        {QStringLiteral("recipe.wrong_website"),
         QStringLiteral("The recipe is for another website than the profile's.")},
        {QStringLiteral("recipe.duplicate_id"),
         QStringLiteral("Another recipe already has this id.")},
        {QStringLiteral("recipe.directory_not_private"),
         QStringLiteral("The recipe directory is not a private directory of this user (a "
                        "directory of mode 0700, not a symbolic link).")},
        {QStringLiteral("recipe.file_not_private"),
         QStringLiteral("The recipe file is not a private file of this user (a regular file of "
                        "mode 0600, not a symbolic link).")},
    };
    const auto message = messages.constFind(code);
    if (message == messages.constEnd())
        return Error{QStringLiteral("recipe.invalid"),
                     messages.value(QStringLiteral("recipe.invalid"))};
    return Error{code, *message};
}

Result<Recipe> validatedRecipe(const QJsonObject &document, Recipe::Source source,
                               const TestOverrides &overrides)
{
    if (!ToolJson::hasOnlyKeys(
            document,
            {"format", "id", "version", "title", "origin", "intents", "steps", "deadline_seconds"},
            {"format", "id", "version", "title", "origin", "intents", "steps"}))
        return invalid("A recipe has exactly the keys format, id, version, title, origin, "
                       "intents, steps and, optionally, deadline_seconds.");
    if (decimal(document.value(QLatin1String("format"))) != Recipe::kFormat)
        return invalid("A recipe's format is 1.");

    Recipe recipe;
    recipe.source = source;
    const QJsonValue id = document.value(QLatin1String("id"));
    if (!id.isString() || !isRecipeId(id.toString()))
        return invalid("A recipe's id is 3 to 64 units of lower-case letters and digits, in "
                       "words joined by \".\" or \"-\".");
    recipe.id = id.toString();

    const std::optional<qint64> version =
        decimalWithin(document.value(QLatin1String("version")), 1, 1000000);
    if (!version)
        return invalid("A recipe's version is an integer from 1 to 1,000,000.");
    recipe.version = int(*version);

    const std::optional<QString> title =
        ToolJson::string(document.value(QLatin1String("title")), 1, Recipe::kMaxTitleUnits);
    if (!title || hasControlCharacter(*title))
        return invalid("A recipe's title is 1 to 128 UTF-16 units without control characters.");
    recipe.title = *title;

    const QJsonValue originText = document.value(QLatin1String("origin"));
    const Result<Origin> origin = originText.isString()
                                      ? Origin::parse(originText.toString(), overrides)
                                      : Result<Origin>(ReasonCode::UrlDisallowed);
    if (!origin)
        return invalid("A recipe's origin is one public HTTPS origin.");
    recipe.origin = origin->toString();

    Result<QStringList> intents = intentsOf(document.value(QLatin1String("intents")));
    if (!intents)
        return intents.error();
    recipe.intents = std::move(intents).value();

    if (document.contains(QLatin1String("deadline_seconds"))) {
        const std::optional<qint64> deadline = decimalWithin(
            document.value(QLatin1String("deadline_seconds")), 1, Recipe::kMaxDeadlineSeconds);
        if (!deadline)
            return invalid("A recipe's deadline_seconds is an integer from 1 to 900.");
        recipe.deadlineSeconds = int(*deadline);
    }

    const QJsonValue steps = document.value(QLatin1String("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty() || steps.toArray().size() > Recipe::kMaxSteps)
        return invalid("A recipe has 1 to 16 steps.");
    for (const QJsonValue &value : steps.toArray()) {
        Result<RecipeStep> step = stepOf(value);
        if (!step)
            return step.error();
        recipe.steps << std::move(step).value();
    }
    if (recipe.steps.first().kind != RecipeStep::Kind::Navigate)
        return invalid("A recipe's steps begin with a navigate step.");
    if (recipe.plannedCalls() > Recipe::kMaxCalls)
        return invalid("A recipe plans at most 64 tool calls.");
    return recipe;
}

QString normalizedIntent(const QString &text)
{
    QString normalized = text.toCaseFolded().simplified();
    if (normalized.endsWith(u'.') || normalized.endsWith(u'!') || normalized.endsWith(u'?')) {
        normalized.chop(1);
        normalized = normalized.trimmed();
    }
    return normalized;
}

Result<ActRequest> RecipeStep::actOn(const QString &revision, const QString &ref) const
{
    Result<ActRequest> request = Error{};
    switch (act) {
    case ActRequest::Kind::Click:
        request = ActRequest::click(revision, ref);
        break;
    case ActRequest::Kind::Type:
        request = ActRequest::type(revision, ref, text);
        break;
    case ActRequest::Kind::Select:
        request = ActRequest::select(revision, ref, text);
        break;
    case ActRequest::Kind::Check:
        request = ActRequest::check(revision, ref, checked);
        break;
    case ActRequest::Kind::Press:
        request = ActRequest::press(revision, ref, key);
        break;
    case ActRequest::Kind::Scroll:
        request = ActRequest::scroll(revision, ref, delta);
        break;
    }
    if (request && control)
        return request->withPostcondition(*control);
    return request;
}

int Recipe::plannedCalls() const
{
    int calls = 0;
    for (const RecipeStep &step : steps) {
        switch (step.kind) {
        case RecipeStep::Kind::Act:
            calls += 2; // its fresh look and the act
            break;
        case RecipeStep::Kind::Collect:
            calls += 3 * step.pages - 2; // an extract per page, a look and a click between
            break;
        default:
            calls += 1;
        }
    }
    return calls;
}

QString Recipe::reference() const
{
    return id + u'@' + QString::number(version);
}

bool Recipe::serves(const Origin &origin, const TestOverrides &overrides) const
{
    if (origin.toString() == this->origin)
        return true;
    // A test's fixture server listens on whatever port it got; its host name is the test's
    // own (VEETBOT_TEST_RESOLVE), so only the port may differ, and only for such a host.
    const QUrl own(this->origin, QUrl::StrictMode);
    return own.isValid() && own.port() == -1 && origin.host() == own.host() &&
           overrides.hasHost(own.host());
}

QUrl Recipe::urlOf(const RecipeStep &step, const Origin &origin)
{
    return literalUrl(QUrl(origin.toString()), step.path);
}

QJsonObject Recipe::toJson() const
{
    QJsonArray stepArray;
    for (const RecipeStep &step : steps)
        stepArray.append(stepJson(step));
    return QJsonObject{{QStringLiteral("format"), kFormat},
                       {QStringLiteral("id"), id},
                       {QStringLiteral("version"), version},
                       {QStringLiteral("title"), title},
                       {QStringLiteral("origin"), origin},
                       {QStringLiteral("intents"), QJsonArray::fromStringList(intents)},
                       {QStringLiteral("deadline_seconds"), deadlineSeconds},
                       {QStringLiteral("steps"), stepArray}};
}

} // namespace veetbot
