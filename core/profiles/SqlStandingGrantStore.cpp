// StandingGrantStore on SQL, in the same tenant-scoped transactions (SqlMetadataSession) as the
// profile and sign-in records it is checked against.

#include "SqlStandingGrantStore.h"

#include "SqlRowFormat.h"
#include "storage/SqlQueries.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QVariant>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

QString grantColumns(Dialect dialect)
{
    return idColumn(QStringLiteral("id"), dialect) + QStringLiteral(", tenant, principal, ") +
           idColumn(QStringLiteral("profile_id"), dialect) +
           QStringLiteral(", agent_version, policy_version, origins, action_kinds, element_role,"
                          " accessible_name, purpose, ") +
           timeColumn(QStringLiteral("starts_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("expires_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("revoked_at"), dialect) + QStringLiteral(", approver, ") +
           timeColumn(QStringLiteral("created_at"), dialect);
}

QString originsText(const QList<Origin> &origins)
{
    QJsonArray array;
    for (const Origin &origin : origins)
        array.append(origin.toString());
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

// One row of grantColumns(), held to every invariant of the grant: a damaged row fails closed
// rather than authorizing anything.
Result<StandingGrant> decodeGrant(const QSqlQuery &row, Dialect dialect,
                                  const TestOverrides &overrides)
{
    StandingGrant grant;
    grant.id = QUuid::fromString(row.value(0).toString());
    grant.tenant = row.value(1).toString();
    grant.principal = row.value(2).toString();
    grant.profileId = QUuid::fromString(row.value(3).toString());
    grant.agentVersion = row.value(4).toString();
    grant.policyVersion = row.value(5).toString();
    const QJsonDocument origins = QJsonDocument::fromJson(row.value(6).toString().toUtf8());
    if (!origins.isArray())
        return unavailable();
    for (const QJsonValue &value : origins.array()) {
        const Result<Origin> origin = Origin::parse(value.toString(), overrides);
        if (!value.isString() || !origin || origin->toString() != value.toString())
            return unavailable();
        grant.origins << *origin;
    }
    bool maskOk = false;
    const std::optional<QList<ActRequest::Kind>> kinds =
        actionKindsFromMask(row.value(7).toInt(&maskOk));
    if (!maskOk || !kinds)
        return unavailable();
    grant.actionKinds = *kinds;
    grant.role = decodeText(row.value(8));
    grant.accessibleName = decodeText(row.value(9));
    grant.purpose = decodeText(row.value(10));
    const std::optional<QDateTime> startsAt = decodeTime(row.value(11), dialect);
    const std::optional<QDateTime> expiresAt = decodeTime(row.value(12), dialect);
    grant.revokedAt = decodeTime(row.value(13), dialect);
    grant.approver = row.value(14).toString();
    const std::optional<QDateTime> createdAt = decodeTime(row.value(15), dialect);
    if (!startsAt || !expiresAt || !createdAt)
        return unavailable();
    grant.startsAt = *startsAt;
    grant.expiresAt = *expiresAt;
    grant.createdAt = *createdAt;
    if (!grant.validate())
        return unavailable();
    return grant;
}

} // namespace

SqlStandingGrantStore::SqlStandingGrantStore(SqlMetadataSession &session,
                                             const SqlProfileRepository &profiles)
    : m_session(session), m_profiles(profiles)
{
}

bool SqlStandingGrantStore::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    // A grant is never widened in place: the application may only set its revocation time.
    // The audit is append-only.
    return SqlQueries::runPlain(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE (revoked_at)"
                                                   " ON browser_standing_grants TO ") +
                                        quotedRole) &&
           SqlQueries::runPlain(
               db, QStringLiteral("GRANT SELECT, INSERT ON browser_grant_audit TO ") + quotedRole);
}

