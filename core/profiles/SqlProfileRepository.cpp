#include "SqlProfileRepository.h"

#include "SqlRowFormat.h"
#include "storage/SqlQueries.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QVariant>

#include <algorithm>
#include <utility>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

using Dialect = ProfileSchema::Dialect;
using SqlQueries::Bindings;

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

using SqlQueries::run;
using SqlQueries::runPlain;
using Access = SqlTransaction::Access;

// The repository's own codes for what SqlSchemaVersion reports.
SqlStoreErrors sqlErrors()
{
    return SqlStoreErrors{failure(ProfileFailure::RepositoryUnavailable),
                          failure(ProfileFailure::SchemaUnknown),
                          failure(ProfileFailure::SchemaUnknown)};
}

bool isUniqueViolation(const QSqlError &error, Dialect dialect)
{
    const QString code = error.nativeErrorCode();
    if (dialect == Dialect::Postgres)
        return code == QLatin1String("23505");
    // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY, or the primary
    // SQLITE_CONSTRAINT with SQLite's fixed English message.
    if (code == QLatin1String("2067") || code == QLatin1String("1555"))
        return true;
    return code == QLatin1String("19") &&
           error.databaseText().contains(QLatin1String("UNIQUE constraint failed"));
}

Result<Dialect> dialectOf(const QSqlDatabase &db)
{
    if (db.driverName() == QLatin1String("QSQLITE"))
        return Dialect::Sqlite;
    if (db.driverName() == QLatin1String("QPSQL"))
        return Dialect::Postgres;
    return failure(ProfileFailure::Invalid);
}

// The profile columns in a fixed order, timestamps as UTC text (SQLite) or epoch
// milliseconds (PostgreSQL).
QString profileColumns(Dialect dialect)
{
    if (dialect == Dialect::Postgres) {
        return QStringLiteral(
            "CAST(id AS text), tenant, principal, provider_name, provider_reference, status,"
            " generation, key_version,"
            " CAST(EXTRACT(EPOCH FROM created_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM updated_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM last_used_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM last_verified_at) * 1000 AS bigint)");
    }
    return QStringLiteral(
        "id, tenant, principal, provider_name, provider_reference, status, generation,"
        " key_version, created_at, updated_at, last_used_at, last_verified_at");
}

// The ceremony columns in a fixed order, timestamps as for the profile columns.
QString ceremonyColumns(Dialect dialect)
{
    if (dialect == Dialect::Postgres) {
        return QStringLiteral(
            "CAST(id AS text), CAST(profile_id AS text), tenant, principal, mode, status,"
            " failure_code,"
            " CAST(EXTRACT(EPOCH FROM created_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM expires_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM finished_at) * 1000 AS bigint)");
    }
    return QStringLiteral("id, profile_id, tenant, principal, mode, status, failure_code,"
                          " created_at, expires_at, finished_at");
}

// One row of profileColumns(); the origins are filled in separately.
Result<BrowserProfile> decodeProfile(const QSqlQuery &query, Dialect dialect)
{
    BrowserProfile profile;
    profile.id = QUuid::fromString(query.value(0).toString());
    profile.tenant = query.value(1).toString();
    profile.principal = query.value(2).toString();
    profile.providerName = decodeText(query.value(3));
    profile.providerReference = decodeText(query.value(4));
    const std::optional<ProfileStatus> status = profileStatusFromString(query.value(5).toString());
    bool generationOk = false;
    profile.generation = query.value(6).toLongLong(&generationOk);
    profile.keyVersion = decodeText(query.value(7));
    const std::optional<QDateTime> createdAt = decodeTime(query.value(8), dialect);
    const std::optional<QDateTime> updatedAt = decodeTime(query.value(9), dialect);
    profile.lastUsedAt = decodeTime(query.value(10), dialect);
    profile.lastVerifiedAt = decodeTime(query.value(11), dialect);
    if (!status || !generationOk || !createdAt || !updatedAt)
        return failure(ProfileFailure::RepositoryUnavailable);
    profile.status = *status;
    profile.createdAt = *createdAt;
    profile.updatedAt = *updatedAt;
    return profile;
}

// Stored origins are re-checked: a row that is not an exact normalized public HTTPS origin
// fails closed.
Result<Origin> decodeOrigin(const QString &text, const TestOverrides &overrides)
{
    Result<Origin> origin = Origin::parse(text, overrides);
    if (!origin || origin->toString() != text)
        return failure(ProfileFailure::RepositoryUnavailable);
    return origin;
}

// A row read back must satisfy every domain invariant; anything else is a damaged store.
Result<BrowserProfile> finishProfile(BrowserProfile profile)
{
    std::sort(profile.allowedOrigins.begin(), profile.allowedOrigins.end());
    if (!profile.validate())
        return failure(ProfileFailure::RepositoryUnavailable);
    return profile;
}

// One row of ceremonyColumns(), held to the record's invariants like a profile row.
Result<AuthenticationCeremony> decodeCeremony(const QSqlQuery &query, Dialect dialect)
{
    AuthenticationCeremony ceremony;
    ceremony.id = query.value(0).toString();
    ceremony.profileId = QUuid::fromString(query.value(1).toString());
    ceremony.tenant = query.value(2).toString();
    ceremony.principal = query.value(3).toString();
    ceremony.mode = query.value(4).toString();
    const std::optional<CeremonyStatus> status =
        ceremonyStatusFromString(query.value(5).toString());
    const std::optional<QString> failureCode = decodeText(query.value(6));
    const std::optional<QDateTime> createdAt = decodeTime(query.value(7), dialect);
    const std::optional<QDateTime> expiresAt = decodeTime(query.value(8), dialect);
    ceremony.finishedAt = decodeTime(query.value(9), dialect);
    if (!status || !createdAt || !expiresAt)
        return failure(ProfileFailure::RepositoryUnavailable);
    ceremony.status = *status;
    ceremony.createdAt = *createdAt;
    ceremony.expiresAt = *expiresAt;
    if (failureCode) {
        ceremony.failureCode = ceremonyFailureCodeFromString(*failureCode);
        if (!ceremony.failureCode)
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    if (!ceremony.validate())
        return failure(ProfileFailure::RepositoryUnavailable);
    return ceremony;
}

QVariant optionalFailureCode(const std::optional<CeremonyFailureCode> &code)
{
    return code ? QVariant(ceremonyFailureCodeString(*code)) : nullText();
}

// PostgreSQL's lock_not_available: a lock wait ran into lock_timeout.
bool isLockTimeout(const QSqlError &error, Dialect dialect)
{
    return dialect == Dialect::Postgres && error.nativeErrorCode() == QLatin1String("55P03");
}

// How long a ceremony begin waits for the lock another begin holds through its launch.
constexpr int kAdmissionLockWaitMs = 5000;

// While it lives, this SQLite connection waits at most the given time for the store's write
// lock; the previous wait comes back afterwards.
class SqliteLockWait
{
public:
    SqliteLockWait(const QSqlDatabase &db, int milliseconds) : m_db(db)
    {
        QSqlQuery current(m_db);
        if (!current.exec(QStringLiteral("PRAGMA busy_timeout")) || !current.next())
            return;
        bool ok = false;
        const int previous = current.value(0).toInt(&ok);
        current.finish();
        if (ok && runPlain(m_db, QStringLiteral("PRAGMA busy_timeout = %1").arg(milliseconds)))
            m_previous = previous;
    }
    ~SqliteLockWait()
    {
        // Nothing to report: a failure leaves the shorter wait, which only fails sooner.
        if (m_previous)
            static_cast<void>(
                runPlain(m_db, QStringLiteral("PRAGMA busy_timeout = %1").arg(*m_previous)));
    }
    SqliteLockWait(const SqliteLockWait &) = delete;
    SqliteLockWait &operator=(const SqliteLockWait &) = delete;

    bool isSet() const { return m_previous.has_value(); }

private:
    QSqlDatabase m_db;
    std::optional<int> m_previous;
};

} // namespace

SqlProfileRepository::SqlProfileRepository(Dialect dialect, ProfileClock clock,
                                           TestOverrides overrides)
    : m_dialect(dialect), m_clock(std::move(clock)), m_overrides(std::move(overrides)),
      m_connection(dialect, QStringLiteral("veetbot.profiles"))
{
}

SqlProfileRepository::~SqlProfileRepository() = default;

QSqlDatabase SqlProfileRepository::database() const
{
    return m_connection.database();
}

QDateTime SqlProfileRepository::now() const
{
    return (m_clock ? m_clock() : QDateTime::currentDateTimeUtc()).toUTC();
}

QString SqlProfileRepository::defaultSqlitePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/veetbot/profiles.sqlite");
}

