#pragma once

#include "domain/web/BrowserEngine.h"

#include <QJsonObject>
#include <QList>

#include <algorithm>
#include <optional>

namespace veetbot {

// Content-free operation diagnostics, version 1. A record is only closed vocabulary and
// bounded numbers: there is no field that could hold a URL, a label, typed text, page text,
// provider or exception text. Collection never influences authorization, write uncertainty
// or retries.
namespace Diagnostics {

inline constexpr int kVersion = 1;
inline constexpr int kMaxPhases = 64;
// One hour: nothing in a 30 s tool budget comes near it; larger is a broken clock.
inline constexpr qint64 kMaxElapsedMs = 3'600'000;
inline constexpr int kMaxStrangerRefusals = 1000;

enum class Phase
{
    SessionAcquisition,
    BrowserLaunch,
    Navigation,
    Readiness,
    ObservationProjection,
    Authorization,
    Dispatch,
    Postcondition,
    Cleanup
};

// Where the phase ran.
enum class Placement
{
    Pipeline,    // the tool pipeline in the calling process (policy, approval, projection)
    InProcess,   // a browser in the calling process (the workbench preview)
    IsolatedHost // the browser host in its own network namespace
};

enum class Outcome
{
    Succeeded,
    Failed,
    Refused, // decided before any effect (policy, approval, arguments, stale revision)
    Cancelled,
    Uncertain // a write may have reached the site
};

// Why a phase did not succeed, from a closed list; None exactly when the outcome is Succeeded.
enum class FailureCategory
{
    None,
    PolicyRefusal,
    LoginNeeded,
    TargetAbsent,
    TargetAmbiguous,
    PageStillChanging,
    ProfileBusy,
    BrowserLost,
    SiteRefusedAccess,
    UnsupportedFeature,
    OutcomeUnknown
};

struct PhaseRecord
{
    Phase phase = Phase::Dispatch;
    Placement placement = Placement::Pipeline;
    Outcome outcome = Outcome::Succeeded;
    FailureCategory failureCategory = FailureCategory::None;
    qint64 elapsedMs = 0;
    int completionOrder = 0; // 0, 1, 2, ... in the order the phases completed
    friend bool operator==(const PhaseRecord &, const PhaseRecord &) = default;
};

struct Summary
{
    int version = kVersion;
    QList<PhaseRecord> phases; // completion order, at most 64
    bool truncated = false;    // more phases completed than were kept
    qint64 totalElapsedMs = 0;
    // The engine of the browser the call reached and its Chromium version, when it reached one
    // that said (docs/decisions/0014). Optional: a summary without it is as valid as before.
    std::optional<EngineIdentity> engine;
    // Requests to origins outside the profile's that the browser refused while the call ran
    // (docs/authority.md, "What leaves the browser"), never their URLs; 0..kMaxStrangerRefusals,
    // written only when there were some.
    int strangerRequestsRefused = 0;

    // {"version":1,"phases":[{"phase","placement","outcome","failure_category",
    //  "elapsed_ms","completion_order"}...],"truncated":b,"total_elapsed_ms":n}, with
    //  "engine":{"name":"chromium","version":"156.0.8078.114"} when known
    QJsonObject toJson() const;
    // Strict: the exact keys, the closed words, bounded numbers, completion order 0..n-1,
    // failure_category "none" exactly for "succeeded", no phase longer than the total (nested
    // phases overlap, so they may sum to more), truncated only with 64 phases, an engine only
    // as EngineIdentity::fromJson reads one. Anything else
    // discards the whole summary (nullopt), never a part of it.
    static std::optional<Summary> fromJson(const QJsonObject &json);
    bool isValid() const;
    friend bool operator==(const Summary &, const Summary &) = default;
};

// Collects one call's summary: keeps the first 64 completed phases and marks the rest as
// truncated. Elapsed values are clamped into the bounds.
class Collector
{
public:
    void record(Phase phase, Placement placement, Outcome outcome, FailureCategory category,
                qint64 elapsedMs);
    void setEngine(const std::optional<EngineIdentity> &engine) { m_summary.engine = engine; }
    void addStrangerRefusals(int count)
    {
        m_summary.strangerRequestsRefused =
            std::clamp(m_summary.strangerRequestsRefused + count, 0, kMaxStrangerRefusals);
    }
    // The summary with the call's total elapsed time; nullopt if it would not validate
    // (a failure recorded without a category, or a success with one).
    std::optional<Summary> finish(qint64 totalElapsedMs) const;

private:
    Summary m_summary;
    int m_completed = 0;
};

QString phaseString(Phase phase);
QString placementString(Placement placement);
QString outcomeString(Outcome outcome);
QString failureCategoryString(FailureCategory category);

} // namespace Diagnostics

} // namespace veetbot