Result<std::optional<StandingGrant>>
SqlStandingGrantStore::loadStandingGrant(QSqlDatabase &db, const ProfileScope &scope,
                                         const QUuid &grantId, bool forUpdate) const
{
    if (grantId.isNull())
        return std::optional<StandingGrant>();
    QSqlQuery row(db);
    if (!m_session.selectScoped(row, grantColumns(m_session.dialect()),
                                QStringLiteral("browser_standing_grants"), scope,
                                QStringLiteral("id = :id"),
                                {{QStringLiteral(":id"), idText(grantId)}}, forUpdate))
        return unavailable();
    if (!row.next())
        return std::optional<StandingGrant>();
    Result<StandingGrant> grant = decodeGrant(row, m_session.dialect(), m_session.overrides());
    if (!grant)
        return grant.error();
    return std::optional<StandingGrant>(std::move(grant).value());
}

Result<bool> SqlStandingGrantStore::newestCeremonyFinished(QSqlDatabase &db,
                                                           const ProfileScope &scope,
                                                           const QUuid &profileId,
                                                           const QDateTime &time) const
{
    QSqlQuery row(db);
    if (!SqlMetadataSession::runScoped(
            row,
            QStringLiteral("SELECT status, ") +
                timeColumn(QStringLiteral("expires_at"), m_session.dialect()) +
                QStringLiteral(" FROM browser_authentication_ceremonies"
                               " WHERE profile_id = :profile_id AND tenant = :tenant"
                               " AND principal = :principal"
                               " ORDER BY created_at DESC, id DESC LIMIT 1"),
            scope, {{QStringLiteral(":profile_id"), idText(profileId)}}))
        return unavailable();
    // A READY profile that never signed in through a recorded ceremony has no outcome to go
    // by: a grant waits for one.
    if (!row.next())
        return false;
    const std::optional<CeremonyStatus> status = ceremonyStatusFromString(row.value(0).toString());
    const std::optional<QDateTime> expiresAt = decodeTime(row.value(1), m_session.dialect());
    if (!status || !expiresAt || !expiresAt->isValid())
        return unavailable();
    // An open record past its expiry reads EXPIRED, as ceremony() reports it.
    return *status != CeremonyStatus::Open || *expiresAt <= time;
}

Result<Unit> SqlStandingGrantStore::appendStandingGrantAudit(QSqlDatabase &db,
                                                             const StandingGrant &grant,
                                                             const QString &kind,
                                                             const QDateTime &time) const
{
    QSqlQuery insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO browser_grant_audit (id, tenant, principal, grant_id,"
                            " kind, recorded_at)"
                            " VALUES (:id, :tenant, :principal, :grant_id, :kind, :recorded_at)"),
             {{QStringLiteral(":id"), idText(BrowserProfile::newId())},
              {QStringLiteral(":tenant"), grant.tenant},
              {QStringLiteral(":principal"), grant.principal},
              {QStringLiteral(":grant_id"), idText(grant.id)},
              {QStringLiteral(":kind"), kind},
              {QStringLiteral(":recorded_at"), timeText(time)}}) ||
        insert.numRowsAffected() != 1)
        return unavailable();
    return Unit{};
}

