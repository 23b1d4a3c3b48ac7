#include "KeysCommand.h"

#include "CommandOutput.h"
#include "QtKeychainKeyring.h"
#include "VaultComposition.h"
#include "profiles/LocalConfiguration.h"
#include "vault/KeyDirectory.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

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

// True when an envelope in the vault still names `version` (opens the vault: needs keys).
Result<bool> versionInUse(const LocalConfiguration &config, const QString &version)
{
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

} // namespace veetbot
