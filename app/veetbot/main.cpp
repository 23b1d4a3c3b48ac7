// veetbot: the headless command-line interface.

#include "CommandOutput.h"
#include "KeysCommand.h"
#include "McpCommand.h"
#include "ObserveCommand.h"
#include "ProfilesCommand.h"
#include "vault/ProcessHardening.h"

#include <QByteArrayView>
#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

namespace {
const char kUsage[] = "Usage: veetbot <command> [options]\n"
                      "\n"
                      "Commands:\n"
                      "  observe   Open one allowed public HTTPS page in an isolated browser and\n"
                      "            print its observation as JSON.\n"
                      "  profiles  Create, list, show, revoke and delete browser profiles;\n"
                      "            rotate their keys.\n"
                      "  keys      Manage the vault's keys.\n"
                      "  mcp       Serve the browser tools to an agent over the Model Context\n"
                      "            Protocol on stdin/stdout.\n"
                      "\n"
                      "Run 'veetbot <command> --help' for a command's options.\n";
}

int main(int argc, char **argv)
{
    // The commands that open the vault or the keys hold key and profile material: no core
    // file and no dumping, before anything else runs. Not for observe and mcp: they start the
    // isolated browser, whose set-up in the child writes its own uid_map, which a process
    // that is not dumpable may not do.
    const QByteArrayView firstArgument = argc > 1 ? QByteArrayView(argv[1]) : QByteArrayView();
    if ((firstArgument == "profiles" || firstArgument == "keys") &&
        !veetbot::ProcessHardening::disableCoreDumps()) {
        std::fputs("veetbot: core dumps could not be disabled; refusing to handle keys\n", stderr);
        return veetbot::CommandOutput::kExitFailure;
    }

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
        QTextStream(stdout) << "veetbot " << VEETBOT_VERSION << '\n';
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
    if (command == QLatin1String("keys")) {
        arguments.removeAt(1);
        return veetbot::runKeysCommand(arguments);
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
