#include "CaptureAssembly.h"

#include "domain/ToolJson.h"
#include "domain/observation/Extraction.h"

#include <QJsonArray>

namespace veetbot::CaptureAssembly {

namespace {
constexpr int kMaxCandidatePositions = ObservationBounds::kMaxCandidatePositions;

// The collector reports the next window as a candidate position; the observation carries an
// opaque cursor for it instead. nullopt when the collector's coverage is not exactly what it
// must be: offsets the provider expects, a next position right after the scanned window.
struct WindowCoverage
{
    QJsonObject json;
    std::optional<int> nextPosition;
};

std::optional<WindowCoverage> canonicalCoverage(const QJsonValue &value,
                                                std::optional<int> expectedOffset,
                                                const QString &cursorToken)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject raw = value.toObject();
    if (raw.size() != 4)
        return std::nullopt;
    const auto offset = ToolJson::integer(raw.value(QStringLiteral("candidate_offset")), 0,
                                          kMaxCandidatePositions - 1);
    const auto scanned = ToolJson::integer(raw.value(QStringLiteral("scanned_candidates")), 0,
                                           ObservationBounds::kMaxCandidates);
    const QJsonValue limit = raw.value(QStringLiteral("scan_limit_reached"));
    const QJsonValue next = raw.value(QStringLiteral("next_position"));
    if (!offset || !scanned || !limit.isBool() || *offset + *scanned > kMaxCandidatePositions)
        return std::nullopt;
    if (expectedOffset && *offset != *expectedOffset)
        return std::nullopt;
    WindowCoverage coverage;
    if (!next.isNull()) {
        const auto position = ToolJson::integer(next, 1, kMaxCandidatePositions - 1);
        if (!position || *scanned == 0 || *position != *offset + *scanned || limit.toBool())
            return std::nullopt;
        coverage.nextPosition = int(*position);
    }
    coverage.json = QJsonObject{
        {QStringLiteral("candidate_offset"), *offset},
        {QStringLiteral("scanned_candidates"), *scanned},
        {QStringLiteral("next_cursor"),
         coverage.nextPosition ? QJsonValue(cursorToken) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("scan_limit_reached"), limit},
    };
    return coverage;
}
// One label source of the collector's facts: {source, text, whole}.
std::optional<LabelText> labelFromCollector(const QJsonValue &value)
{
    const QJsonObject record = value.toObject();
    const QJsonValue source = record.value(QStringLiteral("source"));
    const QJsonValue text = record.value(QStringLiteral("text"));
    const QJsonValue whole = record.value(QStringLiteral("whole"));
    if (!value.isObject() || record.size() != 3 || !text.isString() || !whole.isBool())
        return std::nullopt;
    const std::optional<LabelSource> kind = labelSourceFromString(source.toString());
    if (!source.isString() || !kind)
        return std::nullopt;
    return LabelText{*kind, text.toString(), whole.toBool()};
}

// A link's or submit button's target: {url, download, method}, the method being the form's
// ("get", "post" or "dialog"; a link's is "get"). The URL is read here, in the browser
// process, into its summary and goes no further. An empty URL is one the collector would not
// read (over its bound): not same-origin, sensitive.
std::optional<NavigationTarget> targetFromCollector(const QJsonValue &value, const QUrl &page)
{
    const QJsonObject record = value.toObject();
    const QJsonValue url = record.value(QStringLiteral("url"));
    const QJsonValue download = record.value(QStringLiteral("download"));
    const QJsonValue method = record.value(QStringLiteral("method"));
    if (!value.isObject() || record.size() != 3 || !url.isString() || !download.isBool() ||
        url.toString().size() > ElementFacts::kMaxTargetUrlUnits || !method.isString())
        return std::nullopt;
    const QString verb = method.toString();
    if (verb != QLatin1String("get") && verb != QLatin1String("post") &&
        verb != QLatin1String("dialog"))
        return std::nullopt;
    return navigationTargetOf(QUrl(url.toString(), QUrl::StrictMode), page, download.toBool(),
                              verb == QLatin1String("post"));
}

// The collector's facts array, parallel to the observation's elements, with the role, name and
// disabled state of each element. Anything malformed records no facts at all (the approval view
// then cannot describe the element and redacts typed text); it never fails the capture.
QHash<QString, ElementFacts> elementFactsFromCollector(const QJsonValue &value,
                                                       const BrowserObservation &observation,
                                                       const QUrl &page)
{
    QHash<QString, ElementFacts> facts;
    const QJsonArray array = value.toArray();
    if (!value.isArray() || array.size() != observation.elements.size())
        return {};
    for (qsizetype i = 0; i < array.size(); ++i) {
        const ElementRecord &element = observation.elements.at(i);
        std::optional<ElementFacts> parsed = elementFactsRecord(
            array.at(i), element.role, element.name, element.state.disabled, page);
        if (!parsed)
            return {};
        facts.insert(element.ref, *parsed);
    }
    return facts;
}

} // namespace