Result<std::unique_ptr<SqlProfileRepository>>
SqlProfileRepository::openSqlite(const QString &path, ProfileClock clock,
                                 const TestOverrides &overrides)
{
    if (!SqlConnection::isDriverAvailable(Dialect::Sqlite))
        return failure(ProfileFailure::RepositoryUnavailable);
    std::unique_ptr<SqlProfileRepository> repository(
        new SqlProfileRepository(Dialect::Sqlite, std::move(clock), overrides));
    // Metadata only, but still nobody else's business: the file is created owner-only.
    if (!repository->m_connection.openSqliteFile(path.isEmpty() ? defaultSqlitePath() : path))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlDatabase db = repository->database();
    if (const Result<int> migrated = migrate(db); !migrated)
        return migrated.error();
    if (const Result<Unit> checked = repository->checkSchema(db); !checked)
        return checked.error();
    return repository;
}

Result<std::unique_ptr<SqlProfileRepository>>
SqlProfileRepository::openPostgres(const PostgresProfileStoreSettings &settings, ProfileClock clock,
                                   const TestOverrides &overrides)
{
    if (!SqlConnection::isDriverAvailable(Dialect::Postgres))
        return failure(ProfileFailure::RepositoryUnavailable);
    std::unique_ptr<SqlProfileRepository> repository(
        new SqlProfileRepository(Dialect::Postgres, std::move(clock), overrides));
    QSqlDatabase db = repository->database();
    db.setHostName(settings.host);
    db.setPort(settings.port);
    db.setDatabaseName(settings.database);
    db.setUserName(settings.user);
    db.setPassword(settings.password);
    db.setConnectOptions(QStringLiteral("connect_timeout=10"));
    if (!db.open())
        return failure(ProfileFailure::RepositoryUnavailable);
    if (const Result<Unit> checked = repository->checkSchema(db); !checked)
        return checked.error();
    if (const Result<Unit> role = repository->checkPostgresRole(db); !role)
        return role.error();
    return repository;
}

Result<Unit> SqlProfileRepository::checkSchema(QSqlDatabase &db) const
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

Result<Unit> SqlProfileRepository::checkPostgresRole(QSqlDatabase &db) const
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

Result<int> SqlProfileRepository::migrate(const QSqlDatabase &ownerConnection)
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

Result<Unit> SqlProfileRepository::grantApplicationRole(const QSqlDatabase &ownerConnection,
                                                        const QString &role)
{
    static const QRegularExpression identifier(QStringLiteral("^[a-z_][a-z0-9_]{0,62}$"));
    const Result<Dialect> dialect = dialectOf(ownerConnection);
    if (!dialect || *dialect != Dialect::Postgres || !identifier.match(role).hasMatch())
        return failure(ProfileFailure::Invalid);
    QSqlDatabase db = ownerConnection;
    SqlTransaction transaction(db, Dialect::Postgres);
    if (!db.isOpen() || !transaction.begin(Access::Write))
        return failure(ProfileFailure::RepositoryUnavailable);
    const QString quoted = u'"' + role + u'"';
    // The audit is append-only for the application: it may add records, never change one.
    const bool granted =
        runPlain(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE"
                                    " ON browser_profiles, browser_profile_origins,"
                                    " browser_authentication_ceremonies,"
                                    " browser_task_scope_policies, browser_task_scopes TO ") +
                         quoted) &&
        runPlain(db, QStringLiteral("GRANT SELECT, INSERT ON browser_policy_audit TO ") + quoted) &&
        // A grant is history once made: its counters and end change, the row is never removed.
        runPlain(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE ON browser_task_grants TO ") +
                         quoted) &&
        runPlain(db,
                 QStringLiteral("GRANT SELECT, INSERT ON browser_task_grant_audit TO ") + quoted) &&
        runPlain(db, QStringLiteral("GRANT SELECT ON schema_version TO ") + quoted) &&
        grantStandingGrantPrivileges(db, quoted) && grantActivityPrivileges(db, quoted) &&
        grantTaskRunPrivileges(db, quoted);
    if (!granted || !transaction.commit())
        return failure(ProfileFailure::RepositoryUnavailable);
    return Unit{};
}

template <typename T>
Result<T> SqlProfileRepository::inTransaction(const ProfileScope &scope, bool write,
                                              const Work<T> &work) const
{
    if (!scope.validate())
        return failure(ProfileFailure::Invalid);
    QSqlDatabase db = database();
    const Access access = write ? Access::Write : Access::Read;
    SqlTransaction transaction(db, m_dialect);
    if (!transaction.begin(access)) {
        // PostgreSQL: one reconnect for a connection the server dropped, with the schema and
        // role checked again. (A SQLite failure here is a lock timeout; reopening would not
        // help and would lose the connection's pragmas.)
        if (m_dialect != Dialect::Postgres)
            return failure(ProfileFailure::RepositoryUnavailable);
        db.close();
        if (!db.open() || !checkSchema(db) || !checkPostgresRole(db) || !transaction.begin(access))
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    if (m_dialect == Dialect::Postgres) {
        QSqlQuery tenant(db);
        if (!run(tenant, QStringLiteral("SELECT set_config('veetbot.tenant', :tenant, true)"),
                 {{QStringLiteral(":tenant"), scope.tenant}}))
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    Result<T> result = work(db);
    if (!result)
        return result;
    if (!transaction.commit())
        return failure(ProfileFailure::RepositoryUnavailable);
    return result;
}

// The activity timeline (SqlActivityTimeline.cpp) runs in the same transactions.
template Result<ActivityRun> SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                                                 const Work<ActivityRun> &) const;
template Result<QList<ActivityRun>>
SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                    const Work<QList<ActivityRun>> &) const;
template Result<std::pair<ActivityRun, QList<ActivityEvent>>> SqlProfileRepository::inTransaction(
    const ProfileScope &, bool, const Work<std::pair<ActivityRun, QList<ActivityEvent>>> &) const;

// The task runs (SqlTaskRuns.cpp) run in the same transactions.
template Result<TaskRunRecord>
SqlProfileRepository::inTransaction(const ProfileScope &, bool, const Work<TaskRunRecord> &) const;
template Result<int> SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                                         const Work<int> &) const;
template Result<QList<TaskRunAttempt>>
SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                    const Work<QList<TaskRunAttempt>> &) const;

// The standing-grant methods (SqlStandingGrants.cpp) run in the same transactions.
template Result<StandingGrant>
SqlProfileRepository::inTransaction(const ProfileScope &, bool, const Work<StandingGrant> &) const;
template Result<QList<StandingGrant>>
SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                    const Work<QList<StandingGrant>> &) const;
template Result<QList<StandingGrantAuditRecord>>
SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                    const Work<QList<StandingGrantAuditRecord>> &) const;
template Result<StandingGrantDecision>
SqlProfileRepository::inTransaction(const ProfileScope &, bool,
                                    const Work<StandingGrantDecision> &) const;

