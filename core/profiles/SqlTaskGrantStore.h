#pragma once

#include "SqlMetadataSession.h"
#include "SqlProfileRepository.h"
#include "ports/TaskGrantStore.h"

#include <QSqlDatabase>
#include <QString>
#include <QVariantMap>

#include <optional>

namespace veetbot {

// TaskGrantStore on SQL, over the shared tenant-scoped SqlMetadataSession. A grant is made,
// used and ended in units of work that lock the owner's task-scope policy row (as a policy
// change does) and read the pinned profile, so a grant never outlives the scope or the
// profile generation it was made for.
class SqlTaskGrantStore final : public TaskGrantStore
{
public:
    SqlTaskGrantStore(SqlMetadataSession &session, const SqlProfileRepository &profiles);
    SqlTaskGrantStore(const SqlTaskGrantStore &) = delete;
    SqlTaskGrantStore &operator=(const SqlTaskGrantStore &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on the task-grant tables.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    // The owner's task-scope policy, as the profile store keeps it.
    Result<TaskScopePolicy> taskScopes(const ProfileScope &scope) const override
    {
        return m_profiles.taskScopes(scope);
    }
    Result<TaskGrant> createTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                      const TaskScope &offered, const QUuid &approval,
                                      const QJsonObject &approvalView) override;
    Result<std::optional<TaskGrant>> activeTaskGrant(const ProfileScope &scope,
                                                     const QUuid &session) const override;
    Result<TaskGrantUse> useTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                      const QUuid &grant, int typedCharacters,
                                      const QJsonObject &approvalView) override;
    Result<TaskGrant> endTaskGrant(const ProfileScope &scope, const QUuid &grant,
                                   TaskGrantEnd reason) override;
    Result<QList<TaskGrant>> taskGrants(const ProfileScope &scope) override;
    Result<QList<TaskGrantAuditRecord>> taskGrantAudit(const ProfileScope &scope,
                                                       const QUuid &grant) const override;
    // Where a removal ends the task grants outside the new list, inside the transaction that
    // changes the list: every unended grant of the scope whose origin and prefix are not in
    // change.policy ends with scope_removed and its browser.task_grant.ended record, after
    // the policy row lock is taken (so grant creation and use, which take it too, see either
    // the old list or the new one). Re-adding an entry never revives an ended grant.
    Result<Unit> endGrantsOutside(QSqlDatabase &db, const ProfileScope &scope,
                                  const TaskScopeChange &change) const;

private:
    // The scope's grant matching `condition` (SQL over the grant columns with `values`
    // bound), or none; PostgreSQL locks its row when forUpdate.
    Result<std::optional<TaskGrant>> loadGrant(QSqlDatabase &db, const ProfileScope &scope,
                                               const QString &condition, const QVariantMap &values,
                                               bool forUpdate) const;
    // Ends an unended grant at time with its one ended record (task_grant.ended when a
    // concurrent end won).
    Result<TaskGrant> endGrant(QSqlDatabase &db, TaskGrant grant, TaskGrantEnd reason,
                               const QDateTime &time) const;
    Result<Unit> appendGrantAudit(QSqlDatabase &db, const TaskGrant &grant,
                                  const TaskGrantAuditRecord &record) const;

    SqlMetadataSession &m_session;
    const SqlProfileRepository &m_profiles;
};

} // namespace veetbot
