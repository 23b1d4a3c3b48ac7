#include "BrowserObservation.h"

#include "ObserveRequest.h"
#include "domain/ToolJson.h"
#include "domain/action/ActRequest.h"
#include "domain/web/Origin.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QSet>

#include <algorithm>

#include <openssl/rand.h>

namespace veetbot {

QString readinessString(Readiness readiness)
{
    switch (readiness) {
    case Readiness::DomQuiet:
        return QStringLiteral("dom_quiet");
    case Readiness::BoundExpired:
        return QStringLiteral("bound_expired");
    }
    Q_UNREACHABLE();
    return QString();
}

QString waitStatusString(WaitOutcome::Status status)
{
    switch (status) {
    case WaitOutcome::Status::Satisfied:
        return QStringLiteral("satisfied");
    case WaitOutcome::Status::Ambiguous:
        return QStringLiteral("ambiguous");
    case WaitOutcome::Status::NotObserved:
        return QStringLiteral("not_observed");
    }
    Q_UNREACHABLE();
    return QString();
}

QString randomToken(int bytes)
{
    QByteArray buffer(bytes, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(buffer.data()), bytes) != 1)
        qFatal("RAND_bytes failed");
    return QString::fromLatin1(
        buffer.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QString newRevision()
{
    return randomToken(18); // 144 bits
}

namespace {

QJsonValue optionalBool(const std::optional<bool> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue checkedValue(CheckedState checked)
{
    switch (checked) {
    case CheckedState::None:
        return QJsonValue(QJsonValue::Null);
    case CheckedState::False:
        return false;
    case CheckedState::True:
        return true;
    case CheckedState::Mixed:
        return QStringLiteral("mixed");
    }
    Q_UNREACHABLE();
    return QJsonValue();
}

// Strict readers: each returns false on a missing key or a wrong type.
class Reader
{
public:
    explicit Reader(const QJsonObject &object) : m_object(object) {}

    // Every required key present, nothing outside required and optional.
    bool keysWithin(std::initializer_list<const char *> required,
                    std::initializer_list<const char *> optional) const
    {
        qsizetype known = 0;
        for (const char *key : required) {
            if (!m_object.contains(QLatin1String(key)))
                return false;
            ++known;
        }
        for (const char *key : optional)
            known += m_object.contains(QLatin1String(key)) ? 1 : 0;
        return known == m_object.size();
    }
    bool keysExactly(std::initializer_list<const char *> keys) const
    {
        if (m_object.size() != qsizetype(keys.size()))
            return false;
        for (const char *key : keys) {
            if (!m_object.contains(QLatin1String(key)))
                return false;
        }
        return true;
    }
    bool string(const char *key, QString &out, int maxUnits) const
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!v.isString())
            return false;
        out = v.toString();
        return out.size() <= maxUnits;
    }
    bool boolean(const char *key, bool &out) const
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (!v.isBool())
            return false;
        out = v.toBool();
        return true;
    }
    bool optionalBoolean(const char *key, std::optional<bool> &out) const
    {
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (v.isNull()) {
            out.reset();
            return true;
        }
        if (!v.isBool())
            return false;
        out = v.toBool();
        return true;
    }
    bool integer(const char *key, qint64 &out, qint64 min, qint64 max) const
    {
        const std::optional<qint64> value =
            ToolJson::integer(m_object.value(QLatin1String(key)), min, max);
        if (!value)
            return false;
        out = *value;
        return true;
    }
    bool integer(const char *key, int &out, int min, int max) const
    {
        qint64 wide = 0;
        if (!integer(key, wide, min, max))
            return false;
        out = int(wide);
        return true;
    }
    QJsonValue value(const char *key) const { return m_object.value(QLatin1String(key)); }

private:
    const QJsonObject &m_object;
};

bool hasLoneSurrogate(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate()) {
            if (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate())
                return true;
            ++i;
        } else if (c.isLowSurrogate()) {
            return true;
        }
    }
    return false;
}

