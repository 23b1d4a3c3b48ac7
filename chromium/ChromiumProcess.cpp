#include "ChromiumProcess.h"

#include <QProcess>
#include <QRegularExpression>

#include "domain/web/BrowserSwitches.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

extern char **environ;

namespace veetbot::chromium {

namespace {

constexpr int kReapIntervalMs = 50;

// posix_spawn's attributes and file actions, released whatever happens.
struct SpawnSetup
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    SpawnSetup()
    {
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attributes);
    }
    ~SpawnSetup()
    {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
    }
    SpawnSetup(const SpawnSetup &) = delete;
    SpawnSetup &operator=(const SpawnSetup &) = delete;
};

void closeAll(std::initializer_list<int> fds)
{
    for (int fd : fds) {
        if (fd >= 0)
            ::close(fd);
    }
}

// The profile's preferences, written before the browser first reads them: network prediction
// off ("net.network_prediction_options": 2, never). Chromium 156 resends a request that failed
// on a reused socket, and a socket its prediction opened ahead of a form's submission counts as
// reused: a POST whose answer was lost reached the site three times (decision 0005, measured
// by tst_contract_chromium::aWriteWhoseAnswerIsLostIsSentOnce). Without prediction every write
// goes out on the fresh connection the request stage gave it, once.
bool writePreferences(const QString &profilePath)
{
    const QString directory = profilePath + QStringLiteral("/Default");
    if (!QDir().mkpath(directory))
        return false;
    QFile preferences(directory + QStringLiteral("/Preferences"));
    if (!preferences.open(QIODevice::WriteOnly | QIODevice::NewOnly))
        return false;
    const QByteArray content = R"({"net":{"network_prediction_options":2}})";
    return preferences.write(content) == content.size() && preferences.flush();
}

} // namespace

QString ChromiumProcess::defaultExecutable()
{
    const QString configured = qEnvironmentVariable("VEETBOT_CHROMIUM");
    // The browser itself, not Debian's /usr/bin/chromium launcher: that one sources
    // /etc/chromium.d (where anyone with root may add switches) and exports Google API keys,
    // which turn on the browser's account and service requests.
    return configured.isEmpty() ? QStringLiteral("/usr/lib/chromium/chromium") : configured;
}

QString ChromiumProcess::installedVersion(int timeoutMs)
{
    QProcess browser;
    browser.setProcessChannelMode(QProcess::SeparateChannels);
    browser.start(defaultExecutable(), {QStringLiteral("--version")});
    if (!browser.waitForFinished(timeoutMs)) {
        browser.kill();
        browser.waitForFinished(1000);
        return QString();
    }
    static const QRegularExpression version(QStringLiteral("\\b(\\d{1,4}(?:\\.\\d{1,6}){3})\\b"));
    const QRegularExpressionMatch match =
        version.match(QString::fromLatin1(browser.readAllStandardOutput().left(256)));
    return match.hasMatch() ? match.captured(1) : QString();
}

Error ChromiumProcess::unavailable()
{
    return Error{QStringLiteral("chromium.unavailable"),
                 QStringLiteral("Chromium could not be started.")};
}

ChromiumProcess::ChromiumProcess(QObject *parent) : QObject(parent) {}

ChromiumProcess::~ChromiumProcess()
{
    m_connection.reset();
    if (m_pid > 0) {
        ::kill(-m_pid, SIGKILL);
        reap(true);
    }
}

