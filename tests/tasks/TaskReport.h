#pragma once

#include "TaskManifest.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace veetbot::tasks {

// One request as the fixture server recorded it.
struct ObservedRequest
{
    QString method;
    QString path; // without query
    QString query;
    QByteArray body;
};

// The comparison of one run's requests with the task's expected effects. Content-free: it
// holds counts only.
struct EffectCheck
{
    int expected = 0; // payloads the manifest lists
    int observed = 0; // requests on the listed method and path, plus unlisted writes
    bool matched = false;
};

// Every request with a listed (method, path) must carry exactly the listed payloads in order
// (the body; for GET the query), and no request other than GET or HEAD may arrive anywhere
// unless listed: an unlisted write is a mismatch wherever it went. Paths are compared below
// the task's prefix. Reads (GET, HEAD) on unlisted paths are page loads and polling, not
// effects.
EffectCheck checkEffects(const Task &task, const QList<ObservedRequest> &requests);

// One run of one task at one budget.
struct TaskRun
{
    // A closed set of words for why a run failed (never page or typed content).
    enum class Failure
    {
        None,
        ControlNotFound,    // the control was in no window the continuation reached
        ControlPresent,     // an `absent` control was shown
        StateMismatch,      // the control was in another state than the step says
        RegionNotFound,     // the region was in no projection
        UnexpectedResult,   // a tool call ended otherwise than the step expects (see code)
        WaitNotSatisfied,   // wait_for ended without a single matching control
        PickFailed,         // extraction: not exactly one row matched
        ReadFailed,         // the marker or the word after it was never shown
        ProjectionInvalid,  // the projection was not JSON within the budget, or omitted
        UnexpectedApproval, // an approval was asked where none was expected
        SiteChangeFailed,   // the page function a step names did not run
        Timeout,            // a tool call did not answer in time
        EffectMismatch,     // the fixture server did not see exactly the expected effects
    };

    QString taskId;
    int budget = 0;
    int repetition = 0; // 1-based
    bool passed = false;
    Failure failure = Failure::None;
    int failedStep = -1; // 0-based index into the task's steps; -1 for none or effects
    QString code;        // the tool's stable failure code for UnexpectedResult
    int navigateCalls = 0;
    int observeCalls = 0;
    int actCalls = 0;
    qint64 durationMs = 0;
    EffectCheck effects;
};

QString failureName(TaskRun::Failure failure);

// The content-free report of a manifest run (docs/tasks.md): version, the manifest's task ids,
// budgets and repetitions, one record per run (outcome, operation counts, duration, effect
// counts, budget, model calls 0) and `verified`. No page text, URL, query, typed text or
// reference can enter it: every value is a count, a duration, a manifest id or budget, or a
// word from a closed list.
class TaskReport
{
public:
    static constexpr int kVersion = 1;

    // True only when every task of the manifest ran exactly once at every budget and
    // repetition, every run passed with its effects matched, and no run names anything else.
    static bool verified(const TaskManifest &manifest, const QList<TaskRun> &runs);
    static QJsonObject toJson(const TaskManifest &manifest, const QList<TaskRun> &runs,
                              qint64 totalDurationMs);
};

} // namespace veetbot::tasks
