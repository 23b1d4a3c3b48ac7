// TaskGrantStore on SQL: grants made from a card, used act by act, ended for good; in the same
// tenant-scoped transactions as the profile and task-scope policy they are checked against.

#include "SqlTaskGrantStore.h"

#include "SqlRowFormat.h"

#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

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

SqlTaskGrantStore::SqlTaskGrantStore(SqlMetadataSession &session,
                                     const SqlProfileRepository &profiles)
    : m_session(session), m_profiles(profiles)
{
}

bool SqlTaskGrantStore::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    // A grant is history once made: its counters and end change, the row is never removed.
    return SqlQueries::runPlain(
               db, QStringLiteral("GRANT SELECT, INSERT, UPDATE ON browser_task_grants TO ") +
                       quotedRole) &&
           SqlQueries::runPlain(
               db,
               QStringLiteral("GRANT SELECT, INSERT ON browser_task_grant_audit TO ") + quotedRole);
}

Result<std::optional<TaskGrant>>
SqlTaskGrantStore::loadGrant(QSqlDatabase &db, const ProfileScope &scope, const QString &condition,
                             const QVariantMap &values, bool forUpdate) const
{
    QSqlQuery row(db);
    if (!m_session.selectScoped(row, grantColumns(m_session.dialect()),
                                QStringLiteral("browser_task_grants"), scope, condition, values,
                                forUpdate))
        return unavailable();
    if (!row.next())
        return std::optional<TaskGrant>();
    Result<TaskGrant> grant = decodeGrant(row, m_session.dialect(), m_session.overrides());
    if (!grant)
        return grant.error();
    return std::optional<TaskGrant>(std::move(grant).value());
}

