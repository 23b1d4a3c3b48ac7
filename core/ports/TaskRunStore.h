#pragma once

#include "domain/BrowserProfile.h"
#include "domain/Result.h"
#include "domain/TaskRun.h"

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
    // Ends a running run with its final status (not running), outcome, stop code and usage;
    // the open attempt ends with the same status.
    virtual Result<TaskRunRecord> endTaskRun(const ProfileScope &scope, const QUuid &run,
                                             RunStatus status, RunOutcome outcome,
                                             const QString &stopCode, const RunUsage &usage) = 0;
    // A new attempt by this process (its pid and ledger instance): earlier open attempts end
    // "interrupted", and a needs_user run is running again. A run that ended otherwise is
    // run.not_resumable. Returns the attempt's number.
    virtual Result<int> beginTaskRunAttempt(const ProfileScope &scope, const QUuid &run,
                                            const QUuid &ledgerOwner, qint64 pid) = 0;
    virtual Result<QList<TaskRunAttempt>> taskRunAttempts(const ProfileScope &scope,
                                                          const QUuid &run) const = 0;
};

} // namespace veetbot
