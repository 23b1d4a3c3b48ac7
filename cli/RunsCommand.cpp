#include "RunsCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/run/Activity.h"
#include "profiles/RunPresence.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

namespace veetbot {

namespace {
using namespace CommandOutput;

QString timeString(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QJsonObject runView(const ActivityRun &run)
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

QJsonObject eventView(const ActivityEvent &event)
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
} // namespace

int runRunsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "What agents did: the activity timeline, content-free (no page text, typed text, "
        "query or full URL).\n\n"
        "  list [--limit N]   the runs, newest first (default 50)\n"
        "  show ID            one run and its events (kept for seven days)"));
    parser.addHelpOption();
    const QCommandLineOption limitOption(QStringLiteral("limit"),
                                         QStringLiteral("At most this many runs (1-1000)."),
                                         QStringLiteral("n"), QStringLiteral("50"));
    const QCommandLineOption databaseOption = CommandOutput::databaseOption();
    parser.addOptions({limitOption, databaseOption});
    const QString command = QStringLiteral("runs");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool list = action == QLatin1String("list");
    if (!list && action != QLatin1String("show"))
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (list ? 1 : 2))
        return usage(command, QStringLiteral("wrong number of arguments"), parser);
    bool numeric = false;
    const int limit = parser.value(limitOption).toInt(&numeric);
    if (!numeric || limit < 1 || limit > 1000)
        return usage(command, QStringLiteral("--limit must be 1-1000"), parser);

    const Result<MetadataStore> opened = openMetadataStore(parser.value(databaseOption));
    if (!opened)
        return printError(opened.error());
    // Runs whose process died without ending them are ended as interrupted first.
    RunPresence::endAbandonedRuns(opened->repository->timeline(), opened->scope(),
                                  opened->config.dataDirectory());
    const ActivityTimeline &timeline = opened->repository->timeline();
    if (list) {
        const Result<QList<ActivityRun>> runs = timeline.runs(opened->scope(), limit);
        if (!runs)
            return printError(runs.error());
        QJsonArray views;
        for (const ActivityRun &run : *runs)
            views.append(runView(run));
        printJson(QJsonObject{{QStringLiteral("runs"), views}});
        return kExitOk;
    }
    const QUuid id = QUuid::fromString(positional.at(1));
    if (id.isNull() || positional.at(1).size() != 36)
        return printError(activityRunNotFound());
    const Result<std::pair<ActivityRun, QList<ActivityEvent>>> shown =
        timeline.runWithEvents(opened->scope(), id);
    if (!shown)
        return printError(shown.error());
    QJsonObject view = runView(shown->first);
    QJsonArray events;
    for (const ActivityEvent &event : shown->second)
        events.append(eventView(event));
    view.insert(QStringLiteral("events"), events);
    // A task run's record: why it stopped, what the evidence says, what it used.
    if (shown->first.kind == QLatin1String("task")) {
        const Result<TaskRunRecord> task =
            opened->repository->taskRuns().taskRun(opened->scope(), id);
        if (task) {
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
    }
    printJson(view);
    return kExitOk;
}

} // namespace veetbot
