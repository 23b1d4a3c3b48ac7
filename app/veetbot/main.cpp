// veetbot: the headless command-line interface.

#include "ChromiumProcess.h"
#include "CommandOutput.h"
#include "GrantsCommand.h"
#include "McpCommand.h"
#include "ModelKeyCommand.h"
#include "ObserveCommand.h"
#include "ProfilesCommand.h"
#include "RecipesCommand.h"
#include "RunCommand.h"
#include "RunsCommand.h"
#include "SchedulesCommand.h"
#include "ScopesCommand.h"
#include "ServiceCommand.h"
#include "TaskGrantsCommand.h"
#include "domain/web/BrowserEngine.h"

#include <QCoreApplication>
#include <QTextStream>

namespace {
const char kUsage[] = "Usage: veetbot <command> [options]\n"
                      "\n"
                      "Commands:\n"
                      "  observe   Open one allowed public HTTPS page in an isolated browser and\n"
                      "            print its observation as JSON.\n"
                      "  profiles  Create, list, show, revoke and delete browser profiles;\n"
                      "            rotate their keys.\n"
                      "  scopes    List, add and remove the task scopes: the sites where a\n"
                      "            task grant may be offered.\n"
                      "  grants    Create, list and revoke standing grants: the owner's durable\n"
                      "            authority for unattended routine interaction.\n"
                      "  task-grants  List, show and revoke task grants: what an approval\n"
                      "            card's \"Approve for this task\" made.\n"
                      "  runs      What agents did: the activity timeline, content-free.\n"
                      "  service   Start, stop or ask about the profile service.\n"
                      "  mcp       Serve the browser tools to an agent over the Model Context\n"
                      "            Protocol on stdin/stdout.\n"
                      "  run       Carry out a task on a signed-in website with a model (an\n"
                      "            OpenAI-compatible endpoint) calling the browser tools, or\n"
                      "            with the reviewed recipe whose intent the task is.\n"
                      "  recipes   List and show the reviewed recipes, and run one.\n"
                      "  schedules Recurring tasks on your systemd user timers: create, list,\n"
                      "            show, pause, resume and delete them.\n"
                      "  model     Store or remove the model API key in your keyring.\n"
                      "\n"
                      "Run 'veetbot <command> --help' for a command's options.\n";
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot"));
    QCoreApplication::setApplicationVersion(QStringLiteral(VEETBOT_VERSION));
    QStringList arguments = QCoreApplication::arguments();
    const QString command = arguments.value(1);
    if (command == QLatin1String("--help") || command == QLatin1String("-h")) {
        QTextStream(stdout) << kUsage;
        return 0;
    }
    if (command == QLatin1String("--version")) {
        // The program, then each engine an isolated browser can run.
        using veetbot::BrowserEngine;
        const QString chromium = veetbot::chromium::ChromiumProcess::installedVersion();
        QTextStream out(stdout);
        out << "veetbot " << VEETBOT_VERSION << '\n';
        for (const BrowserEngine engine : {BrowserEngine::Chromium, BrowserEngine::QtWebEngine}) {
            out << "engine " << veetbot::browserEngineName(engine) << ": ";
            if (engine == BrowserEngine::Chromium)
                out << (chromium.isEmpty() ? QStringLiteral("not installed")
                                           : QStringLiteral("Chromium ") + chromium);
            else
                out << "Qt WebEngine " << VEETBOT_QTWEBENGINE_VERSION;
            out << (engine == veetbot::defaultBrowserEngine() ? " (default)\n" : "\n");
        }
        return 0;
    }
    if (command == QLatin1String("observe")) {
        arguments.removeAt(1);
        return veetbot::runObserveCommand(arguments);
    }
    if (command == QLatin1String("profiles")) {
        arguments.removeAt(1);
        return veetbot::runProfilesCommand(arguments);
    }
    if (command == QLatin1String("scopes")) {
        arguments.removeAt(1);
        return veetbot::runScopesCommand(arguments);
    }
    if (command == QLatin1String("grants")) {
        arguments.removeAt(1);
        return veetbot::runGrantsCommand(arguments);
    }
    if (command == QLatin1String("task-grants")) {
        arguments.removeAt(1);
        return veetbot::runTaskGrantsCommand(arguments);
    }
    if (command == QLatin1String("runs")) {
        arguments.removeAt(1);
        return veetbot::runRunsCommand(arguments);
    }
    if (command == QLatin1String("service")) {
        arguments.removeAt(1);
        return veetbot::runServiceCommand(arguments);
    }
    if (command == QLatin1String("keys")) {
        // Keys are the profile service's alone.
        QTextStream(stderr) << "veetbot: keys are managed by the profile service: run "
                               "'veetbot-profile-service keys --help'\n";
        return 2;
    }
    if (command == QLatin1String("run")) {
        arguments.removeAt(1);
        return veetbot::runRunCommand(arguments, &veetbot::readModelKey);
    }
    if (command == QLatin1String("recipes")) {
        arguments.removeAt(1);
        return veetbot::runRecipesCommand(arguments, &veetbot::readModelKey);
    }
    if (command == QLatin1String("schedules")) {
        arguments.removeAt(1);
        return veetbot::runSchedulesCommand(arguments, &veetbot::readModelKey);
    }
    if (command == QLatin1String("model")) {
        arguments.removeAt(1);
        return veetbot::runModelCommand(arguments);
    }
    if (command == QLatin1String("mcp")) {
        arguments.removeAt(1);
        return veetbot::runMcpCommand(arguments);
    }
    QTextStream(stderr) << (command.isEmpty() ? "veetbot: a command is required\n\n"
                                              : "veetbot: unknown command\n\n")
                        << kUsage;
    return 2;
}
