#include "GrantCoverage.h"

#include "domain/action/ActionConsequence.h"
#include "domain/action/ApprovalView.h"
#include "domain/action/WriteGuard.h"
#include "domain/observation/ElementFacts.h"

#include <QStringList>

namespace veetbot::GrantCoverage {

std::optional<TextRefusal> refuseTypedText(const QString &text)
{
    const QList<uint> codePoints = text.toUcs4();
    if (codePoints.size() > kMaxTypedCharacters)
        return TextRefusal::TooLong;
    if (text.contains(QLatin1Char('@')) || text.contains(QChar(0xFF20))) // @ and fullwidth @
        return TextRefusal::EmailOrHandle;
    if (text.contains(QLatin1String("://")) ||
        text.contains(QLatin1String("www."), Qt::CaseInsensitive))
        return TextRefusal::Address;
    int run = 0;
    for (const uint c : codePoints) {
        run = QChar::isDigit(char32_t(c)) ? run + 1 : 0;
        if (run >= 4)
            return TextRefusal::DigitRun;
    }
    if (CredentialShape::find(text))
        return TextRefusal::CredentialShape;
    return std::nullopt;
}

QString textRefusalString(TextRefusal refusal)
{
    switch (refusal) {
    case TextRefusal::TooLong:
        return QStringLiteral("too_long");
    case TextRefusal::EmailOrHandle:
        return QStringLiteral("email_or_handle");
    case TextRefusal::Address:
        return QStringLiteral("address");
    case TextRefusal::DigitRun:
        return QStringLiteral("digit_run");
    case TextRefusal::CredentialShape:
        return QStringLiteral("credential_shape");
    }
    return QStringLiteral("credential_shape");
}

namespace {

// Roles whose arrow, Home, End, Space or Enter keys move a selection to an option nobody
// classified.
bool isChoiceControl(const ElementFacts &facts)
{
    static const QStringList roles{
        QStringLiteral("radio"),         QStringLiteral("checkbox"),
        QStringLiteral("switch"),        QStringLiteral("option"),
        QStringLiteral("listbox"),       QStringLiteral("combobox"),
        QStringLiteral("menuitemradio"), QStringLiteral("menuitemcheckbox"),
        QStringLiteral("slider"),        QStringLiteral("spinbutton"),
        QStringLiteral("radiogroup"),    QStringLiteral("tab")};
    return facts.fieldKind == FieldKind::Select || facts.fieldKind == FieldKind::Checkbox ||
           facts.fieldKind == FieldKind::Radio || roles.contains(facts.role);
}

bool isSubmission(const ActRequest &request, const ElementFacts &facts, Coverer coverer)
{
    if (!facts.inForm)
        return false;
    // Under ordinary interaction a click on a plain button (type=button: it submits nothing by
    // itself, and the write guard stands behind its script) is not a submission.
    if (coverer == Coverer::OrdinaryInteraction && request.kind() == ActRequest::Kind::Click &&
        facts.role == QLatin1String("button") && !facts.target &&
        facts.inputType.compare(QLatin1String("button"), Qt::CaseInsensitive) == 0)
        return false;
    if (request.kind() == ActRequest::Kind::Click)
        return true;
    return request.kind() == ActRequest::Kind::Press &&
           (request.key() == ActRequest::Key::Enter || request.key() == ActRequest::Key::Space);
}

// `strict`: any sensitive segment (a standing or task grant); otherwise a consequential one.
bool onSensitivePath(const QUrl &page, bool strict)
{
    if (page.scheme() != QLatin1String("https") && page.scheme() != QLatin1String("http"))
        return true;
    const QString path = page.path(QUrl::FullyEncoded);
    for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
        if (!segment.isEmpty() &&
            (strict ? isSensitivePathSegment(segment) : isConsequentialPathSegment(segment)))
            return true;
    }
    // A page whose query names an operation, carries a token or signs out is sensitive too
    // (index.php?title=X&action=delete is a confirmation page).
    return isNamedConsequence(queryConsequenceOf(page));
}

} // namespace

std::optional<ActRefusal> refuseAct(const ActRequest &request, const ElementFacts &facts,
                                    const QUrl &page, Coverer coverer)
{
    const BrowserActionConsequence consequence = classifyAction(facts, request).consequence;
    const bool taskGrant = coverer == Coverer::TaskGrant;
    if (isNamedConsequence(consequence) && !(taskGrant && isTaskGrantableConsequence(consequence)))
        return ActRefusal::NamedConsequence;
    if (consequence == BrowserActionConsequence::Unreadable && !taskGrant)
        return ActRefusal::Unreadable;
    if (facts.disabled)
        return ActRefusal::Disabled;
    if (facts.accessibleName.trimmed().isEmpty())
        return ActRefusal::Unnamed;
    if (!everyLabelSourceWhole(facts) || !facts.selectedOptionWhole)
        return ActRefusal::PartialLabel;
    switch (facts.fieldKind) {
    case FieldKind::Credential:
    case FieldKind::OneTimeCode:
    case FieldKind::Payment:
    case FieldKind::Identity:
    case FieldKind::File:
        return ActRefusal::SensitiveField;
    default:
        break;
    }
    switch (request.kind()) {
    case ActRequest::Kind::Type:
        if (!facts.native ||
            (facts.fieldKind != FieldKind::Text && facts.fieldKind != FieldKind::Search &&
             facts.fieldKind != FieldKind::MultiLine))
            return ActRefusal::FieldKind;
        break;
    case ActRequest::Kind::Select:
        if (!facts.native || facts.fieldKind != FieldKind::Select)
            return ActRefusal::FieldKind;
        break;
    case ActRequest::Kind::Check:
        if (!facts.native ||
            (facts.fieldKind != FieldKind::Checkbox && facts.fieldKind != FieldKind::Radio))
            return ActRefusal::FieldKind;
        break;
    case ActRequest::Kind::Press:
        if (isChoiceControl(facts))
            return ActRefusal::ChoiceKey;
        break;
    case ActRequest::Kind::Click:
    case ActRequest::Kind::Scroll:
        break;
    }
    if (request.kind() == ActRequest::Kind::Type && refuseTypedText(request.text()))
        return ActRefusal::TypedText;
    const bool strict = coverer != Coverer::OrdinaryInteraction;
    if (facts.target) {
        const bool sensitive = strict ? facts.target->sensitive : facts.target->consequential;
        if (!facts.target->sameOrigin || sensitive || facts.target->download)
            return ActRefusal::Target;
    } else if (isSubmission(request, facts, coverer)) {
        return ActRefusal::Target; // where the form goes is not known
    }
    if (onSensitivePath(page, strict))
        return ActRefusal::Page;
    return std::nullopt;
}

