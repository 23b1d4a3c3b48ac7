#include "RunExport.h"

#include <QJsonArray>

namespace veetbot::RunExport {

namespace {

QString timeString(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

// One CSV field: quoted when it holds a comma, a quote or a line end (RFC 4180); a field a
// spreadsheet would read as a formula is quoted with a leading apostrophe inside.
QByteArray csvField(const QString &value)
{
    QString text = value;
    if (!text.isEmpty() && QStringLiteral("=+-@\t\r").contains(text.front()))
        text.prepend(u'\'');
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n') ||
        field.contains('\r') || text != value) {
        field.replace("\"", "\"\"");
        field = '"' + field + '"';
    }
    return field;
}

} // namespace

QJsonObject runJson(const ActivityRun &run)
{
    QJsonObject json{{QStringLiteral("id"), run.id.toString(QUuid::WithoutBraces)},
                     {QStringLiteral("kind"), run.kind},
                     {QStringLiteral("status"),
                      run.isRunning() ? QStringLiteral("running") : QStringLiteral("ended")},
                     {QStringLiteral("started_at"), timeString(run.startedAt)},
                     {QStringLiteral("tool_calls"), run.toolCalls},
                     {QStringLiteral("acts"), run.acts}};
    if (!run.profileId.isNull())
        json.insert(QStringLiteral("profile_id"), run.profileId.toString(QUuid::WithoutBraces));
    if (!run.website.isEmpty())
        json.insert(QStringLiteral("website"), run.website);
    if (run.endedAt) {
        json.insert(QStringLiteral("ended_at"), timeString(*run.endedAt));
        json.insert(QStringLiteral("end_reason"), run.endReason);
        json.insert(QStringLiteral("elapsed_ms"), run.startedAt.msecsTo(*run.endedAt));
    }
    if (!run.lastApprovalSource.isEmpty())
        json.insert(QStringLiteral("last_approval_source"), run.lastApprovalSource);
    return json;
}

QJsonObject eventJson(const ActivityEvent &event)
{
    QJsonObject json{{QStringLiteral("kind"), event.kind},
                     {QStringLiteral("at"), timeString(event.at)}};
    const auto text = [&json](const char *key, const QString &value) {
        if (!value.isEmpty())
            json.insert(QLatin1String(key), value);
    };
    const auto number = [&json](const char *key, qint64 value) {
        if (value >= 0)
            json.insert(QLatin1String(key), value);
    };
    text("tool", event.tool);
    text("action", event.actionKind);
    text("target_role", event.targetRole);
    text("approval_source", event.approvalSource);
    text("outcome", event.outcome);
    text("code", event.code);
    number("elapsed_ms", event.elapsedMs);
    text("origin", event.origin);
    text("path_segment", event.pathSegment);
    number("elements", event.elements);
    number("regions", event.regions);
    if (!event.grant.isNull())
        json.insert(QStringLiteral("grant"), event.grant.toString(QUuid::WithoutBraces));
    number("ordinal", event.ordinal);
    return json;
}

QJsonObject document(const ActivityRun &run, const QList<ActivityEvent> &events,
                     const std::optional<TaskRunRecord> &task)
{
    QJsonObject view = runJson(run);
    QJsonArray list;
    for (const ActivityEvent &event : events)
        list.append(eventJson(event));
    view.insert(QStringLiteral("events"), list);
    // A task run's record: why it stopped, what the evidence says, what it used.
    if (task && run.kind == QLatin1String("task")) {
        QJsonObject record{{QStringLiteral("status"), runStatusString(task->status)},
                           {QStringLiteral("outcome"), runOutcomeString(task->outcome)},
                           {QStringLiteral("model"), task->model},
                           {QStringLiteral("steps"), task->usage.steps},
                           {QStringLiteral("model_calls"), task->usage.modelCalls},
                           {QStringLiteral("tool_calls"), task->usage.toolCalls},
                           {QStringLiteral("stale_recoveries"), task->usage.staleRecoveries},
                           {QStringLiteral("prompt_tokens"), task->usage.promptTokens},
                           {QStringLiteral("completion_tokens"), task->usage.completionTokens},
                           {QStringLiteral("cost_usd"), double(task->usage.costMicroUsd) / 1e6},
                           {QStringLiteral("sign_in_waits"), task->signInSuspensions}};
        if (!task->stopCode.isEmpty())
            record.insert(QStringLiteral("stop_code"), task->stopCode);
        view.insert(QStringLiteral("task_run"), record);
    }
    return view;
}

QStringList csvColumns()
{
    return {QStringLiteral("kind"),         QStringLiteral("at"),
            QStringLiteral("tool"),         QStringLiteral("action"),
            QStringLiteral("target_role"),  QStringLiteral("approval_source"),
            QStringLiteral("outcome"),      QStringLiteral("code"),
            QStringLiteral("elapsed_ms"),   QStringLiteral("origin"),
            QStringLiteral("path_segment"), QStringLiteral("elements"),
            QStringLiteral("regions"),      QStringLiteral("grant"),
            QStringLiteral("ordinal")};
}

QByteArray eventsCsv(const QList<ActivityEvent> &events)
{
    const QStringList columns = csvColumns();
    QByteArray csv = columns.join(u',').toUtf8() + "\r\n";
    for (const ActivityEvent &event : events) {
        const QJsonObject json = eventJson(event);
        QList<QByteArray> fields;
        for (const QString &column : columns) {
            const QJsonValue value = json.value(column);
            fields << csvField(value.isDouble() ? QString::number(value.toInteger())
                                                : value.toString());
        }
        csv += fields.join(',') + "\r\n";
    }
    return csv;
}

} // namespace veetbot::RunExport