Result<Unit> SqlTaskGrantStore::appendGrantAudit(QSqlDatabase &db, const TaskGrant &grant,
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

Result<TaskGrant> SqlTaskGrantStore::endGrant(QSqlDatabase &db, TaskGrant grant,
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
    const TaskGrantAuditRecord record = TaskGrantAuditRecord::ended(grant.id, time, reason);
    if (const Result<Unit> audited = appendGrantAudit(db, grant, record); !audited)
        return audited.error();
    return grant;
}

Result<Unit> SqlTaskGrantStore::endGrantsOutside(QSqlDatabase &db, const ProfileScope &scope,
                                                 const TaskScopeChange &change) const
{
    if (change.removed.isEmpty())
        return Unit{};
    QSqlQuery rows(db);
    if (!SqlMetadataSession::runScoped(
            rows,
            QStringLiteral("SELECT ") + grantColumns(m_session.dialect()) +
                QStringLiteral(" FROM browser_task_grants WHERE tenant = :tenant"
                               " AND principal = :principal AND ended_at IS NULL"),
            scope))
        return failure(ProfileFailure::RepositoryUnavailable);
    QList<TaskGrant> outside;
    while (rows.next()) {
        Result<TaskGrant> grant = decodeGrant(rows, m_session.dialect(), m_session.overrides());
        if (!grant)
            return grant.error();
        if (!change.policy.entries.contains(grant->scope))
            outside << std::move(grant).value();
    }
    rows.finish();
    const QDateTime time = m_session.now();
    for (const TaskGrant &grant : outside) {
        if (const Result<TaskGrant> ended = endGrant(db, grant, TaskGrantEnd::ScopeRemoved, time);
            !ended)
            return ended.error();
    }
    return Unit{};
}

Result<TaskGrant> SqlTaskGrantStore::createTaskGrant(const ProfileScope &scope,
                                                     const TaskGrantPins &pins,
                                                     const TaskScope &offered,
                                                     const QUuid &approval,
                                                     const QJsonObject &approvalView)
{
    if (!pins.isComplete() || approval.isNull())
        return failure(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<TaskGrant>(
        scope, true, [&](QSqlDatabase &db) -> Result<TaskGrant> {
            // The list's lock first, as a scope change takes it: a grant is made inside the list
            // as it stands, and a concurrent removal ends it.
            const Result<TaskScopeState> scopes = m_profiles.loadTaskScopes(db, scope, true);
            if (!scopes)
                return scopes.error();
            const Result<std::optional<BrowserProfile>> profile =
                m_profiles.loadProfile(db, scope, pins.profileId, true);
            if (!profile)
                return profile.error();
            const Result<std::optional<AuthenticationCeremony>> open =
                m_profiles.loadNewestOpen(db, scope, pins.profileId, time);
            if (!open)
                return open.error();
            if (const Result<Unit> admitted = TaskGrantRules::admit(
                    scopes->policy.entries, offered, *profile, open->has_value(), pins);
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

            const TaskGrant grant = TaskGrantRules::make(scope, pins, offered, approval, time);
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
            const TaskGrantAuditRecord record =
                TaskGrantAuditRecord::created(grant.id, time, approvalView);
            if (const Result<Unit> audited = appendGrantAudit(db, grant, record); !audited)
                return audited.error();
            return grant;
        });
}

Result<std::optional<TaskGrant>> SqlTaskGrantStore::activeTaskGrant(const ProfileScope &scope,
                                                                    const QUuid &session) const
{
    return m_session.inTransaction<std::optional<TaskGrant>>(
        scope, false, [&](QSqlDatabase &db) -> Result<std::optional<TaskGrant>> {
            return loadGrant(db, scope,
                             QStringLiteral("session_id = :session AND ended_at IS NULL"),
                             {{QStringLiteral(":session"), idText(session)}}, false);
        });
}

Result<TaskGrantUse> SqlTaskGrantStore::useTaskGrant(const ProfileScope &scope,
                                                     const TaskGrantPins &pins,
                                                     const QUuid &grantId, int typedCharacters,
                                                     const QJsonObject &approvalView)
{
    if (!pins.isComplete() || typedCharacters < 0)
        return failure(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    // An end is stored and committed even though the use is refused: the outcome carries the
    // refusal out of the unit of work.
    struct Outcome
    {
        std::optional<TaskGrantUse> use;
        Error refusal;
    };
    const Result<Outcome> outcome =
        m_session.inTransaction<Outcome>(scope, true, [&](QSqlDatabase &db) -> Result<Outcome> {
            const Result<TaskScopeState> scopes = m_profiles.loadTaskScopes(db, scope, true);
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
                m_profiles.loadProfile(db, scope, grant.pins.profileId, false);
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
            if (!SqlMetadataSession::runScoped(
                    consume,
                    QStringLiteral("UPDATE browser_task_grants SET uses = uses + 1,"
                                   " typed_characters = typed_characters + :typed"
                                   " WHERE id = :id AND tenant = :tenant"
                                   " AND principal = :principal AND ended_at IS NULL"
                                   " AND uses = :uses"),
                    scope,
                    {{QStringLiteral(":typed"), typedCharacters},
                     {QStringLiteral(":id"), idText(grant.id)},
                     {QStringLiteral(":uses"), grant.uses}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            if (consume.numRowsAffected() != 1)
                return Outcome{std::nullopt, taskGrantError(TaskGrantFailure::Ended)};
            TaskGrantUse use{grant, grant.uses + 1};
            use.grant.uses = use.ordinal;
            use.grant.typedCharacters += typedCharacters;
            const TaskGrantAuditRecord record =
                TaskGrantAuditRecord::authorized(grant.id, time, use.ordinal, approvalView);
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

Result<TaskGrant> SqlTaskGrantStore::endTaskGrant(const ProfileScope &scope, const QUuid &grantId,
                                                  TaskGrantEnd reason)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<TaskGrant>(
        scope, true, [&](QSqlDatabase &db) -> Result<TaskGrant> {
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

Result<QList<TaskGrant>> SqlTaskGrantStore::taskGrants(const ProfileScope &scope)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<QList<TaskGrant>>(
        scope, true, [&](QSqlDatabase &db) -> Result<QList<TaskGrant>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") + grantColumns(m_session.dialect()) +
                        QStringLiteral(" FROM browser_task_grants WHERE tenant = :tenant"
                                       " AND principal = :principal"
                                       " ORDER BY created_at DESC, id"),
                    scope))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskGrant> grants;
            while (rows.next()) {
                Result<TaskGrant> grant =
                    decodeGrant(rows, m_session.dialect(), m_session.overrides());
                if (!grant)
                    return grant.error();
                grants << std::move(grant).value();
            }
            rows.finish();
            for (TaskGrant &grant : grants) {
                if (grant.isEnded())
                    continue;
                const Result<std::optional<BrowserProfile>> profile =
                    m_profiles.loadProfile(db, scope, grant.pins.profileId, false);
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

Result<QList<TaskGrantAuditRecord>> SqlTaskGrantStore::taskGrantAudit(const ProfileScope &scope,
                                                                      const QUuid &grantId) const
{
    const QString columns =
        m_session.dialect() == Dialect::Postgres
            ? QStringLiteral("CAST(id AS text), kind,"
                             " CAST(EXTRACT(EPOCH FROM recorded_at) * 1000 AS bigint),"
                             " ordinal, end_reason, approval_view")
            : QStringLiteral("id, kind, recorded_at, ordinal, end_reason, approval_view");
    return m_session.inTransaction<QList<TaskGrantAuditRecord>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<TaskGrantAuditRecord>> {
            const Result<std::optional<TaskGrant>> grant =
                loadGrant(db, scope, QStringLiteral("id = :id"),
                          {{QStringLiteral(":id"), idText(grantId)}}, false);
            if (!grant)
                return grant.error();
            if (!*grant)
                return taskGrantError(TaskGrantFailure::NotFound);
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") + columns +
                        QStringLiteral(" FROM browser_task_grant_audit WHERE tenant = :tenant"
                                       " AND principal = :principal AND grant_id = :grant"
                                       " ORDER BY recorded_at, CASE kind"
                                       " WHEN 'browser.task_grant.created' THEN 0"
                                       " WHEN 'tool.call.authorized' THEN 1 ELSE 2 END,"
                                       " ordinal"),
                    scope, {{QStringLiteral(":grant"), idText(grantId)}}))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskGrantAuditRecord> records;
            while (rows.next()) {
                TaskGrantAuditRecord record;
                record.id = QUuid::fromString(rows.value(0).toString());
                record.grant = grantId;
                record.kind = rows.value(1).toString();
                const std::optional<QDateTime> at = decodeTime(rows.value(2), m_session.dialect());
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
