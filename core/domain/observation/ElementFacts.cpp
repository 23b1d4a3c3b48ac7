#include "ElementFacts.h"

#include "domain/action/WriteGuard.h"

#include <QRegularExpression>
#include <QStringList>

namespace veetbot {

namespace {

QStringList autocompleteTokens(QStringView autocomplete)
{
    static const QRegularExpression htmlSpace(QStringLiteral("[\\t\\n\\f\\r ]+"));
    return autocomplete.toString().toLower().split(htmlSpace, Qt::SkipEmptyParts);
}

// Autocomplete field names that ask for a person's name, address, birthday or sex.
bool isIdentityToken(const QString &token)
{
    static const QStringList identity{
        QStringLiteral("name"),
        QStringLiteral("honorific-prefix"),
        QStringLiteral("given-name"),
        QStringLiteral("additional-name"),
        QStringLiteral("family-name"),
        QStringLiteral("honorific-suffix"),
        QStringLiteral("nickname"),
        QStringLiteral("organization-title"),
        QStringLiteral("organization"),
        QStringLiteral("street-address"),
        QStringLiteral("address-line1"),
        QStringLiteral("address-line2"),
        QStringLiteral("address-line3"),
        QStringLiteral("address-level1"),
        QStringLiteral("address-level2"),
        QStringLiteral("address-level3"),
        QStringLiteral("address-level4"),
        QStringLiteral("country"),
        QStringLiteral("country-name"),
        QStringLiteral("postal-code"),
        QStringLiteral("bday"),
        QStringLiteral("bday-day"),
        QStringLiteral("bday-month"),
        QStringLiteral("bday-year"),
        QStringLiteral("sex"),
    };
    return identity.contains(token);
}

struct FieldKindName
{
    FieldKind kind;
    const char *name;
};
constexpr FieldKindName kFieldKindNames[] = {
    {FieldKind::None, "none"},
    {FieldKind::Text, "text"},
    {FieldKind::Search, "search"},
    {FieldKind::MultiLine, "multi_line"},
    {FieldKind::Email, "email"},
    {FieldKind::Url, "url"},
    {FieldKind::Tel, "tel"},
    {FieldKind::Number, "number"},
    {FieldKind::Date, "date"},
    {FieldKind::Credential, "credential"},
    {FieldKind::OneTimeCode, "one_time_code"},
    {FieldKind::Payment, "payment"},
    {FieldKind::Identity, "identity"},
    {FieldKind::Select, "select"},
    {FieldKind::Checkbox, "checkbox"},
    {FieldKind::Radio, "radio"},
    {FieldKind::File, "file"},
    {FieldKind::EditableRegion, "editable_region"},
    {FieldKind::Other, "other"},
};

struct LabelSourceName
{
    LabelSource source;
    const char *name;
};
constexpr LabelSourceName kLabelSourceNames[] = {
    {LabelSource::AriaLabel, "aria_label"},    {LabelSource::Title, "title"},
    {LabelSource::Placeholder, "placeholder"}, {LabelSource::AssociatedLabel, "label"},
    {LabelSource::LabelledBy, "labelled_by"},  {LabelSource::AlternativeText, "alt"},
    {LabelSource::ButtonValue, "value"},
};

int defaultPort(const QString &scheme)
{
    return scheme == QLatin1String("https") ? 443 : 80;
}

bool isHttp(const QUrl &url)
{
    return url.isValid() && !url.host().isEmpty() &&
           (url.scheme() == QLatin1String("https") || url.scheme() == QLatin1String("http"));
}

} // namespace

QString fieldKindString(FieldKind kind)
{
    for (const FieldKindName &entry : kFieldKindNames) {
        if (entry.kind == kind)
            return QString::fromLatin1(entry.name);
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<FieldKind> fieldKindFromString(QStringView text)
{
    for (const FieldKindName &entry : kFieldKindNames) {
        if (text == QLatin1String(entry.name))
            return entry.kind;
    }
    return std::nullopt;
}

FieldKind fieldKindOf(QStringView control, QStringView inputType, QStringView autocomplete,
                      bool editable)
{
    const bool input = control == QLatin1String("input");
    const bool textarea = control == QLatin1String("textarea");
    const bool select = control == QLatin1String("select");
    if (!input && !textarea && !select)
        return editable ? FieldKind::EditableRegion : FieldKind::None;
    const QString type = input ? inputType.toString().toLower() : QString();
    if (type == QLatin1String("password"))
        return FieldKind::Credential;
    // The special kinds come from the tokens, whatever the type says: the first token that
    // names one decides, as fieldSecret() reads them.
    const QStringList tokens = autocompleteTokens(autocomplete);
    for (const QString &token : tokens) {
        if (token == QLatin1String("current-password") || token == QLatin1String("new-password") ||
            token == QLatin1String("username") || token == QLatin1String("webauthn"))
            return FieldKind::Credential;
        if (token == QLatin1String("one-time-code"))
            return FieldKind::OneTimeCode;
        if (token.startsWith(QLatin1String("cc-")) ||
            token.startsWith(QLatin1String("transaction-")))
            return FieldKind::Payment;
        if (isIdentityToken(token))
            return FieldKind::Identity;
    }
    if (textarea)
        return FieldKind::MultiLine;
    if (select)
        return FieldKind::Select;
    if (type.isEmpty() || type == QLatin1String("text")) {
        // A plain text field asking for an address of another kind is that kind.
        for (const QString &token : tokens) {
            if (token == QLatin1String("email"))
                return FieldKind::Email;
            if (token == QLatin1String("url"))
                return FieldKind::Url;
            if (token.startsWith(QLatin1String("tel")))
                return FieldKind::Tel;
        }
        return FieldKind::Text;
    }
    static const QHash<QString, FieldKind> byType{
        {QStringLiteral("search"), FieldKind::Search},
        {QStringLiteral("email"), FieldKind::Email},
        {QStringLiteral("url"), FieldKind::Url},
        {QStringLiteral("tel"), FieldKind::Tel},
        {QStringLiteral("number"), FieldKind::Number},
        {QStringLiteral("date"), FieldKind::Date},
        {QStringLiteral("datetime-local"), FieldKind::Date},
        {QStringLiteral("month"), FieldKind::Date},
        {QStringLiteral("week"), FieldKind::Date},
        {QStringLiteral("time"), FieldKind::Date},
        {QStringLiteral("checkbox"), FieldKind::Checkbox},
        {QStringLiteral("radio"), FieldKind::Radio},
        {QStringLiteral("file"), FieldKind::File},
        {QStringLiteral("submit"), FieldKind::None},
        {QStringLiteral("button"), FieldKind::None},
        {QStringLiteral("reset"), FieldKind::None},
        {QStringLiteral("image"), FieldKind::None},
    };
    return byType.value(type, FieldKind::Other);
}

QString labelSourceString(LabelSource source)
{
    for (const LabelSourceName &entry : kLabelSourceNames) {
        if (entry.source == source)
            return QString::fromLatin1(entry.name);
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<LabelSource> labelSourceFromString(QStringView text)
{
    for (const LabelSourceName &entry : kLabelSourceNames) {
        if (text == QLatin1String(entry.name))
            return entry.source;
    }
    return std::nullopt;
}

BrowserActionConsequence queryConsequenceOf(const QUrl &url)
{
    if (!url.hasQuery())
        return BrowserActionConsequence::Unknown;
    const QString raw = url.query(QUrl::FullyEncoded);
    // A name or value that reads as signing out, first: the most specific reading.
    for (const QStringView pair : QStringView(raw).left(8192).split(QLatin1Char('&'))) {
        for (const QStringView part : pair.split(QLatin1Char('='))) {
            if (!part.isEmpty() && part.size() <= ElementFacts::kMaxSegmentUnits &&
                pathSegmentConsequence(part) == BrowserActionConsequence::SignOut)
                return BrowserActionConsequence::SignOut;
        }
    }
    switch (WriteGuard::queryWriteReason(url)) {
    case WriteGuard::WriteReason::None:
        return BrowserActionConsequence::Unknown;
    case WriteGuard::WriteReason::OperationValue:
    case WriteGuard::WriteReason::MethodOverride:
        // The operation's own word when it names one ("action=delete"), else a change.
        for (const QStringView pair : QStringView(raw).left(8192).split(QLatin1Char('&'))) {
            const qsizetype eq = pair.indexOf(QLatin1Char('='));
            if (eq < 0 || !WriteGuard::isOperationParameterName(pair.left(eq)))
                continue;
            const QStringView value = pair.mid(eq + 1);
            if (value.size() > ElementFacts::kMaxSegmentUnits)
                continue;
            const BrowserActionConsequence named = pathSegmentConsequence(value);
            if (isNamedConsequence(named))
                return named;
        }
        return BrowserActionConsequence::StateChange;
    default:
        return BrowserActionConsequence::StateChange;
    }
}

NavigationTarget navigationTargetOf(const QUrl &target, const QUrl &page, bool download,
                                    bool submission)
{
    NavigationTarget summary;
    summary.download = download;
    summary.submission = submission;
    if (!isHttp(target))
        return summary; // not same-origin, sensitive, no segments read
    summary.queryConsequence = queryConsequenceOf(target);
    summary.writes =
        submission ||
        WriteGuard::judge({"GET", WriteGuard::RequestKind::Document, target, std::nullopt, {}})
                .verdict != WriteGuard::Verdict::Read;
    summary.sameOrigin =
        isHttp(page) && target.scheme() == page.scheme() &&
        target.host(QUrl::FullyEncoded).toLower() == page.host(QUrl::FullyEncoded).toLower() &&
        target.port(defaultPort(target.scheme())) == page.port(defaultPort(page.scheme()));
    // Segments as the encoded path holds them; each is decoded once where it is read.
    const QStringList segments = target.path(QUrl::FullyEncoded).split(u'/', Qt::SkipEmptyParts);
    summary.sensitive = segments.size() > ElementFacts::kMaxTargetSegments;
    summary.consequential = summary.sensitive;
    int bestPriority = int(std::size(kConsequencePriority));
    for (qsizetype i = 0; i < segments.size() && i < ElementFacts::kMaxTargetSegments; ++i) {
        const QString &segment = segments.at(i);
        summary.sensitive = summary.sensitive || isSensitivePathSegment(segment);
        summary.consequential = summary.consequential || isConsequentialPathSegment(segment);
        const BrowserActionConsequence consequence = pathSegmentConsequence(segment);
        for (int p = 0; p < bestPriority; ++p) {
            if (kConsequencePriority[p] == consequence) {
                bestPriority = p;
                summary.pathConsequence = consequence;
            }
        }
    }
    if (!segments.isEmpty()) {
        const QString first = QUrl::fromPercentEncoding(segments.first().toUtf8());
        if (first.size() > ElementFacts::kMaxSegmentUnits)
            summary.sensitive = summary.consequential = true; // unread: never compared
        else
            summary.firstSegment = first;
    }
    return summary;
}

bool withinBounds(const ElementFacts &facts)
{
    if (facts.visibleText.size() > ElementFacts::kMaxLabelUnits ||
        facts.dialogName.size() > ElementFacts::kMaxDialogUnits ||
        facts.inputType.size() > ElementFacts::kMaxInputTypeUnits ||
        facts.autocomplete.size() > ElementFacts::kMaxAutocompleteUnits ||
        facts.selectedOption.size() > ElementFacts::kMaxLabelUnits ||
        facts.labels.size() > ElementFacts::kMaxLabels)
        return false;
    for (qsizetype i = 0; i < facts.labels.size(); ++i) {
        const LabelText &label = facts.labels.at(i);
        if (label.text.isEmpty() || label.text.size() > ElementFacts::kMaxLabelUnits)
            return false;
        for (qsizetype k = 0; k < i; ++k) {
            if (facts.labels.at(k).source == label.source)
                return false;
        }
    }
    if (facts.target) {
        const NavigationTarget &target = *facts.target;
        const bool high = isNamedConsequence(target.pathConsequence) &&
                          !isTaskGrantableConsequence(target.pathConsequence);
        if (target.firstSegment.size() > ElementFacts::kMaxSegmentUnits ||
            target.pathConsequence == BrowserActionConsequence::Routine ||
            (high && !target.sensitive) || (target.consequential && !target.sensitive) ||
            (high && target.pathConsequence != BrowserActionConsequence::Publication &&
             target.pathConsequence != BrowserActionConsequence::FileTransfer &&
             !target.consequential) ||
            (target.submission && !target.writes))
            return false;
    }
    return true;
}

bool everyLabelSourceWhole(const ElementFacts &facts)
{
    if (!facts.visibleTextWhole)
        return false;
    for (const LabelText &label : facts.labels) {
        if (!label.whole)
            return false;
    }
    return true;
}

FieldSecret fieldSecret(const ElementFacts &facts)
{
    if (facts.inputType.compare(QLatin1String("password"), Qt::CaseInsensitive) == 0)
        return FieldSecret::Password;
    const QStringList tokens = autocompleteTokens(facts.autocomplete);
    for (const QString &token : tokens) {
        if (token == QLatin1String("current-password") || token == QLatin1String("new-password"))
            return FieldSecret::Password;
        if (token == QLatin1String("one-time-code"))
            return FieldSecret::OneTimeCode;
        if (token.startsWith(QLatin1String("cc-")))
            return FieldSecret::Payment;
    }
    return FieldSecret::None;
}

bool refusesTyping(const ElementFacts &facts)
{
    const FieldSecret secret = fieldSecret(facts);
    return secret == FieldSecret::Password || secret == FieldSecret::OneTimeCode;
}

} // namespace veetbot
