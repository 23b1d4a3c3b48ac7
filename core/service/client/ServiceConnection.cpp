#include "ServiceConnection.h"

#include "domain/Sha256.h"
#include "service/api/ServiceCredential.h"
#include "json/StrictJson.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QThread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace veetbot {

namespace {

// GET /v1/service, parsed; nullopt when the service does not answer it with 200.
std::optional<QJsonObject> describe(const ServiceClient &client, int *status = nullptr)
{
    const Result<HttpResponse> answer = client.get("/v1/service");
    if (!answer)
        return std::nullopt;
    if (status)
        *status = answer->status;
    if (answer->status != 200)
        return std::nullopt;
    StrictJson::Limits limits;
    limits.maxBytes = 16 * 1024;
    limits.maxDepth = 3;
    const std::optional<QJsonValue> value = StrictJson::parse(answer->body, limits);
    if (!value || !value->isObject())
        return std::nullopt;
    return value->toObject();
}

// Starts the service detached: fork, a new session, fork again (so no zombie is left with
// a long-lived caller), exec. Only async-signal-safe calls run between fork and exec.
bool spawnDetached(const QString &program, const QString &logPath)
{
    const QByteArray programBytes = QFile::encodeName(program);
    const QByteArray logBytes = QFile::encodeName(logPath);
    char *const argv[] = {const_cast<char *>(programBytes.constData()), nullptr};
    const pid_t child = ::fork();
    if (child < 0)
        return false;
    if (child == 0) {
        if (::setsid() < 0)
            ::_exit(1);
        const pid_t grandchild = ::fork();
        if (grandchild != 0)
            ::_exit(grandchild < 0 ? 1 : 0);
        const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        const int log = ::open(logBytes.constData(),
                               O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (in < 0 || log < 0 || ::dup2(in, 0) < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0)
            ::_exit(1);
        ::close_range(3, ~0U, 0); // nothing of the caller's (pipes, sockets) stays open
        ::execv(programBytes.constData(), argv);
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

Error ServiceConnection::otherDataDirectory()
{
    return Error{QStringLiteral("service.other_data_directory"),
                 QStringLiteral("The profile service on this runtime directory serves another "
                                "data directory; set VEETBOT_RUNTIME_DIR for this one.")};
}

Error ServiceConnection::otherTestSettings()
{
    return Error{QStringLiteral("service.other_test_settings"),
                 QStringLiteral("The running profile service has other test settings; stop it "
                                "with 'veetbot service stop' first.")};
}

Error ServiceConnection::startFailed()
{
    return Error{QStringLiteral("service.start_failed"),
                 QStringLiteral("The profile service did not become ready within 10 s; "
                                "'veetbot service status' and its log say why.")};
}

bool ServiceConnection::isReady() const
{
    return m_description.value(QStringLiteral("ready")).toBool();
}

Result<ServiceConnection> ServiceConnection::connect(const Options &options, Start start)
{
    Result<ServiceLocation> location =
        ServiceLocation::resolve(options.dataDirectory, QProcessEnvironment::systemEnvironment());
    if (!location)
        return location.error();
    // The credential goes to no socket in a directory that others could have put it in.
    if (const Result<Unit> safe = location->checkRuntimeDirectory(); !safe)
        return safe.error();
    const auto check = [&](const std::shared_ptr<ServiceClient> &client,
                           const QJsonObject &description) -> Result<ServiceConnection> {
        if (description.value(QStringLiteral("data_directory_digest")).toString() !=
            dataDirectoryDigest(options.dataDirectory))
            return otherDataDirectory();
        if (description.value(QStringLiteral("test_settings_digest")).toString() !=
            testSettingsDigest(options.overrides))
            return otherTestSettings();
        return ServiceConnection(*location, client, description);
    };
    const auto attempt = [&]() -> std::optional<Result<ServiceConnection>> {
        ServiceCredential::Problem problem = ServiceCredential::Problem::None;
        Result<ServiceCredential> credential =
            ServiceCredential::read(options.dataDirectory, &problem);
        // An unsafe file is reported as it is: no service is started because of it (a new
        // one would refuse the same file).
        if (!credential && ServiceCredential::isUnsafe(problem))
            return Result<ServiceConnection>(credential.error());
        if (!credential)
            return std::nullopt;
        auto client =
            std::make_shared<ServiceClient>(location->socketPath(), std::move(credential).value());
        int status = 0;
        const std::optional<QJsonObject> description = describe(*client, &status);
        if (status == 401)
            return Result<ServiceConnection>(otherDataDirectory()); // not our credential
        if (!description)
            return std::nullopt;
        return check(client, *description);
    };
    // An answer to stop waiting on: ready, refused, or not ready for a reason waiting will not
    // change.
    const auto settled = [](const std::optional<Result<ServiceConnection>> &found) {
        return found && (!*found || found->value().isReady() ||
                         found->value().description().value(QStringLiteral("reason")) !=
                             QLatin1String("starting"));
    };
    bool unitRestarts = false;
    if (std::optional<Result<ServiceConnection>> found = attempt()) {
        if (!*found || start == Start::Never || options.version.isEmpty())
            return std::move(*found);
        const QJsonObject description = found->value().description();
        const QString running = description.value(QStringLiteral("version")).toString();
        if (running == options.version)
            return std::move(*found);
        if (description.value(QStringLiteral("browsers")).toInt() > 0) {
            if (options.notice)
                options.notice(QStringLiteral("the profile service runs version %1 with a "
                                              "browser open; it is restarted for version %2 "
                                              "once none is")
                                   .arg(running, options.version));
            return std::move(*found);
        }
        // Asked to restart, then waited for until it has ended (its lock free).
        const Result<HttpResponse> restarting =
            found->value().client()->post("/v1/service:restart", QByteArray(), QByteArray());
        if (!restarting || restarting->status != 202)
            return std::move(*found); // an older service without the route: used as it is
        const QDeadlineTimer ended(options.readyTimeoutMs);
        while (!ended.hasExpired() && location->isLockHeld())
            QThread::msleep(50);
        if (location->isLockHeld())
            return startFailed();
        if (options.notice)
            options.notice(QStringLiteral("restarted the profile service of version %1 for "
                                          "version %2")
                               .arg(running, options.version));
        unitRestarts = description.value(QStringLiteral("supervised")).toBool();
    }
    if (start == Start::Never)
        return ServiceClient::unavailable();
    if (unitRestarts) {
        // Its unit starts it again (RestartSec=1); this client starts one only if it does not.
        const QDeadlineTimer deadline(options.readyTimeoutMs / 2);
        while (!deadline.hasExpired()) {
            if (std::optional<Result<ServiceConnection>> found = attempt(); settled(found))
                return std::move(*found);
            QThread::msleep(50);
        }
    }

    // Start it. Only the runtime and log directories are made here; the service makes the
    // rest and takes the lock (a concurrent start loses the race harmlessly).
    if (const Result<Unit> made = location->ensureRuntimeDirectory(); !made)
        return made.error();
    const QString logs = options.dataDirectory + QStringLiteral("/logs");
    if (!QDir().mkpath(logs) ||
        !QFile::setPermissions(logs, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
        return startFailed();
    const QString log = logs + QStringLiteral("/service.log");
    if (!spawnDetached(options.programPath, log))
        return startFailed();
    if (options.notice)
        options.notice(QStringLiteral("started the profile service (log: %1)").arg(log));
    const QDeadlineTimer deadline(options.readyTimeoutMs);
    int started = 1;
    QElapsedTimer sinceStart;
    sinceStart.start();
    while (!deadline.hasExpired()) {
        // The one started here gives way to a service still ending (that one holds the
        // lock): when, a second after a start, nobody holds the lock and nothing answers,
        // start again, a few times at most.
        if (started < 4 && sinceStart.elapsed() > 1000 && !location->isLockHeld() && !attempt()) {
            if (!spawnDetached(options.programPath, log))
                return startFailed();
            ++started;
            sinceStart.restart();
        }
        if (std::optional<Result<ServiceConnection>> found = attempt(); settled(found))
            return std::move(*found);
        QThread::msleep(50);
    }
    return startFailed();
}

} // namespace veetbot
