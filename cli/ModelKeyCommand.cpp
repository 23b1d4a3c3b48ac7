#include "ModelKeyCommand.h"

#include "CommandOutput.h"
#include "QtKeychainStore.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QTextStream>
#include <QTimer>

#include <cstdio>
#include <termios.h>
#include <unistd.h>

namespace veetbot {

namespace {

const QLatin1String kService("veetbot-workbench");
const QLatin1String kEntry("model-api-key/default");
constexpr int kKeyringTimeoutMs = 15'000;
constexpr int kMaxKeyBytes = 4096;

Error keyringError(KeychainStatus status)
{
    switch (status) {
    case KeychainStatus::Denied:
        return Error{QStringLiteral("keyring.denied"),
                     QStringLiteral("The keyring refused the request.")};
    case KeychainStatus::Unavailable:
    case KeychainStatus::Ok:
    case KeychainStatus::NotFound:
        break;
    }
    return Error{QStringLiteral("keyring.unavailable"),
                 QStringLiteral("No keyring (secret service) answered.")};
}

Error keyringTimeout()
{
    return Error{QStringLiteral("keyring.timeout"),
                 QStringLiteral("The keyring did not answer in time.")};
}

// One line from stdin with the terminal's echo off when it is a terminal; the line end is
// not part of the key.
SecretBytes readKeyLine()
{
    const bool tty = ::isatty(STDIN_FILENO) == 1;
    termios saved{};
    if (tty) {
        QTextStream(stderr) << "Model API key (not shown): " << Qt::flush;
        ::tcgetattr(STDIN_FILENO, &saved);
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    QByteArray line;
    line.reserve(kMaxKeyBytes + 1);
    for (;;) {
        char c = 0;
        const ssize_t n = ::read(STDIN_FILENO, &c, 1);
        if (n <= 0 || c == '\n' || line.size() > kMaxKeyBytes)
            break;
        line.append(c);
    }
    if (tty) {
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        QTextStream(stderr) << '\n';
    }
    if (line.endsWith('\r'))
        line.chop(1);
    SecretBytes key(line);
    line.fill('\0');
    return key;
}

template <typename Start> KeychainStatus waitFor(Start start, bool *timedOut)
{
    QEventLoop loop;
    KeychainStatus status = KeychainStatus::Unavailable;
    bool answered = false;
    start([&](KeychainStatus answer) {
        status = answer;
        answered = true;
        loop.quit();
    });
    QTimer::singleShot(kKeyringTimeoutMs, &loop, &QEventLoop::quit);
    if (!answered)
        loop.exec();
    *timedOut = !answered;
    return status;
}

} // namespace

Result<SecretBytes> readModelKey()
{
    QtKeychainStore store(kService);
    SecretBytes key;
    bool timedOut = false;
    const KeychainStatus status = waitFor(
        [&](const std::function<void(KeychainStatus)> &done) {
            store.read(kEntry, [&key, done](KeychainStatus answer, SecretBytes data) {
                key = std::move(data);
                done(answer);
            });
        },
        &timedOut);
    if (timedOut)
        return keyringTimeout();
    if (status == KeychainStatus::NotFound)
        return SecretBytes();
    if (status != KeychainStatus::Ok)
        return keyringError(status);
    return key;
}

int runModelCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("The model API key of veetbot run, in your keyring.\n\n"
                       "  set-key    read the key from stdin (not shown on a terminal) and "
                       "store it\n"
                       "  clear-key  remove it\n\n"
                       "VEETBOT_MODEL_API_KEY, when set, is used instead of the stored key."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("set-key|clear-key"));
    if (const auto exitCode =
            CommandOutput::parseOrExit(parser, arguments, QStringLiteral("model")))
        return *exitCode;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 1 ||
        (action != QLatin1String("set-key") && action != QLatin1String("clear-key")))
        return CommandOutput::usage(QStringLiteral("model"),
                                    QStringLiteral("give set-key or clear-key"), parser);
    QtKeychainStore store(kService);
    bool timedOut = false;
    KeychainStatus status = KeychainStatus::Unavailable;
    if (action == QLatin1String("set-key")) {
        const SecretBytes key = readKeyLine();
        if (key.isEmpty() || key.size() > kMaxKeyBytes)
            return CommandOutput::printError(
                Error{QStringLiteral("model.key_invalid"),
                      QStringLiteral("The key must be one line of 1-4096 bytes.")});
        status = waitFor(
            [&](const std::function<void(KeychainStatus)> &done) {
                store.write(kEntry, key, done);
            },
            &timedOut);
    } else {
        status = waitFor(
            [&](const std::function<void(KeychainStatus)> &done) { store.remove(kEntry, done); },
            &timedOut);
        if (status == KeychainStatus::NotFound)
            status = KeychainStatus::Ok; // nothing stored: nothing to remove
    }
    if (timedOut)
        return CommandOutput::printError(keyringTimeout());
    if (status != KeychainStatus::Ok)
        return CommandOutput::printError(keyringError(status));
    QTextStream(stderr) << (action == QLatin1String("set-key")
                                ? "veetbot model: the key is stored in your keyring\n"
                                : "veetbot model: the key is removed from your keyring\n");
    return CommandOutput::kExitOk;
}

} // namespace veetbot