QString actRefusalString(ActRefusal refusal)
{
    switch (refusal) {
    case ActRefusal::NamedConsequence:
        return QStringLiteral("named_consequence");
    case ActRefusal::Disabled:
        return QStringLiteral("disabled");
    case ActRefusal::Unnamed:
        return QStringLiteral("unnamed");
    case ActRefusal::PartialLabel:
        return QStringLiteral("partial_label");
    case ActRefusal::SensitiveField:
        return QStringLiteral("sensitive_field");
    case ActRefusal::FieldKind:
        return QStringLiteral("field_kind");
    case ActRefusal::ChoiceKey:
        return QStringLiteral("choice_key");
    case ActRefusal::TypedText:
        return QStringLiteral("typed_text");
    case ActRefusal::Target:
        return QStringLiteral("target");
    case ActRefusal::Page:
        return QStringLiteral("page");
    case ActRefusal::Unreadable:
        return QStringLiteral("unreadable");
    }
    return QStringLiteral("page");
}

} // namespace veetbot::GrantCoverage

namespace veetbot {

namespace {
constexpr qsizetype kMaxPrefixUnits = 64;

bool insidePrefix(const QUrl &url, const QString &segment)
{
    if (segment.isEmpty())
        return true;
    const QString path = url.path(QUrl::FullyDecoded);
    const QString base = QLatin1Char('/') + segment;
    return path == base || path.startsWith(base + QLatin1Char('/'));
}
} // namespace

QJsonObject DispatchConstraint::toJson() const
{
    if (authority == Authority::OrdinaryInteraction)
        return {{QStringLiteral("authority"), QStringLiteral("ordinary_interaction")}};
    if (authority == Authority::StandingGrant)
        return {{QStringLiteral("authority"), QStringLiteral("standing_grant")}};
    return {{QStringLiteral("authority"), QStringLiteral("task_grant")},
            {QStringLiteral("prefix"), prefixSegment}};
}

std::optional<DispatchConstraint> DispatchConstraint::fromJson(const QJsonValue &value)
{
    const QJsonObject object = value.toObject();
    if (!value.isObject())
        return std::nullopt;
    const QJsonValue authority = object.value(QStringLiteral("authority"));
    if (authority == QLatin1String("ordinary_interaction") && object.size() == 1)
        return DispatchConstraint{};
    if (authority == QLatin1String("standing_grant") && object.size() == 1)
        return DispatchConstraint{Authority::StandingGrant, QString()};
    const QJsonValue prefix = object.value(QStringLiteral("prefix"));
    if (authority != QLatin1String("task_grant") || object.size() != 2 || !prefix.isString())
        return std::nullopt;
    const QString segment = prefix.toString();
    if (segment.isEmpty() || segment.size() > kMaxPrefixUnits || segment.contains(QLatin1Char('/')))
        return std::nullopt;
    return DispatchConstraint{Authority::TaskGrant, segment};
}

bool DispatchConstraint::covers(const ActRequest &request, const ElementFacts &liveFacts,
                                const QUrl &livePage) const
{
    const GrantCoverage::Coverer coverer =
        authority == Authority::TaskGrant       ? GrantCoverage::Coverer::TaskGrant
        : authority == Authority::StandingGrant ? GrantCoverage::Coverer::StandingGrant
                                                : GrantCoverage::Coverer::OrdinaryInteraction;
    if (GrantCoverage::refuseAct(request, liveFacts, livePage, coverer))
        return false;
    if (authority == Authority::StandingGrant &&
        (classifyAction(liveFacts, request).consequence != BrowserActionConsequence::Routine ||
         !everyLabelReadsSameRoutineWord(liveFacts)))
        return false;
    if (authority == Authority::TaskGrant) {
        if (!insidePrefix(livePage, prefixSegment))
            return false;
        if (liveFacts.target && liveFacts.target->firstSegment != prefixSegment)
            return false;
    }
    return true;
}

bool DispatchConstraint::allowsDocument(const QUrl &url, const QUrl &page) const
{
    if (url.scheme() != page.scheme() || url.host() != page.host() || url.port() != page.port())
        return false;
    // Ordinary interaction reads in an administration or settings area (the write guard judges
    // each document); a standing or task grant stays out of every sensitive path.
    const bool strict = authority != Authority::OrdinaryInteraction;
    const QString path = url.path(QUrl::FullyEncoded);
    for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
        if (!segment.isEmpty() &&
            (strict ? isSensitivePathSegment(segment) : isConsequentialPathSegment(segment)))
            return false;
    }
    if (WriteGuard::queryWriteReason(url) != WriteGuard::WriteReason::None)
        return false; // a document whose query writes
    return authority != Authority::TaskGrant || insidePrefix(url, prefixSegment);
}

} // namespace veetbot
