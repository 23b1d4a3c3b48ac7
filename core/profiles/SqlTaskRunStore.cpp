// TaskRunStore on SQL, on the tables of schema versions 7 and 8, in the same tenant-scoped
// transactions (SqlMetadataSession) as the profiles.

#include "SqlTaskRunStore.h"
#include "SqlRowFormat.h"
#include "storage/SqlQueries.h"

#include <QSqlQuery>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

QString runColumns(Dialect dialect)
{
    return idColumn(QStringLiteral("id"), dialect) +
           QStringLiteral(", profile_id, task_digest, model, status, outcome, stop_code, steps,"
                          " model_calls, tool_calls, stale_recoveries, acts, usage_in,"
                          " usage_out, cost_micro_usd, sign_in_suspensions, ") +
           timeColumn(QStringLiteral("started_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("updated_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("ended_at"), dialect);
}

Result<TaskRunRecord> decodeRun(const QSqlQuery &row, Dialect dialect)
{
    TaskRunRecord out;
    out.id = QUuid::fromString(row.value(0).toString());
    out.profileId = QUuid::fromString(row.value(1).toString());
    out.taskDigest = row.value(2).toString();
    out.model = row.value(3).toString();
    const std::optional<RunStatus> status = runStatusFromString(row.value(4).toString());
    const std::optional<RunOutcome> outcome = runOutcomeFromString(row.value(5).toString());
    out.stopCode = decodeText(row.value(6)).value_or(QString());
    out.usage.steps = row.value(7).toInt();
    out.usage.modelCalls = row.value(8).toInt();
    out.usage.toolCalls = row.value(9).toInt();
    out.usage.staleRecoveries = row.value(10).toInt();
    out.usage.acts = row.value(11).toInt();
    out.usage.promptTokens = row.value(12).toLongLong();
    out.usage.completionTokens = row.value(13).toLongLong();
    out.usage.costMicroUsd = row.value(14).toLongLong();
    out.signInSuspensions = row.value(15).toInt();
    const std::optional<QDateTime> started = decodeTime(row.value(16), dialect);
    const std::optional<QDateTime> updated = decodeTime(row.value(17), dialect);
    out.endedAt = decodeTime(row.value(18), dialect);
    if (out.id.isNull() || !status || !outcome || !started || !started->isValid() || !updated ||
        !updated->isValid() || (out.endedAt && !out.endedAt->isValid()))
        return unavailable();
    out.status = *status;
    out.outcome = *outcome;
    out.startedAt = *started;
    out.updatedAt = *updated;
    return out;
}

QVariantMap usageBindings(const RunUsage &usage)
{
    return {{QStringLiteral(":steps"), usage.steps},
            {QStringLiteral(":model_calls"), usage.modelCalls},
            {QStringLiteral(":tool_calls"), usage.toolCalls},
            {QStringLiteral(":stale"), usage.staleRecoveries},
            {QStringLiteral(":acts"), usage.acts},
            {QStringLiteral(":prompt"), usage.promptTokens},
            {QStringLiteral(":completion"), usage.completionTokens},
            {QStringLiteral(":cost"), usage.costMicroUsd}};
}

bool storableUsage(const RunUsage &usage)
{
    TaskRunRecord probe;
    probe.id = probe.profileId = QUuid::createUuid();
    probe.taskDigest = QString(64, u'0');
    probe.model = QStringLiteral("m");
    probe.usage = usage;
    return isStorable(probe);
}

// Opens a run again (running, not ended, no stop code) when its status is in `statuses` (an SQL
// list of status words): the rows changed, or -1 when the store failed.
int reopenRun(QSqlDatabase &db, const ProfileScope &scope, const QUuid &runId,
              const QDateTime &time, const QString &statuses)
{
    QSqlQuery reopen(db);
    if (!SqlMetadataSession::runScoped(
            reopen,
            QStringLiteral("UPDATE task_runs SET status = 'running', ended_at = NULL,"
                           " stop_code = NULL, updated_at = :now WHERE id = :id"
                           " AND tenant = :tenant AND principal = :principal AND status IN ") +
                statuses,
            scope,
            {{QStringLiteral(":now"), timeText(time)}, {QStringLiteral(":id"), idText(runId)}}))
        return -1;
    return reopen.numRowsAffected();
}

} // namespace

SqlTaskRunStore::SqlTaskRunStore(SqlMetadataSession &session) : m_session(session) {}

