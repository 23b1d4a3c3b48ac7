#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/run/TaskRun.h"

#include <QList>
#include <QUuid>

namespace veetbot {

// The durable task runs of one tenant and principal (docs/runs.md), in the profile metadata
// store. Every write refuses a record that is not storable (profile.invalid). Failures:
// profile.invalid, repository.unavailable, run.not_found (unknown, or another scope's),
// run.not_resumable, run.too_many_attempts.
class TaskRunStore
{
public:
    virtual ~TaskRunStore() = default;

    // Records a new run, status running, nothing used yet.
    virtual Result<Unit> createTaskRun(const ProfileScope &scope, const TaskRunRecord &run) = 0;
    virtual Result<TaskRunRecord> taskRun(const ProfileScope &scope, const QUuid &run) const = 0;
    // A running run's usage and outcome so far (after every model and tool call).
    virtual Result<Unit> saveTaskRunProgress(const ProfileScope &scope, const QUuid &run,
                                             const RunUsage &usage, RunOutcome outcome) = 0;
    // Ends a running run, or one waiting for the owner's sign-in, with its final status (not
    // running), outcome, stop code and usage; the open attempt ends with the same status.
    virtual Result<TaskRunRecord> endTaskRun(const ProfileScope &scope, const QUuid &run,
                                             RunStatus status, RunOutcome outcome,
                                             const QString &stopCode, const RunUsage &usage) = 0;
    // A new attempt by this process (its pid and ledger instance): earlier open attempts end
    // "interrupted", and a needs_user run is running again. A run that ended otherwise is
    // run.not_resumable. Returns the attempt's number.
    // The run met a sign-in wall and waits for the owner: running -> needs_user with its usage
    // and outcome so far and one more sign-in suspension; its attempt stays open (the process
    // waiting still holds the run). run.not_resumable when it is not running or has waited
    // RunCeilings::kSignInSuspensions times already. Returns the suspensions so far.
    virtual Result<int> suspendTaskRun(const ProfileScope &scope, const QUuid &run,
                                       const RunUsage &usage, RunOutcome outcome) = 0;
    // A verified sign-in lets the waiting run go on: needs_user -> running, exactly once.
    // run.not_resumable when it is not waiting (ended, cancelled, or resumed already).
    virtual Result<Unit> resumeTaskRun(const ProfileScope &scope, const QUuid &run) = 0;
    virtual Result<int> beginTaskRunAttempt(const ProfileScope &scope, const QUuid &run,
                                            const QUuid &ledgerOwner, qint64 pid) = 0;
    virtual Result<QList<TaskRunAttempt>> taskRunAttempts(const ProfileScope &scope,
                                                          const QUuid &run) const = 0;
};

} // namespace veetbot
