#pragma once

#include "SqlActivityTimeline.h"
#include "SqlMetadataSession.h"
#include "SqlProfileRepository.h"
#include "SqlScheduleStore.h"
#include "SqlStandingGrantStore.h"
#include "SqlTaskGrantStore.h"
#include "SqlTaskRunStore.h"

#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace veetbot {

// The owner's metadata on SQL: one store per port over one shared session (its connection,
// dialect, tenant-scoped unit of work and migrations), for both dialects:
//  - SQLite: one local file (by default under the XDG data directory), foreign keys on,
//    WAL journal; opening it migrates it forward.
//  - PostgreSQL: tenant row-level security enabled and forced on every table. Migrations run
//    separately as the owner role (migrate()); the stores connect as an unprivileged
//    application role and refuse the owner, superusers and BYPASSRLS roles.
// A missing, unknown or newer schema version fails start-up with repository.schema_unknown.
// Used from the thread that opened it.
class SqlStores
{
public:
    using Dialect = ProfileSchema::Dialect;

    // QStandardPaths::GenericDataLocation + "/veetbot/profiles.sqlite".
    static QString defaultSqlitePath();
    // Opens (creating, owner-only) the file at path, or at defaultSqlitePath() when empty,
    // and migrates it. Origins read back are checked with overrides (tests only).
    static Result<std::unique_ptr<SqlStores>> openSqlite(const QString &path = QString(),
                                                         ProfileClock clock = {},
                                                         const TestOverrides &overrides = {});
    // Connects as the application role and checks the schema; never migrates.
    static Result<std::unique_ptr<SqlStores>>
    openPostgres(const PostgresProfileStoreSettings &settings, ProfileClock clock = {},
                 const TestOverrides &overrides = {});

    // See SqlMetadataSession::migrate().
    static Result<int> migrate(const QSqlDatabase &ownerConnection);
    // PostgreSQL only, run as the owner: lets an application role (a plain lower-case SQL
    // identifier) read and write every store's rows and read the schema version. Row-level
    // security still applies to it.
    static Result<Unit> grantApplicationRole(const QSqlDatabase &ownerConnection,
                                             const QString &role);

    SqlStores(const SqlStores &) = delete;
    SqlStores &operator=(const SqlStores &) = delete;

    Dialect dialect() const { return m_session.dialect(); }

    SqlProfileRepository &profiles() { return m_profiles; }
    SqlTaskGrantStore &taskGrants() { return m_taskGrants; }
    SqlStandingGrantStore &standingGrants() { return m_standingGrants; }
    SqlActivityTimeline &timeline() { return m_timeline; }
    SqlTaskRunStore &taskRuns() { return m_taskRuns; }
    SqlScheduleStore &schedules() { return m_schedules; }

private:
    SqlStores(Dialect dialect, ProfileClock clock, const TestOverrides &overrides);

    SqlMetadataSession m_session;
    SqlProfileRepository m_profiles;
    SqlTaskGrantStore m_taskGrants;
    SqlStandingGrantStore m_standingGrants;
    SqlActivityTimeline m_timeline;
    SqlTaskRunStore m_taskRuns;
    SqlScheduleStore m_schedules;
};

} // namespace veetbot