Result<Unit> SqlTaskRunStore::createTaskRun(const ProfileScope &scope, const TaskRunRecord &record)
{
    if (!isStorable(record) || record.status != RunStatus::Running || record.endedAt)
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        QSqlQuery insert(db);
        QVariantMap bindings{{QStringLiteral(":id"), idText(record.id)},
                             {QStringLiteral(":profile"), idText(record.profileId)},
                             {QStringLiteral(":digest"), record.taskDigest},
                             {QStringLiteral(":model"), record.model},
                             {QStringLiteral(":outcome"), runOutcomeString(record.outcome)},
                             {QStringLiteral(":started"), timeText(time)},
                             {QStringLiteral(":updated"), timeText(time)}};
        bindings.insert(usageBindings(record.usage));
        if (!SqlMetadataSession::runScoped(
                insert,
                QStringLiteral("INSERT INTO task_runs (id, tenant, principal, profile_id,"
                               " task_digest, model, status, outcome, steps, model_calls,"
                               " tool_calls, stale_recoveries, acts, usage_in,"
                               " usage_out, cost_micro_usd, started_at, updated_at)"
                               " VALUES (:id, :tenant, :principal, :profile, :digest, :model,"
                               " 'running', :outcome, :steps, :model_calls, :tool_calls,"
                               " :stale, :acts, :prompt, :completion, :cost, :started,"
                               " :updated)"),
                scope, bindings) ||
            insert.numRowsAffected() != 1)
            return unavailable();
        return Unit{};
    });
}

Result<TaskRunRecord> SqlTaskRunStore::taskRun(const ProfileScope &scope, const QUuid &runId) const
{
    return m_session.inTransaction<TaskRunRecord>(
        scope, false, [&](QSqlDatabase &db) -> Result<TaskRunRecord> {
            QSqlQuery row(db);
            if (!m_session.selectScoped(
                    row, runColumns(m_session.dialect()), QStringLiteral("task_runs"), scope,
                    QStringLiteral("id = :id"), {{QStringLiteral(":id"), idText(runId)}}, false))
                return unavailable();
            if (!row.next())
                return taskRunError(TaskRunFailure::NotFound);
            return decodeRun(row, m_session.dialect());
        });
}

Result<Unit> SqlTaskRunStore::saveTaskRunProgress(const ProfileScope &scope, const QUuid &runId,
                                                  const RunUsage &usage, RunOutcome outcome)
{
    if (!storableUsage(usage))
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        QSqlQuery update(db);
        QVariantMap bindings{{QStringLiteral(":id"), idText(runId)},
                             {QStringLiteral(":outcome"), runOutcomeString(outcome)},
                             {QStringLiteral(":updated"), timeText(time)}};
        bindings.insert(usageBindings(usage));
        if (!SqlMetadataSession::runScoped(
                update,
                QStringLiteral("UPDATE task_runs SET steps = :steps, model_calls = :model_calls,"
                               " tool_calls = :tool_calls, stale_recoveries = :stale,"
                               " acts = :acts, usage_in = :prompt,"
                               " usage_out = :completion, cost_micro_usd = :cost,"
                               " outcome = :outcome, updated_at = :updated"
                               " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                               " AND status = 'running'"),
                scope, bindings))
            return unavailable();
        if (update.numRowsAffected() != 1)
            return taskRunError(TaskRunFailure::NotFound);
        return Unit{};
    });
}

