#include "Diagnostics.h"

#include "domain/ToolJson.h"

#include <QJsonArray>

#include <algorithm>

namespace veetbot::Diagnostics {

namespace {

constexpr Phase kPhases[] = {
    Phase::SessionAcquisition, Phase::BrowserLaunch,         Phase::Navigation,
    Phase::Readiness,          Phase::ObservationProjection, Phase::Authorization,
    Phase::Dispatch,           Phase::Postcondition,         Phase::Cleanup};
constexpr Placement kPlacements[] = {Placement::Pipeline, Placement::InProcess,
                                     Placement::IsolatedHost};
constexpr Outcome kOutcomes[] = {Outcome::Succeeded, Outcome::Failed, Outcome::Refused,
                                 Outcome::Cancelled, Outcome::Uncertain};
constexpr FailureCategory kCategories[] = {FailureCategory::None,
                                           FailureCategory::PolicyRefusal,
                                           FailureCategory::LoginNeeded,
                                           FailureCategory::TargetAbsent,
                                           FailureCategory::TargetAmbiguous,
                                           FailureCategory::PageStillChanging,
                                           FailureCategory::ProfileBusy,
                                           FailureCategory::BrowserLost,
                                           FailureCategory::SiteRefusedAccess,
                                           FailureCategory::UnsupportedFeature,
                                           FailureCategory::OutcomeUnknown};

template <typename E, std::size_t N>
std::optional<E> fromWord(const QJsonValue &value, const E (&all)[N], QString (*word)(E))
{
    if (!value.isString())
        return std::nullopt;
    for (E e : all) {
        if (word(e) == value.toString())
            return e;
    }
    return std::nullopt;
}

bool recordValid(const PhaseRecord &record, int position, qint64 totalElapsedMs)
{
    const bool categoryConsistent =
        (record.outcome == Outcome::Succeeded) == (record.failureCategory == FailureCategory::None);
    return categoryConsistent && record.completionOrder == position && record.elapsedMs >= 0 &&
           record.elapsedMs <= totalElapsedMs;
}

} // namespace

QString phaseString(Phase phase)
{
    switch (phase) {
    case Phase::SessionAcquisition:
        return QStringLiteral("session_acquisition");
    case Phase::BrowserLaunch:
        return QStringLiteral("browser_launch");
    case Phase::Navigation:
        return QStringLiteral("navigation");
    case Phase::Readiness:
        return QStringLiteral("readiness");
    case Phase::ObservationProjection:
        return QStringLiteral("observation_projection");
    case Phase::Authorization:
        return QStringLiteral("authorization");
    case Phase::Dispatch:
        return QStringLiteral("dispatch");
    case Phase::Postcondition:
        return QStringLiteral("postcondition");
    case Phase::Cleanup:
        return QStringLiteral("cleanup");
    }
    Q_UNREACHABLE();
    return QString();
}

QString placementString(Placement placement)
{
    switch (placement) {
    case Placement::Pipeline:
        return QStringLiteral("pipeline");
    case Placement::InProcess:
        return QStringLiteral("in_process");
    case Placement::IsolatedHost:
        return QStringLiteral("isolated_host");
    }
    Q_UNREACHABLE();
    return QString();
}

QString outcomeString(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Succeeded:
        return QStringLiteral("succeeded");
    case Outcome::Failed:
        return QStringLiteral("failed");
    case Outcome::Refused:
        return QStringLiteral("refused");
    case Outcome::Cancelled:
        return QStringLiteral("cancelled");
    case Outcome::Uncertain:
        return QStringLiteral("uncertain");
    }
    Q_UNREACHABLE();
    return QString();
}

QString failureCategoryString(FailureCategory category)
{
    switch (category) {
    case FailureCategory::None:
        return QStringLiteral("none");
    case FailureCategory::PolicyRefusal:
        return QStringLiteral("policy_refusal");
    case FailureCategory::LoginNeeded:
        return QStringLiteral("login_needed");
    case FailureCategory::TargetAbsent:
        return QStringLiteral("target_absent");
    case FailureCategory::TargetAmbiguous:
        return QStringLiteral("target_ambiguous");
    case FailureCategory::PageStillChanging:
        return QStringLiteral("page_still_changing");
    case FailureCategory::ProfileBusy:
        return QStringLiteral("profile_busy");
    case FailureCategory::BrowserLost:
        return QStringLiteral("browser_lost");
    case FailureCategory::SiteRefusedAccess:
        return QStringLiteral("site_refused_access");
    case FailureCategory::UnsupportedFeature:
        return QStringLiteral("unsupported_feature");
    case FailureCategory::OutcomeUnknown:
        return QStringLiteral("outcome_unknown");
    }
    Q_UNREACHABLE();
    return QString();
}

bool Summary::isValid() const
{
    if (engine && !isEngineVersion(engine->version))
        return false;
    if (strangerRequestsRefused < 0 || strangerRequestsRefused > kMaxStrangerRefusals)
        return false;
    if (version != kVersion || phases.size() > kMaxPhases || totalElapsedMs < 0 ||
        totalElapsedMs > kMaxElapsedMs || (truncated && phases.size() != kMaxPhases))
        return false;
    for (int i = 0; i < phases.size(); ++i) {
        if (!recordValid(phases.at(i), i, totalElapsedMs))
            return false;
    }
    return true;
}