bool readState(const QJsonValue &value, ElementState &state)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysExactly({"disabled", "checked", "selected", "expanded", "required"}))
        return false;
    const QJsonValue checked = r.value("checked");
    if (checked.isNull())
        state.checked = CheckedState::None;
    else if (checked.isBool())
        state.checked = checked.toBool() ? CheckedState::True : CheckedState::False;
    else if (checked == QJsonValue(QStringLiteral("mixed")))
        state.checked = CheckedState::Mixed;
    else
        return false;
    return r.boolean("disabled", state.disabled) && r.optionalBoolean("selected", state.selected) &&
           r.optionalBoolean("expanded", state.expanded) && r.boolean("required", state.required);
}

bool readElement(const QJsonValue &value, ElementRecord &element)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysExactly({"ref", "role", "name", "state"}))
        return false;
    if (!r.string("ref", element.ref, ObservationBounds::kMaxRefUnits) || element.ref.isEmpty())
        return false;
    if (!r.string("role", element.role, ObservationBounds::kMaxRoleUnits) ||
        element.role.isEmpty() || element.role != element.role.toLower())
        return false;
    if (!r.string("name", element.name, ObservationBounds::kMaxNameUnits) ||
        hasLoneSurrogate(element.name))
        return false;
    return readState(r.value("state"), element.state);
}

bool readTextCoverage(const QJsonValue &value, TextCoverage &coverage)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysExactly({"version", "scope", "scanned_nodes", "scanned_text_units",
                        "node_limit_reached", "text_limit_reached", "omitted_text_bytes"}))
        return false;
    return r.integer("version", coverage.version, 1, 1) && r.string("scope", coverage.scope, 64) &&
           r.integer("scanned_nodes", coverage.scannedNodes, 0, ObservationBounds::kMaxTextNodes) &&
           r.integer("scanned_text_units", coverage.scannedTextUnits, 0,
                     ObservationBounds::kMaxTextUnits) &&
           r.boolean("node_limit_reached", coverage.nodeLimitReached) &&
           r.boolean("text_limit_reached", coverage.textLimitReached) &&
           r.integer("omitted_text_bytes", coverage.omittedTextBytes, 0,
                     qint64(ObservationBounds::kMaxTextUnits) * 3);
}

bool readCoverage(const QJsonValue &value, CandidateCoverage &coverage)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysExactly(
            {"candidate_offset", "scanned_candidates", "next_cursor", "scan_limit_reached"}))
        return false;
    const QJsonValue cursor = r.value("next_cursor");
    if (cursor.isNull())
        coverage.nextCursor.reset();
    else if (cursor.isString() && cursor.toString().size() >= ObserveRequest::kMinCursorUnits &&
             cursor.toString().size() <= ObserveRequest::kMaxCursorUnits)
        coverage.nextCursor = cursor.toString();
    else
        return false;
    if (!(r.integer("candidate_offset", coverage.candidateOffset, 0,
                    ObservationBounds::kMaxCandidatePositions - 1) &&
          r.integer("scanned_candidates", coverage.scannedCandidates, 0,
                    ObservationBounds::kMaxCandidates) &&
          r.boolean("scan_limit_reached", coverage.scanLimitReached)))
        return false;
    // A window never reaches past the last position, and a continuation needs somewhere to go.
    const int end = coverage.candidateOffset + coverage.scannedCandidates;
    if (end > ObservationBounds::kMaxCandidatePositions)
        return false;
    return !coverage.nextCursor || end < ObservationBounds::kMaxCandidatePositions;
}

const QSet<QString> &regionKinds()
{
    static const QSet<QString> kinds{
        QStringLiteral("dialog"),  QStringLiteral("alert"),   QStringLiteral("status"),
        QStringLiteral("form"),    QStringLiteral("heading"), QStringLiteral("main"),
        QStringLiteral("section"),
    };
    return kinds;
}

bool readRegion(const QJsonValue &value, RegionRecord &region)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysWithin({"ref", "kind", "name", "summary", "summary_truncated"}, {"level"}))
        return false;
    if (!r.string("ref", region.ref, ObservationBounds::kMaxRefUnits) || region.ref.isEmpty())
        return false;
    if (!r.string("kind", region.kind, 16) || !regionKinds().contains(region.kind))
        return false;
    if (!r.string("name", region.name, ObservationBounds::kMaxNameUnits) ||
        hasLoneSurrogate(region.name))
        return false;
    if (!r.string("summary", region.summary, ObservationBounds::kMaxSummaryUnits) ||
        hasLoneSurrogate(region.summary))
        return false;
    if (!r.boolean("summary_truncated", region.summaryTruncated))
        return false;
    const bool heading = region.kind == QLatin1String("heading");
    if (heading != object.contains(QLatin1String("level")))
        return false;
    return !heading || r.integer("level", region.level, 1, 9);
}