Result<TaskRunRecord> SqlTaskRunStore::endTaskRun(const ProfileScope &scope, const QUuid &runId,
                                                  RunStatus status, RunOutcome outcome,
                                                  const QString &stopCode, const RunUsage &usage)
{
    TaskRunRecord probe;
    probe.id = probe.profileId = runId;
    probe.taskDigest = QString(64, u'0');
    probe.model = QStringLiteral("m");
    probe.stopCode = stopCode;
    probe.usage = usage;
    if (status == RunStatus::Running || !isStorable(probe))
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<TaskRunRecord>(
        scope, true, [&](QSqlDatabase &db) -> Result<TaskRunRecord> {
            QSqlQuery end(db);
            QVariantMap bindings{
                {QStringLiteral(":id"), idText(runId)},
                {QStringLiteral(":status"), runStatusString(status)},
                {QStringLiteral(":outcome"), runOutcomeString(outcome)},
                {QStringLiteral(":code"), stopCode.isEmpty() ? nullText() : QVariant(stopCode)},
                {QStringLiteral(":ended"), timeText(time)}};
            bindings.insert(usageBindings(usage));
            if (!SqlMetadataSession::runScoped(
                    end,
                    QStringLiteral(
                        "UPDATE task_runs SET status = :status, outcome = :outcome,"
                        " stop_code = :code, steps = :steps, model_calls = :model_calls,"
                        " tool_calls = :tool_calls, stale_recoveries = :stale, acts = :acts,"
                        " usage_in = :prompt, usage_out = :completion,"
                        " cost_micro_usd = :cost, updated_at = :ended, ended_at = :ended"
                        " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                        " AND status IN ('running', 'needs_user')"),
                    scope, bindings))
                return unavailable();
            if (end.numRowsAffected() != 1)
                return taskRunError(TaskRunFailure::NotResumable);
            QSqlQuery attempt(db);
            if (!SqlMetadataSession::runScoped(
                    attempt,
                    QStringLiteral("UPDATE task_run_attempts SET ended_at = :ended,"
                                   " end_status = :status WHERE run_id = :id"
                                   " AND tenant = :tenant AND principal = :principal"
                                   " AND ended_at IS NULL"),
                    scope,
                    {{QStringLiteral(":ended"), timeText(time)},
                     {QStringLiteral(":status"), runStatusString(status)},
                     {QStringLiteral(":id"), idText(runId)}}))
                return unavailable();
            QSqlQuery row(db);
            if (!m_session.selectScoped(
                    row, runColumns(m_session.dialect()), QStringLiteral("task_runs"), scope,
                    QStringLiteral("id = :id"), {{QStringLiteral(":id"), idText(runId)}}, false) ||
                !row.next())
                return unavailable();
            return decodeRun(row, m_session.dialect());
        });
}

Result<int> SqlTaskRunStore::suspendTaskRun(const ProfileScope &scope, const QUuid &runId,
                                            const RunUsage &usage, RunOutcome outcome)
{
    if (!storableUsage(usage))
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<int>(scope, true, [&](QSqlDatabase &db) -> Result<int> {
        QSqlQuery suspend(db);
        QVariantMap bindings{{QStringLiteral(":id"), idText(runId)},
                             {QStringLiteral(":outcome"), runOutcomeString(outcome)},
                             {QStringLiteral(":limit"), RunCeilings::kSignInSuspensions},
                             {QStringLiteral(":now"), timeText(time)}};
        bindings.insert(usageBindings(usage));
        if (!SqlMetadataSession::runScoped(
                suspend,
                QStringLiteral("UPDATE task_runs SET status = 'needs_user', outcome = :outcome,"
                               " stop_code = 'tool.browser.needs_user', steps = :steps,"
                               " model_calls = :model_calls, tool_calls = :tool_calls,"
                               " stale_recoveries = :stale, acts = :acts, usage_in = :prompt,"
                               " usage_out = :completion, cost_micro_usd = :cost,"
                               " sign_in_suspensions = sign_in_suspensions + 1, updated_at = :now,"
                               " ended_at = :now WHERE id = :id AND tenant = :tenant"
                               " AND principal = :principal AND status = 'running'"
                               " AND sign_in_suspensions < :limit"),
                scope, bindings))
            return unavailable();
        if (suspend.numRowsAffected() != 1)
            return taskRunError(TaskRunFailure::NotResumable);
        QSqlQuery count(db);
        if (!SqlMetadataSession::runScoped(
                count,
                QStringLiteral("SELECT sign_in_suspensions FROM task_runs WHERE id = :id"
                               " AND tenant = :tenant AND principal = :principal"),
                scope, {{QStringLiteral(":id"), idText(runId)}}) ||
            !count.next())
            return unavailable();
        return count.value(0).toInt();
    });
}

Result<Unit> SqlTaskRunStore::resumeTaskRun(const ProfileScope &scope, const QUuid &runId)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        const int reopened = reopenRun(db, scope, runId, time, QStringLiteral("('needs_user')"));
        if (reopened < 0)
            return unavailable();
        if (reopened != 1)
            return taskRunError(TaskRunFailure::NotResumable);
        return Unit{};
    });
}

