#include "ScopesCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/authority/TaskScope.h"
#include "domain/web/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/TaskScopeSeed.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

namespace veetbot {

namespace {
using namespace CommandOutput;

QJsonObject view(const TaskScopePolicy &policy)
{
    QJsonArray scopes;
    for (const TaskScope &entry : policy.entries)
        scopes.append(entry.toString());
    return QJsonObject{{QStringLiteral("scopes"), scopes},
                       {QStringLiteral("revision"), policy.revision}};
}

// The seed applies before any action, so the first command of a fresh store shows it. A
// malformed seed is reported by its code and fixed message only (the value may hold
// anything) and the command goes on without it.
void applySeed(BrowserProfileRepository &repository, const ProfileScope &owner,
               const TestOverrides &overrides)
{
    const Result<std::optional<TaskScopeChange>> seeded =
        TaskScopeSeed::applyFromEnvironment(repository, owner, overrides);
    QTextStream err(stderr);
    if (!seeded) {
        err << "veetbot scopes: " << TaskScopeSeed::kVariable << " was not applied ("
            << seeded.error().code << ": " << seeded.error().message << ")\n";
        return;
    }
    if (*seeded && (*seeded)->kind == TaskScopeChange::Kind::Changed)
        err << "veetbot scopes: seeded the task scopes from " << TaskScopeSeed::kVariable << '\n';
}

int printChange(const Result<TaskScopeChange> &change)
{
    if (!change)
        return printError(change.error());
    printJson(view(change->policy));
    return kExitOk;
}
} // namespace

int runScopesCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Manage the task scopes: the sites (an exact https origin and one path segment, such\n"
        "as https://www.acme-school.com/lesson) where a task grant may be offered.\n\n"
        "  list                        the scopes and their revision\n"
        "  add URL [--revision N]      add one (at most sixteen)\n"
        "  remove URL [--revision N]   remove one\n"
        "  set [URL...] --revision N   replace the whole list, as read at revision N\n\n"
        "VEETBOT_TASK_SCOPES (comma-separated scope URLs) seeds the list once, while none was\n"
        "ever saved."));
    parser.addHelpOption();
    const QCommandLineOption revisionOption(
        QStringLiteral("revision"),
        QStringLiteral("The revision the list was read at; a list changed since is refused "
                       "with scope.conflict (add, remove; required for set)."),
        QStringLiteral("n"));
    const QCommandLineOption databaseOption = CommandOutput::databaseOption();
    parser.addOptions({revisionOption, databaseOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("What to do."));
    parser.addPositionalArgument(QStringLiteral("url"), QStringLiteral("A task scope."));
    const QString command = QStringLiteral("scopes");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool list = action == QLatin1String("list");
    const bool add = action == QLatin1String("add");
    const bool remove = action == QLatin1String("remove");
    const bool set = action == QLatin1String("set");
    if (!list && !add && !remove && !set)
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if ((list && positional.size() != 1) || ((add || remove) && positional.size() != 2))
        return usage(command, QStringLiteral("wrong number of arguments"), parser);
    if (list && parser.isSet(revisionOption))
        return usage(command, QStringLiteral("--revision is for add, remove and set"), parser);
    if (set && !parser.isSet(revisionOption))
        return usage(command, QStringLiteral("set needs --revision"), parser);
    std::optional<qint64> revision;
    if (parser.isSet(revisionOption)) {
        bool ok = false;
        revision = parser.value(revisionOption).toLongLong(&ok);
        if (!ok || *revision < 0)
            return usage(command, QStringLiteral("--revision must be a whole number from 0"),
                         parser);
    }

    const Result<MetadataStore> opened = openMetadataStore(parser.value(databaseOption));
    if (!opened)
        return printError(opened.error());
    const TestOverrides &overrides = opened->overrides;
    SqlStores &store = *opened->repository;
    const ProfileScope owner = opened->scope();
    applySeed(store.profiles(), owner, overrides);

    if (set) {
        QList<TaskScope> entries;
        for (const QString &text : positional.mid(1)) {
            Result<TaskScope> entry = TaskScope::parse(text, overrides);
            if (!entry)
                return printError(entry.error());
            entries << std::move(entry).value();
        }
        return printChange(store.profiles().replaceTaskScopes(owner, *revision, entries));
    }

    const Result<TaskScopePolicy> current = store.profiles().taskScopes(owner);
    if (!current)
        return printError(current.error());
    if (list) {
        printJson(view(*current));
        return kExitOk;
    }
    // An entry to remove may predate a grown sensitive vocabulary; one to add may not.
    const Result<TaskScope> entry = add ? TaskScope::parse(positional.at(1), overrides)
                                        : TaskScope::parseExisting(positional.at(1), overrides);
    if (!entry)
        return printError(entry.error());
    if (revision && *revision != current->revision)
        return printError(taskScopeError(TaskScopeFailure::Conflict));
    QList<TaskScope> entries = current->entries;
    if (add) {
        if (entries.contains(*entry))
            return printError(taskScopeError(TaskScopeFailure::Duplicate));
        entries << *entry;
    } else if (entries.removeAll(*entry) == 0) {
        return printError(taskScopeError(TaskScopeFailure::NotFound));
    }
    // Written at the revision just read: a change in between is scope.conflict.
    return printChange(store.profiles().replaceTaskScopes(owner, current->revision, entries));
}

} // namespace veetbot