std::optional<ElementFacts> elementFactsRecord(const QJsonValue &value, const QString &role,
                                               const QString &name, bool disabled, const QUrl &page)
{
    const QJsonObject record = value.toObject();
    if (!value.isObject() || record.size() != 12)
        return std::nullopt;
    ElementFacts element;
    element.role = role;
    element.accessibleName = name;
    element.disabled = disabled;
    const QJsonValue inputType = record.value(QStringLiteral("input_type"));
    const QJsonValue autocomplete = record.value(QStringLiteral("autocomplete"));
    const QJsonValue text = record.value(QStringLiteral("text"));
    const QJsonValue textWhole = record.value(QStringLiteral("text_whole"));
    const QJsonValue dialog = record.value(QStringLiteral("dialog"));
    const QJsonValue labels = record.value(QStringLiteral("labels"));
    const QJsonValue option = record.value(QStringLiteral("option"));
    const QJsonValue optionWhole = record.value(QStringLiteral("option_whole"));
    const QJsonValue control = record.value(QStringLiteral("control"));
    const QJsonValue editable = record.value(QStringLiteral("editable"));
    const QJsonValue inForm = record.value(QStringLiteral("in_form"));
    const QJsonValue target = record.value(QStringLiteral("target"));
    if (!inputType.isString() || !autocomplete.isString() || !text.isString() ||
        !textWhole.isBool() || !dialog.isString() || !labels.isArray() ||
        labels.toArray().size() > ElementFacts::kMaxLabels || !option.isString() ||
        !optionWhole.isBool() || !control.isString() || !editable.isBool() || !inForm.isBool() ||
        !(target.isNull() || target.isObject()))
        return std::nullopt;
    const QString controlTag = control.toString();
    if (!controlTag.isEmpty() && controlTag != QLatin1String("input") &&
        controlTag != QLatin1String("textarea") && controlTag != QLatin1String("select"))
        return std::nullopt;
    element.inputType = inputType.toString();
    element.autocomplete = autocomplete.toString();
    element.visibleText = text.toString();
    element.visibleTextWhole = textWhole.toBool();
    element.dialogName = dialog.toString();
    for (const QJsonValue &label : labels.toArray()) {
        const std::optional<LabelText> parsed = labelFromCollector(label);
        if (!parsed)
            return std::nullopt;
        element.labels.append(*parsed);
    }
    element.selectedOption = option.toString();
    element.selectedOptionWhole = optionWhole.toBool();
    element.native = !controlTag.isEmpty();
    element.inForm = inForm.toBool();
    if (element.inputType.size() <= ElementFacts::kMaxInputTypeUnits &&
        element.autocomplete.size() <= ElementFacts::kMaxAutocompleteUnits)
        element.fieldKind =
            fieldKindOf(controlTag, element.inputType, element.autocomplete, editable.toBool());
    if (target.isObject()) {
        element.target = targetFromCollector(target, page);
        if (!element.target)
            return std::nullopt;
    }
    if (!withinBounds(element))
        return std::nullopt;
    return element;
}

CapturedText capturedText(const QJsonObject &collector)
{
    return {collector.value(QStringLiteral("text")),
            collector.value(QStringLiteral("text_coverage"))};
}

bool restoreUnchangedText(QJsonObject &collector, const std::optional<CapturedText> &continued)
{
    const QString unchangedKey = QStringLiteral("text_unchanged");
    if (!collector.contains(unchangedKey))
        return true;
    if (collector.value(unchangedKey) != QJsonValue(true) || !continued ||
        collector.contains(QStringLiteral("text")) ||
        collector.contains(QStringLiteral("text_coverage")))
        return false;
    collector.remove(unchangedKey);
    collector.insert(QStringLiteral("text"), continued->text);
    collector.insert(QStringLiteral("text_coverage"), continued->coverage);
    return true;
}