bool readRegionCoverage(const QJsonValue &value, RegionCoverage &coverage)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    return r.keysExactly(
               {"version", "scope", "scanned_nodes", "scan_exhausted", "omitted_regions"}) &&
           r.integer("version", coverage.version, 1, 1) && r.string("scope", coverage.scope, 64) &&
           coverage.scope == QLatin1String("main_document") &&
           r.integer("scanned_nodes", coverage.scannedNodes, 0,
                     ObservationBounds::kMaxRegionScanNodes) &&
           r.boolean("scan_exhausted", coverage.scanExhausted) &&
           r.integer("omitted_regions", coverage.omittedRegions, 0,
                     ObservationBounds::kMaxRegionScanNodes);
}

bool readFocus(const QJsonValue &value, FocusState &focus)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    return r.keysExactly({"region_ref", "text_offset", "text_bytes"}) &&
           r.string("region_ref", focus.regionRef, ObservationBounds::kMaxRefUnits) &&
           r.integer("text_bytes", focus.textBytes, 0, ObservationBounds::kMaxTextBytes) &&
           r.integer("text_offset", focus.textOffset, 0, focus.textBytes);
}

bool readAction(const QJsonValue &value, ActionOutcome &action)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    const bool scroll =
        object.value(QStringLiteral("kind")) == QJsonValue(QStringLiteral("scroll"));
    if (scroll ? !r.keysExactly({"kind", "dispatched", "scrolled_px"})
               : !r.keysExactly({"kind", "dispatched"}))
        return false;
    if (!r.string("kind", action.kind, 16) || !actKindFromString(action.kind) ||
        !r.boolean("dispatched", action.dispatched))
        return false;
    // Only a check whose state already matched sends nothing.
    if (!action.dispatched && action.kind != QLatin1String("check"))
        return false;
    if (scroll) {
        int scrolled = 0;
        if (!r.integer("scrolled_px", scrolled, -ActRequest::kMaxScrollDistance,
                       ActRequest::kMaxScrollDistance))
            return false;
        action.scrolledPx = scrolled;
    }
    return true;
}

bool readWait(const QJsonValue &value, WaitOutcome &wait)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    Reader r(object);
    if (!r.keysExactly({"status", "scope", "observations", "elapsed_ms"}))
        return false;
    const QJsonValue status = r.value("status");
    if (status == QJsonValue(QStringLiteral("satisfied")))
        wait.status = WaitOutcome::Status::Satisfied;
    else if (status == QJsonValue(QStringLiteral("ambiguous")))
        wait.status = WaitOutcome::Status::Ambiguous;
    else if (status == QJsonValue(QStringLiteral("not_observed")))
        wait.status = WaitOutcome::Status::NotObserved;
    else
        return false;
    return r.string("scope", wait.scope, 32) && wait.scope == QLatin1String("first_window") &&
           r.integer("observations", wait.observations, 1, 21) &&
           r.integer("elapsed_ms", wait.elapsedMs, 0, 600000);
}

} // namespace

