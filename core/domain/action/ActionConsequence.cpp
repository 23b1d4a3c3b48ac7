#include "ActionConsequence.h"

#include "ConsequenceDetail.h"

#include "domain/action/ActRequest.h"
#include "domain/observation/ElementFacts.h"

#include <QHash>
#include <QSet>
#include <QUrl>

#include <unicode/ubidi.h>

#include <algorithm>
#include <array>
#include <memory>

namespace veetbot {

using namespace ConsequenceDetail;

namespace {

using C = BrowserActionConsequence;

QString decodedSegment(QStringView segment)
{
    return QUrl::fromPercentEncoding(segment.left(ConsequenceText::kMaxReadUnits).toUtf8());
}

} // namespace

// ---------------------------------------------------------------- strings

QString consequenceString(BrowserActionConsequence consequence)
{
    switch (consequence) {
    case C::Routine:
        return QStringLiteral("routine");
    case C::Unknown:
        return QStringLiteral("unknown");
    case C::Payment:
        return QStringLiteral("payment");
    case C::Purchase:
        return QStringLiteral("purchase");
    case C::AccountRecovery:
        return QStringLiteral("account_recovery");
    case C::CredentialChange:
        return QStringLiteral("credential_change");
    case C::PermissionChange:
        return QStringLiteral("permission_change");
    case C::LegalAcceptance:
        return QStringLiteral("legal_acceptance");
    case C::Publication:
        return QStringLiteral("publication");
    case C::Destructive:
        return QStringLiteral("destructive");
    case C::FileTransfer:
        return QStringLiteral("file_transfer");
    case C::SecuritySettings:
        return QStringLiteral("security_settings");
    case C::SignOut:
        return QStringLiteral("sign_out");
    case C::StateChange:
        return QStringLiteral("state_change");
    case C::Submission:
        return QStringLiteral("submission");
    case C::Unreadable:
        return QStringLiteral("unreadable");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<BrowserActionConsequence> consequenceFromString(QStringView text)
{
    for (const C consequence : kAllConsequences) {
        if (consequenceString(consequence) == text)
            return consequence;
    }
    return std::nullopt;
}

bool isNamedConsequence(BrowserActionConsequence consequence)
{
    return consequence != C::Routine && consequence != C::Unknown && consequence != C::Unreadable;
}

bool isTaskGrantableConsequence(BrowserActionConsequence consequence)
{
    return consequence == C::Submission || consequence == C::StateChange;
}

QString consequenceSourceString(ConsequenceSource source)
{
    switch (source) {
    case ConsequenceSource::None:
        return QStringLiteral("none");
    case ConsequenceSource::ActionKind:
        return QStringLiteral("action_kind");
    case ConsequenceSource::Role:
        return QStringLiteral("role");
    case ConsequenceSource::AccessibleName:
        return QStringLiteral("accessible_name");
    case ConsequenceSource::AriaLabel:
        return QStringLiteral("aria_label");
    case ConsequenceSource::Title:
        return QStringLiteral("title");
    case ConsequenceSource::Placeholder:
        return QStringLiteral("placeholder");
    case ConsequenceSource::AssociatedLabel:
        return QStringLiteral("label");
    case ConsequenceSource::LabelledBy:
        return QStringLiteral("labelled_by");
    case ConsequenceSource::AlternativeText:
        return QStringLiteral("alt");
    case ConsequenceSource::ButtonValue:
        return QStringLiteral("value");
    case ConsequenceSource::VisibleText:
        return QStringLiteral("visible_text");
    case ConsequenceSource::DialogName:
        return QStringLiteral("dialog_name");
    case ConsequenceSource::SelectedOption:
        return QStringLiteral("selected_option");
    case ConsequenceSource::ChosenOption:
        return QStringLiteral("chosen_option");
    case ConsequenceSource::FieldKind:
        return QStringLiteral("field_kind");
    case ConsequenceSource::TargetPath:
        return QStringLiteral("target_path");
    case ConsequenceSource::TargetDownload:
        return QStringLiteral("target_download");
    case ConsequenceSource::TargetMethod:
        return QStringLiteral("target_method");
    case ConsequenceSource::TargetQuery:
        return QStringLiteral("target_query");
    }
    Q_UNREACHABLE();
    return QString();
}

QString textReadingString(TextReading reading)
{
    switch (reading) {
    case TextReading::None:
        return QStringLiteral("none");
    case TextReading::Written:
        return QStringLiteral("written");
    case TextReading::Displayed:
        return QStringLiteral("displayed");
    case TextReading::Folded:
        return QStringLiteral("folded");
    case TextReading::DisplayedFolded:
        return QStringLiteral("displayed_folded");
    }
    Q_UNREACHABLE();
    return QString();
}

// ---------------------------------------------------------------- paths

bool isSensitivePathSegment(QStringView segment)
{
    const ConsequenceText::TextVerdict verdict =
        ConsequenceText::read(decodedSegment(segment), true);
    // A page or section named for what it changes without naming it (/archive, /move, /save)
    // is not sensitive: its controls are judged one by one, and the write guard stands behind
    // them. A target there still names its consequence (pathSegmentConsequence).
    return (verdict.named.has_value() && !isTaskGrantableConsequence(*verdict.named)) ||
           verdict.area;
}

bool isConsequentialPathSegment(QStringView segment)
{
    const ConsequenceText::TextVerdict verdict =
        ConsequenceText::read(decodedSegment(segment), true);
    const bool high = verdict.named.has_value() && !isTaskGrantableConsequence(*verdict.named) &&
                      *verdict.named != C::Publication && *verdict.named != C::FileTransfer;
    return high || verdict.signInArea;
}

bool isAreaPathSegment(QStringView segment)
{
    return ConsequenceText::read(decodedSegment(segment), true).area;
}

BrowserActionConsequence pathSegmentConsequence(QStringView segment)
{
    const ConsequenceText::TextVerdict verdict =
        ConsequenceText::read(decodedSegment(segment), true);
    return verdict.named.value_or(C::Unknown);
}

// ---------------------------------------------------------------- actions

namespace {

ConsequenceSource sourceOf(LabelSource source)
{
    switch (source) {
    case LabelSource::AriaLabel:
        return ConsequenceSource::AriaLabel;
    case LabelSource::Title:
        return ConsequenceSource::Title;
    case LabelSource::Placeholder:
        return ConsequenceSource::Placeholder;
    case LabelSource::AssociatedLabel:
        return ConsequenceSource::AssociatedLabel;
    case LabelSource::LabelledBy:
        return ConsequenceSource::LabelledBy;
    case LabelSource::AlternativeText:
        return ConsequenceSource::AlternativeText;
    case LabelSource::ButtonValue:
        return ConsequenceSource::ButtonValue;
    }
    Q_UNREACHABLE();
    return ConsequenceSource::None;
}

constexpr LabelSource kLabelSourceOrder[] = {
    LabelSource::AriaLabel,       LabelSource::Title,      LabelSource::Placeholder,
    LabelSource::AssociatedLabel, LabelSource::LabelledBy, LabelSource::AlternativeText,
    LabelSource::ButtonValue,
};

// The consequence a special field reads as; Unknown for every other kind.
C fieldKindConsequence(FieldKind kind)
{
    switch (kind) {
    case FieldKind::Credential:
    case FieldKind::OneTimeCode:
        return C::CredentialChange;
    case FieldKind::Payment:
        return C::Payment;
    case FieldKind::File:
        return C::FileTransfer;
    default:
        return C::Unknown;
    }
}

bool routineFieldKind(FieldKind kind)
{
    switch (kind) {
    case FieldKind::None:
    case FieldKind::Text:
    case FieldKind::Search:
    case FieldKind::MultiLine:
    case FieldKind::Select:
    case FieldKind::Checkbox:
    case FieldKind::Radio:
        return true;
    default:
        return false;
    }
}

bool blank(const QString &text)
{
    return text.trimmed().isEmpty();
}

// The label sources in source order: accessible name, labels, visible text.
QList<std::pair<ConsequenceSource, QString>> labelTexts(const ElementFacts &facts)
{
    QList<std::pair<ConsequenceSource, QString>> texts;
    if (!blank(facts.accessibleName))
        texts.append({ConsequenceSource::AccessibleName, facts.accessibleName});
    for (const LabelSource source : kLabelSourceOrder) {
        for (const LabelText &label : facts.labels) {
            if (label.source == source && !blank(label.text))
                texts.append({sourceOf(source), label.text});
        }
    }
    if (!blank(facts.visibleText))
        texts.append({ConsequenceSource::VisibleText, facts.visibleText});
    return texts;
}

} // namespace

ActionClassification classifyAction(const ElementFacts &facts, const ActRequest &request)
{
    if (request.kind() == ActRequest::Kind::Scroll)
        return {C::Routine, ConsequenceSource::ActionKind, TextReading::None};

    struct Found
    {
        ConsequenceSource source;
        C consequence;
        TextReading reading;
    };
    QList<Found> found; // in source order
    bool routine = true;
    bool unreadable = false;
    auto readText = [&](ConsequenceSource source, const QString &text) {
        if (blank(text))
            return;
        const ConsequenceText::TextVerdict verdict = ConsequenceText::read(text);
        if (verdict.named)
            found.append({source, *verdict.named, verdict.namedBy});
        routine = routine && verdict.routine;
        unreadable = unreadable || verdict.unreadable;
    };

    // The role is read for consequences; for routine it must be an ordinary control's role.
    const ConsequenceText::TextVerdict role = ConsequenceText::read(facts.role);
    if (role.named)
        found.append({ConsequenceSource::Role, *role.named, role.namedBy});
    unreadable = unreadable || role.unreadable;
    routine = routine && routineRoleSet().contains(facts.role);

    const QList<std::pair<ConsequenceSource, QString>> labels = labelTexts(facts);
    for (const auto &[source, text] : labels)
        readText(source, text);
    readText(ConsequenceSource::DialogName, facts.dialogName);
    readText(ConsequenceSource::SelectedOption, facts.selectedOption);
    if (request.kind() == ActRequest::Kind::Select)
        readText(ConsequenceSource::ChosenOption, request.option());

    const C field = fieldKindConsequence(facts.fieldKind);
    if (isNamedConsequence(field))
        found.append({ConsequenceSource::FieldKind, field, TextReading::None});
    routine = routine && routineFieldKind(facts.fieldKind);

    if (facts.target) {
        if (isNamedConsequence(facts.target->pathConsequence))
            found.append(
                {ConsequenceSource::TargetPath, facts.target->pathConsequence, TextReading::None});
        if (facts.target->download)
            found.append({ConsequenceSource::TargetDownload, C::FileTransfer, TextReading::None});
        if (isNamedConsequence(facts.target->queryConsequence))
            found.append({ConsequenceSource::TargetQuery, facts.target->queryConsequence,
                          TextReading::None});
        // What a form that posts sends is the owner's input, whatever its button says.
        if (facts.target->submission)
            found.append({ConsequenceSource::TargetMethod, C::Submission, TextReading::None});
        // A GET the write guard would refuse (/notifications/mark-all-read) changes something
        // its address does not otherwise name.
        else if (facts.target->writes && facts.target->sameOrigin)
            found.append({ConsequenceSource::TargetQuery, C::StateChange, TextReading::None});
        routine = routine && facts.target->sameOrigin && !facts.target->sensitive;
    }

    // A target whose request only reads (a link or a GET form on the page's origin, to an
    // address the write guard lets through): what its words or its path say it publishes,
    // submits or changes is only what the page it opens offers, and the write guard stands
    // behind the click. Words that name more (a payment, a deletion, a sign-out, ...) count
    // wherever they are.
    const bool readingTarget = facts.target && facts.target->sameOrigin && !facts.target->writes &&
                               !facts.target->download;
    // Typing into a search field: what it says it searches ("Search Posts", "Search
    // comments") is never what typing does; the search itself is judged where it is sent.
    const bool searching =
        request.kind() == ActRequest::Kind::Type &&
        (facts.fieldKind == FieldKind::Search || facts.role == QLatin1String("searchbox"));
    // A file's transfer needs a file field or a download, each named on its own (the field
    // kind, TargetDownload); a page that lists files (/upload.php, /downloads) is read.
    const auto soft = [](C consequence) {
        return consequence == C::Publication || consequence == C::Submission ||
               consequence == C::StateChange || consequence == C::FileTransfer;
    };
    for (const C consequence : kConsequencePriority) {
        for (const Found &f : found) {
            if (f.consequence != consequence)
                continue;
            if ((readingTarget || searching) && soft(consequence) &&
                f.source != ConsequenceSource::TargetMethod &&
                f.source != ConsequenceSource::TargetQuery && f.source != ConsequenceSource::Role)
                continue;
            return {consequence, f.source, f.reading};
        }
    }
    // Words no vocabulary can read could name anything.
    if (unreadable)
        return {C::Unreadable, ConsequenceSource::None, TextReading::None};
    // A source cut short could hold an excluded word in its unread part: never routine.
    routine =
        routine && !labels.isEmpty() && everyLabelSourceWhole(facts) && facts.selectedOptionWhole;
    return {routine ? C::Routine : C::Unknown, ConsequenceSource::None, TextReading::None};
}

QStringList routineRoles()
{
    return routineRoleList();
}

bool isRoutineRole(QStringView role)
{
    return routineRoleSet().contains(role.toString());
}

bool everyLabelReadsSameRoutineWord(const ElementFacts &facts)
{
    const QList<std::pair<ConsequenceSource, QString>> labels = labelTexts(facts);
    if (labels.isEmpty() || !everyLabelSourceWhole(facts))
        return false;
    std::optional<QString> word;
    for (const auto &[source, text] : labels) {
        const ConsequenceText::TextVerdict verdict = ConsequenceText::read(text);
        if (verdict.named || !verdict.routine || verdict.routineText.isEmpty())
            return false;
        if (word && *word != verdict.routineText)
            return false;
        word = verdict.routineText;
    }
    return true;
}

} // namespace veetbot
