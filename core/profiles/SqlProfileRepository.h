#pragma once

#include "SqlMetadataSession.h"
#include "profiles/RuleBasedProfileRepository.h"

#include <QSqlDatabase>
#include <QString>

#include <functional>
#include <optional>

namespace veetbot {

// BrowserProfileRepository on SQL (profiles with their origins, sign-in ceremonies, the
// owner's task-scope policy), over the shared tenant-scoped SqlMetadataSession. Origins read
// back are checked with the session's overrides; a row that breaks a domain invariant is a
// damaged store and fails closed (repository.unavailable).
class SqlProfileRepository final : public RuleBasedProfileRepository
{
public:
    // What else ends, in the same unit of work, when a task-scope change removes entries (the
    // task grants outside the new list: SqlTaskGrantStore::endGrantsOutside()).
    using ScopesChanged =
        std::function<Result<Unit>(QSqlDatabase &, const ProfileScope &, const TaskScopeChange &)>;

    SqlProfileRepository(SqlMetadataSession &session, ScopesChanged scopesChanged);
    SqlProfileRepository(const SqlProfileRepository &) = delete;
    SqlProfileRepository &operator=(const SqlProfileRepository &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on the profile tables.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    Result<BrowserProfile> create(const ProfileScope &scope,
                                  const BrowserProfile &profile) override;
    Result<BrowserProfile> get(const ProfileScope &scope, const QUuid &id) const override;
    Result<QList<BrowserProfile>> list(const ProfileScope &scope) const override;
    Result<Unit> remove(const ProfileScope &scope, const QUuid &id,
                        qint64 expectedGeneration) override;
    Result<AuthenticationCeremony> ceremony(const ProfileScope &scope,
                                            const QString &ceremonyId) const override;
    Result<std::optional<AuthenticationCeremony>>
    newestOpenCeremony(const ProfileScope &scope, const QUuid &profileId) const override;
    Result<TaskScopePolicy> taskScopes(const ProfileScope &scope) const override;
    Result<QList<TaskScopeAuditRecord>> taskScopeAudit(const ProfileScope &scope) const override;

    // Row reads for the stores checked against a profile, inside their own unit of work on
    // the same session.
    // The scoped profile with its origins, or nothing (also for another scope's id).
    Result<std::optional<BrowserProfile>> loadProfile(QSqlDatabase &db, const ProfileScope &scope,
                                                      const QUuid &id, bool forUpdate) const;
    // The profile's newest record that is open and unexpired at time.
    Result<std::optional<AuthenticationCeremony>> loadNewestOpen(QSqlDatabase &db,
                                                                 const ProfileScope &scope,
                                                                 const QUuid &profileId,
                                                                 const QDateTime &time) const;
    // The scope's stored list (revision 0 when none); PostgreSQL locks its policy row when
    // forUpdate. A row that breaks an entry's rules or the canonical order fails closed.
    Result<TaskScopeState> loadTaskScopes(QSqlDatabase &db, const ProfileScope &scope,
                                          bool forUpdate) const;

private:
    // Loads the scoped profile, applies a lifecycle rule and writes the result under the
    // owning scope and the generation it was read at.
    Result<BrowserProfile> update(const ProfileScope &scope, const QUuid &id,
                                  const Rule &rule) override;
    // Writes next over the scoped row read as before, guarded by before's generation.
    Result<Unit> writeProfile(QSqlDatabase &db, const ProfileScope &scope,
                              const BrowserProfile &before, const BrowserProfile &next) const;
    // The scoped record, or nothing (also for another scope's id or a malformed one).
    Result<std::optional<AuthenticationCeremony>> loadCeremony(QSqlDatabase &db,
                                                               const ProfileScope &scope,
                                                               const QString &ceremonyId,
                                                               bool forUpdate) const;
    // The same, read without a lock, that must exist (ceremony.not_found otherwise).
    Result<AuthenticationCeremony> existingCeremony(QSqlDatabase &db, const ProfileScope &scope,
                                                    const QString &ceremonyId) const;
    Result<Unit> insertCeremony(QSqlDatabase &db, const AuthenticationCeremony &ceremony) const;
    // Writes an outcome over the record read as before, guarded by before's status.
    Result<Unit> writeCeremony(QSqlDatabase &db, const AuthenticationCeremony &before,
                               const AuthenticationCeremony &next) const;
    // Locks the profile (PostgreSQL: its row; SQLite: the store) through the admission.
    Result<CeremonyBegun> admit(const ProfileScope &scope, const QUuid &profileId,
                                const Admission &admission) override;
    // Locks the profile, then the record, and stores what the settlement changed.
    Result<CeremonySettlement> settle(const ProfileScope &scope, const QString &ceremonyId,
                                      const Settlement &settlement) override;
    // Stores a Changed edit over the list read as before, guarded by before's revision
    // (scope.conflict when a concurrent change won).
    Result<Unit> writeTaskScopes(QSqlDatabase &db, const ProfileScope &scope,
                                 const TaskScopeState &before, const TaskScopeChange &change,
                                 const QDateTime &time) const;
    Result<Unit> appendTaskScopeAudit(QSqlDatabase &db, const TaskScopeAuditRecord &record) const;
    Result<TaskScopeChange> changeTaskScopes(const ProfileScope &scope,
                                             const TaskScopeEdit &edit) override;

    SqlMetadataSession &m_session;
    ScopesChanged m_scopesChanged;
};

} // namespace veetbot
