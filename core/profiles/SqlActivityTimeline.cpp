// ActivityTimeline on SQL, on the tables of schema version 6, in the same tenant-scoped
// transactions (SqlMetadataSession) as the profiles.

#include "SqlActivityTimeline.h"
#include "SqlRowFormat.h"
#include "storage/SqlQueries.h"

#include <QSqlQuery>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

QVariant optionalInt(qint64 value)
{
    return value < 0 ? QVariant(QMetaType::fromType<qint64>()) : QVariant(value);
}

QVariant textOrNull(const QString &value)
{
    return value.isEmpty() ? nullText() : QVariant(value);
}

QString runColumns(Dialect dialect)
{
    return idColumn(QStringLiteral("id"), dialect) +
           QStringLiteral(", kind, profile_id, website, ") +
           timeColumn(QStringLiteral("started_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("ended_at"), dialect) +
           QStringLiteral(", end_reason, tool_calls, acts, last_approval_source");
}

Result<ActivityRun> decodeRun(const QSqlQuery &row, Dialect dialect)
{
    ActivityRun run;
    run.id = QUuid::fromString(row.value(0).toString());
    run.kind = row.value(1).toString();
    run.profileId = QUuid::fromString(row.value(2).toString());
    run.website = decodeText(row.value(3)).value_or(QString());
    const std::optional<QDateTime> started = decodeTime(row.value(4), dialect);
    run.endedAt = decodeTime(row.value(5), dialect);
    run.endReason = decodeText(row.value(6)).value_or(QString());
    run.toolCalls = row.value(7).toInt();
    run.acts = row.value(8).toInt();
    run.lastApprovalSource = decodeText(row.value(9)).value_or(QString());
    if (run.id.isNull() || !started || !started->isValid() ||
        (run.endedAt && !run.endedAt->isValid()))
        return unavailable();
    run.startedAt = *started;
    return run;
}

} // namespace

SqlActivityTimeline::SqlActivityTimeline(SqlMetadataSession &session) : m_session(session) {}

Result<Unit> SqlActivityTimeline::startRun(const ProfileScope &scope, const ActivityRun &record)
{
    if (record.id.isNull() || !isContentFree(record) || record.endedAt)
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        QSqlQuery prune(db);
        if (!SqlMetadataSession::runScoped(
                prune,
                QStringLiteral("DELETE FROM activity_events WHERE tenant = :tenant"
                               " AND principal = :principal AND recorded_at < :cutoff"),
                scope, {{QStringLiteral(":cutoff"), timeText(time.addDays(-kActivityEventDays))}}))
            return unavailable();
        QSqlQuery insert(db);
        if (!SqlMetadataSession::runScoped(
                insert,
                QStringLiteral("INSERT INTO activity_runs (id, tenant, principal, kind,"
                               " profile_id, website, started_at, tool_calls, acts)"
                               " VALUES (:id, :tenant, :principal, :kind, :profile, :website,"
                               " :started, 0, 0)"),
                scope,
                {{QStringLiteral(":id"), idText(record.id)},
                 {QStringLiteral(":kind"), record.kind},
                 {QStringLiteral(":profile"),
                  record.profileId.isNull() ? nullText() : QVariant(idText(record.profileId))},
                 {QStringLiteral(":website"), textOrNull(record.website)},
                 {QStringLiteral(":started"), timeText(record.startedAt)}}) ||
            insert.numRowsAffected() != 1)
            return unavailable();
        return Unit{};
    });
}