Result<StandingGrant>
SqlStandingGrantStore::createStandingGrant(const ProfileScope &scope,
                                           const StandingGrantRequest &request)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<StandingGrant>(
        scope, true, [&](QSqlDatabase &db) -> Result<StandingGrant> {
            // The profile's row is locked (SQLite: the store) as a sign-in begin locks it, so
            // a sign-in begun meanwhile is either seen here or begins after the grant exists.
            Result<std::optional<BrowserProfile>> profile =
                m_profiles.loadProfile(db, scope, request.profileId, true);
            if (!profile)
                return profile.error();
            if (!profile->has_value())
                return profileError(ProfileFailure::NotFound);
            Result<StandingGrant> grant =
                StandingGrantRules::create(scope, **profile, request, time);
            if (!grant)
                return grant;
            const Result<bool> signedIn =
                newestCeremonyFinished(db, scope, request.profileId, time);
            if (!signedIn)
                return signedIn.error();
            if (!*signedIn)
                return standingGrantError(StandingGrantFailure::CeremonyPending);

            QSqlQuery insert(db);
            if (!run(insert,
                     QStringLiteral(
                         "INSERT INTO browser_standing_grants (id, tenant, principal, profile_id,"
                         " agent_version, policy_version, origins, action_kinds, element_role,"
                         " accessible_name, purpose, starts_at, expires_at, revoked_at, approver,"
                         " created_at)"
                         " VALUES (:id, :tenant, :principal, :profile_id, :agent_version,"
                         " :policy_version, :origins, :action_kinds, :element_role,"
                         " :accessible_name, :purpose, :starts_at, :expires_at, :revoked_at,"
                         " :approver, :created_at)"),
                     {{QStringLiteral(":id"), idText(grant->id)},
                      {QStringLiteral(":tenant"), grant->tenant},
                      {QStringLiteral(":principal"), grant->principal},
                      {QStringLiteral(":profile_id"), idText(grant->profileId)},
                      {QStringLiteral(":agent_version"), grant->agentVersion},
                      {QStringLiteral(":policy_version"), grant->policyVersion},
                      {QStringLiteral(":origins"), originsText(grant->origins)},
                      {QStringLiteral(":action_kinds"), actionKindMask(grant->actionKinds)},
                      {QStringLiteral(":element_role"), optionalText(grant->role)},
                      {QStringLiteral(":accessible_name"), optionalText(grant->accessibleName)},
                      {QStringLiteral(":purpose"), optionalText(grant->purpose)},
                      {QStringLiteral(":starts_at"), timeText(grant->startsAt)},
                      {QStringLiteral(":expires_at"), timeText(grant->expiresAt)},
                      {QStringLiteral(":revoked_at"), optionalTime(grant->revokedAt)},
                      {QStringLiteral(":approver"), grant->approver},
                      {QStringLiteral(":created_at"), timeText(grant->createdAt)}}) ||
                insert.numRowsAffected() != 1)
                return unavailable();
            if (const Result<Unit> audited = appendStandingGrantAudit(
                    db, *grant, QString::fromUtf16(kGrantCreatedKind), time);
                !audited)
                return audited.error();
            return grant;
        });
}

Result<StandingGrant> SqlStandingGrantStore::standingGrant(const ProfileScope &scope,
                                                           const QUuid &grantId) const
{
    return m_session.inTransaction<StandingGrant>(
        scope, false, [&](QSqlDatabase &db) -> Result<StandingGrant> {
            Result<std::optional<StandingGrant>> grant =
                loadStandingGrant(db, scope, grantId, false);
            if (!grant)
                return grant.error();
            if (!grant->has_value())
                return standingGrantError(StandingGrantFailure::NotFound);
            return std::move(grant).value().value();
        });
}

Result<QList<StandingGrant>>
SqlStandingGrantStore::standingGrants(const ProfileScope &scope,
                                      const std::optional<QUuid> &profileId) const
{
    return m_session.inTransaction<QList<StandingGrant>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<StandingGrant>> {
            QSqlQuery rows(db);
            const QString profileFilter =
                profileId ? QStringLiteral(" AND profile_id = :profile_id") : QString();
            if (!rows.prepare(QStringLiteral("SELECT ") + grantColumns(m_session.dialect()) +
                              QStringLiteral(" FROM browser_standing_grants"
                                             " WHERE tenant = :tenant AND principal = :principal") +
                              profileFilter + QStringLiteral(" ORDER BY created_at, id")))
                return unavailable();
            rows.bindValue(QStringLiteral(":tenant"), scope.tenant);
            rows.bindValue(QStringLiteral(":principal"), scope.principal);
            if (profileId)
                rows.bindValue(QStringLiteral(":profile_id"), idText(*profileId));
            if (!rows.exec())
                return unavailable();
            QList<StandingGrant> grants;
            while (rows.next()) {
                Result<StandingGrant> grant =
                    decodeGrant(rows, m_session.dialect(), m_session.overrides());
                if (!grant)
                    return grant.error();
                grants << std::move(grant).value();
            }
            return grants;
        });
}

