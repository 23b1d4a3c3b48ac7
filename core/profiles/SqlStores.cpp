#include "SqlStores.h"

#include <QRegularExpression>
#include <QStandardPaths>

#include <utility>

namespace veetbot {

SqlStores::SqlStores(Dialect dialect, ProfileClock clock, const TestOverrides &overrides)
    : m_session(dialect, std::move(clock), overrides),
      m_profiles(
          m_session,
          [this](QSqlDatabase &db, const ProfileScope &scope, const TaskScopeChange &change) {
              return m_taskGrants.endGrantsOutside(db, scope, change);
          }),
      m_taskGrants(m_session, m_profiles), m_standingGrants(m_session, m_profiles),
      m_timeline(m_session), m_taskRuns(m_session), m_schedules(m_session)
{
}

QString SqlStores::defaultSqlitePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/veetbot/profiles.sqlite");
}

Result<std::unique_ptr<SqlStores>> SqlStores::openSqlite(const QString &path, ProfileClock clock,
                                                         const TestOverrides &overrides)
{
    std::unique_ptr<SqlStores> stores(new SqlStores(Dialect::Sqlite, std::move(clock), overrides));
    if (const Result<Unit> opened =
            stores->m_session.openSqlite(path.isEmpty() ? defaultSqlitePath() : path);
        !opened)
        return opened.error();
    return stores;
}

Result<std::unique_ptr<SqlStores>>
SqlStores::openPostgres(const PostgresProfileStoreSettings &settings, ProfileClock clock,
                        const TestOverrides &overrides)
{
    std::unique_ptr<SqlStores> stores(
        new SqlStores(Dialect::Postgres, std::move(clock), overrides));
    if (const Result<Unit> opened = stores->m_session.openPostgres(settings); !opened)
        return opened.error();
    return stores;
}

Result<int> SqlStores::migrate(const QSqlDatabase &ownerConnection)
{
    return SqlMetadataSession::migrate(ownerConnection);
}

Result<Unit> SqlStores::grantApplicationRole(const QSqlDatabase &ownerConnection,
                                             const QString &role)
{
    static const QRegularExpression identifier(QStringLiteral("^[a-z_][a-z0-9_]{0,62}$"));
    const Result<Dialect> dialect = SqlMetadataSession::dialectOf(ownerConnection);
    if (!dialect || *dialect != Dialect::Postgres || !identifier.match(role).hasMatch())
        return profileError(ProfileFailure::Invalid);
    QSqlDatabase db = ownerConnection;
    SqlTransaction transaction(db, Dialect::Postgres);
    if (!db.isOpen() || !transaction.begin(SqlTransaction::Access::Write))
        return profileError(ProfileFailure::RepositoryUnavailable);
    const QString quoted = u'"' + role + u'"';
    const bool granted =
        SqlProfileRepository::grantPrivileges(db, quoted) &&
        SqlTaskGrantStore::grantPrivileges(db, quoted) &&
        SqlQueries::runPlain(db, QStringLiteral("GRANT SELECT ON schema_version TO ") + quoted) &&
        SqlStandingGrantStore::grantPrivileges(db, quoted) &&
        SqlActivityTimeline::grantPrivileges(db, quoted) &&
        SqlTaskRunStore::grantPrivileges(db, quoted) &&
        SqlScheduleStore::grantPrivileges(db, quoted);
    if (!granted || !transaction.commit())
        return profileError(ProfileFailure::RepositoryUnavailable);
    return Unit{};
}

} // namespace veetbot