Result<Capture> assemble(const QJsonObject &collector, const Request &request,
                         const TestOverrides &overrides)
{
    const std::optional<WindowCoverage> coverage = canonicalCoverage(
        collector.value(QStringLiteral("coverage")), request.expectedOffset, request.cursorToken);
    if (!coverage)
        return ReasonCode::OutputInvalid;
    QJsonObject json{
        {QStringLiteral("url"), QString::fromUtf8(request.url.toEncoded())},
        {QStringLiteral("title"), collector.value(QStringLiteral("title"))},
        {QStringLiteral("revision"), request.revision},
        {QStringLiteral("text"), collector.value(QStringLiteral("text"))},
        {QStringLiteral("text_coverage"), collector.value(QStringLiteral("text_coverage"))},
        {QStringLiteral("elements"), collector.value(QStringLiteral("elements"))},
        {QStringLiteral("coverage"), coverage->json},
        {QStringLiteral("regions"), collector.value(QStringLiteral("regions"))},
        {QStringLiteral("region_coverage"), collector.value(QStringLiteral("region_coverage"))},
    };
    if (request.readiness)
        json.insert(QStringLiteral("readiness"), readinessString(*request.readiness));
    if (request.action) {
        BrowserObservation withAction;
        withAction.action = request.action;
        json.insert(QStringLiteral("action"), withAction.toJson().value(QStringLiteral("action")));
    }
    Capture capture;
    // A focused read: the region's whole captured text is kept for text continuation; the
    // observation carries it from the requested offset.
    if (collector.contains(QStringLiteral("focus"))) {
        const QJsonValue focusRef =
            collector.value(QStringLiteral("focus")).toObject().value(QStringLiteral("region_ref"));
        const QJsonValue text = collector.value(QStringLiteral("text"));
        if (!text.isString() || !focusRef.isString())
            return ReasonCode::OutputInvalid;
        const QByteArray regionText = text.toString().toUtf8();
        if (request.focusTextOffset > 0 && regionText != request.previousFocusText)
            return ReasonCode::PageChanged; // the text changed
        if (request.focusTextOffset < 0 || request.focusTextOffset > regionText.size())
            return ReasonCode::OutputInvalid;
        capture.focus = Focus{focusRef.toString(), regionText};
        json.insert(QStringLiteral("text"),
                    QString::fromUtf8(regionText.mid(request.focusTextOffset)));
        json.insert(QStringLiteral("focus"),
                    QJsonObject{{QStringLiteral("region_ref"), focusRef},
                                {QStringLiteral("text_offset"), request.focusTextOffset},
                                {QStringLiteral("text_bytes"), regionText.size()}});
    } else if (request.focusRequested) {
        return ReasonCode::OutputInvalid;
    }
    if (request.extract) {
        // Typed in the core; evidence refs get their own random prefix.
        const Result<Extraction> extraction = Extraction::fromCollector(
            *request.extract, collector.value(QStringLiteral("extraction")),
            request.evidencePrefix);
        if (!extraction)
            return ReasonCode::OutputInvalid;
        json.insert(QStringLiteral("extraction"), extraction->toJson());
    }
    // The receipt: only a verdict came back. Confirmed echoes the provider's own text when it
    // fits beside the page text; outside (a focused read elsewhere) keeps it unshown; anything
    // else ends it for good.
    if (request.draft) {
        const QJsonValue verdict = collector.value(QStringLiteral("draft"));
        if (verdict == QLatin1String("confirmed")) {
            capture.nextDraft = request.draft;
            if (json.value(QStringLiteral("text")).toString().toUtf8().size() +
                    request.draft->toUtf8().size() <=
                ObservationBounds::kMaxTextBytes)
                json.insert(QStringLiteral("confirmed_draft"), *request.draft);
        } else if (verdict == QLatin1String("outside")) {
            capture.nextDraft = request.draft;
        } else {
            capture.nextDraft = std::optional<QString>();
        }
    }
    Result<BrowserObservation> observation = BrowserObservation::fromJson(json, overrides);
    if (!observation)
        return ReasonCode::OutputInvalid;
    capture.observation = std::move(observation).value();
    capture.facts = elementFactsFromCollector(collector.value(QStringLiteral("facts")),
                                              capture.observation, request.url);
    // Absent from an answer that reads no page facts; a malformed count fails the capture.
    const QJsonValue frames = collector.value(QStringLiteral("challenge_frames"));
    if (!frames.isUndefined()) {
        const std::optional<qint64> count =
            ToolJson::integer(frames, 0, PageEvidence::kMaxChallengeFrames);
        if (!count)
            return ReasonCode::OutputInvalid;
        capture.page.challengeFrames = int(*count);
    }
    capture.nextPosition = coverage->nextPosition;
    return capture;
}

} // namespace veetbot::CaptureAssembly
