#include "CompletionPredicate.h"

#include "domain/observation/ObserveRequest.h"

#include <QJsonArray>
#include <QUrlQuery>

namespace veetbot {

namespace {

const QStringList kRegionKinds{QStringLiteral("dialog"),  QStringLiteral("alert"),
                               QStringLiteral("status"),  QStringLiteral("form"),
                               QStringLiteral("heading"), QStringLiteral("main"),
                               QStringLiteral("section")};

// White space as the collector writes readable text: any run of it is one space.
QString collapsed(const QString &text)
{
    return text.simplified();
}

std::optional<QString> boundedText(const QJsonValue &value)
{
    if (!value.isString())
        return std::nullopt;
    const QString text = collapsed(value.toString());
    if (text.isEmpty() || text.size() > CompletionPredicate::kMaxTextUnits)
        return std::nullopt;
    return text;
}

std::optional<QStringList> boundedTexts(const QJsonValue &value, int minimum, int maximum)
{
    if (!value.isArray())
        return std::nullopt;
    const QJsonArray array = value.toArray();
    if (array.size() < minimum || array.size() > maximum)
        return std::nullopt;
    QStringList texts;
    for (const QJsonValue &item : array) {
        const std::optional<QString> text = boundedText(item);
        if (!text)
            return std::nullopt;
        texts << *text;
    }
    return texts;
}

QString pathOf(const QUrl &url)
{
    const QString path = url.path(QUrl::FullyEncoded);
    return path.isEmpty() ? QStringLiteral("/") : path;
}

bool sameAddress(const QUrl &wanted, const QUrl &seen)
{
    if (seen.scheme() != wanted.scheme() || seen.host().toLower() != wanted.host().toLower() ||
        seen.port(443) != wanted.port(443) || pathOf(seen) != pathOf(wanted))
        return false;
    const QList<QPair<QString, QString>> present = QUrlQuery(seen).queryItems(QUrl::FullyDecoded);
    for (const auto &item : QUrlQuery(wanted).queryItems(QUrl::FullyDecoded)) {
        if (!present.contains(item))
            return false;
    }
    return true;
}

// One line of the page's text whose tab-separated cells hold `cells` in order.
bool showsRow(const QString &pageText, const QStringList &cells)
{
    for (const QStringView line : QStringView(pageText).split(u'\n')) {
        int next = 0;
        for (const QStringView cell : line.split(u'\t')) {
            if (next < cells.size() && cell.toString().simplified() == cells.at(next))
                ++next;
        }
        if (next == cells.size())
            return true;
    }
    return false;
}

} // namespace

Result<CompletionPredicate> CompletionPredicate::fromJson(const QJsonObject &arguments)
{
    const Error invalid = ToolArguments::invalidArguments();
    CompletionPredicate predicate;
    const QString kind = arguments.value(QLatin1String("kind")).toString();
    QStringList fields{QStringLiteral("kind"), QStringLiteral("failure_texts")};
    if (kind == QLatin1String("text")) {
        predicate.kind = Kind::Text;
        const std::optional<QString> text = boundedText(arguments.value(QLatin1String("text")));
        if (!text)
            return invalid;
        predicate.text = *text;
        fields << QStringLiteral("text");
    } else if (kind == QLatin1String("region")) {
        predicate.kind = Kind::Region;
        const std::optional<QString> name = boundedText(arguments.value(QLatin1String("name")));
        if (!name)
            return invalid;
        predicate.name = *name;
        fields << QStringLiteral("name") << QStringLiteral("region_kind");
        if (arguments.contains(QLatin1String("region_kind"))) {
            predicate.regionKind = arguments.value(QLatin1String("region_kind")).toString();
            if (!kRegionKinds.contains(predicate.regionKind))
                return invalid;
        }
    } else if (kind == QLatin1String("url")) {
        predicate.kind = Kind::Url;
        const QJsonValue value = arguments.value(QLatin1String("url"));
        if (!value.isString() || value.toString().size() > kMaxUrlUnits)
            return invalid;
        predicate.url = QUrl(value.toString(), QUrl::StrictMode);
        if (!predicate.url.isValid() || predicate.url.scheme() != QLatin1String("https") ||
            predicate.url.host().isEmpty() || !predicate.url.userInfo().isEmpty() ||
            predicate.url.hasFragment())
            return invalid;
        fields << QStringLiteral("url");
    } else if (kind == QLatin1String("row")) {
        predicate.kind = Kind::Row;
        const std::optional<QStringList> cells =
            boundedTexts(arguments.value(QLatin1String("cells")), 1, kMaxCells);
        if (!cells)
            return invalid;
        predicate.cells = *cells;
        fields << QStringLiteral("cells");
    } else {
        return invalid;
    }
    for (auto it = arguments.constBegin(); it != arguments.constEnd(); ++it) {
        if (!fields.contains(it.key()))
            return invalid;
    }
    if (arguments.contains(QLatin1String("failure_texts"))) {
        const std::optional<QStringList> failures =
            boundedTexts(arguments.value(QLatin1String("failure_texts")), 0, kMaxFailureTexts);
        if (!failures)
            return invalid;
        predicate.failureTexts = *failures;
    }
    return predicate;
}

CompletionPredicate::Reading CompletionPredicate::read(const BrowserObservation &observation) const
{
    const QString pageText = collapsed(observation.text);
    for (const QString &failure : failureTexts) {
        if (pageText.contains(failure))
            return Reading::FailureSeen;
    }
    bool satisfied = false;
    switch (kind) {
    case Kind::Text:
        satisfied = pageText.contains(text);
        break;
    case Kind::Region:
        for (const RegionRecord &region : observation.regions) {
            if (collapsed(region.name) == name &&
                (regionKind.isEmpty() || region.kind == regionKind))
                satisfied = true;
        }
        break;
    case Kind::Url:
        satisfied = sameAddress(url, observation.url);
        break;
    case Kind::Row:
        satisfied = showsRow(observation.text, cells);
        break;
    }
    return satisfied ? Reading::Satisfied : Reading::NotSeen;
}

QJsonObject CompletionPredicate::function()
{
    const QJsonObject text{{QStringLiteral("type"), QStringLiteral("string")},
                           {QStringLiteral("minLength"), 1},
                           {QStringLiteral("maxLength"), kMaxTextUnits}};
    QJsonArray regionKinds;
    for (const QString &regionKind : kRegionKinds)
        regionKinds << regionKind;
    const QJsonObject parameters{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("kind"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("enum"),
                           QJsonArray{QStringLiteral("text"), QStringLiteral("region"),
                                      QStringLiteral("url"), QStringLiteral("row")}},
                          {QStringLiteral("description"),
                           QStringLiteral("What shows that the task is done: a visible text, a "
                                          "region (by its name), the page's address, or a row "
                                          "of a table.")}}},
             {QStringLiteral("text"), text},
             {QStringLiteral("name"), text},
             {QStringLiteral("region_kind"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("enum"), regionKinds}}},
             {QStringLiteral("url"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                 {QStringLiteral("maxLength"), kMaxUrlUnits}}},
             {QStringLiteral("cells"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                          {QStringLiteral("items"), text},
                          {QStringLiteral("minItems"), 1},
                          {QStringLiteral("maxItems"), kMaxCells}}},
             {QStringLiteral("failure_texts"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                          {QStringLiteral("items"), text},
                          {QStringLiteral("maxItems"), kMaxFailureTexts}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("kind")}},
        {QStringLiteral("additionalProperties"), false}};
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
         QJsonObject{
             {QStringLiteral("name"), QString(CompletionTool::kName)},
             {QStringLiteral("description"),
              QStringLiteral(
                  "State, before your first action, what the page will show when the owner's "
                  "task is done: kind text (a visible text), region (name, and region_kind "
                  "if you know it), url (the address; its path must match and each query "
                  "parameter you give must be present) or row (the cells of one table row, in "
                  "order); and failure_texts, visible texts that would show it failed. After "
                  "your last action the run looks for it: only that is evidence the task was "
                  "done. It cannot be stated or changed once an action was tried.")},
             {QStringLiteral("parameters"), parameters}}}};
}

} // namespace veetbot