Result<Unit> SqlActivityTimeline::appendEvent(const ProfileScope &scope, const QUuid &runId,
                                              const ActivityEvent &event)
{
    if (!isContentFree(event))
        return profileError(ProfileFailure::Invalid);
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        QSqlQuery summary(db);
        const bool act =
            event.kind == QLatin1String("tool.call") && event.tool == QLatin1String("browser.act");
        const bool ran =
            act && !event.approvalSource.isEmpty() && event.approvalSource != QLatin1String("none");
        if (!SqlMetadataSession::runScoped(
                summary,
                QStringLiteral("UPDATE activity_runs SET"
                               " tool_calls = tool_calls + :call, acts = acts + :act,"
                               " last_approval_source = CASE WHEN :ran = 1 THEN :source"
                               " ELSE last_approval_source END"
                               " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                               " AND ended_at IS NULL"),
                scope,
                {{QStringLiteral(":call"), int(event.kind == QLatin1String("tool.call"))},
                 {QStringLiteral(":act"), int(act)},
                 {QStringLiteral(":ran"), int(ran)},
                 {QStringLiteral(":source"), textOrNull(event.approvalSource)},
                 {QStringLiteral(":id"), idText(runId)}}))
            return unavailable();
        if (summary.numRowsAffected() != 1)
            return activityRunNotFound();
        QSqlQuery insert(db);
        if (!SqlMetadataSession::runScoped(
                insert,
                QStringLiteral(
                    "INSERT INTO activity_events (id, tenant, principal, run_id, seq,"
                    " recorded_at, kind, tool, action_kind, target_role, approval_source,"
                    " outcome, code, elapsed_ms, origin, path_segment, elements, regions,"
                    " grant_id, ordinal) VALUES (:id, :tenant, :principal, :run,"
                    " (SELECT COALESCE(MAX(seq), 0) + 1 FROM activity_events"
                    " WHERE run_id = :run_again), :at, :kind, :tool, :action, :role, :source,"
                    " :outcome, :code, :elapsed, :origin, :segment, :elements, :regions,"
                    " :grant, :ordinal)"),
                scope,
                {{QStringLiteral(":id"), idText(BrowserProfile::newId())},
                 {QStringLiteral(":run"), idText(runId)},
                 {QStringLiteral(":run_again"), idText(runId)},
                 {QStringLiteral(":at"), timeText(event.at.isValid() ? event.at : m_session.now())},
                 {QStringLiteral(":kind"), event.kind},
                 {QStringLiteral(":tool"), textOrNull(event.tool)},
                 {QStringLiteral(":action"), textOrNull(event.actionKind)},
                 {QStringLiteral(":role"), textOrNull(event.targetRole)},
                 {QStringLiteral(":source"), textOrNull(event.approvalSource)},
                 {QStringLiteral(":outcome"), textOrNull(event.outcome)},
                 {QStringLiteral(":code"), textOrNull(event.code)},
                 {QStringLiteral(":elapsed"), optionalInt(event.elapsedMs)},
                 {QStringLiteral(":origin"), textOrNull(event.origin)},
                 {QStringLiteral(":segment"), textOrNull(event.pathSegment)},
                 {QStringLiteral(":elements"), optionalInt(event.elements)},
                 {QStringLiteral(":regions"), optionalInt(event.regions)},
                 {QStringLiteral(":grant"),
                  event.grant.isNull() ? nullText() : QVariant(idText(event.grant))},
                 {QStringLiteral(":ordinal"), optionalInt(event.ordinal)}}) ||
            insert.numRowsAffected() != 1)
            return unavailable();
        return Unit{};
    });
}

Result<ActivityRun> SqlActivityTimeline::endRun(const ProfileScope &scope, const QUuid &runId,
                                                const QString &reason)
{
    ActivityRun probe;
    probe.kind = QStringLiteral("mcp");
    probe.endReason = reason;
    if (reason.isEmpty() || !isContentFree(probe))
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<ActivityRun>(
        scope, true, [&](QSqlDatabase &db) -> Result<ActivityRun> {
            QSqlQuery end(db);
            if (!SqlMetadataSession::runScoped(
                    end,
                    QStringLiteral(
                        "UPDATE activity_runs SET ended_at = :ended, end_reason = :reason"
                        " WHERE id = :id AND tenant = :tenant AND principal = :principal"
                        " AND ended_at IS NULL"),
                    scope,
                    {{QStringLiteral(":ended"), timeText(time)},
                     {QStringLiteral(":reason"), reason},
                     {QStringLiteral(":id"), idText(runId)}}))
                return unavailable();
            return loadRun(db, scope, runId);
        });
}