QJsonObject BrowserObservation::toJson() const
{
    QJsonArray elementArray;
    for (const ElementRecord &element : elements) {
        elementArray.append(QJsonObject{
            {QStringLiteral("ref"), element.ref},
            {QStringLiteral("role"), element.role},
            {QStringLiteral("name"), element.name},
            {QStringLiteral("state"),
             QJsonObject{{QStringLiteral("disabled"), element.state.disabled},
                         {QStringLiteral("checked"), checkedValue(element.state.checked)},
                         {QStringLiteral("selected"), optionalBool(element.state.selected)},
                         {QStringLiteral("expanded"), optionalBool(element.state.expanded)},
                         {QStringLiteral("required"), element.state.required}}},
        });
    }
    QJsonObject json{
        {QStringLiteral("url"), QString::fromUtf8(url.toEncoded())},
        {QStringLiteral("title"), title},
        {QStringLiteral("revision"), revision},
        {QStringLiteral("text"), text},
        {QStringLiteral("text_coverage"),
         QJsonObject{
             {QStringLiteral("version"), textCoverage.version},
             {QStringLiteral("scope"), textCoverage.scope},
             {QStringLiteral("scanned_nodes"), textCoverage.scannedNodes},
             {QStringLiteral("scanned_text_units"), textCoverage.scannedTextUnits},
             {QStringLiteral("node_limit_reached"), textCoverage.nodeLimitReached},
             {QStringLiteral("text_limit_reached"), textCoverage.textLimitReached},
             {QStringLiteral("omitted_text_bytes"), double(textCoverage.omittedTextBytes)}}},
        {QStringLiteral("elements"), elementArray},
        {QStringLiteral("coverage"),
         QJsonObject{{QStringLiteral("candidate_offset"), coverage.candidateOffset},
                     {QStringLiteral("scanned_candidates"), coverage.scannedCandidates},
                     {QStringLiteral("next_cursor"), coverage.nextCursor
                                                         ? QJsonValue(*coverage.nextCursor)
                                                         : QJsonValue(QJsonValue::Null)},
                     {QStringLiteral("scan_limit_reached"), coverage.scanLimitReached}}},
    };
    if (readiness)
        json.insert(QStringLiteral("readiness"), readinessString(*readiness));
    if (regionCoverage) {
        QJsonArray regionArray;
        for (const RegionRecord &region : regions) {
            QJsonObject record{{QStringLiteral("ref"), region.ref},
                               {QStringLiteral("kind"), region.kind},
                               {QStringLiteral("name"), region.name},
                               {QStringLiteral("summary"), region.summary},
                               {QStringLiteral("summary_truncated"), region.summaryTruncated}};
            if (region.kind == QLatin1String("heading"))
                record.insert(QStringLiteral("level"), region.level);
            regionArray.append(record);
        }
        json.insert(QStringLiteral("regions"), regionArray);
        json.insert(
            QStringLiteral("region_coverage"),
            QJsonObject{{QStringLiteral("version"), regionCoverage->version},
                        {QStringLiteral("scope"), regionCoverage->scope},
                        {QStringLiteral("scanned_nodes"), regionCoverage->scannedNodes},
                        {QStringLiteral("scan_exhausted"), regionCoverage->scanExhausted},
                        {QStringLiteral("omitted_regions"), regionCoverage->omittedRegions}});
    }
    if (focus)
        json.insert(QStringLiteral("focus"),
                    QJsonObject{{QStringLiteral("region_ref"), focus->regionRef},
                                {QStringLiteral("text_offset"), focus->textOffset},
                                {QStringLiteral("text_bytes"), focus->textBytes}});
    if (waitFor)
        json.insert(QStringLiteral("wait_for"),
                    QJsonObject{{QStringLiteral("status"), waitStatusString(waitFor->status)},
                                {QStringLiteral("scope"), waitFor->scope},
                                {QStringLiteral("observations"), waitFor->observations},
                                {QStringLiteral("elapsed_ms"), double(waitFor->elapsedMs)}});
    if (extraction)
        json.insert(QStringLiteral("extraction"), extraction->toJson());
    if (action) {
        QJsonObject record{{QStringLiteral("kind"), action->kind},
                           {QStringLiteral("dispatched"), action->dispatched}};
        if (action->scrolledPx)
            record.insert(QStringLiteral("scrolled_px"), *action->scrolledPx);
        json.insert(QStringLiteral("action"), record);
    }
    if (confirmedDraft)
        json.insert(QStringLiteral("confirmed_draft"), *confirmedDraft);
    return json;
}

