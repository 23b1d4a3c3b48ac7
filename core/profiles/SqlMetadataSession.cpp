#include "SqlMetadataSession.h"

#include <QSqlError>

#include <utility>

namespace veetbot {

namespace {

using Dialect = ProfileSchema::Dialect;
using SqlQueries::run;
using SqlQueries::runPlain;
using Access = SqlTransaction::Access;

// Serializes concurrent migrations of one PostgreSQL database.
constexpr qint64 kMigrationLockKey = 0x7665657462707266; // "veetbprf"

Error failure(ProfileFailure f)
{
    return profileError(f);
}

QString component()
{
    return QString::fromUtf16(ProfileSchema::kComponent);
}

// The store's own codes for what SqlSchemaVersion reports.
SqlStoreErrors sqlErrors()
{
    return SqlStoreErrors{failure(ProfileFailure::RepositoryUnavailable),
                          failure(ProfileFailure::SchemaUnknown),
                          failure(ProfileFailure::SchemaUnknown)};
}

} // namespace

Result<SqlMetadataSession::Dialect> SqlMetadataSession::dialectOf(const QSqlDatabase &db)
{
    if (db.driverName() == QLatin1String("QSQLITE"))
        return Dialect::Sqlite;
    if (db.driverName() == QLatin1String("QPSQL"))
        return Dialect::Postgres;
    return failure(ProfileFailure::Invalid);
}

SqlMetadataSession::SqlMetadataSession(Dialect dialect, ProfileClock clock, TestOverrides overrides)
    : m_dialect(dialect), m_clock(std::move(clock)), m_overrides(std::move(overrides)),
      m_connection(dialect, QStringLiteral("veetbot.profiles"))
{
}

QDateTime SqlMetadataSession::now() const
{
    return (m_clock ? m_clock() : QDateTime::currentDateTimeUtc()).toUTC();
}

Result<Unit> SqlMetadataSession::openSqlite(const QString &path)
{
    if (!SqlConnection::isDriverAvailable(Dialect::Sqlite))
        return failure(ProfileFailure::RepositoryUnavailable);
    // Metadata only, but still nobody else's business: the file is created owner-only.
    if (!m_connection.openSqliteFile(path))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlDatabase db = m_connection.database();
    if (const Result<int> migrated = migrate(db); !migrated)
        return migrated.error();
    return checkSchema(db);
}

Result<Unit> SqlMetadataSession::openPostgres(const PostgresProfileStoreSettings &settings)
{
    if (!SqlConnection::isDriverAvailable(Dialect::Postgres))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlDatabase db = m_connection.database();
    db.setHostName(settings.host);
    db.setPort(settings.port);
    db.setDatabaseName(settings.database);
    db.setUserName(settings.user);
    db.setPassword(settings.password);
    db.setConnectOptions(QStringLiteral("connect_timeout=10"));
    if (!db.open())
        return failure(ProfileFailure::RepositoryUnavailable);
    if (const Result<Unit> checked = checkSchema(db); !checked)
        return checked.error();
    return checkPostgresRole(db);
}

bool SqlMetadataSession::beginScoped(QSqlDatabase &db, SqlTransaction &transaction,
                                     const ProfileScope &scope, bool write) const
{
    const Access access = write ? Access::Write : Access::Read;
    if (!transaction.begin(access)) {
        // PostgreSQL: one reconnect for a connection the server dropped, with the schema and
        // role checked again. (A SQLite failure here is a lock timeout; reopening would not
        // help and would lose the connection's pragmas.)
        if (m_dialect != Dialect::Postgres)
            return false;
        db.close();
        if (!db.open() || !checkSchema(db) || !checkPostgresRole(db) || !transaction.begin(access))
            return false;
    }
    if (m_dialect == Dialect::Postgres) {
        QSqlQuery tenant(db);
        if (!run(tenant, QStringLiteral("SELECT set_config('veetbot.tenant', :tenant, true)"),
                 {{QStringLiteral(":tenant"), scope.tenant}}))
            return false;
    }
    return true;
}

bool SqlMetadataSession::selectScoped(QSqlQuery &query, const QString &columns,
                                      const QString &table, const ProfileScope &scope,
                                      const QString &condition, const QVariantMap &bindings,
                                      bool forUpdate) const
{
    QString sql = QStringLiteral("SELECT ") + columns + QStringLiteral(" FROM ") + table +
                  QStringLiteral(" WHERE tenant = :tenant AND principal = :principal");
    if (!condition.isEmpty())
        sql += QStringLiteral(" AND ") + condition;
    if (forUpdate && m_dialect == Dialect::Postgres)
        sql += QStringLiteral(" FOR UPDATE");
    return runScoped(query, sql, scope, bindings);
}

bool SqlMetadataSession::runScoped(QSqlQuery &query, const QString &sql, const ProfileScope &scope,
                                   const QVariantMap &bindings)
{
    if (!query.prepare(sql))
        return false;
    // A statement that names neither (a child table keyed by its parent) binds only the rest.
    if (sql.contains(QLatin1String(":tenant")))
        query.bindValue(QStringLiteral(":tenant"), scope.tenant);
    if (sql.contains(QLatin1String(":principal")))
        query.bindValue(QStringLiteral(":principal"), scope.principal);
    for (auto it = bindings.cbegin(); it != bindings.cend(); ++it)
        query.bindValue(it.key(), it.value());
    return query.exec();
}

Result<Unit> SqlMetadataSession::checkSchema(QSqlDatabase &db) const
{
    SqlTransaction transaction(db, m_dialect);
    if (!transaction.begin(Access::Read))
        return failure(ProfileFailure::RepositoryUnavailable);
    const Result<int> version = SqlSchemaVersion::applied(
        db, m_dialect, component(), ProfileSchema::kLatestVersion, sqlErrors());
    transaction.rollback();
    if (!version)
        return version.error();
    if (*version != ProfileSchema::kLatestVersion)
        return failure(ProfileFailure::SchemaUnknown);
    return Unit{};
}

Result<Unit> SqlMetadataSession::checkPostgresRole(QSqlDatabase &db) const
{
    // Row-level security must be enabled and forced on every table, and this role must be
    // able to bypass it in no way: not a superuser, no BYPASSRLS, not (a member of) the
    // tables' owner.
    const QString tables = QStringLiteral(
        "(to_regclass('browser_profiles'), to_regclass('browser_profile_origins'),"
        " to_regclass('browser_authentication_ceremonies'),"
        " to_regclass('browser_task_scope_policies'),"
        " to_regclass('browser_task_scopes'), to_regclass('browser_policy_audit'),"
        " to_regclass('browser_task_grants'), to_regclass('browser_task_grant_audit'),"
        " to_regclass('browser_standing_grants'), to_regclass('browser_grant_audit'),"
        " to_regclass('activity_runs'), to_regclass('activity_events'),"
        " to_regclass('task_runs'), to_regclass('task_run_attempts'))");
    QSqlQuery query(db);
    if (!query.exec(
            QStringLiteral(
                "SELECT"
                " (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user),"
                " (SELECT count(*) FROM pg_class WHERE oid IN ") +
            tables +
            QStringLiteral("   AND pg_has_role(current_user, relowner, 'USAGE')),"
                           " (SELECT count(*) FROM pg_class WHERE oid IN ") +
            tables + QStringLiteral("   AND relrowsecurity AND relforcerowsecurity)")) ||
        !query.next())
        return failure(ProfileFailure::RepositoryUnavailable);
    if (query.value(0).toBool() || query.value(1).toInt() != 0)
        return failure(ProfileFailure::PrivilegedRole);
    if (query.value(2).toInt() != 14)
        return failure(ProfileFailure::SchemaUnknown);
    return Unit{};
}

Result<int> SqlMetadataSession::migrate(const QSqlDatabase &ownerConnection)
{
    const Result<Dialect> dialect = dialectOf(ownerConnection);
    if (!dialect)
        return dialect.error();
    QSqlDatabase db = ownerConnection;
    if (!db.isOpen())
        return failure(ProfileFailure::RepositoryUnavailable);
    SqlTransaction transaction(db, *dialect);
    if (!transaction.begin(Access::Write))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (*dialect == Dialect::Postgres) {
        // "already exists, skipping" notices are expected on every later run.
        if (!runPlain(db, QStringLiteral("SET LOCAL client_min_messages = warning")))
            return failure(ProfileFailure::RepositoryUnavailable);
        QSqlQuery lock(db);
        if (!run(lock, QStringLiteral("SELECT pg_advisory_xact_lock(:key)"),
                 {{QStringLiteral(":key"), kMigrationLockKey}}))
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    const Result<int> migrated = SqlSchemaVersion::migrate(
        db, *dialect, component(), ProfileSchema::migrations(*dialect), sqlErrors());
    if (!migrated)
        return migrated;
    if (!transaction.commit())
        return failure(ProfileFailure::RepositoryUnavailable);
    return migrated;
}

} // namespace veetbot
