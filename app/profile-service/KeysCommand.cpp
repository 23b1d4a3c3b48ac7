#include "KeysCommand.h"

#include "CommandOutput.h"
#include "QtKeychainKeyring.h"
#include "VaultComposition.h"
#include "client/ServiceAccess.h"
#include "profiles/LocalConfiguration.h"
#include "service/client/ServiceCalls.h"
#include "vault/KeyDirectory.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <QThread>

namespace veetbot {

namespace {
using namespace CommandOutput;

const Error kKeyInUse{QStringLiteral("keys.in_use"),
                      QStringLiteral("An envelope is still sealed with this key; rotate first.")};

// Runs an asynchronous desktop-keyring operation to completion.
template <typename T>
int runDesktop(std::function<void(QtKeychainKeyring &, std::function<void(Result<T>)>)> call,
               std::function<QJsonObject(const T &)> describe)
{
    QtKeychainKeyring keyring;
    int exitCode = kExitFailure;
    bool finished = false;
    keyring.load([&](Result<Unit> loaded) {
        if (!loaded) {
            exitCode = printError(loaded.error());
            finished = true;
            QCoreApplication::exit(exitCode);
            return;
        }
        call(keyring, [&](Result<T> result) {
            if (result) {
                printJson(describe(*result));
                exitCode = kExitOk;
            } else {
                exitCode = printError(result.error());
            }
            finished = true;
            QCoreApplication::exit(exitCode);
        });
    });
    if (!finished)
        QCoreApplication::exec();
    return exitCode;
}

// True when an envelope in the vault still names `version`. A running service holds the
// store, so it is asked; otherwise the vault is opened here (which needs the keys).
Result<bool> versionInUse(const LocalConfiguration &config, const QString &version)
{
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return overrides.error();
    const Result<ServiceConnection> service =
        connectToService(config, *overrides, ServiceConnection::Start::Never);
    if (service) {
        const Result<QStringList> inUse = ServiceCalls::keyVersionsInUse(*service->client());
        if (!inUse)
            return inUse.error();
        return inUse->contains(version);
    }
    if (service.error().code != ServiceClient::unavailable().code)
        return service.error();
    std::optional<Result<bool>> answer;
    VaultControlPlane::open(config.vaultDirectory(), keyringLoader(config),
                            [&](Result<std::unique_ptr<VaultControlPlane>> vault) {
                                if (!vault)
                                    answer = Result<bool>(vault.error());
                                else
                                    answer = vault.value()->keyVersionsInUse().contains(version);
                                QCoreApplication::exit(0);
                            });
    if (!answer)
        QCoreApplication::exec();
    return *answer;
}
int changeKeys(const QString &action, const QString &keyDirectory, const QString &version);

// When a service runs for this data directory: it reloads its keyring (and validates the
// store against it again); true once it is ready, or when none runs.
bool reloadRunningService(const LocalConfiguration &config)
{
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return false;
    const Result<ServiceConnection> service =
        connectToService(config, *overrides, ServiceConnection::Start::Never);
    if (!service)
        return service.error().code == ServiceClient::unavailable().code;
    const Result<HttpResponse> reloading =
        service->client()->post("/v1/keys:reload", QByteArray(), QByteArray());
    if (!reloading || reloading->status != 202)
        return false;
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        const Result<HttpResponse> ready = service->client()->get("/health/ready");
        if (ready && ready->status == 200)
            return true;
        if (ready && !ready->body.contains("\"starting\""))
            return false;
        QThread::msleep(50);
    }
    return false;
}
} // namespace

int runKeysCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Manage the vault's keys (VEETBOT_KEY_DIR, else the desktop keyring).\n\n"
                       "  init DIR        create a private key directory with a first key\n"
                       "  add             add a new key (not yet current)\n"
                       "  use VERSION     make a key current\n"
                       "  remove VERSION  remove a key no envelope is sealed with"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("What to do."));
    const QString command = QStringLiteral("keys");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const int expected = action == QLatin1String("add") ? 1
                         : (action == QLatin1String("init") || action == QLatin1String("use") ||
                            action == QLatin1String("remove"))
                             ? 2
                             : -1;
    if (expected < 0)
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != expected)
        return usage(command, QStringLiteral("wrong number of arguments"), parser);

    if (action == QLatin1String("init")) {
        const QString directory = QDir(positional.at(1)).absolutePath();
        const Result<QString> version = KeyDirectory::init(directory);
        if (!version)
            return printError(version.error());
        printJson(QJsonObject{{QStringLiteral("current_version"), *version}});
        return kExitOk;
    }

    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return printError(config.error());
    const QString keyDirectory = config->keyDirectory();
    const QString version = positional.value(1);

    if (action == QLatin1String("remove")) {
        const Result<bool> inUse = versionInUse(*config, version);
        if (!inUse)
            return printError(inUse.error());
        if (*inUse)
            return printError(kKeyInUse);
    }

    const int changed = changeKeys(action, keyDirectory, version);
    if (changed != kExitOk)
        return changed;
    // A running service loads the keys it seals with once: it loads them again now.
    if (!reloadRunningService(*config)) {
        QTextStream(stderr) << QCoreApplication::applicationName()
                            << " keys: the running profile service could not load the changed "
                               "keys; 'veetbot service status' says why\n";
        return kExitFailure;
    }
    return kExitOk;
}

namespace {

int changeKeys(const QString &action, const QString &keyDirectory, const QString &version)
{
    if (!keyDirectory.isEmpty()) {
        if (action == QLatin1String("add")) {
            const Result<QString> added = KeyDirectory::addKey(keyDirectory);
            if (!added)
                return printError(added.error());
            printJson(QJsonObject{{QStringLiteral("version"), *added}});
            return kExitOk;
        }
        const Result<Unit> done = action == QLatin1String("use")
                                      ? KeyDirectory::useKey(keyDirectory, version)
                                      : KeyDirectory::removeKey(keyDirectory, version);
        if (!done)
            return printError(done.error());
        printJson(QJsonObject{{action == QLatin1String("use") ? QStringLiteral("current_version")
                                                              : QStringLiteral("removed"),
                               version}});
        return kExitOk;
    }

    if (action == QLatin1String("add")) {
        return runDesktop<QString>(
            [](QtKeychainKeyring &keyring, std::function<void(Result<QString>)> done) {
                keyring.addKey(std::move(done));
            },
            [](const QString &added) {
                return QJsonObject{{QStringLiteral("version"), added}};
            });
    }
    const bool use = action == QLatin1String("use");
    return runDesktop<Unit>(
        [use, version](QtKeychainKeyring &keyring, std::function<void(Result<Unit>)> done) {
            if (use)
                keyring.useKey(version, std::move(done));
            else
                keyring.removeKey(version, std::move(done));
        },
        [use, version](const Unit &) {
            return QJsonObject{
                {use ? QStringLiteral("current_version") : QStringLiteral("removed"), version}};
        });
}

} // namespace

} // namespace veetbot
