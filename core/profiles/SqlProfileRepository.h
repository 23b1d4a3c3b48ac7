#pragma once

#include "ProfileSchema.h"
#include "domain/TestOverrides.h"
#include "ports/ActivityTimeline.h"
#include "ports/StandingGrantStore.h"
#include "ports/TaskGrantStore.h"
#include "ports/TaskRunStore.h"
#include "profiles/RuleBasedProfileRepository.h"
#include "storage/SqlDatabase.h"

#include <QSqlDatabase>
#include <QString>

#include <functional>
#include <memory>

namespace veetbot {

// Where the PostgreSQL profile store is. The role must be the application role: not the
// owner of the tables, not a superuser, without BYPASSRLS.
struct PostgresProfileStoreSettings
{
    QString host;
    int port = 5432;
    QString database;
    QString user;
    QString password;
};

// BrowserProfileRepository and StandingGrantStore on SQL, one class for both dialects:
//  - SQLite: one local file (by default under the XDG data directory), foreign keys on,
//    WAL journal; opening it migrates it forward.
//  - PostgreSQL: tenant row-level security enabled and forced on every table; every
//    operation runs in a transaction that first sets veetbot.tenant locally. Migrations
//    run separately as the owner role (migrate()); the repository itself connects as an
//    unprivileged application role and refuses the owner, superusers and BYPASSRLS roles.
// Every statement also names the tenant and principal, so visibility does not depend on
// row-level security alone. A missing, unknown or newer schema version fails start-up with
// repository.schema_unknown. Database error text is never passed on: failures are the
// fixed ProfileFailure errors. Each instance owns a uniquely named QSqlDatabase connection
// and must be used from the thread that opened it.
class SqlProfileRepository final : public RuleBasedProfileRepository,
                                   public TaskGrantStore,
                                   public StandingGrantStore,
                                   public ActivityTimeline,
                                   public TaskRunStore
{
public:
    using Dialect = ProfileSchema::Dialect;

    // QStandardPaths::GenericDataLocation + "/veetbot/profiles.sqlite".
    static QString defaultSqlitePath();
    // Opens (creating, owner-only) the file at path, or at defaultSqlitePath() when empty,
    // and migrates it. Origins read back are checked with overrides (tests only).
    static Result<std::unique_ptr<SqlProfileRepository>>
    openSqlite(const QString &path = QString(), ProfileClock clock = {},
               const TestOverrides &overrides = TestOverrides());
    // Connects as the application role and checks the schema; never migrates.
    static Result<std::unique_ptr<SqlProfileRepository>>
    openPostgres(const PostgresProfileStoreSettings &settings, ProfileClock clock = {},
                 const TestOverrides &overrides = TestOverrides());

    // Applies the missing migrations on an open connection (PostgreSQL: as the owner role)
    // in one transaction and returns the resulting version. repository.schema_unknown
    // when the store already has an unknown or newer version; it is then left unchanged.
    static Result<int> migrate(const QSqlDatabase &ownerConnection);
    // PostgreSQL only, run as the owner: lets an application role (a plain lower-case SQL
    // identifier) read and write profile rows and read the schema version. Row-level
    // security still applies to it.
    static Result<Unit> grantApplicationRole(const QSqlDatabase &ownerConnection,
                                             const QString &role);

    ~SqlProfileRepository() override;
    SqlProfileRepository(const SqlProfileRepository &) = delete;
    SqlProfileRepository &operator=(const SqlProfileRepository &) = delete;

    Dialect dialect() const { return m_dialect; }

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
    // ActivityTimeline (SqlActivityTimeline.cpp).
    Result<Unit> startRun(const ProfileScope &scope, const ActivityRun &record) override;
    Result<Unit> appendEvent(const ProfileScope &scope, const QUuid &run,
                             const ActivityEvent &event) override;
    Result<ActivityRun> endRun(const ProfileScope &scope, const QUuid &run,
                               const QString &reason) override;
    Result<QList<ActivityRun>> runs(const ProfileScope &scope, int limit) const override;
    Result<std::pair<ActivityRun, QList<ActivityEvent>>>
    runWithEvents(const ProfileScope &scope, const QUuid &run) const override;
    // TaskRunStore (SqlTaskRuns.cpp).
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

    // StandingGrantStore (SqlStandingGrants.cpp).
    Result<StandingGrant> createStandingGrant(const ProfileScope &scope,
                                              const StandingGrantRequest &request) override;
    Result<StandingGrant> standingGrant(const ProfileScope &scope,
                                        const QUuid &grantId) const override;
    Result<QList<StandingGrant>>
    standingGrants(const ProfileScope &scope, const std::optional<QUuid> &profileId) const override;
    Result<StandingGrant> revokeStandingGrant(const ProfileScope &scope,
                                              const QUuid &grantId) override;
    Result<QList<StandingGrantAuditRecord>>
    standingGrantAudit(const ProfileScope &scope) const override;
    StandingGrantDecision authorize(const ProfileScope &scope, const QUuid &grantId,
                                    const StandingGrantUse &use) const override;

private:
    template <typename T> using Work = std::function<Result<T>(QSqlDatabase &)>;

    SqlProfileRepository(Dialect dialect, ProfileClock clock, TestOverrides overrides);

    QSqlDatabase database() const;
    QDateTime now() const;
    // Runs work in one transaction scoped to the tenant; rolls back on any failure.
    template <typename T>
    Result<T> inTransaction(const ProfileScope &scope, bool write, const Work<T> &work) const;
    // The scoped profile with its origins, or nothing (also for another scope's id).
    Result<std::optional<BrowserProfile>> load(QSqlDatabase &db, const ProfileScope &scope,
                                               const QUuid &id, bool forUpdate) const;
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
    // The profile's newest record that is open and unexpired at time.
    Result<std::optional<AuthenticationCeremony>> loadNewestOpen(QSqlDatabase &db,
                                                                 const ProfileScope &scope,
                                                                 const QUuid &profileId,
                                                                 const QDateTime &time) const;
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
    // The scope's stored list (revision 0 when none); PostgreSQL locks its policy row when
    // forUpdate. A row that breaks an entry's rules or the canonical order fails closed.
    Result<TaskScopeState> loadTaskScopes(QSqlDatabase &db, const ProfileScope &scope,
                                          bool forUpdate) const;
    // Stores a Changed edit over the list read as before, guarded by before's revision
    // (scope.conflict when a concurrent change won).
    Result<Unit> writeTaskScopes(QSqlDatabase &db, const ProfileScope &scope,
                                 const TaskScopeState &before, const TaskScopeChange &change,
                                 const QDateTime &time) const;
    Result<Unit> appendTaskScopeAudit(QSqlDatabase &db, const TaskScopeAuditRecord &record) const;
    // Where a removal ends the task grants outside the new list, inside the transaction that
    // changes the list: every unended grant of the scope whose origin and prefix are not in
    // change.policy ends with scope_removed and its browser.task_grant.ended record, after
    // the policy row lock is taken (so grant creation and use, which take it too, see either
    // the old list or the new one). Re-adding an entry never revives an ended grant.
    Result<Unit> endTaskGrantsOutside(QSqlDatabase &db, const ProfileScope &scope,
                                      const TaskScopeChange &change) const;
    Result<TaskScopeChange> changeTaskScopes(const ProfileScope &scope,
                                             const TaskScopeEdit &edit) override;
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
    // The scoped grant, or nothing (also for another scope's id); PostgreSQL locks its row
    // when forUpdate. A row that breaks the grant's invariants fails closed.
    Result<std::optional<StandingGrant>> loadStandingGrant(QSqlDatabase &db,
                                                           const ProfileScope &scope,
                                                           const QUuid &grantId,
                                                           bool forUpdate) const;
    // Whether the profile's newest sign-in record has an outcome at time: one exists and it
    // is not open and unexpired.
    Result<bool> newestCeremonyFinished(QSqlDatabase &db, const ProfileScope &scope,
                                        const QUuid &profileId, const QDateTime &time) const;
    Result<Unit> appendStandingGrantAudit(QSqlDatabase &db, const StandingGrant &grant,
                                          const QString &kind, const QDateTime &time) const;
    // PostgreSQL, as the owner: the application role's privileges on the grant tables.
    static bool grantStandingGrantPrivileges(QSqlDatabase &db, const QString &quotedRole);
    // PostgreSQL, as the owner: the application role's privileges on the activity tables.
    static bool grantActivityPrivileges(QSqlDatabase &db, const QString &quotedRole);
    // PostgreSQL, as the owner: the application role's privileges on the task-run tables.
    static bool grantTaskRunPrivileges(QSqlDatabase &db, const QString &quotedRole);
    Result<Unit> checkSchema(QSqlDatabase &db) const;
    Result<Unit> checkPostgresRole(QSqlDatabase &db) const;

    Dialect m_dialect;
    ProfileClock m_clock;
    TestOverrides m_overrides;
    SqlConnection m_connection;
};

} // namespace veetbot