Result<ActivityRun> SqlActivityTimeline::loadRun(QSqlDatabase &db, const ProfileScope &scope,
                                                 const QUuid &runId) const
{
    QSqlQuery row(db);
    if (!m_session.selectScoped(row, runColumns(m_session.dialect()),
                                QStringLiteral("activity_runs"), scope, QStringLiteral("id = :id"),
                                {{QStringLiteral(":id"), idText(runId)}}, false))
        return unavailable();
    if (!row.next())
        return activityRunNotFound();
    return decodeRun(row, m_session.dialect());
}

Result<QList<ActivityRun>> SqlActivityTimeline::runs(const ProfileScope &scope, int limit) const
{
    return m_session.inTransaction<QList<ActivityRun>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<ActivityRun>> {
            QSqlQuery rows(db);
            if (!SqlMetadataSession::runScoped(
                    rows,
                    QStringLiteral("SELECT ") + runColumns(m_session.dialect()) +
                        QStringLiteral(" FROM activity_runs WHERE tenant = :tenant"
                                       " AND principal = :principal"
                                       " ORDER BY started_at DESC, id LIMIT :limit"),
                    scope, {{QStringLiteral(":limit"), std::max(1, limit)}}))
                return unavailable();
            QList<ActivityRun> out;
            while (rows.next()) {
                Result<ActivityRun> decoded = decodeRun(rows, m_session.dialect());
                if (!decoded)
                    return decoded.error();
                out << std::move(decoded).value();
            }
            return out;
        });
}

Result<std::pair<ActivityRun, QList<ActivityEvent>>>
SqlActivityTimeline::runWithEvents(const ProfileScope &scope, const QUuid &runId) const
{
    using Answer = std::pair<ActivityRun, QList<ActivityEvent>>;
    return m_session.inTransaction<Answer>(scope, false, [&](QSqlDatabase &db) -> Result<Answer> {
        Result<ActivityRun> decoded = loadRun(db, scope, runId);
        if (!decoded)
            return decoded.error();
        QSqlQuery rows(db);
        if (!SqlMetadataSession::runScoped(
                rows,
                QStringLiteral("SELECT ") +
                    timeColumn(QStringLiteral("recorded_at"), m_session.dialect()) +
                    QStringLiteral(", kind, tool, action_kind, target_role, approval_source,"
                                   " outcome, code, elapsed_ms, origin, path_segment, elements,"
                                   " regions, grant_id, ordinal FROM activity_events"
                                   " WHERE run_id = :id AND tenant = :tenant"
                                   " AND principal = :principal ORDER BY seq"),
                scope, {{QStringLiteral(":id"), idText(runId)}}))
            return unavailable();
        QList<ActivityEvent> events;
        const auto number = [&rows](int column) {
            return rows.value(column).isNull() ? -1 : rows.value(column).toLongLong();
        };
        while (rows.next()) {
            ActivityEvent event;
            const std::optional<QDateTime> at = decodeTime(rows.value(0), m_session.dialect());
            if (!at || !at->isValid())
                return unavailable();
            event.at = *at;
            event.kind = rows.value(1).toString();
            event.tool = rows.value(2).toString();
            event.actionKind = rows.value(3).toString();
            event.targetRole = rows.value(4).toString();
            event.approvalSource = rows.value(5).toString();
            event.outcome = rows.value(6).toString();
            event.code = rows.value(7).toString();
            event.elapsedMs = number(8);
            event.origin = rows.value(9).toString();
            event.pathSegment = rows.value(10).toString();
            event.elements = int(number(11));
            event.regions = int(number(12));
            event.grant = QUuid::fromString(rows.value(13).toString());
            event.ordinal = int(number(14));
            events << event;
        }
        return Answer{std::move(decoded).value(), events};
    });
}

bool SqlActivityTimeline::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    // Run summaries are kept: updated, never deleted. Events are appended and, after seven
    // days, deleted.
    return SqlQueries::runPlain(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE ON activity_runs"
                                                   " TO ") +
                                        quotedRole) &&
           SqlQueries::runPlain(
               db,
               QStringLiteral("GRANT SELECT, INSERT, DELETE ON activity_events TO ") + quotedRole);
}

} // namespace veetbot
