#pragma once

#include "SqlMetadataSession.h"
#include "ports/TaskRunStore.h"

#include <QSqlDatabase>
#include <QString>

namespace veetbot {

// TaskRunStore on SQL, over the shared tenant-scoped SqlMetadataSession: a task run's record,
// its attempts, suspensions at a sign-in wall and its end.
class SqlTaskRunStore final : public TaskRunStore
{
public:
    explicit SqlTaskRunStore(SqlMetadataSession &session);
    SqlTaskRunStore(const SqlTaskRunStore &) = delete;
    SqlTaskRunStore &operator=(const SqlTaskRunStore &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on its tables.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    Result<Unit> createTaskRun(const ProfileScope &scope, const TaskRunRecord &record) override;
    Result<TaskRunRecord> taskRun(const ProfileScope &scope, const QUuid &run) const override;
    Result<Unit> saveTaskRunProgress(const ProfileScope &scope, const QUuid &run,
                                     const RunUsage &usage, RunOutcome outcome) override;
    Result<TaskRunRecord> endTaskRun(const ProfileScope &scope, const QUuid &run, RunStatus status,
                                     RunOutcome outcome, const QString &stopCode,
                                     const RunUsage &usage) override;
    Result<int> suspendTaskRun(const ProfileScope &scope, const QUuid &run, const RunUsage &usage,
                               RunOutcome outcome) override;
    Result<Unit> resumeTaskRun(const ProfileScope &scope, const QUuid &run) override;
    Result<int> beginTaskRunAttempt(const ProfileScope &scope, const QUuid &run,
                                    const QUuid &ledgerOwner, qint64 pid) override;
    Result<QList<TaskRunAttempt>> taskRunAttempts(const ProfileScope &scope,
                                                  const QUuid &run) const override;

private:
    SqlMetadataSession &m_session;
};

} // namespace veetbot
