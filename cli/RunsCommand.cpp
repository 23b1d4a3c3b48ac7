#include "RunsCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/run/Activity.h"
#include "domain/run/RunExport.h"
#include "profiles/RunPresence.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

namespace veetbot {

using namespace CommandOutput;

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
            views.append(RunExport::runJson(run));
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
    // A task run's record: why it stopped, what the evidence says, what it used.
    std::optional<TaskRunRecord> task;
    if (shown->first.kind == QLatin1String("task")) {
        const Result<TaskRunRecord> record =
            opened->repository->taskRuns().taskRun(opened->scope(), id);
        if (record)
            task = *record;
    }
    const QJsonObject view = RunExport::document(shown->first, shown->second, task);
    printJson(view);
    return kExitOk;
}

} // namespace veetbot
