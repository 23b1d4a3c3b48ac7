// veetbot-profile-service: the isolated profile service of one data directory. The only
// process that opens keys and the vault; orchestration reaches it over its Unix socket with
// the service credential (docs/service.md).

#include "KeysCommand.h"
#include "VaultComposition.h"
#include "servicehost/ServiceHost.h"
#include "vault/ProcessHardening.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTextStream>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const char kUsage[] = "Usage: veetbot-profile-service [serve]\n"
                      "       veetbot-profile-service keys <init|add|use|remove> ...\n"
                      "\n"
                      "serve (the default): serves the profile service of the data directory\n"
                      "($VEETBOT_DATA_DIR, else the XDG data directory) on service.sock in the\n"
                      "runtime directory ($VEETBOT_RUNTIME_DIR, else $XDG_RUNTIME_DIR/veetbot,\n"
                      "else <data>/run) until SIGTERM or SIGINT. Programs that need it start it\n"
                      "on demand ('veetbot service start|stop|status').\n"
                      "keys: manage the vault's keys ('keys --help').\n";

int g_signalPipe[2] = {-1, -1};

void onSignal(int)
{
    const char byte = 1;
    (void)!::write(g_signalPipe[1], &byte, 1);
}

} // namespace

int main(int argc, char **argv)
{
    // This process holds key and profile material: no core file, no dumping, and nothing it
    // creates readable by anyone else, before anything else runs.
    ::umask(077);
    if (!veetbot::ProcessHardening::disableCoreDumps()) {
        std::fputs("veetbot-profile-service: core dumps could not be disabled; refusing to "
                   "handle keys\n",
                   stderr);
        return 1;
    }
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-profile-service"));
    QCoreApplication::setApplicationVersion(QStringLiteral(VEETBOT_VERSION));
    const QStringList arguments = QCoreApplication::arguments();
    const QString command = arguments.value(1, QStringLiteral("serve"));
    if (command == QLatin1String("--help") || command == QLatin1String("-h")) {
        QTextStream(stdout) << kUsage;
        return 0;
    }
    if (command == QLatin1String("--version")) {
        QTextStream(stdout) << "veetbot-profile-service " << VEETBOT_VERSION << '\n';
        return 0;
    }
    if (command == QLatin1String("keys")) {
        QStringList keyArguments = arguments;
        keyArguments.removeAt(1);
        return veetbot::runKeysCommand(keyArguments);
    }
    if (command != QLatin1String("serve") || arguments.size() > 2) {
        QTextStream(stderr) << "veetbot-profile-service: unknown command\n\n" << kUsage;
        return 2;
    }

    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return 1;
    struct sigaction action = {};
    action.sa_handler = onSignal;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    ::signal(SIGPIPE, SIG_IGN); // a client that went away is a failed write, not a death

    veetbot::ServiceHost host(veetbot::keyringLoader);
    QSocketNotifier signalNotifier(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&signalNotifier, &QSocketNotifier::activated, &app, [] {
        char byte = 0;
        while (::read(g_signalPipe[0], &byte, 1) > 0) {
        }
        QCoreApplication::quit();
    });
    const veetbot::Result<veetbot::Unit> started = host.start();
    if (!started) {
        QTextStream(stderr) << "veetbot-profile-service: " << started.error().code << ": "
                            << started.error().message << '\n';
        return started.error().code == QLatin1String("service.already_running") ? 3 : 1;
    }
    QTextStream(stderr) << "veetbot-profile-service: listening\n";
    const int code = app.exec();
    host.stop();
    return code;
}