Result<std::optional<BrowserProfile>> SqlProfileRepository::load(QSqlDatabase &db,
                                                                 const ProfileScope &scope,
                                                                 const QUuid &id,
                                                                 bool forUpdate) const
{
    QSqlQuery row(db);
    const QString lock =
        forUpdate && m_dialect == Dialect::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    if (!run(row,
             QStringLiteral("SELECT ") + profileColumns(m_dialect) +
                 QStringLiteral(" FROM browser_profiles"
                                " WHERE id = :id AND tenant = :tenant AND principal = :principal") +
                 lock,
             {{QStringLiteral(":id"), idText(id)},
              {QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<BrowserProfile>();
    Result<BrowserProfile> profile = decodeProfile(row, m_dialect);
    if (!profile)
        return profile.error();
    row.finish();

    QSqlQuery origins(db);
    if (!run(origins,
             QStringLiteral("SELECT origin FROM browser_profile_origins"
                            " WHERE profile_id = :id AND tenant = :tenant"
                            " AND principal = :principal"),
             {{QStringLiteral(":id"), idText(id)},
              {QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    while (origins.next()) {
        Result<Origin> origin = decodeOrigin(origins.value(0).toString(), m_overrides);
        if (!origin)
            return origin.error();
        profile.value().allowedOrigins.append(std::move(origin).value());
    }
    Result<BrowserProfile> finished = finishProfile(std::move(profile).value());
    if (!finished)
        return finished.error();
    return std::optional<BrowserProfile>(std::move(finished).value());
}

Result<BrowserProfile> SqlProfileRepository::create(const ProfileScope &scope,
                                                    const BrowserProfile &profile)
{
    if (!scope.validate() || profile.scope() != scope)
        return failure(ProfileFailure::Invalid);
    BrowserProfile stored = profile;
    Result<QList<Origin>> origins = BrowserProfile::normalizeOrigins(profile.allowedOrigins);
    if (!origins)
        return origins.error();
    stored.allowedOrigins = std::move(origins).value();
    if (const Result<Unit> valid = stored.validate(); !valid)
        return valid.error();
    // Timestamps are stored with millisecond precision; return what get() will return.
    stored.createdAt = stored.createdAt.toUTC();
    stored.updatedAt = stored.updatedAt.toUTC();
    if (stored.lastUsedAt)
        stored.lastUsedAt = stored.lastUsedAt->toUTC();
    if (stored.lastVerifiedAt)
        stored.lastVerifiedAt = stored.lastVerifiedAt->toUTC();

    return inTransaction<BrowserProfile>(
        scope, true, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            // Insert-on-conflict: an existing id (in any scope) or a used provider reference
            // inserts nothing, which is reported as a conflict without saying which.
            QSqlQuery insert(db);
            if (!run(
                    insert,
                    QStringLiteral("INSERT INTO browser_profiles (id, tenant, principal,"
                                   " provider_name, provider_reference, status, generation,"
                                   " key_version, created_at, updated_at, last_used_at,"
                                   " last_verified_at)"
                                   " VALUES (:id, :tenant, :principal, :provider_name,"
                                   " :provider_reference, :status, :generation, :key_version,"
                                   " :created_at, :updated_at, :last_used_at, :last_verified_at)"
                                   " ON CONFLICT DO NOTHING"),
                    {{QStringLiteral(":id"), idText(stored.id)},
                     {QStringLiteral(":tenant"), scope.tenant},
                     {QStringLiteral(":principal"), scope.principal},
                     {QStringLiteral(":provider_name"), optionalText(stored.providerName)},
                     {QStringLiteral(":provider_reference"),
                      optionalText(stored.providerReference)},
                     {QStringLiteral(":status"), profileStatusString(stored.status)},
                     {QStringLiteral(":generation"), stored.generation},
                     {QStringLiteral(":key_version"), optionalText(stored.keyVersion)},
                     {QStringLiteral(":created_at"), timeText(stored.createdAt)},
                     {QStringLiteral(":updated_at"), timeText(stored.updatedAt)},
                     {QStringLiteral(":last_used_at"), optionalTime(stored.lastUsedAt)},
                     {QStringLiteral(":last_verified_at"), optionalTime(stored.lastVerifiedAt)}})) {
                return failure(isUniqueViolation(insert.lastError(), m_dialect)
                                   ? ProfileFailure::Conflict
                                   : ProfileFailure::RepositoryUnavailable);
            }
            if (insert.numRowsAffected() != 1)
                return failure(ProfileFailure::Conflict);

            QSqlQuery origin(db);
            if (!origin.prepare(QStringLiteral(
                    "INSERT INTO browser_profile_origins (profile_id, tenant, principal, origin)"
                    " VALUES (:profile_id, :tenant, :principal, :origin)")))
                return failure(ProfileFailure::RepositoryUnavailable);
            for (const Origin &allowed : std::as_const(stored.allowedOrigins)) {
                origin.bindValue(QStringLiteral(":profile_id"), idText(stored.id));
                origin.bindValue(QStringLiteral(":tenant"), scope.tenant);
                origin.bindValue(QStringLiteral(":principal"), scope.principal);
                origin.bindValue(QStringLiteral(":origin"), allowed.toString());
                if (!origin.exec())
                    return failure(ProfileFailure::RepositoryUnavailable);
            }
            return stored;
        });
}

Result<BrowserProfile> SqlProfileRepository::get(const ProfileScope &scope, const QUuid &id) const
{
    return inTransaction<BrowserProfile>(
        scope, false, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            Result<std::optional<BrowserProfile>> profile = load(db, scope, id, false);
            if (!profile)
                return profile.error();
            if (!profile->has_value())
                return failure(ProfileFailure::NotFound);
            return std::move(profile).value().value();
        });
}

Result<QList<BrowserProfile>> SqlProfileRepository::list(const ProfileScope &scope) const
{
    return inTransaction<QList<BrowserProfile>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<BrowserProfile>> {
            QSqlQuery rows(db);
            if (!run(rows,
                     QStringLiteral("SELECT ") + profileColumns(m_dialect) +
                         QStringLiteral(" FROM browser_profiles"
                                        " WHERE tenant = :tenant AND principal = :principal"
                                        " ORDER BY created_at, id"),
                     {{QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<BrowserProfile> profiles;
            QHash<QUuid, qsizetype> indexById;
            while (rows.next()) {
                Result<BrowserProfile> profile = decodeProfile(rows, m_dialect);
                if (!profile)
                    return profile.error();
                indexById.insert(profile->id, profiles.size());
                profiles.append(std::move(profile).value());
            }
            rows.finish();

            QSqlQuery origins(db);
            const QString profileId = m_dialect == Dialect::Postgres
                                          ? QStringLiteral("CAST(profile_id AS text)")
                                          : QStringLiteral("profile_id");
            if (!run(origins,
                     QStringLiteral("SELECT ") + profileId +
                         QStringLiteral(", origin FROM browser_profile_origins"
                                        " WHERE tenant = :tenant AND principal = :principal"),
                     {{QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            while (origins.next()) {
                const auto index =
                    indexById.constFind(QUuid::fromString(origins.value(0).toString()));
                if (index == indexById.cend())
                    continue; // not in this snapshot's profile rows
                Result<Origin> origin = decodeOrigin(origins.value(1).toString(), m_overrides);
                if (!origin)
                    return origin.error();
                profiles[*index].allowedOrigins.append(std::move(origin).value());
            }
            for (BrowserProfile &profile : profiles) {
                Result<BrowserProfile> finished = finishProfile(std::move(profile));
                if (!finished)
                    return finished.error();
                profile = std::move(finished).value();
            }
            return profiles;
        });
}

Result<Unit> SqlProfileRepository::writeProfile(QSqlDatabase &db, const ProfileScope &scope,
                                                const BrowserProfile &before,
                                                const BrowserProfile &next) const
{
    // PostgreSQL aborts the whole transaction on a constraint error, and Qt frees the
    // prepared statement when the query goes away: a savepoint keeps the transaction
    // usable until then.
    const bool savepoint = m_dialect == Dialect::Postgres;
    if (savepoint && !runPlain(db, QStringLiteral("SAVEPOINT profile_write")))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlQuery write(db);
    if (!run(write,
             QStringLiteral("UPDATE browser_profiles SET provider_name = :provider_name,"
                            " provider_reference = :provider_reference, status = :status,"
                            " generation = :generation, key_version = :key_version,"
                            " updated_at = :updated_at, last_used_at = :last_used_at,"
                            " last_verified_at = :last_verified_at"
                            " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                            " AND generation = :expected_generation"),
             {{QStringLiteral(":provider_name"), optionalText(next.providerName)},
              {QStringLiteral(":provider_reference"), optionalText(next.providerReference)},
              {QStringLiteral(":status"), profileStatusString(next.status)},
              {QStringLiteral(":generation"), next.generation},
              {QStringLiteral(":key_version"), optionalText(next.keyVersion)},
              {QStringLiteral(":updated_at"), timeText(next.updatedAt)},
              {QStringLiteral(":last_used_at"), optionalTime(next.lastUsedAt)},
              {QStringLiteral(":last_verified_at"), optionalTime(next.lastVerifiedAt)},
              {QStringLiteral(":id"), idText(before.id)},
              {QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal},
              {QStringLiteral(":expected_generation"), before.generation}})) {
        const bool conflict = isUniqueViolation(write.lastError(), m_dialect);
        if (savepoint)
            runPlain(db, QStringLiteral("ROLLBACK TO SAVEPOINT profile_write"));
        return failure(conflict ? ProfileFailure::Conflict : ProfileFailure::RepositoryUnavailable);
    }
    // The row was read under this transaction's lock, so only a concurrent writer the
    // lock did not stop could make this miss: the caller's generation is then stale.
    if (write.numRowsAffected() != 1)
        return failure(ProfileFailure::StaleGeneration);
    return Unit{};
}

Result<BrowserProfile> SqlProfileRepository::update(const ProfileScope &scope, const QUuid &id,
                                                    const Rule &rule)
{
    const QDateTime time = now();
    return inTransaction<BrowserProfile>(
        scope, true, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            Result<std::optional<BrowserProfile>> current = load(db, scope, id, true);
            if (!current)
                return current.error();
            if (!current->has_value())
                return failure(ProfileFailure::NotFound);
            Result<BrowserProfile> next = rule(**current, time);
            if (!next)
                return next.error();
            if (const Result<Unit> valid = next->validate(); !valid)
                return valid.error();
            if (const Result<Unit> written = writeProfile(db, scope, **current, *next); !written)
                return written.error();
            return next;
        });
}

Result<Unit> SqlProfileRepository::remove(const ProfileScope &scope, const QUuid &id,
                                          qint64 expectedGeneration)
{
    return inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        Result<std::optional<BrowserProfile>> current = load(db, scope, id, true);
        if (!current)
            return current.error();
        if (!current->has_value())
            return failure(ProfileFailure::NotFound);
        if (const Result<Unit> removable =
                ProfileLifecycle::checkRemovable(**current, expectedGeneration);
            !removable)
            return removable.error();
        // The origins and the sign-in records go with the row (ON DELETE CASCADE).
        QSqlQuery erase(db);
        if (!run(erase,
                 QStringLiteral("DELETE FROM browser_profiles"
                                " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                                " AND generation = :expected_generation AND status = 'revoked'"),
                 {{QStringLiteral(":id"), idText(id)},
                  {QStringLiteral(":tenant"), scope.tenant},
                  {QStringLiteral(":principal"), scope.principal},
                  {QStringLiteral(":expected_generation"), expectedGeneration}}))
            return failure(ProfileFailure::RepositoryUnavailable);
        if (erase.numRowsAffected() != 1)
            return failure(ProfileFailure::StaleGeneration);
        return Unit{};
    });
}

Result<std::optional<AuthenticationCeremony>>
SqlProfileRepository::loadCeremony(QSqlDatabase &db, const ProfileScope &scope,
                                   const QString &ceremonyId, bool forUpdate) const
{
    // Nothing else names a ceremony; PostgreSQL would not even compare it with a uuid.
    if (!AuthenticationCeremony::isCeremonyId(ceremonyId))
        return std::optional<AuthenticationCeremony>();
    QSqlQuery row(db);
    const QString lock =
        forUpdate && m_dialect == Dialect::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    if (!run(row,
             QStringLiteral("SELECT ") + ceremonyColumns(m_dialect) +
                 QStringLiteral(" FROM browser_authentication_ceremonies"
                                " WHERE id = :id AND tenant = :tenant AND principal = :principal") +
                 lock,
             {{QStringLiteral(":id"), ceremonyId},
              {QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<AuthenticationCeremony>();
    Result<AuthenticationCeremony> ceremony = decodeCeremony(row, m_dialect);
    if (!ceremony)
        return ceremony.error();
    return std::optional<AuthenticationCeremony>(std::move(ceremony).value());
}

Result<std::optional<AuthenticationCeremony>>
SqlProfileRepository::loadNewestOpen(QSqlDatabase &db, const ProfileScope &scope,
                                     const QUuid &profileId, const QDateTime &time) const
{
    QSqlQuery row(db);
    if (!run(row,
             QStringLiteral("SELECT ") + ceremonyColumns(m_dialect) +
                 QStringLiteral(" FROM browser_authentication_ceremonies"
                                " WHERE profile_id = :profile_id AND tenant = :tenant"
                                " AND principal = :principal AND status = 'open'"
                                " AND expires_at > :now"
                                " ORDER BY created_at DESC, id DESC LIMIT 1"),
             {{QStringLiteral(":profile_id"), idText(profileId)},
              {QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal},
              {QStringLiteral(":now"), timeText(time)}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<AuthenticationCeremony>();
    Result<AuthenticationCeremony> ceremony = decodeCeremony(row, m_dialect);
    if (!ceremony)
        return ceremony.error();
    return std::optional<AuthenticationCeremony>(std::move(ceremony).value());
}

Result<Unit> SqlProfileRepository::insertCeremony(QSqlDatabase &db,
                                                  const AuthenticationCeremony &ceremony) const
{
    // Insert-on-conflict, as for a profile: a recorded id inserts nothing.
    QSqlQuery insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO browser_authentication_ceremonies (id, profile_id,"
                            " tenant, principal, mode, status, failure_code, created_at,"
                            " expires_at, finished_at)"
                            " VALUES (:id, :profile_id, :tenant, :principal, :mode, :status,"
                            " :failure_code, :created_at, :expires_at, :finished_at)"
                            " ON CONFLICT DO NOTHING"),
             {{QStringLiteral(":id"), ceremony.id},
              {QStringLiteral(":profile_id"), idText(ceremony.profileId)},
              {QStringLiteral(":tenant"), ceremony.tenant},
              {QStringLiteral(":principal"), ceremony.principal},
              {QStringLiteral(":mode"), ceremony.mode},
              {QStringLiteral(":status"), ceremonyStatusString(ceremony.status)},
              {QStringLiteral(":failure_code"), optionalFailureCode(ceremony.failureCode)},
              {QStringLiteral(":created_at"), timeText(ceremony.createdAt)},
              {QStringLiteral(":expires_at"), timeText(ceremony.expiresAt)},
              {QStringLiteral(":finished_at"), optionalTime(ceremony.finishedAt)}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (insert.numRowsAffected() != 1)
        return failure(ProfileFailure::Conflict);
    return Unit{};
}

Result<Unit> SqlProfileRepository::writeCeremony(QSqlDatabase &db,
                                                 const AuthenticationCeremony &before,
                                                 const AuthenticationCeremony &next) const
{
    QSqlQuery write(db);
    if (!run(write,
             QStringLiteral("UPDATE browser_authentication_ceremonies SET status = :status,"
                            " failure_code = :failure_code, finished_at = :finished_at"
                            " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                            " AND status = :expected_status"),
             {{QStringLiteral(":status"), ceremonyStatusString(next.status)},
              {QStringLiteral(":failure_code"), optionalFailureCode(next.failureCode)},
              {QStringLiteral(":finished_at"), optionalTime(next.finishedAt)},
              {QStringLiteral(":id"), before.id},
              {QStringLiteral(":tenant"), before.tenant},
              {QStringLiteral(":principal"), before.principal},
              {QStringLiteral(":expected_status"), ceremonyStatusString(before.status)}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    // Read under this transaction's lock: only an outcome the lock did not stop could make
    // this miss.
    if (write.numRowsAffected() != 1)
        return failure(ProfileFailure::CeremonyOutcomeConflict);
    return Unit{};
}

Result<AuthenticationCeremony> SqlProfileRepository::ceremony(const ProfileScope &scope,
                                                              const QString &ceremonyId) const
{
    const QDateTime time = now();
    return inTransaction<AuthenticationCeremony>(
        scope, false, [&](QSqlDatabase &db) -> Result<AuthenticationCeremony> {
            Result<std::optional<AuthenticationCeremony>> stored =
                loadCeremony(db, scope, ceremonyId, false);
            if (!stored)
                return stored.error();
            if (!stored->has_value())
                return failure(ProfileFailure::CeremonyNotFound);
            return (*stored)->asOf(time);
        });
}

Result<std::optional<AuthenticationCeremony>>
SqlProfileRepository::newestOpenCeremony(const ProfileScope &scope, const QUuid &profileId) const
{
    const QDateTime time = now();
    return inTransaction<std::optional<AuthenticationCeremony>>(
        scope, false, [&](QSqlDatabase &db) -> Result<std::optional<AuthenticationCeremony>> {
            Result<std::optional<BrowserProfile>> profile = load(db, scope, profileId, false);
            if (!profile)
                return profile.error();
            if (!profile->has_value())
                return failure(ProfileFailure::NotFound);
            return loadNewestOpen(db, scope, profileId, time);
        });
}

Result<CeremonyBegun> SqlProfileRepository::admit(const ProfileScope &scope, const QUuid &profileId,
                                                  const Admission &admission)
{
    const QDateTime time = now();
    // SQLite's admission lock is the store's write lock (BEGIN IMMEDIATE); only its wait is
    // shortened here.
    std::optional<SqliteLockWait> sqliteWait;
    if (m_dialect == Dialect::Sqlite) {
        sqliteWait.emplace(database(), kAdmissionLockWaitMs);
        if (!sqliteWait->isSet())
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    return inTransaction<CeremonyBegun>(
        scope, true, [&](QSqlDatabase &db) -> Result<CeremonyBegun> {
            if (m_dialect == Dialect::Postgres) {
                // The row lock is the admission lock, held until this transaction ends: a
                // concurrent begin waits for it (at most 5 s) and then sees this one's record.
                // A savepoint keeps the transaction usable after a timed-out wait, until Qt
                // has freed the statement.
                if (!runPlain(db, QStringLiteral("SET LOCAL lock_timeout = '%1ms'")
                                      .arg(kAdmissionLockWaitMs)) ||
                    !runPlain(db, QStringLiteral("SAVEPOINT admission_lock")))
                    return failure(ProfileFailure::RepositoryUnavailable);
                QSqlQuery lock(db);
                if (!run(lock,
                         QStringLiteral("SELECT 1 FROM browser_profiles WHERE id = :id"
                                        " AND tenant = :tenant AND principal = :principal"
                                        " FOR UPDATE"),
                         {{QStringLiteral(":id"), idText(profileId)},
                          {QStringLiteral(":tenant"), scope.tenant},
                          {QStringLiteral(":principal"), scope.principal}})) {
                    const bool timedOut = isLockTimeout(lock.lastError(), m_dialect);
                    runPlain(db, QStringLiteral("ROLLBACK TO SAVEPOINT admission_lock"));
                    // Only a begin holds a profile's row that long, launching its ceremony.
                    return failure(timedOut ? ProfileFailure::CeremonyConflict
                                            : ProfileFailure::RepositoryUnavailable);
                }
                lock.finish();
                // Releasing the savepoint keeps the row lock: it belongs to the transaction.
                if (!runPlain(db, QStringLiteral("RELEASE SAVEPOINT admission_lock")))
                    return failure(ProfileFailure::RepositoryUnavailable);
            }
            Result<std::optional<BrowserProfile>> current = load(db, scope, profileId, false);
            if (!current)
                return current.error();
            if (!current->has_value())
                return failure(ProfileFailure::NotFound);
            const Result<std::optional<AuthenticationCeremony>> newestOpen =
                loadNewestOpen(db, scope, profileId, time);
            if (!newestOpen)
                return newestOpen.error();
            Result<CeremonyBegun> begun = admission(**current, *newestOpen, time);
            if (!begun)
                return begun.error();
            if (const Result<Unit> valid = begun->profile.validate(); !valid)
                return valid.error();
            if (const Result<Unit> valid = begun->ceremony.validate(); !valid)
                return valid.error();
            if (const Result<Unit> written = writeProfile(db, scope, **current, begun->profile);
                !written)
                return written.error();
            if (const Result<Unit> inserted = insertCeremony(db, begun->ceremony); !inserted)
                return inserted.error();
            return begun;
        });
}

Result<CeremonySettlement> SqlProfileRepository::settle(const ProfileScope &scope,
                                                        const QString &ceremonyId,
                                                        const Settlement &settlement)
{
    const QDateTime time = now();
    return inTransaction<CeremonySettlement>(
        scope, true, [&](QSqlDatabase &db) -> Result<CeremonySettlement> {
            // The profile is locked before its record, the order a begin takes, so a finish
            // and a begin of one profile never wait for each other in a circle.
            Result<std::optional<AuthenticationCeremony>> found =
                loadCeremony(db, scope, ceremonyId, false);
            if (!found)
                return found.error();
            if (!found->has_value())
                return failure(ProfileFailure::CeremonyNotFound);
            Result<std::optional<BrowserProfile>> profile =
                load(db, scope, (*found)->profileId, true);
            if (!profile)
                return profile.error();
            Result<std::optional<AuthenticationCeremony>> ceremony =
                loadCeremony(db, scope, ceremonyId, true);
            if (!ceremony)
                return ceremony.error();
            // Deleted meanwhile, records and all.
            if (!profile->has_value() || !ceremony->has_value())
                return failure(ProfileFailure::CeremonyNotFound);

            Result<CeremonySettlement> settled = settlement(**ceremony, **profile, time);
            if (!settled)
                return settled.error();
            if (settled->profile != **profile) {
                if (const Result<Unit> valid = settled->profile.validate(); !valid)
                    return valid.error();
                if (const Result<Unit> written =
                        writeProfile(db, scope, **profile, settled->profile);
                    !written)
                    return written.error();
            }
            if (settled->ceremony != **ceremony) {
                if (const Result<Unit> valid = settled->ceremony.validate(); !valid)
                    return valid.error();
                if (const Result<Unit> written = writeCeremony(db, **ceremony, settled->ceremony);
                    !written)
                    return written.error();
            }
            return settled;
        });
}

Result<TaskScopeState> SqlProfileRepository::loadTaskScopes(QSqlDatabase &db,
                                                            const ProfileScope &scope,
                                                            bool forUpdate) const
{
    QSqlQuery policy(db);
    const QString lock =
        forUpdate && m_dialect == Dialect::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    if (!run(policy,
             QStringLiteral("SELECT revision, last_source FROM browser_task_scope_policies"
                            " WHERE tenant = :tenant AND principal = :principal") +
                 lock,
             {{QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!policy.next())
        return TaskScopeState{};
    bool revisionOk = false;
    const qint64 revision = policy.value(0).toLongLong(&revisionOk);
    const std::optional<TaskScopeSource> source =
        taskScopeSourceFromString(policy.value(1).toString());
    if (!revisionOk || revision < 1 || !source)
        return failure(ProfileFailure::RepositoryUnavailable);
    policy.finish();

    QSqlQuery rows(db);
    if (!run(rows,
             QStringLiteral("SELECT origin, segment FROM browser_task_scopes"
                            " WHERE tenant = :tenant AND principal = :principal"
                            " ORDER BY ordinal"),
             {{QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    QList<TaskScope> entries;
    while (rows.next()) {
        Result<TaskScope> entry =
            TaskScope::fromParts(rows.value(0).toString(), rows.value(1).toString(), m_overrides);
        if (!entry)
            return failure(ProfileFailure::RepositoryUnavailable);
        entries << std::move(entry).value();
    }
    const Result<QList<TaskScope>> canonical = TaskScopePolicy::normalize(entries);
    if (!canonical || *canonical != entries)
        return failure(ProfileFailure::RepositoryUnavailable);
    return TaskScopeState{.policy = {.entries = std::move(entries), .revision = revision},
                          .lastSource = *source};
}

Result<Unit> SqlProfileRepository::writeTaskScopes(QSqlDatabase &db, const ProfileScope &scope,
                                                   const TaskScopeState &before,
                                                   const TaskScopeChange &change,
                                                   const QDateTime &time) const
{
    QSqlQuery policy(db);
    if (!before.policy.isSaved()) {
        // A first save: the primary key decides between concurrent ones; the loser inserts
        // nothing.
        if (!run(policy,
                 QStringLiteral("INSERT INTO browser_task_scope_policies (tenant, principal,"
                                " revision, last_source, updated_at)"
                                " VALUES (:tenant, :principal, :revision, :source, :updated_at)"
                                " ON CONFLICT DO NOTHING"),
                 {{QStringLiteral(":tenant"), scope.tenant},
                  {QStringLiteral(":principal"), scope.principal},
                  {QStringLiteral(":revision"), change.policy.revision},
                  {QStringLiteral(":source"), taskScopeSourceString(change.source)},
                  {QStringLiteral(":updated_at"), timeText(time)}}))
            return failure(ProfileFailure::RepositoryUnavailable);
    } else if (!run(policy,
                    QStringLiteral("UPDATE browser_task_scope_policies SET revision = :revision,"
                                   " last_source = :source, updated_at = :updated_at"
                                   " WHERE tenant = :tenant AND principal = :principal"
                                   " AND revision = :expected_revision"),
                    {{QStringLiteral(":revision"), change.policy.revision},
                     {QStringLiteral(":source"), taskScopeSourceString(change.source)},
                     {QStringLiteral(":updated_at"), timeText(time)},
                     {QStringLiteral(":tenant"), scope.tenant},
                     {QStringLiteral(":principal"), scope.principal},
                     {QStringLiteral(":expected_revision"), before.policy.revision}})) {
        return failure(ProfileFailure::RepositoryUnavailable);
    }
    if (policy.numRowsAffected() != 1)
        return taskScopeError(TaskScopeFailure::Conflict);

    QSqlQuery erase(db);
    if (!run(erase,
             QStringLiteral("DELETE FROM browser_task_scopes"
                            " WHERE tenant = :tenant AND principal = :principal"),
             {{QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlQuery insert(db);
    if (!insert.prepare(QStringLiteral(
            "INSERT INTO browser_task_scopes (tenant, principal, ordinal, origin, segment)"
            " VALUES (:tenant, :principal, :ordinal, :origin, :segment)")))
        return failure(ProfileFailure::RepositoryUnavailable);
    for (qsizetype i = 0; i < change.policy.entries.size(); ++i) {
        const TaskScope &entry = change.policy.entries.at(i);
        insert.bindValue(QStringLiteral(":tenant"), scope.tenant);
        insert.bindValue(QStringLiteral(":principal"), scope.principal);
        insert.bindValue(QStringLiteral(":ordinal"), int(i));
        insert.bindValue(QStringLiteral(":origin"), entry.origin().toString());
        insert.bindValue(QStringLiteral(":segment"), entry.segment());
        if (!insert.exec())
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    return Unit{};
}

Result<Unit> SqlProfileRepository::appendTaskScopeAudit(QSqlDatabase &db,
                                                        const TaskScopeAuditRecord &record) const
{
    const QByteArray entries =
        QJsonDocument(QJsonArray::fromStringList(record.entries)).toJson(QJsonDocument::Compact);
    QSqlQuery insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO browser_policy_audit (id, tenant, principal, kind,"
                            " recorded_at, revision, source, entries)"
                            " VALUES (:id, :tenant, :principal, :kind, :recorded_at, :revision,"
                            " :source, :entries)"),
             {{QStringLiteral(":id"), idText(record.id)},
              {QStringLiteral(":tenant"), record.tenant},
              {QStringLiteral(":principal"), record.principal},
              {QStringLiteral(":kind"), record.kind},
              {QStringLiteral(":recorded_at"), timeText(record.at)},
              {QStringLiteral(":revision"), record.revision},
              {QStringLiteral(":source"), taskScopeSourceString(record.source)},
              {QStringLiteral(":entries"), QString::fromUtf8(entries)}}) ||
        insert.numRowsAffected() != 1)
        return failure(ProfileFailure::RepositoryUnavailable);
    return Unit{};
}

Result<TaskScopeChange> SqlProfileRepository::changeTaskScopes(const ProfileScope &scope,
                                                               const TaskScopeEdit &edit)
{
    const QDateTime time = now();
    return inTransaction<TaskScopeChange>(
        scope, true, [&](QSqlDatabase &db) -> Result<TaskScopeChange> {
            const Result<TaskScopeState> current = loadTaskScopes(db, scope, true);
            if (!current)
                return current.error();
            Result<TaskScopeChange> change = edit(*current);
            if (!change || change->kind != TaskScopeChange::Kind::Changed)
                return change;
            if (const Result<Unit> written = writeTaskScopes(db, scope, *current, *change, time);
                !written)
                return written.error();
            if (const Result<Unit> ended = endTaskGrantsOutside(db, scope, *change); !ended)
                return ended.error();
            if (const Result<Unit> audited = appendTaskScopeAudit(
                    db, TaskScopeAuditRecord::of(scope.tenant, scope.principal, *change, time));
                !audited)
                return audited.error();
            return change;
        });
}

Result<TaskScopePolicy> SqlProfileRepository::taskScopes(const ProfileScope &scope) const
{
    return inTransaction<TaskScopePolicy>(
        scope, false, [&](QSqlDatabase &db) -> Result<TaskScopePolicy> {
            Result<TaskScopeState> state = loadTaskScopes(db, scope, false);
            if (!state)
                return state.error();
            return std::move(state).value().policy;
        });
}

Result<QList<TaskScopeAuditRecord>>
SqlProfileRepository::taskScopeAudit(const ProfileScope &scope) const
{
    const QString columns =
        m_dialect == Dialect::Postgres
            ? QStringLiteral("CAST(id AS text), tenant, principal, kind,"
                             " CAST(EXTRACT(EPOCH FROM recorded_at) * 1000 AS bigint),"
                             " revision, source, entries")
            : QStringLiteral("id, tenant, principal, kind, recorded_at, revision, source, entries");
    return inTransaction<QList<TaskScopeAuditRecord>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<TaskScopeAuditRecord>> {
            QSqlQuery rows(db);
            if (!run(rows,
                     QStringLiteral("SELECT ") + columns +
                         QStringLiteral(" FROM browser_policy_audit"
                                        " WHERE tenant = :tenant AND principal = :principal"
                                        " ORDER BY revision, recorded_at, id"),
                     {{QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskScopeAuditRecord> records;
            while (rows.next()) {
                TaskScopeAuditRecord record;
                record.id = QUuid::fromString(rows.value(0).toString());
                record.tenant = rows.value(1).toString();
                record.principal = rows.value(2).toString();
                record.kind = rows.value(3).toString();
                const std::optional<QDateTime> at = decodeTime(rows.value(4), m_dialect);
                bool revisionOk = false;
                record.revision = rows.value(5).toLongLong(&revisionOk);
                const std::optional<TaskScopeSource> source =
                    taskScopeSourceFromString(rows.value(6).toString());
                const QJsonDocument entries =
                    QJsonDocument::fromJson(rows.value(7).toString().toUtf8());
                if (record.id.isNull() || !at || !at->isValid() || !revisionOk || !source ||
                    !entries.isArray())
                    return failure(ProfileFailure::RepositoryUnavailable);
                record.at = *at;
                record.source = *source;
                for (const QJsonValue &entry : entries.array()) {
                    if (!entry.isString())
                        return failure(ProfileFailure::RepositoryUnavailable);
                    record.entries << entry.toString();
                }
                records << std::move(record);
            }
            return records;
        });
}

} // namespace veetbot

// --- Task grants ---------------------------------------------------------------------------

namespace veetbot {

namespace {

// The grant columns in a fixed order, timestamps as for the profile columns.
QString grantColumns(Dialect dialect)
{
    if (dialect == Dialect::Postgres) {
        return QStringLiteral(
            "CAST(id AS text), tenant, principal, CAST(session_id AS text),"
            " CAST(profile_id AS text), profile_generation, agent_version, policy_version,"
            " origin, prefix, CAST(approval_id AS text),"
            " CAST(EXTRACT(EPOCH FROM created_at) * 1000 AS bigint),"
            " CAST(EXTRACT(EPOCH FROM expires_at) * 1000 AS bigint),"
            " uses, typed_characters,"
            " CAST(EXTRACT(EPOCH FROM ended_at) * 1000 AS bigint), end_reason");
    }
    return QStringLiteral("id, tenant, principal, session_id, profile_id, profile_generation,"
                          " agent_version, policy_version, origin, prefix, approval_id,"
                          " created_at, expires_at, uses, typed_characters, ended_at,"
                          " end_reason");
}

Result<TaskGrant> decodeGrant(const QSqlQuery &row, Dialect dialect, const TestOverrides &overrides)
{
    Result<TaskScope> scope =
        TaskScope::fromParts(row.value(8).toString(), row.value(9).toString(), overrides);
    if (!scope)
        return failure(ProfileFailure::RepositoryUnavailable);
    TaskGrant grant{.scope = std::move(scope).value()};
    grant.id = QUuid::fromString(row.value(0).toString());
    grant.tenant = row.value(1).toString();
    grant.principal = row.value(2).toString();
    grant.pins.session = QUuid::fromString(row.value(3).toString());
    grant.pins.profileId = QUuid::fromString(row.value(4).toString());
    bool generationOk = false;
    grant.pins.profileGeneration = row.value(5).toLongLong(&generationOk);
    grant.pins.agentVersion = row.value(6).toString();
    grant.pins.policyVersion = row.value(7).toString();
    grant.approval = QUuid::fromString(row.value(10).toString());
    const std::optional<QDateTime> created = decodeTime(row.value(11), dialect);
    const std::optional<QDateTime> expires = decodeTime(row.value(12), dialect);
    bool usesOk = false;
    bool typedOk = false;
    grant.uses = row.value(13).toInt(&usesOk);
    grant.typedCharacters = row.value(14).toInt(&typedOk);
    grant.endedAt = decodeTime(row.value(15), dialect);
    const std::optional<QString> reason = decodeText(row.value(16));
    if (reason)
        grant.endReason = taskGrantEndFromString(*reason);
    if (grant.id.isNull() || !grant.pins.isComplete() || !created || !created->isValid() ||
        !expires || !expires->isValid() || !generationOk || !usesOk || !typedOk ||
        grant.approval.isNull() || (grant.endedAt && !grant.endedAt->isValid()) ||
        reason.has_value() != grant.endReason.has_value() ||
        grant.endedAt.has_value() != grant.endReason.has_value())
        return failure(ProfileFailure::RepositoryUnavailable);
    grant.createdAt = *created;
    grant.expiresAt = *expires;
    return grant;
}

QString viewText(const QJsonObject &view)
{
    return QString::fromUtf8(QJsonDocument(view).toJson(QJsonDocument::Compact));
}

} // namespace

Result<std::optional<TaskGrant>> SqlProfileRepository::loadGrant(QSqlDatabase &db,
                                                                 const ProfileScope &scope,
                                                                 const QString &condition,
                                                                 const QVariantMap &values,
                                                                 bool forUpdate) const
{
    QSqlQuery row(db);
    const QString lock =
        forUpdate && m_dialect == Dialect::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    if (!row.prepare(QStringLiteral("SELECT ") + grantColumns(m_dialect) +
                     QStringLiteral(" FROM browser_task_grants"
                                    " WHERE tenant = :tenant AND principal = :principal AND ") +
                     condition + lock))
        return failure(ProfileFailure::RepositoryUnavailable);
    row.bindValue(QStringLiteral(":tenant"), scope.tenant);
    row.bindValue(QStringLiteral(":principal"), scope.principal);
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        row.bindValue(it.key(), it.value());
    if (!row.exec())
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<TaskGrant>();
    Result<TaskGrant> grant = decodeGrant(row, m_dialect, m_overrides);
    if (!grant)
        return grant.error();
    return std::optional<TaskGrant>(std::move(grant).value());
}

Result<Unit> SqlProfileRepository::appendGrantAudit(QSqlDatabase &db, const TaskGrant &grant,
                                                    const TaskGrantAuditRecord &record) const
{
    QSqlQuery insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO browser_task_grant_audit (id, tenant, principal,"
                            " grant_id, kind, recorded_at, ordinal, end_reason, approval_view)"
                            " VALUES (:id, :tenant, :principal, :grant_id, :kind, :recorded_at,"
                            " :ordinal, :end_reason, :approval_view)"),
             {{QStringLiteral(":id"), idText(record.id)},
              {QStringLiteral(":tenant"), grant.tenant},
              {QStringLiteral(":principal"), grant.principal},
              {QStringLiteral(":grant_id"), idText(grant.id)},
              {QStringLiteral(":kind"), record.kind},
              {QStringLiteral(":recorded_at"), timeText(record.at)},
              {QStringLiteral(":ordinal"),
               record.ordinal ? QVariant(*record.ordinal) : QVariant(QMetaType::fromType<int>())},
              {QStringLiteral(":end_reason"),
               optionalText(record.endReason
                                ? std::optional<QString>(taskGrantEndString(*record.endReason))
                                : std::nullopt)},
              {QStringLiteral(":approval_view"), record.kind == QStringView(kTaskGrantEndedKind)
                                                     ? nullText()
                                                     : QVariant(viewText(record.approvalView))}}) ||
        insert.numRowsAffected() != 1)
        return failure(ProfileFailure::RepositoryUnavailable);
    return Unit{};
}

Result<TaskGrant> SqlProfileRepository::endGrant(QSqlDatabase &db, TaskGrant grant,
                                                 TaskGrantEnd reason, const QDateTime &time) const
{
    QSqlQuery update(db);
    if (!run(update,
             QStringLiteral("UPDATE browser_task_grants SET ended_at = :ended_at,"
                            " end_reason = :end_reason"
                            " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                            " AND ended_at IS NULL"),
             {{QStringLiteral(":ended_at"), timeText(time)},
              {QStringLiteral(":end_reason"), taskGrantEndString(reason)},
              {QStringLiteral(":id"), idText(grant.id)},
              {QStringLiteral(":tenant"), grant.tenant},
              {QStringLiteral(":principal"), grant.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (update.numRowsAffected() != 1)
        return taskGrantError(TaskGrantFailure::Ended); // a concurrent end won
    grant.endedAt = time;
    grant.endReason = reason;
    TaskGrantAuditRecord record{BrowserProfile::newId(),
                                grant.id,
                                QString::fromUtf16(kTaskGrantEndedKind),
                                time,
                                std::nullopt,
                                reason,
                                {}};
    if (const Result<Unit> audited = appendGrantAudit(db, grant, record); !audited)
        return audited.error();
    return grant;
}

Result<Unit> SqlProfileRepository::endTaskGrantsOutside(QSqlDatabase &db, const ProfileScope &scope,
                                                        const TaskScopeChange &change) const
{
    if (change.removed.isEmpty())
        return Unit{};
    QSqlQuery rows(db);
    if (!run(rows,
             QStringLiteral("SELECT ") + grantColumns(m_dialect) +
                 QStringLiteral(" FROM browser_task_grants WHERE tenant = :tenant"
                                " AND principal = :principal AND ended_at IS NULL"),
             {{QStringLiteral(":tenant"), scope.tenant},
              {QStringLiteral(":principal"), scope.principal}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    QList<TaskGrant> outside;
    while (rows.next()) {
        Result<TaskGrant> grant = decodeGrant(rows, m_dialect, m_overrides);
        if (!grant)
            return grant.error();
        if (!change.policy.entries.contains(grant->scope))
            outside << std::move(grant).value();
    }
    rows.finish();
    const QDateTime time = now();
    for (const TaskGrant &grant : outside) {
        if (const Result<TaskGrant> ended = endGrant(db, grant, TaskGrantEnd::ScopeRemoved, time);
            !ended)
            return ended.error();
    }
    return Unit{};
}

Result<TaskGrant> SqlProfileRepository::createTaskGrant(const ProfileScope &scope,
                                                        const TaskGrantPins &pins,
                                                        const TaskScope &offered,
                                                        const QUuid &approval,
                                                        const QJsonObject &approvalView)
{
    if (!pins.isComplete() || approval.isNull())
        return failure(ProfileFailure::Invalid);
    const QDateTime time = now();
    return inTransaction<TaskGrant>(scope, true, [&](QSqlDatabase &db) -> Result<TaskGrant> {
        // The list's lock first, as a scope change takes it: a grant is made inside the list
        // as it stands, and a concurrent removal ends it.
        const Result<TaskScopeState> scopes = loadTaskScopes(db, scope, true);
        if (!scopes)
            return scopes.error();
        const Result<std::optional<BrowserProfile>> profile = load(db, scope, pins.profileId, true);
        if (!profile)
            return profile.error();
        const Result<std::optional<AuthenticationCeremony>> open =
            loadNewestOpen(db, scope, pins.profileId, time);
        if (!open)
            return open.error();
        if (const Result<Unit> admitted = TaskGrantRules::admit(scopes->policy.entries, offered,
                                                                *profile, open->has_value(), pins);
            !admitted)
            return admitted.error();

        const Result<std::optional<TaskGrant>> active =
            loadGrant(db, scope, QStringLiteral("session_id = :session AND ended_at IS NULL"),
                      {{QStringLiteral(":session"), idText(pins.session)}}, true);
        if (!active)
            return active.error();
        if (*active) {
            if (const Result<TaskGrant> ended =
                    endGrant(db, **active, TaskGrantEnd::Superseded, time);
                !ended)
                return ended.error();
        }

        TaskGrant grant{.id = BrowserProfile::newId(),
                        .tenant = scope.tenant,
                        .principal = scope.principal,
                        .pins = pins,
                        .scope = offered};
        grant.approval = approval;
        grant.createdAt = time;
        grant.expiresAt = time.addSecs(qint64(TaskGrant::kMinutes) * 60);
        QSqlQuery insert(db);
        if (!run(insert,
                 QStringLiteral(
                     "INSERT INTO browser_task_grants (id, tenant, principal, session_id,"
                     " profile_id, profile_generation, agent_version, policy_version, origin,"
                     " prefix, approval_id, created_at, expires_at, action_cap, uses,"
                     " typed_characters) VALUES (:id, :tenant, :principal, :session_id,"
                     " :profile_id, :profile_generation, :agent_version, :policy_version,"
                     " :origin, :prefix, :approval_id, :created_at, :expires_at, 200, 0, 0)"),
                 {{QStringLiteral(":id"), idText(grant.id)},
                  {QStringLiteral(":tenant"), grant.tenant},
                  {QStringLiteral(":principal"), grant.principal},
                  {QStringLiteral(":session_id"), idText(pins.session)},
                  {QStringLiteral(":profile_id"), idText(pins.profileId)},
                  {QStringLiteral(":profile_generation"), pins.profileGeneration},
                  {QStringLiteral(":agent_version"), pins.agentVersion},
                  {QStringLiteral(":policy_version"), pins.policyVersion},
                  {QStringLiteral(":origin"), offered.origin().toString()},
                  {QStringLiteral(":prefix"), offered.segment()},
                  {QStringLiteral(":approval_id"), idText(approval)},
                  {QStringLiteral(":created_at"), timeText(grant.createdAt)},
                  {QStringLiteral(":expires_at"), timeText(grant.expiresAt)}}) ||
            insert.numRowsAffected() != 1)
            return failure(ProfileFailure::RepositoryUnavailable);
        TaskGrantAuditRecord record{BrowserProfile::newId(),
                                    grant.id,
                                    QString::fromUtf16(kTaskGrantCreatedKind),
                                    time,
                                    std::nullopt,
                                    std::nullopt,
                                    approvalView};
        if (const Result<Unit> audited = appendGrantAudit(db, grant, record); !audited)
            return audited.error();
        return grant;
    });
}

Result<std::optional<TaskGrant>> SqlProfileRepository::activeTaskGrant(const ProfileScope &scope,
                                                                       const QUuid &session) const
{
    return inTransaction<std::optional<TaskGrant>>(
        scope, false, [&](QSqlDatabase &db) -> Result<std::optional<TaskGrant>> {
            return loadGrant(db, scope,
                             QStringLiteral("session_id = :session AND ended_at IS NULL"),
                             {{QStringLiteral(":session"), idText(session)}}, false);
        });
}

Result<TaskGrantUse> SqlProfileRepository::useTaskGrant(const ProfileScope &scope,
                                                        const TaskGrantPins &pins,
                                                        const QUuid &grantId, int typedCharacters,
                                                        const QJsonObject &approvalView)
{
    if (!pins.isComplete() || typedCharacters < 0)
        return failure(ProfileFailure::Invalid);
    const QDateTime time = now();
    // An end is stored and committed even though the use is refused: the outcome carries the
    // refusal out of the unit of work.
    struct Outcome
    {
        std::optional<TaskGrantUse> use;
        Error refusal;
    };
    const Result<Outcome> outcome =
        inTransaction<Outcome>(scope, true, [&](QSqlDatabase &db) -> Result<Outcome> {
            const Result<TaskScopeState> scopes = loadTaskScopes(db, scope, true);
            if (!scopes)
                return scopes.error();
            const Result<std::optional<TaskGrant>> stored =
                loadGrant(db, scope, QStringLiteral("id = :id AND session_id = :session"),
                          {{QStringLiteral(":id"), idText(grantId)},
                           {QStringLiteral(":session"), idText(pins.session)}},
                          true);
            if (!stored)
                return stored.error();
            if (!*stored)
                return Outcome{std::nullopt, taskGrantError(TaskGrantFailure::NotFound)};
            const TaskGrant &grant = **stored;
            if (grant.isEnded())
                return Outcome{std::nullopt, taskGrantError(TaskGrantFailure::Ended)};
            const Result<std::optional<BrowserProfile>> profile =
                load(db, scope, grant.pins.profileId, false);
            if (!profile)
                return profile.error();
            const TaskGrantRules::UseDecision decision = TaskGrantRules::use(
                grant, pins, *profile, scopes->policy.entries, typedCharacters, time);
            if (decision.kind == TaskGrantRules::UseDecision::Kind::End) {
                if (const Result<TaskGrant> ended = endGrant(db, grant, *decision.end, time);
                    !ended)
                    return ended.error();
            }
            if (decision.kind != TaskGrantRules::UseDecision::Kind::Consume)
                return Outcome{std::nullopt, decision.refusal};

            QSqlQuery consume(db);
            if (!run(consume,
                     QStringLiteral("UPDATE browser_task_grants SET uses = uses + 1,"
                                    " typed_characters = typed_characters + :typed"
                                    " WHERE id = :id AND tenant = :tenant"
                                    " AND principal = :principal AND ended_at IS NULL"
                                    " AND uses = :uses"),
                     {{QStringLiteral(":typed"), typedCharacters},
                      {QStringLiteral(":id"), idText(grant.id)},
                      {QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal},
                      {QStringLiteral(":uses"), grant.uses}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            if (consume.numRowsAffected() != 1)
                return Outcome{std::nullopt, taskGrantError(TaskGrantFailure::Ended)};
            TaskGrantUse use{grant, grant.uses + 1};
            use.grant.uses = use.ordinal;
            use.grant.typedCharacters += typedCharacters;
            TaskGrantAuditRecord record{BrowserProfile::newId(),
                                        grant.id,
                                        QString::fromUtf16(kToolCallAuthorizedKind),
                                        time,
                                        use.ordinal,
                                        std::nullopt,
                                        approvalView};
            if (const Result<Unit> audited = appendGrantAudit(db, grant, record); !audited)
                return audited.error();
            if (use.grant.uses >= TaskGrant::kMaxActions) {
                Result<TaskGrant> ended = endGrant(db, use.grant, TaskGrantEnd::Exhausted, time);
                if (!ended)
                    return ended.error();
                use.grant = std::move(ended).value();
            }
            return Outcome{std::move(use), Error{}};
        });
    if (!outcome)
        return outcome.error();
    if (!outcome->use)
        return outcome->refusal;
    return *outcome->use;
}

Result<TaskGrant> SqlProfileRepository::endTaskGrant(const ProfileScope &scope,
                                                     const QUuid &grantId, TaskGrantEnd reason)
{
    const QDateTime time = now();
    return inTransaction<TaskGrant>(scope, true, [&](QSqlDatabase &db) -> Result<TaskGrant> {
        const Result<std::optional<TaskGrant>> stored =
            loadGrant(db, scope, QStringLiteral("id = :id"),
                      {{QStringLiteral(":id"), idText(grantId)}}, true);
        if (!stored)
            return stored.error();
        if (!*stored)
            return taskGrantError(TaskGrantFailure::NotFound);
        if ((*stored)->isEnded())
            return **stored;
        return endGrant(db, **stored, reason, time);
    });
}

Result<QList<TaskGrant>> SqlProfileRepository::taskGrants(const ProfileScope &scope)
{
    const QDateTime time = now();
    return inTransaction<QList<TaskGrant>>(
        scope, true, [&](QSqlDatabase &db) -> Result<QList<TaskGrant>> {
            QSqlQuery rows(db);
            if (!run(rows,
                     QStringLiteral("SELECT ") + grantColumns(m_dialect) +
                         QStringLiteral(" FROM browser_task_grants WHERE tenant = :tenant"
                                        " AND principal = :principal"
                                        " ORDER BY created_at DESC, id"),
                     {{QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskGrant> grants;
            while (rows.next()) {
                Result<TaskGrant> grant = decodeGrant(rows, m_dialect, m_overrides);
                if (!grant)
                    return grant.error();
                grants << std::move(grant).value();
            }
            rows.finish();
            for (TaskGrant &grant : grants) {
                if (grant.isEnded())
                    continue;
                const Result<std::optional<BrowserProfile>> profile =
                    load(db, scope, grant.pins.profileId, false);
                if (!profile)
                    return profile.error();
                if (const std::optional<TaskGrantEnd> end =
                        TaskGrantRules::endWithoutSession(grant, *profile, time)) {
                    Result<TaskGrant> ended = endGrant(db, grant, *end, time);
                    if (!ended)
                        return ended.error();
                    grant = std::move(ended).value();
                }
            }
            return grants;
        });
}

Result<QList<TaskGrantAuditRecord>> SqlProfileRepository::taskGrantAudit(const ProfileScope &scope,
                                                                         const QUuid &grantId) const
{
    const QString columns =
        m_dialect == Dialect::Postgres
            ? QStringLiteral("CAST(id AS text), kind,"
                             " CAST(EXTRACT(EPOCH FROM recorded_at) * 1000 AS bigint),"
                             " ordinal, end_reason, approval_view")
            : QStringLiteral("id, kind, recorded_at, ordinal, end_reason, approval_view");
    return inTransaction<QList<TaskGrantAuditRecord>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<TaskGrantAuditRecord>> {
            const Result<std::optional<TaskGrant>> grant =
                loadGrant(db, scope, QStringLiteral("id = :id"),
                          {{QStringLiteral(":id"), idText(grantId)}}, false);
            if (!grant)
                return grant.error();
            if (!*grant)
                return taskGrantError(TaskGrantFailure::NotFound);
            QSqlQuery rows(db);
            if (!run(rows,
                     QStringLiteral("SELECT ") + columns +
                         QStringLiteral(" FROM browser_task_grant_audit WHERE tenant = :tenant"
                                        " AND principal = :principal AND grant_id = :grant"
                                        " ORDER BY recorded_at, CASE kind"
                                        " WHEN 'browser.task_grant.created' THEN 0"
                                        " WHEN 'tool.call.authorized' THEN 1 ELSE 2 END,"
                                        " ordinal"),
                     {{QStringLiteral(":tenant"), scope.tenant},
                      {QStringLiteral(":principal"), scope.principal},
                      {QStringLiteral(":grant"), idText(grantId)}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskGrantAuditRecord> records;
            while (rows.next()) {
                TaskGrantAuditRecord record;
                record.id = QUuid::fromString(rows.value(0).toString());
                record.grant = grantId;
                record.kind = rows.value(1).toString();
                const std::optional<QDateTime> at = decodeTime(rows.value(2), m_dialect);
                if (!rows.value(3).isNull())
                    record.ordinal = rows.value(3).toInt();
                if (const std::optional<QString> reason = decodeText(rows.value(4))) {
                    record.endReason = taskGrantEndFromString(*reason);
                    if (!record.endReason)
                        return failure(ProfileFailure::RepositoryUnavailable);
                }
                if (const std::optional<QString> view = decodeText(rows.value(5)))
                    record.approvalView = QJsonDocument::fromJson(view->toUtf8()).object();
                if (record.id.isNull() || !at || !at->isValid())
                    return failure(ProfileFailure::RepositoryUnavailable);
                record.at = *at;
                records << std::move(record);
            }
            return records;
        });
}

} // namespace veetbot
