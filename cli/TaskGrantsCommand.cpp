#include "TaskGrantsCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/authority/TaskGrant.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

namespace veetbot {

namespace {
using namespace CommandOutput;

QJsonObject recordView(const TaskGrantAuditRecord &record)
{
    QJsonObject json{{QStringLiteral("kind"), record.kind},
                     {QStringLiteral("at"), record.at.toUTC().toString(Qt::ISODateWithMs)}};
    if (record.ordinal)
        json.insert(QStringLiteral("ordinal"), *record.ordinal);
    if (record.endReason)
        json.insert(QStringLiteral("end_reason"), taskGrantEndString(*record.endReason));
    if (!record.approvalView.isEmpty())
        json.insert(QStringLiteral("approval_view"), record.approvalView);
    return json;
}

} // namespace

int runTaskGrantsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "See and revoke task grants: what an approval card's \"Approve for this task\" made.\n\n"
        "  list          every grant, newest first, with its scope, actions left and status\n"
        "  show ID       one grant and its audit records (created, each authorized use, ended)\n"
        "  revoke ID     end one now; its session asks again at its next action"));
    parser.addHelpOption();
    const QCommandLineOption databaseOption = CommandOutput::databaseOption();
    parser.addOption(databaseOption);
    const QString command = QStringLiteral("task-grants");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool list = action == QLatin1String("list");
    if (!list && action != QLatin1String("show") && action != QLatin1String("revoke"))
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (list ? 1 : 2))
        return usage(command, QStringLiteral("wrong number of arguments"), parser);

    const Result<MetadataStore> opened = openMetadataStore(parser.value(databaseOption));
    if (!opened)
        return printError(opened.error());
    TaskGrantStore &store = opened->repository->taskGrants();
    const ProfileScope owner = opened->scope();
    if (list) {
        const Result<QList<TaskGrant>> grants = store.taskGrants(owner);
        if (!grants)
            return printError(grants.error());
        QJsonArray views;
        for (const TaskGrant &grant : *grants)
            views.append(grant.toJson());
        printJson(QJsonObject{{QStringLiteral("task_grants"), views}});
        return kExitOk;
    }
    const std::optional<QUuid> id = CommandOutput::parseId(positional.at(1));
    if (!id)
        return printError(taskGrantError(TaskGrantFailure::NotFound));
    if (action == QLatin1String("revoke")) {
        const Result<TaskGrant> ended = store.endTaskGrant(owner, *id, TaskGrantEnd::Revoked);
        if (!ended)
            return printError(ended.error());
        printJson(ended->toJson());
        return kExitOk;
    }
    // show: the grant as a listing ends it, and its records.
    const Result<QList<TaskGrant>> grants = store.taskGrants(owner);
    if (!grants)
        return printError(grants.error());
    const auto grant = std::find_if(grants->cbegin(), grants->cend(),
                                    [&id](const TaskGrant &g) { return g.id == *id; });
    if (grant == grants->cend())
        return printError(taskGrantError(TaskGrantFailure::NotFound));
    const Result<QList<TaskGrantAuditRecord>> records = store.taskGrantAudit(owner, *id);
    if (!records)
        return printError(records.error());
    QJsonArray audit;
    for (const TaskGrantAuditRecord &record : *records)
        audit.append(recordView(record));
    QJsonObject view = grant->toJson();
    view.insert(QStringLiteral("audit"), audit);
    printJson(view);
    return kExitOk;
}

} // namespace veetbot