Result<StandingGrant> SqlStandingGrantStore::revokeStandingGrant(const ProfileScope &scope,
                                                                 const QUuid &grantId)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<StandingGrant>(
        scope, true, [&](QSqlDatabase &db) -> Result<StandingGrant> {
            Result<std::optional<StandingGrant>> current =
                loadStandingGrant(db, scope, grantId, true);
            if (!current)
                return current.error();
            if (!current->has_value())
                return standingGrantError(StandingGrantFailure::NotFound);
            const StandingGrant revoked = StandingGrantRules::revoke(**current, time);
            if (revoked == **current)
                return revoked; // revoked already: once is enough
            QSqlQuery update(db);
            if (!SqlMetadataSession::runScoped(
                    update,
                    QStringLiteral("UPDATE browser_standing_grants SET revoked_at = :revoked_at"
                                   " WHERE id = :id AND tenant = :tenant"
                                   " AND principal = :principal AND revoked_at IS NULL"),
                    scope,
                    {{QStringLiteral(":revoked_at"), optionalTime(revoked.revokedAt)},
                     {QStringLiteral(":id"), idText(grantId)}}) ||
                update.numRowsAffected() != 1)
                return unavailable();
            if (const Result<Unit> audited = appendStandingGrantAudit(
                    db, revoked, QString::fromUtf16(kGrantRevokedKind), *revoked.revokedAt);
                !audited)
                return audited.error();
            return revoked;
        });
}

Result<QList<StandingGrantAuditRecord>>
SqlStandingGrantStore::standingGrantAudit(const ProfileScope &scope) const
{
    return m_session.inTransaction<QList<StandingGrantAuditRecord>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<StandingGrantAuditRecord>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") +
                        idColumn(QStringLiteral("id"), m_session.dialect()) +
                        QStringLiteral(", tenant, principal, ") +
                        idColumn(QStringLiteral("grant_id"), m_session.dialect()) +
                        QStringLiteral(", kind, ") +
                        timeColumn(QStringLiteral("recorded_at"), m_session.dialect()) +
                        QStringLiteral(" FROM browser_grant_audit"
                                       " WHERE tenant = :tenant AND principal = :principal"
                                       " ORDER BY recorded_at, kind, id"),
                    scope))
                return unavailable();
            QList<StandingGrantAuditRecord> records;
            while (rows.next()) {
                StandingGrantAuditRecord record{.id = QUuid::fromString(rows.value(0).toString()),
                                                .tenant = rows.value(1).toString(),
                                                .principal = rows.value(2).toString(),
                                                .grantId =
                                                    QUuid::fromString(rows.value(3).toString()),
                                                .kind = rows.value(4).toString(),
                                                .at = QDateTime()};
                const std::optional<QDateTime> at = decodeTime(rows.value(5), m_session.dialect());
                if (record.id.isNull() || record.grantId.isNull() || !at || !at->isValid())
                    return unavailable();
                record.at = *at;
                records << std::move(record);
            }
            return records;
        });
}

StandingGrantDecision SqlStandingGrantStore::authorize(const ProfileScope &scope,
                                                       const QUuid &grantId,
                                                       const StandingGrantUse &use) const
{
    // One read transaction (PostgreSQL: one REPEATABLE READ snapshot) for the grant and its
    // profile, so a revocation or a profile change is seen whole or not yet.
    const Result<StandingGrantDecision> decided = m_session.inTransaction<StandingGrantDecision>(
        scope, false, [&](QSqlDatabase &db) -> Result<StandingGrantDecision> {
            const Result<std::optional<StandingGrant>> grant =
                loadStandingGrant(db, scope, grantId, false);
            if (!grant)
                return grant.error();
            if (!grant->has_value())
                return StandingGrantDecision::deny(StandingGrantDenial::NotFound);
            const Result<std::optional<BrowserProfile>> profile =
                m_profiles.loadProfile(db, scope, (*grant)->profileId, false);
            if (!profile)
                return profile.error();
            if (!profile->has_value())
                return StandingGrantDecision::deny(StandingGrantDenial::NotFound);
            return StandingGrantRules::authorize(**grant, **profile, use);
        });
    if (!decided)
        return StandingGrantDecision::deny(StandingGrantDenial::Unavailable);
    return *decided;
}

} // namespace veetbot
