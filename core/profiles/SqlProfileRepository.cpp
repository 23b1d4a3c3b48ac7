#include "SqlProfileRepository.h"

#include "SqlTaskGrantStore.h"

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

using SqlQueries::runPlain;

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
            " CAST(EXTRACT(EPOCH FROM last_verified_at) * 1000 AS bigint), verified_account");
    }
    return QStringLiteral(
        "id, tenant, principal, provider_name, provider_reference, status, generation,"
        " key_version, created_at, updated_at, last_used_at, last_verified_at, verified_account");
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
    profile.verifiedAccount = decodeText(query.value(12));
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

SqlProfileRepository::SqlProfileRepository(SqlMetadataSession &session, ScopesChanged scopesChanged)
    : m_session(session), m_scopesChanged(std::move(scopesChanged))
{
}

bool SqlProfileRepository::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    // The audit is append-only for the application: it may add records, never change one.
    return runPlain(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE"
                                       " ON browser_profiles, browser_profile_origins,"
                                       " browser_authentication_ceremonies,"
                                       " browser_task_scope_policies, browser_task_scopes TO ") +
                            quotedRole) &&
           runPlain(db, QStringLiteral("GRANT SELECT, INSERT ON browser_policy_audit TO ") +
                            quotedRole);
}

Result<std::optional<BrowserProfile>> SqlProfileRepository::loadProfile(QSqlDatabase &db,
                                                                        const ProfileScope &scope,
                                                                        const QUuid &id,
                                                                        bool forUpdate) const
{
    QSqlQuery row(db);
    if (!m_session.selectScoped(
            row, profileColumns(m_session.dialect()), QStringLiteral("browser_profiles"), scope,
            QStringLiteral("id = :id"), {{QStringLiteral(":id"), idText(id)}}, forUpdate))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<BrowserProfile>();
    Result<BrowserProfile> profile = decodeProfile(row, m_session.dialect());
    if (!profile)
        return profile.error();
    row.finish();

    QSqlQuery origins(db);
    if (!SqlMetadataSession::runScoped(origins,
                                       QStringLiteral("SELECT origin FROM browser_profile_origins"
                                                      " WHERE profile_id = :id AND tenant = :tenant"
                                                      " AND principal = :principal"),
                                       scope, {{QStringLiteral(":id"), idText(id)}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    while (origins.next()) {
        Result<Origin> origin = decodeOrigin(origins.value(0).toString(), m_session.overrides());
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
    Result<BrowserProfile> checked = storable(scope, profile);
    if (!checked)
        return checked.error();
    BrowserProfile stored = std::move(checked).value();
    // Timestamps are stored with millisecond precision; return what get() will return.
    stored.createdAt = stored.createdAt.toUTC();
    stored.updatedAt = stored.updatedAt.toUTC();
    if (stored.lastUsedAt)
        stored.lastUsedAt = stored.lastUsedAt->toUTC();
    if (stored.lastVerifiedAt)
        stored.lastVerifiedAt = stored.lastVerifiedAt->toUTC();

    return m_session.inTransaction<BrowserProfile>(
        scope, true, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            // Insert-on-conflict: an existing id (in any scope) or a used provider reference
            // inserts nothing, which is reported as a conflict without saying which.
            QSqlQuery insert(db);
            if (!SqlMetadataSession::runScoped(
                    insert,
                    QStringLiteral("INSERT INTO browser_profiles (id, tenant, principal,"
                                   " provider_name, provider_reference, status, generation,"
                                   " key_version, created_at, updated_at, last_used_at,"
                                   " last_verified_at, verified_account)"
                                   " VALUES (:id, :tenant, :principal, :provider_name,"
                                   " :provider_reference, :status, :generation, :key_version,"
                                   " :created_at, :updated_at, :last_used_at, :last_verified_at,"
                                   " :verified_account)"
                                   " ON CONFLICT DO NOTHING"),
                    scope,
                    {{QStringLiteral(":id"), idText(stored.id)},
                     {QStringLiteral(":provider_name"), optionalText(stored.providerName)},
                     {QStringLiteral(":provider_reference"),
                      optionalText(stored.providerReference)},
                     {QStringLiteral(":status"), profileStatusString(stored.status)},
                     {QStringLiteral(":generation"), stored.generation},
                     {QStringLiteral(":key_version"), optionalText(stored.keyVersion)},
                     {QStringLiteral(":created_at"), timeText(stored.createdAt)},
                     {QStringLiteral(":updated_at"), timeText(stored.updatedAt)},
                     {QStringLiteral(":last_used_at"), optionalTime(stored.lastUsedAt)},
                     {QStringLiteral(":last_verified_at"), optionalTime(stored.lastVerifiedAt)},
                     {QStringLiteral(":verified_account"),
                      optionalText(stored.verifiedAccount)}})) {
                return failure(isUniqueViolation(insert.lastError(), m_session.dialect())
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
    return m_session.inTransaction<BrowserProfile>(
        scope, false, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            Result<std::optional<BrowserProfile>> profile = loadProfile(db, scope, id, false);
            if (!profile)
                return profile.error();
            if (!profile->has_value())
                return failure(ProfileFailure::NotFound);
            return std::move(profile).value().value();
        });
}

Result<QList<BrowserProfile>> SqlProfileRepository::list(const ProfileScope &scope) const
{
    return m_session.inTransaction<QList<BrowserProfile>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<BrowserProfile>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") + profileColumns(m_session.dialect()) +
                        QStringLiteral(" FROM browser_profiles"
                                       " WHERE tenant = :tenant AND principal = :principal"
                                       " ORDER BY created_at, id"),
                    scope))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<BrowserProfile> profiles;
            QHash<QUuid, qsizetype> indexById;
            while (rows.next()) {
                Result<BrowserProfile> profile = decodeProfile(rows, m_session.dialect());
                if (!profile)
                    return profile.error();
                indexById.insert(profile->id, profiles.size());
                profiles.append(std::move(profile).value());
            }
            rows.finish();

            QSqlQuery origins(db);
            const QString profileId = m_session.dialect() == Dialect::Postgres
                                          ? QStringLiteral("CAST(profile_id AS text)")
                                          : QStringLiteral("profile_id");
            if (!SqlMetadataSession::runScoped(
                    origins,
                    QStringLiteral("SELECT ") + profileId +
                        QStringLiteral(", origin FROM browser_profile_origins"
                                       " WHERE tenant = :tenant AND principal = :principal"),
                    scope))
                return failure(ProfileFailure::RepositoryUnavailable);
            while (origins.next()) {
                const auto index =
                    indexById.constFind(QUuid::fromString(origins.value(0).toString()));
                if (index == indexById.cend())
                    continue; // not in this snapshot's profile rows
                Result<Origin> origin =
                    decodeOrigin(origins.value(1).toString(), m_session.overrides());
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
    const bool savepoint = m_session.dialect() == Dialect::Postgres;
    if (savepoint && !runPlain(db, QStringLiteral("SAVEPOINT profile_write")))
        return failure(ProfileFailure::RepositoryUnavailable);
    QSqlQuery write(db);
    if (!SqlMetadataSession::runScoped(
            write,
            QStringLiteral("UPDATE browser_profiles SET provider_name = :provider_name,"
                           " provider_reference = :provider_reference, status = :status,"
                           " generation = :generation, key_version = :key_version,"
                           " updated_at = :updated_at, last_used_at = :last_used_at,"
                           " last_verified_at = :last_verified_at,"
                           " verified_account = :verified_account"
                           " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                           " AND generation = :expected_generation"),
            scope,
            {{QStringLiteral(":provider_name"), optionalText(next.providerName)},
             {QStringLiteral(":provider_reference"), optionalText(next.providerReference)},
             {QStringLiteral(":status"), profileStatusString(next.status)},
             {QStringLiteral(":generation"), next.generation},
             {QStringLiteral(":key_version"), optionalText(next.keyVersion)},
             {QStringLiteral(":updated_at"), timeText(next.updatedAt)},
             {QStringLiteral(":last_used_at"), optionalTime(next.lastUsedAt)},
             {QStringLiteral(":last_verified_at"), optionalTime(next.lastVerifiedAt)},
             {QStringLiteral(":verified_account"), optionalText(next.verifiedAccount)},
             {QStringLiteral(":id"), idText(before.id)},
             {QStringLiteral(":expected_generation"), before.generation}})) {
        const bool conflict = isUniqueViolation(write.lastError(), m_session.dialect());
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
    const QDateTime time = m_session.now();
    return m_session.inTransaction<BrowserProfile>(
        scope, true, [&](QSqlDatabase &db) -> Result<BrowserProfile> {
            Result<std::optional<BrowserProfile>> current = loadProfile(db, scope, id, true);
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
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        Result<std::optional<BrowserProfile>> current = loadProfile(db, scope, id, true);
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
        if (!SqlMetadataSession::runScoped(
                erase,
                QStringLiteral("DELETE FROM browser_profiles"
                               " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                               " AND generation = :expected_generation AND status = 'revoked'"),
                scope,
                {{QStringLiteral(":id"), idText(id)},
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
    if (!m_session.selectScoped(row, ceremonyColumns(m_session.dialect()),
                                QStringLiteral("browser_authentication_ceremonies"), scope,
                                QStringLiteral("id = :id"), {{QStringLiteral(":id"), ceremonyId}},
                                forUpdate))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<AuthenticationCeremony>();
    Result<AuthenticationCeremony> ceremony = decodeCeremony(row, m_session.dialect());
    if (!ceremony)
        return ceremony.error();
    return std::optional<AuthenticationCeremony>(std::move(ceremony).value());
}

Result<std::optional<AuthenticationCeremony>>
SqlProfileRepository::loadNewestOpen(QSqlDatabase &db, const ProfileScope &scope,
                                     const QUuid &profileId, const QDateTime &time) const
{
    QSqlQuery row(db);
    if (!SqlMetadataSession::runScoped(
            row,
            QStringLiteral("SELECT ") + ceremonyColumns(m_session.dialect()) +
                QStringLiteral(" FROM browser_authentication_ceremonies"
                               " WHERE profile_id = :profile_id AND tenant = :tenant"
                               " AND principal = :principal AND status = 'open'"
                               " AND expires_at > :now"
                               " ORDER BY created_at DESC, id DESC LIMIT 1"),
            scope,
            {{QStringLiteral(":profile_id"), idText(profileId)},
             {QStringLiteral(":now"), timeText(time)}}))
        return failure(ProfileFailure::RepositoryUnavailable);
    if (!row.next())
        return std::optional<AuthenticationCeremony>();
    Result<AuthenticationCeremony> ceremony = decodeCeremony(row, m_session.dialect());
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

Result<AuthenticationCeremony>
SqlProfileRepository::existingCeremony(QSqlDatabase &db, const ProfileScope &scope,
                                       const QString &ceremonyId) const
{
    Result<std::optional<AuthenticationCeremony>> stored =
        loadCeremony(db, scope, ceremonyId, false);
    if (!stored)
        return stored.error();
    if (!stored->has_value())
        return failure(ProfileFailure::CeremonyNotFound);
    return **stored;
}

Result<AuthenticationCeremony> SqlProfileRepository::ceremony(const ProfileScope &scope,
                                                              const QString &ceremonyId) const
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<AuthenticationCeremony>(
        scope, false, [&](QSqlDatabase &db) -> Result<AuthenticationCeremony> {
            const Result<AuthenticationCeremony> stored = existingCeremony(db, scope, ceremonyId);
            if (!stored)
                return stored.error();
            return stored->asOf(time);
        });
}

Result<std::optional<AuthenticationCeremony>>
SqlProfileRepository::newestOpenCeremony(const ProfileScope &scope, const QUuid &profileId) const
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<std::optional<AuthenticationCeremony>>(
        scope, false, [&](QSqlDatabase &db) -> Result<std::optional<AuthenticationCeremony>> {
            Result<std::optional<BrowserProfile>> profile =
                loadProfile(db, scope, profileId, false);
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
    const QDateTime time = m_session.now();
    // SQLite's admission lock is the store's write lock (BEGIN IMMEDIATE); only its wait is
    // shortened here.
    std::optional<SqliteLockWait> sqliteWait;
    if (m_session.dialect() == Dialect::Sqlite) {
        sqliteWait.emplace(m_session.database(), kAdmissionLockWaitMs);
        if (!sqliteWait->isSet())
            return failure(ProfileFailure::RepositoryUnavailable);
    }
    return m_session.inTransaction<CeremonyBegun>(
        scope, true, [&](QSqlDatabase &db) -> Result<CeremonyBegun> {
            if (m_session.dialect() == Dialect::Postgres) {
                // The row lock is the admission lock, held until this transaction ends: a
                // concurrent begin waits for it (at most 5 s) and then sees this one's record.
                // A savepoint keeps the transaction usable after a timed-out wait, until Qt
                // has freed the statement.
                if (!runPlain(db, QStringLiteral("SET LOCAL lock_timeout = '%1ms'")
                                      .arg(kAdmissionLockWaitMs)) ||
                    !runPlain(db, QStringLiteral("SAVEPOINT admission_lock")))
                    return failure(ProfileFailure::RepositoryUnavailable);
                QSqlQuery lock(db);
                if (!SqlMetadataSession::runScoped(
                        lock,
                        QStringLiteral("SELECT 1 FROM browser_profiles WHERE id = :id"
                                       " AND tenant = :tenant AND principal = :principal"
                                       " FOR UPDATE"),
                        scope, {{QStringLiteral(":id"), idText(profileId)}})) {
                    const bool timedOut = isLockTimeout(lock.lastError(), m_session.dialect());
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
            Result<std::optional<BrowserProfile>> current =
                loadProfile(db, scope, profileId, false);
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
    const QDateTime time = m_session.now();
    return m_session.inTransaction<CeremonySettlement>(
        scope, true, [&](QSqlDatabase &db) -> Result<CeremonySettlement> {
            // The profile is locked before its record, the order a begin takes, so a finish
            // and a begin of one profile never wait for each other in a circle.
            const Result<AuthenticationCeremony> found = existingCeremony(db, scope, ceremonyId);
            if (!found)
                return found.error();
            Result<std::optional<BrowserProfile>> profile =
                loadProfile(db, scope, found->profileId, true);
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

} // namespace veetbot