Result<Unit> ChromiumProcess::start(const Options &options)
{
    if (m_pid > 0)
        return unavailable();
    const QString executable =
        options.executable.isEmpty() ? defaultExecutable() : options.executable;
    const QFileInfo launcher(executable);
    if (!launcher.isFile() || !launcher.isExecutable())
        return unavailable();
    m_profile = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                                QStringLiteral("/veetbot-chromium-XXXXXX"));
    if (!m_profile->isValid() || !writePreferences(m_profile->path()))
        return unavailable();

    QStringList arguments{executable,
                          QStringLiteral("--headless"),
                          QStringLiteral("--remote-debugging-pipe"),
                          QStringLiteral("--user-data-dir=") + m_profile->path(),
                          QStringLiteral("--no-first-run"),
                          QStringLiteral("--no-default-browser-check"),
                          QStringLiteral("--password-store=basic"),
                          QStringLiteral("--use-mock-keychain")};
    arguments += agentBrowserSwitches();
    // This browser's own services that would otherwise ask Google's servers for things at
    // start (measured with Chromium 156: the network time, the optimization guide, component
    // and extension updates); the request stage never sees such requests, and the browser
    // host's forwarder refuses any that remain (LocalForwarder's admission).
    arguments << QStringLiteral("--disable-extensions")
              << QStringLiteral("--disable-component-extensions-with-background-pages")
              << QStringLiteral("--disable-default-apps")
              << QStringLiteral("--disable-client-side-phishing-detection")
              << QStringLiteral("--no-service-autorun")
              << QStringLiteral("--disable-features=NetworkTimeServiceQuerying,OptimizationHints,"
                                "OptimizationGuideModelDownloading,OptimizationHintsFetching,"
                                "OptimizationTargetPrediction,MediaRouter,Translate,"
                                "AutofillServerCommunication,"
                                "CertificateTransparencyComponentUpdater");
    if (options.noSandbox)
        arguments << QStringLiteral("--no-sandbox");
    if (!options.proxy.isEmpty())
        arguments << QStringLiteral("--proxy-server=http://") + options.proxy
                  << QStringLiteral("--proxy-bypass-list=<-loopback>");
    arguments += options.extraSwitches;
    arguments << QStringLiteral("about:blank");
    std::vector<QByteArray> encoded;
    encoded.reserve(size_t(arguments.size()));
    for (const QString &argument : std::as_const(arguments))
        encoded.push_back(QFile::encodeName(argument));
    std::vector<char *> argv;
    for (QByteArray &argument : encoded)
        argv.push_back(argument.data());
    argv.push_back(nullptr);

    // Commands: this process writes, the browser reads on its fd 3. Replies: the browser
    // writes on its fd 4. The browser's ends are first moved above 4, so placing them at 3
    // and 4 cannot overwrite each other.
    int commands[2] = {-1, -1};
    int replies[2] = {-1, -1};
    if (::pipe2(commands, O_CLOEXEC) != 0 || ::pipe2(replies, O_CLOEXEC) != 0) {
        closeAll({commands[0], commands[1], replies[0], replies[1]});
        return unavailable();
    }
    const int browserReads = ::fcntl(commands[0], F_DUPFD_CLOEXEC, 10);
    const int browserWrites = ::fcntl(replies[1], F_DUPFD_CLOEXEC, 10);
    closeAll({commands[0], replies[1]});
    if (browserReads < 0 || browserWrites < 0) {
        closeAll({browserReads, browserWrites, commands[1], replies[0]});
        return unavailable();
    }

    SpawnSetup setup;
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&setup.actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_adddup2(&setup.actions, browserReads, 3);
    posix_spawn_file_actions_adddup2(&setup.actions, browserWrites, 4);
    // Its own process group (ended whole), no blocked signals, and the default action for
    // those this process may ignore (an ignored signal survives exec).
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD})
        sigaddset(&defaults, signal);
    posix_spawnattr_setpgroup(&setup.attributes, 0);
    posix_spawnattr_setsigmask(&setup.attributes, &none);
    posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
    posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                    POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int spawned =
        ::posix_spawn(&pid, argv.front(), &setup.actions, &setup.attributes, argv.data(), environ);
    closeAll({browserReads, browserWrites});
    if (spawned != 0) {
        closeAll({commands[1], replies[0]});
        m_profile.reset();
        return unavailable();
    }
    m_pid = pid;
    m_connection = std::make_unique<cdp::Connection>(commands[1], replies[0]);
    connect(m_connection.get(), &cdp::Connection::closed, this, [this] { reap(false); });
    return Unit{};
}

void ChromiumProcess::close(std::function<void()> done, int timeoutMs)
{
    if (m_pid <= 0) {
        QTimer::singleShot(0, this, [done = std::move(done)] { done(); });
        return;
    }
    if (m_connection && m_connection->isOpen())
        m_connection->send(QStringLiteral("Browser.close"), {}, [](Result<QJsonObject>) {});
    // Reaped by the timer, or ended whole once the time is up.
    auto *poll = new QTimer(this);
    poll->setInterval(kReapIntervalMs);
    const pid_t group = m_pid;
    auto waited = std::make_shared<int>(0);
    connect(poll, &QTimer::timeout, this, [this, poll, done, timeoutMs, group, waited] {
        *waited += kReapIntervalMs;
        if (m_pid > 0 && *waited >= timeoutMs)
            ::kill(-group, SIGKILL);
        reap(false);
        if (m_pid > 0)
            return;
        poll->stop();
        poll->deleteLater();
        done();
    });
    poll->start();
}

void ChromiumProcess::reap(bool wait)
{
    if (m_pid <= 0)
        return;
    // Ended, but not reaped yet: while the leader is a zombie its process group id cannot be
    // taken by anyone else, so what the browser started is ended through it first.
    siginfo_t info = {};
    int waited = -1;
    do {
        waited = ::waitid(P_PID, id_t(m_pid), &info, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG));
    } while (waited < 0 && errno == EINTR);
    if (waited == 0 && info.si_pid == 0)
        return; // still running
    if (waited == 0) {
        ::kill(-m_pid, SIGKILL);
        int status = 0;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    } // else reaped by someone else already: its group id is no longer ours to signal
    m_pid = -1;
    // reap() may run inside the connection's own closed(): it goes later.
    if (m_connection) {
        m_connection->close();
        m_connection.release()->deleteLater();
    }
    m_profile.reset();
    Q_EMIT finished();
}

} // namespace veetbot::chromium