QJsonObject Summary::toJson() const
{
    QJsonArray records;
    for (const PhaseRecord &record : phases) {
        records.append(QJsonObject{
            {QStringLiteral("phase"), phaseString(record.phase)},
            {QStringLiteral("placement"), placementString(record.placement)},
            {QStringLiteral("outcome"), outcomeString(record.outcome)},
            {QStringLiteral("failure_category"), failureCategoryString(record.failureCategory)},
            {QStringLiteral("elapsed_ms"), record.elapsedMs},
            {QStringLiteral("completion_order"), record.completionOrder}});
    }
    QJsonObject json{{QStringLiteral("version"), version},
                     {QStringLiteral("phases"), records},
                     {QStringLiteral("truncated"), truncated},
                     {QStringLiteral("total_elapsed_ms"), totalElapsedMs}};
    if (engine)
        json.insert(QStringLiteral("engine"), engine->toJson());
    if (strangerRequestsRefused > 0)
        json.insert(QStringLiteral("stranger_requests_refused"), strangerRequestsRefused);
    return json;
}

std::optional<Summary> Summary::fromJson(const QJsonObject &json)
{
    if (!ToolJson::hasOnlyKeys(json,
                               {"version", "phases", "truncated", "total_elapsed_ms", "engine",
                                "stranger_requests_refused"},
                               {"version", "phases", "truncated", "total_elapsed_ms"}))
        return std::nullopt;
    const auto version =
        ToolJson::integer(json.value(QLatin1String("version")), kVersion, kVersion);
    const auto truncated = ToolJson::boolean(json.value(QLatin1String("truncated")));
    const auto total =
        ToolJson::integer(json.value(QLatin1String("total_elapsed_ms")), 0, kMaxElapsedMs);
    const QJsonValue phases = json.value(QLatin1String("phases"));
    if (!version || !truncated || !total || !phases.isArray() ||
        phases.toArray().size() > kMaxPhases)
        return std::nullopt;
    Summary summary;
    summary.truncated = *truncated;
    summary.totalElapsedMs = *total;
    if (json.contains(QLatin1String("engine"))) {
        summary.engine = EngineIdentity::fromJson(json.value(QLatin1String("engine")));
        if (!summary.engine)
            return std::nullopt;
    }
    if (json.contains(QLatin1String("stranger_requests_refused"))) {
        const auto refused = ToolJson::integer(
            json.value(QLatin1String("stranger_requests_refused")), 1, kMaxStrangerRefusals);
        if (!refused)
            return std::nullopt;
        summary.strangerRequestsRefused = int(*refused);
    }
    for (const QJsonValue &value : phases.toArray()) {
        if (!value.isObject())
            return std::nullopt;
        const QJsonObject object = value.toObject();
        if (!ToolJson::hasOnlyKeys(object,
                                   {"phase", "placement", "outcome", "failure_category",
                                    "elapsed_ms", "completion_order"},
                                   {"phase", "placement", "outcome", "failure_category",
                                    "elapsed_ms", "completion_order"}))
            return std::nullopt;
        const auto phase = fromWord(object.value(QLatin1String("phase")), kPhases, phaseString);
        const auto placement =
            fromWord(object.value(QLatin1String("placement")), kPlacements, placementString);
        const auto outcome =
            fromWord(object.value(QLatin1String("outcome")), kOutcomes, outcomeString);
        const auto category = fromWord(object.value(QLatin1String("failure_category")), kCategories,
                                       failureCategoryString);
        const auto elapsed =
            ToolJson::integer(object.value(QLatin1String("elapsed_ms")), 0, kMaxElapsedMs);
        const auto order =
            ToolJson::integer(object.value(QLatin1String("completion_order")), 0, kMaxPhases - 1);
        if (!phase || !placement || !outcome || !category || !elapsed || !order)
            return std::nullopt;
        summary.phases.append(
            PhaseRecord{*phase, *placement, *outcome, *category, *elapsed, int(*order)});
    }
    if (!summary.isValid())
        return std::nullopt;
    return summary;
}

void Collector::record(Phase phase, Placement placement, Outcome outcome, FailureCategory category,
                       qint64 elapsedMs)
{
    ++m_completed;
    if (m_summary.phases.size() >= kMaxPhases) {
        m_summary.truncated = true;
        return;
    }
    m_summary.phases.append(PhaseRecord{phase, placement, outcome, category,
                                        std::clamp<qint64>(elapsedMs, 0, kMaxElapsedMs),
                                        int(m_summary.phases.size())});
}

std::optional<Summary> Collector::finish(qint64 totalElapsedMs) const
{
    Summary summary = m_summary;
    summary.totalElapsedMs = std::clamp<qint64>(totalElapsedMs, 0, kMaxElapsedMs);
    // A nested phase cannot outlast the call; a clock that says otherwise is clamped.
    for (PhaseRecord &record : summary.phases)
        record.elapsedMs = std::min(record.elapsedMs, summary.totalElapsedMs);
    if (!summary.isValid())
        return std::nullopt;
    return summary;
}

} // namespace veetbot::Diagnostics
