// ScheduleStore on SQL, on the table of schema version 9.

#include "SqlScheduleStore.h"
#include "SqlRowFormat.h"
#include "storage/SqlQueries.h"

#include <QSqlQuery>

namespace veetbot {

namespace {

using namespace SqlRowFormat;

QString scheduleColumns(Dialect dialect)
{
    return idColumn(QStringLiteral("id"), dialect) +
           QStringLiteral(", profile_id, profile_generation, task, calendar, standing_grant,"
                          " model_endpoint, model, budget, deadline_minutes, agent_version,"
                          " policy_version, state, ") +
           timeColumn(QStringLiteral("created_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("updated_at"), dialect) + QStringLiteral(", ") +
           timeColumn(QStringLiteral("last_occurrence_at"), dialect) +
           QStringLiteral(", last_run, last_status, last_code");
}

// A row that breaks the schedule's invariants fails closed.
Result<Schedule> decodeSchedule(const QSqlQuery &row, Dialect dialect)
{
    Schedule out;
    out.id = QUuid::fromString(row.value(0).toString());
    out.profileId = QUuid::fromString(row.value(1).toString());
    out.profileGeneration = row.value(2).toLongLong();
    out.task = row.value(3).toString();
    out.calendar = row.value(4).toString();
    if (const std::optional<QString> grant = decodeText(row.value(5))) {
        out.standingGrant = QUuid::fromString(*grant);
        if (out.standingGrant->isNull())
            return unavailable();
    }
    out.modelUrl = row.value(6).toString();
    out.model = row.value(7).toString();
    out.budget = row.value(8).toInt();
    out.deadlineMinutes = row.value(9).toInt();
    out.agentVersion = row.value(10).toString();
    out.policyVersion = row.value(11).toString();
    const std::optional<ScheduleState> state = scheduleStateFromString(row.value(12).toString());
    const std::optional<QDateTime> created = decodeTime(row.value(13), dialect);
    const std::optional<QDateTime> updated = decodeTime(row.value(14), dialect);
    out.lastOccurrenceAt = decodeTime(row.value(15), dialect);
    if (const std::optional<QString> run = decodeText(row.value(16))) {
        out.lastRun = QUuid::fromString(*run);
        if (out.lastRun->isNull())
            return unavailable();
    }
    out.lastStatus = decodeText(row.value(17)).value_or(QString());
    out.lastCode = decodeText(row.value(18)).value_or(QString());
    if (!state || !created || !created->isValid() || !updated || !updated->isValid() ||
        (out.lastOccurrenceAt && !out.lastOccurrenceAt->isValid()))
        return unavailable();
    out.state = *state;
    out.createdAt = *created;
    out.updatedAt = *updated;
    if (!isStorable(out))
        return unavailable();
    return out;
}

QVariant optionalId(const std::optional<QUuid> &id)
{
    return id ? QVariant(idText(*id)) : nullText();
}

} // namespace

SqlScheduleStore::SqlScheduleStore(SqlMetadataSession &session) : m_session(session) {}

Result<Schedule> SqlScheduleStore::load(QSqlDatabase &db, const ProfileScope &scope,
                                        const QUuid &id, bool forUpdate) const
{
    QSqlQuery row(db);
    if (!m_session.selectScoped(row, scheduleColumns(m_session.dialect()),
                                QStringLiteral("schedules"), scope, QStringLiteral("id = :id"),
                                {{QStringLiteral(":id"), idText(id)}}, forUpdate))
        return unavailable();
    if (!row.next())
        return scheduleError(ScheduleFailure::NotFound);
    return decodeSchedule(row, m_session.dialect());
}

Result<Schedule> SqlScheduleStore::createSchedule(const ProfileScope &scope,
                                                  const Schedule &schedule)
{
    Schedule created = schedule;
    created.state = ScheduleState::Active;
    created.lastOccurrenceAt.reset();
    created.lastRun.reset();
    created.lastStatus.clear();
    created.lastCode.clear();
    created.createdAt = created.updatedAt = m_session.now();
    if (!isStorable(created))
        return scheduleError(ScheduleFailure::Invalid);
    return m_session.inTransaction<
        Schedule>(scope, true, [&](QSqlDatabase &db) -> Result<Schedule> {
        QSqlQuery count(db);
        if (!m_session.selectScoped(count, QStringLiteral("count(*)"), QStringLiteral("schedules"),
                                    scope, QString(), {}, false) ||
            !count.next())
            return unavailable();
        if (count.value(0).toInt() >= Schedule::kMaxSchedules)
            return scheduleError(ScheduleFailure::TooMany);
        QSqlQuery insert(db);
        if (!SqlMetadataSession::runScoped(
                insert,
                QStringLiteral(
                    "INSERT INTO schedules (id, tenant, principal, profile_id,"
                    " profile_generation, task, calendar, standing_grant, model_endpoint, model,"
                    " budget, deadline_minutes, agent_version, policy_version, state,"
                    " created_at, updated_at) VALUES (:id, :tenant, :principal, :profile,"
                    " :generation, :task, :calendar, :grant, :url, :model, :budget,"
                    " :deadline, :agent, :policy, 'active', :created, :created)"),
                scope,
                {{QStringLiteral(":id"), idText(created.id)},
                 {QStringLiteral(":profile"), idText(created.profileId)},
                 {QStringLiteral(":generation"), created.profileGeneration},
                 {QStringLiteral(":task"), created.task},
                 {QStringLiteral(":calendar"), created.calendar},
                 {QStringLiteral(":grant"), optionalId(created.standingGrant)},
                 {QStringLiteral(":url"), created.modelUrl},
                 {QStringLiteral(":model"), created.model},
                 {QStringLiteral(":budget"), created.budget},
                 {QStringLiteral(":deadline"), created.deadlineMinutes},
                 {QStringLiteral(":agent"), created.agentVersion},
                 {QStringLiteral(":policy"), created.policyVersion},
                 {QStringLiteral(":created"), timeText(created.createdAt)}}) ||
            insert.numRowsAffected() != 1)
            return unavailable();
        return load(db, scope, created.id, false);
    });
}

Result<Schedule> SqlScheduleStore::schedule(const ProfileScope &scope, const QUuid &id) const
{
    return m_session.inTransaction<Schedule>(
        scope, false, [&](QSqlDatabase &db) { return load(db, scope, id, false); });
}

Result<QList<Schedule>> SqlScheduleStore::schedules(const ProfileScope &scope) const
{
    return m_session.inTransaction<QList<Schedule>>(
        scope, false, [&](QSqlDatabase &db) -> Result<QList<Schedule>> {
            QSqlQuery rows(db);
            if (!m_session.selectScoped(rows, scheduleColumns(m_session.dialect()),
                                        QStringLiteral("schedules"), scope,
                                        QStringLiteral("1 = 1 ORDER BY created_at, id"), {}, false))
                return unavailable();
            QList<Schedule> out;
            while (rows.next()) {
                Result<Schedule> decoded = decodeSchedule(rows, m_session.dialect());
                if (!decoded)
                    return decoded.error();
                out.append(std::move(decoded).value());
            }
            return out;
        });
}

Result<Schedule> SqlScheduleStore::setScheduleState(const ProfileScope &scope, const QUuid &id,
                                                    ScheduleState state, qint64 profileGeneration,
                                                    const QString &policyVersion)
{
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Schedule>(
        scope, true, [&](QSqlDatabase &db) -> Result<Schedule> {
            Result<Schedule> current = load(db, scope, id, true);
            if (!current)
                return current;
            Schedule next = *current;
            next.state = state;
            next.profileGeneration = profileGeneration;
            next.policyVersion = policyVersion;
            if (!isStorable(next))
                return scheduleError(ScheduleFailure::Invalid);
            QSqlQuery update(db);
            if (!SqlMetadataSession::runScoped(
                    update,
                    QStringLiteral("UPDATE schedules SET state = :state,"
                                   " profile_generation = :generation, policy_version = :policy,"
                                   " updated_at = :now WHERE id = :id AND tenant = :tenant"
                                   " AND principal = :principal"),
                    scope,
                    {{QStringLiteral(":state"), scheduleStateString(state)},
                     {QStringLiteral(":generation"), profileGeneration},
                     {QStringLiteral(":policy"), policyVersion},
                     {QStringLiteral(":now"), timeText(time)},
                     {QStringLiteral(":id"), idText(id)}}) ||
                update.numRowsAffected() != 1)
                return unavailable();
            return load(db, scope, id, false);
        });
}

Result<Schedule> SqlScheduleStore::recordOccurrence(const ProfileScope &scope, const QUuid &id,
                                                    const QDateTime &at,
                                                    const std::optional<QUuid> &run,
                                                    const QString &status, const QString &code)
{
    if (!at.isValid() || status.isEmpty() || status.size() > 32 || code.size() > 64 ||
        (run && run->isNull()))
        return scheduleError(ScheduleFailure::Invalid);
    const QDateTime time = m_session.now();
    return m_session.inTransaction<Schedule>(
        scope, true, [&](QSqlDatabase &db) -> Result<Schedule> {
            QSqlQuery update(db);
            if (!SqlMetadataSession::runScoped(
                    update,
                    QStringLiteral("UPDATE schedules SET last_occurrence_at = :at,"
                                   " last_run = :run, last_status = :status, last_code = :code,"
                                   " updated_at = :now WHERE id = :id AND tenant = :tenant"
                                   " AND principal = :principal"),
                    scope,
                    {{QStringLiteral(":at"), timeText(at)},
                     {QStringLiteral(":run"), optionalId(run)},
                     {QStringLiteral(":status"), status},
                     {QStringLiteral(":code"), code.isEmpty() ? nullText() : QVariant(code)},
                     {QStringLiteral(":now"), timeText(time)},
                     {QStringLiteral(":id"), idText(id)}}))
                return unavailable();
            if (update.numRowsAffected() != 1)
                return scheduleError(ScheduleFailure::NotFound);
            return load(db, scope, id, false);
        });
}

Result<Unit> SqlScheduleStore::deleteSchedule(const ProfileScope &scope, const QUuid &id)
{
    return m_session.inTransaction<Unit>(scope, true, [&](QSqlDatabase &db) -> Result<Unit> {
        QSqlQuery remove(db);
        if (!SqlMetadataSession::runScoped(
                remove,
                QStringLiteral("DELETE FROM schedules WHERE id = :id AND tenant = :tenant"
                               " AND principal = :principal"),
                scope, {{QStringLiteral(":id"), idText(id)}}))
            return unavailable();
        if (remove.numRowsAffected() != 1)
            return scheduleError(ScheduleFailure::NotFound);
        return Unit{};
    });
}

bool SqlScheduleStore::grantPrivileges(QSqlDatabase &db, const QString &quotedRole)
{
    return SqlQueries::runPlain(
        db, QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE ON schedules TO ") + quotedRole);
}

} // namespace veetbot