Result<int> SqlTaskRunStore::beginTaskRunAttempt(const ProfileScope &scope, const QUuid &runId,
                                                 const QUuid &ledgerOwner, qint64 pid)
{
    if (ledgerOwner.isNull() || pid <= 0)
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<int>(scope, true, [&](QSqlDatabase &db) -> Result<int> {
        QSqlQuery status(db);
        if (!SqlMetadataSession::runScoped(
                status,
                QStringLiteral("SELECT status FROM task_runs WHERE id = :id"
                               " AND tenant = :tenant AND principal = :principal"),
                scope, {{QStringLiteral(":id"), idText(runId)}}))
            return unavailable();
        if (!status.next())
            return taskRunError(TaskRunFailure::NotFound);
        const QString current = status.value(0).toString();
        status.finish();
        if (current != QLatin1String("running") && current != QLatin1String("needs_user"))
            return taskRunError(TaskRunFailure::NotResumable);
        if (reopenRun(db, scope, runId, time, QStringLiteral("('running', 'needs_user')")) < 0)
            return unavailable();
        QSqlQuery interrupted(db);
        if (!SqlMetadataSession::runScoped(
                interrupted,
                QStringLiteral("UPDATE task_run_attempts SET ended_at = :now,"
                               " end_status = 'interrupted' WHERE run_id = :id"
                               " AND tenant = :tenant AND principal = :principal"
                               " AND ended_at IS NULL"),
                scope,
                {{QStringLiteral(":now"), timeText(time)}, {QStringLiteral(":id"), idText(runId)}}))
            return unavailable();
        QSqlQuery count(db);
        if (!SqlMetadataSession::runScoped(
                count,
                QStringLiteral("SELECT COALESCE(MAX(seq), 0) FROM task_run_attempts"
                               " WHERE run_id = :id AND tenant = :tenant"
                               " AND principal = :principal"),
                scope, {{QStringLiteral(":id"), idText(runId)}}) ||
            !count.next())
            return unavailable();
        const int seq = count.value(0).toInt() + 1;
        count.finish();
        if (seq > 16)
            return taskRunError(TaskRunFailure::TooManyAttempts);
        QSqlQuery insert(db);
        if (!SqlMetadataSession::runScoped(
                insert,
                QStringLiteral("INSERT INTO task_run_attempts (run_id, tenant, principal, seq,"
                               " ledger_owner, pid, started_at) VALUES (:id, :tenant,"
                               " :principal, :seq, :owner, :pid, :now)"),
                scope,
                {{QStringLiteral(":id"), idText(runId)},
                 {QStringLiteral(":seq"), seq},
                 {QStringLiteral(":owner"), idText(ledgerOwner)},
                 {QStringLiteral(":pid"), pid},
                 {QStringLiteral(":now"), timeText(time)}}) ||
            insert.numRowsAffected() != 1)
            return unavailable();
        return seq;
    });
}

Result<QList<TaskRunAttempt>> SqlTaskRunStore::taskRunAttempts(const ProfileScope &scope,
                                                               const QUuid &runId) const
{
    return m_session.inTransaction<QList<TaskRunAttempt>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<TaskRunAttempt>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT seq, ledger_owner, pid, ") +
                        timeColumn(QStringLiteral("started_at"), m_session.dialect()) +
                        QStringLiteral(", ") +
                        timeColumn(QStringLiteral("ended_at"), m_session.dialect()) +
                        QStringLiteral(", end_status FROM task_run_attempts WHERE run_id = :id"
                                       " AND tenant = :tenant AND principal = :principal"
                                       " ORDER BY seq"),
                    scope, {{QStringLiteral(":id"), idText(runId)}}))
                return unavailable();
            QList<TaskRunAttempt> out;
            while (rows.next()) {
                TaskRunAttempt attempt;
                attempt.seq = rows.value(0).toInt();
                attempt.ledgerOwner = QUuid::fromString(rows.value(1).toString());
                attempt.pid = rows.value(2).toLongLong();
                const std::optional<QDateTime> started =
                    decodeTime(rows.value(3), m_session.dialect());
                if (!started || !started->isValid())
                    return unavailable();
                attempt.startedAt = *started;
                attempt.endedAt = decodeTime(rows.value(4), m_session.dialect());
                attempt.endStatus = decodeText(rows.value(5)).value_or(QString());
                out << attempt;
            }
            return out;
        });
}

bool SqlTaskRunStore::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    // Runs and attempts are kept: written and updated, never deleted by the application.
    return SqlQueries::runPlain(
               db, QStringLiteral("GRANT SELECT, INSERT, UPDATE ON task_runs TO ") + quotedRole) &&
           SqlQueries::runPlain(db,
                                QStringLiteral("GRANT SELECT, INSERT, UPDATE ON task_run_attempts"
                                               " TO ") +
                                    quotedRole);
}

} // namespace veetbot
