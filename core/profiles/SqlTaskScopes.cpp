// BrowserProfileRepository's task-scope policy on SQL: the list of task scopes of an owner,
// its revisions and audit, in the same tenant-scoped transactions as the profiles.

#include "SqlProfileRepository.h"

#include "SqlRowFormat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QVariant>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

} // namespace

Result<TaskScopeState> SqlProfileRepository::loadTaskScopes(QSqlDatabase &db,
                                                            const ProfileScope &scope,
                                                            bool forUpdate) const
{
    QSqlQuery policy(db);
    if (!m_session.selectScoped(policy, QStringLiteral("revision, last_source"),
                                QStringLiteral("browser_task_scope_policies"), scope, QString(), {},
                                forUpdate))
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
    if (!SqlMetadataSession::runScoped(
            rows,
            QStringLiteral("SELECT origin, segment FROM browser_task_scopes"
                           " WHERE tenant = :tenant AND principal = :principal"
                           " ORDER BY ordinal"),
            scope))
        return failure(ProfileFailure::RepositoryUnavailable);
    QList<TaskScope> entries;
    while (rows.next()) {
        Result<TaskScope> entry = TaskScope::fromParts(
            rows.value(0).toString(), rows.value(1).toString(), m_session.overrides());
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
        if (!SqlMetadataSession::runScoped(
                policy,
                QStringLiteral("INSERT INTO browser_task_scope_policies (tenant, principal,"
                               " revision, last_source, updated_at)"
                               " VALUES (:tenant, :principal, :revision, :source, :updated_at)"
                               " ON CONFLICT DO NOTHING"),
                scope,
                {{QStringLiteral(":revision"), change.policy.revision},
                 {QStringLiteral(":source"), taskScopeSourceString(change.source)},
                 {QStringLiteral(":updated_at"), timeText(time)}}))
            return failure(ProfileFailure::RepositoryUnavailable);
    } else if (!SqlMetadataSession::runScoped(
                   policy,
                   QStringLiteral("UPDATE browser_task_scope_policies SET revision = :revision,"
                                  " last_source = :source, updated_at = :updated_at"
                                  " WHERE tenant = :tenant AND principal = :principal"
                                  " AND revision = :expected_revision"),
                   scope,
                   {{QStringLiteral(":revision"), change.policy.revision},
                    {QStringLiteral(":source"), taskScopeSourceString(change.source)},
                    {QStringLiteral(":updated_at"), timeText(time)},
                    {QStringLiteral(":expected_revision"), before.policy.revision}})) {
        return failure(ProfileFailure::RepositoryUnavailable);
    }
    if (policy.numRowsAffected() != 1)
        return taskScopeError(TaskScopeFailure::Conflict);

    QSqlQuery erase(db);
    if (!SqlMetadataSession::runScoped(
            erase,
            QStringLiteral("DELETE FROM browser_task_scopes"
                           " WHERE tenant = :tenant AND principal = :principal"),
            scope))
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
    const QDateTime time = m_session.now();
    return m_session.inTransaction<TaskScopeChange>(
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
            if (const Result<Unit> ended = m_scopesChanged(db, scope, *change); !ended)
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
    return m_session.inTransaction<TaskScopePolicy>(
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
        m_session.dialect() == Dialect::Postgres
            ? QStringLiteral("CAST(id AS text), tenant, principal, kind,"
                             " CAST(EXTRACT(EPOCH FROM recorded_at) * 1000 AS bigint),"
                             " revision, source, entries")
            : QStringLiteral("id, tenant, principal, kind, recorded_at, revision, source, entries");
    return m_session.inTransaction<QList<TaskScopeAuditRecord>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<TaskScopeAuditRecord>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") + columns +
                        QStringLiteral(" FROM browser_policy_audit"
                                       " WHERE tenant = :tenant AND principal = :principal"
                                       " ORDER BY revision, recorded_at, id"),
                    scope))
                return failure(ProfileFailure::RepositoryUnavailable);
            QList<TaskScopeAuditRecord> records;
            while (rows.next()) {
                TaskScopeAuditRecord record;
                record.id = QUuid::fromString(rows.value(0).toString());
                record.tenant = rows.value(1).toString();
                record.principal = rows.value(2).toString();
                record.kind = rows.value(3).toString();
                const std::optional<QDateTime> at = decodeTime(rows.value(4), m_session.dialect());
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