Result<BrowserObservation> BrowserObservation::fromJson(const QJsonObject &json,
                                                        const TestOverrides &overrides)
{
    const Error invalid = Error::fromReason(ReasonCode::OutputInvalid);
    BrowserObservation observation;
    QJsonObject base = json; // without the optional extraction, read at the end
    const QJsonValue extraction = base.take(QStringLiteral("extraction"));
    Reader r(base);
    const bool hasReadiness = json.contains(QStringLiteral("readiness"));
    if (!r.keysWithin({"url", "title", "revision", "text", "text_coverage", "elements", "coverage"},
                      {"readiness", "regions", "region_coverage", "focus", "wait_for", "action",
                       "confirmed_draft"}))
        return invalid;

    QString urlText;
    if (!r.string("url", urlText, PublicUrl::kMaxUrlBytes))
        return invalid;
    const Result<QUrl> url = PublicUrl::validate(QUrl(urlText, QUrl::StrictMode), overrides);
    if (!url)
        return invalid;
    observation.url = url.value();

    if (!r.string("title", observation.title, ObservationBounds::kMaxTitleUnits) ||
        hasLoneSurrogate(observation.title))
        return invalid;
    if (!r.string("revision", observation.revision, 128) || observation.revision.size() < 22)
        return invalid;
    if (hasReadiness) {
        const QJsonValue readiness = r.value("readiness");
        if (readiness == QJsonValue(QStringLiteral("dom_quiet")))
            observation.readiness = Readiness::DomQuiet;
        else if (readiness == QJsonValue(QStringLiteral("bound_expired")))
            observation.readiness = Readiness::BoundExpired;
        else
            return invalid;
    }
    if (!r.string("text", observation.text, ObservationBounds::kMaxTextBytes) ||
        observation.text.toUtf8().size() > ObservationBounds::kMaxTextBytes ||
        hasLoneSurrogate(observation.text))
        return invalid;
    if (!readTextCoverage(r.value("text_coverage"), observation.textCoverage))
        return invalid;

    const QJsonValue elements = r.value("elements");
    if (!elements.isArray() || elements.toArray().size() > ObservationBounds::kMaxElements)
        return invalid;
    QSet<QString> refs;
    for (const QJsonValue &value : elements.toArray()) {
        ElementRecord element;
        if (!readElement(value, element) || refs.contains(element.ref))
            return invalid;
        refs.insert(element.ref);
        observation.elements.append(element);
    }
    if (!readCoverage(r.value("coverage"), observation.coverage))
        return invalid;

    // Regions and their coverage together; refs unique across elements and regions.
    if (json.contains(QLatin1String("regions")) != json.contains(QLatin1String("region_coverage")))
        return invalid;
    if (json.contains(QLatin1String("regions"))) {
        const QJsonValue regions = r.value("regions");
        if (!regions.isArray() || regions.toArray().size() > ObservationBounds::kMaxRegions)
            return invalid;
        for (const QJsonValue &value : regions.toArray()) {
            RegionRecord region;
            if (!readRegion(value, region) || refs.contains(region.ref))
                return invalid;
            refs.insert(region.ref);
            observation.regions.append(region);
        }
        RegionCoverage coverage;
        if (!readRegionCoverage(r.value("region_coverage"), coverage))
            return invalid;
        observation.regionCoverage = coverage;
    }
    if (json.contains(QLatin1String("focus"))) {
        FocusState focus;
        if (!readFocus(r.value("focus"), focus) ||
            std::none_of(
                observation.regions.cbegin(), observation.regions.cend(),
                [&focus](const RegionRecord &region) { return region.ref == focus.regionRef; }))
            return invalid;
        observation.focus = focus;
    }
    if (json.contains(QLatin1String("wait_for"))) {
        WaitOutcome wait;
        if (!readWait(r.value("wait_for"), wait))
            return invalid;
        observation.waitFor = wait;
    }
    if (json.contains(QLatin1String("action"))) {
        // An act answers with the settled page's first window: never a focused read, a
        // wait_for outcome or an extraction.
        ActionOutcome action;
        if (!readAction(r.value("action"), action) || observation.focus || observation.waitFor ||
            !extraction.isUndefined())
            return invalid;
        observation.action = action;
    }
    if (json.contains(QLatin1String("confirmed_draft"))) {
        QString draft;
        if (!r.string("confirmed_draft", draft, 2 * ObservationBounds::kMaxDraftCodePoints) ||
            hasLoneSurrogate(draft) ||
            draft.toUcs4().size() > ObservationBounds::kMaxDraftCodePoints ||
            observation.text.toUtf8().size() + draft.toUtf8().size() >
                ObservationBounds::kMaxTextBytes)
            return invalid;
        observation.confirmedDraft = draft;
    }
    if (!extraction.isUndefined()) {
        Result<Extraction> parsed = Extraction::fromJson(extraction);
        if (!parsed || !parsed->refsDisjointFrom(refs)) // evidence refs are never element refs
            return invalid;
        observation.extraction = std::move(parsed.value());
    }
    return observation;
}

} // namespace veetbot
