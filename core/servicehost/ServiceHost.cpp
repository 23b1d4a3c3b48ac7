#include "ServiceHost.h"

#include "domain/web/BrowserEngine.h"

#include "CeremonyHost.h"
#include "SessionHost.h"
#include "service/api/KeysApi.h"
#include "service/api/LifecycleApi.h"
#include "service/api/ServiceIdentity.h"
#include "service/server/HttpService.h"
#include "service/server/ThreadRunner.h"
#include "storage/FileDescriptor.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTextStream>

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace veetbot {

namespace {

// VEETBOT_PROFILE_VERIFICATION_FILE (docs/signin.md "Which account"): an absolute path to a
// regular file of this user with no group or other permission bits, opened without following
// a symbolic link, at most 64 KiB. A file set but unusable stops the service: running without
// the owner's account checks would pass sessions they meant to refuse.
Result<SiteCatalog> readSiteCatalog(const QString &path, const TestOverrides &overrides)
{
    const Error notPrivate =
        siteVerificationError(QStringLiteral("site_verification.file_not_private"));
    if (!path.startsWith(u'/'))
        return notPrivate;
    FileDescriptor fd(::open(QFile::encodeName(path).constData(),
                             O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    struct stat status = {};
    if (!fd.isValid() || ::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) ||
        status.st_uid != ::geteuid() || (status.st_mode & 077) != 0)
        return notPrivate;
    QByteArray bytes;
    char buffer[16 * 1024];
    while (bytes.size() <= SiteCatalog::kMaxFileBytes) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return notPrivate;
        if (n == 0)
            break;
        bytes.append(buffer, qsizetype(n));
    }
    return SiteCatalog::parse(bytes, overrides);
}

// How long an HTTP worker waits for the Qt thread to run a route's work.
constexpr int kWorkTimeoutMs = 60000;

HttpResponse json(int status, const QJsonObject &object)
{
    return {status, QJsonDocument(object).toJson(QJsonDocument::Compact)};
}

} // namespace

QString ServiceHost::notReadyCode(NotReady reason)
{
    switch (reason) {
    case NotReady::Starting:
        return QStringLiteral("starting");
    case NotReady::KeyringUnavailable:
        return QStringLiteral("keyring_unavailable");
    case NotReady::StoreInvalid:
        return QStringLiteral("store_invalid");
    }
    return QStringLiteral("starting");
}

ServiceHost::ServiceHost(KeyringChoice keyringFor, QObject *parent)
    : QObject(parent), m_keyringFor(std::move(keyringFor))
{
}

ServiceHost::~ServiceHost()
{
    stop();
}

Result<Unit> ServiceHost::start()
{
    Result<LocalConfiguration> configuration = LocalConfiguration::load();
    if (!configuration)
        return configuration.error();
    m_configuration = std::move(configuration).value();
    Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return overrides.error();
    m_overrides = std::move(overrides).value();
    Result<ServiceLocation> location = ServiceLocation::resolve(
        m_configuration->dataDirectory(), QProcessEnvironment::systemEnvironment());
    if (!location)
        return location.error();
    m_location = std::move(location).value();
    if (const Result<Unit> made = m_location->ensureRuntimeDirectory(); !made)
        return made.error();
    Result<FileDescriptor> lock = m_location->acquireServiceLock();
    if (!lock)
        return lock.error();
    m_lock = std::move(lock).value();
    Result<ServiceCredential> credential =
        ServiceCredential::readOrCreate(m_configuration->dataDirectory());
    if (!credential)
        return credential.error();
    m_credential.emplace(std::move(credential).value());

    // The engine of every browser the service starts: VEETBOT_ENGINE when set, else
    // config.json's "engine", else Debian's Chromium (docs/decisions/0014).
    const std::optional<BrowserEngine> engine =
        m_configuration->engine() && !qEnvironmentVariableIsSet("VEETBOT_ENGINE")
            ? m_configuration->engine()
            : chooseBrowserEngine({});
    if (!engine)
        return Error{QStringLiteral("service.unknown_engine"),
                     QStringLiteral("VEETBOT_ENGINE must be chromium or qtwebengine.")};
    SiteCatalog sites;
    if (const QString file = qEnvironmentVariable("VEETBOT_PROFILE_VERIFICATION_FILE");
        !file.isEmpty()) {
        Result<SiteCatalog> read = readSiteCatalog(file, m_overrides);
        if (!read)
            return read.error();
        sites = std::move(read).value();
    }
    m_sessions = new SessionHost([this] { return m_vault.get(); }, m_overrides, this);
    m_sessions->setEngine(*engine);
    m_sessions->setSiteCatalog(sites);
    m_ceremonies =
        new CeremonyHost([this] { return m_vault.get(); }, m_sessions, m_overrides, this);
    m_ceremonies->setEngine(*engine);
    m_ceremonies->setSiteCatalog(sites);
    if (!m_sessions->listenForKeepers(m_location->runtimeDirectory() +
                                      QStringLiteral("/lease.sock")))
        return Error{QStringLiteral("service.bind_failed"),
                     QStringLiteral("The profile service could not listen on its socket.")};
    m_http = std::make_unique<HttpService>(
        routes(), [this](QByteArrayView presented) { return m_credential->matches(presented); },
        [this](HttpService::Work work) {
            return runOnThread(this, std::move(work), kWorkTimeoutMs);
        });
    if (!m_http->bind(m_location->socketPath()))
        return Error{QStringLiteral("service.bind_failed"),
                     QStringLiteral("The profile service could not listen on its socket.")};
    m_http->start();
    QMetaObject::invokeMethod(this, &ServiceHost::openVault, Qt::QueuedConnection);
    return Unit{};
}

void ServiceHost::stop()
{
    if (!m_http)
        return;
    // A stopping service seals nothing: every runtime ends first, so a request waiting on a
    // browser (a page loading, an act at its gate) is answered at once.
    if (m_sessions)
        m_sessions->endAll();
    // The HTTP workers may be waiting for this thread: keep running its events until the
    // server has stopped.
    std::atomic<bool> stopped = false;
    std::thread stopper([this, &stopped] {
        m_http->stop();
        stopped = true;
    });
    while (!stopped)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    stopper.join();
    m_http.reset();
    if (m_sessions)
        m_sessions->endAll(); // any acquired while the server was stopping
    if (m_location)
        (void)::unlink(m_location->socketPath().toLocal8Bit().constData()); // ours, under the lock
}

void ServiceHost::openVault()
{
    VaultControlPlane::open(m_configuration->vaultDirectory(), m_keyringFor(*m_configuration),
                            [this](Result<std::unique_ptr<VaultControlPlane>> vault) {
                                if (!vault) {
                                    m_notReady =
                                        vault.error().code.startsWith(QLatin1String("keyring."))
                                            ? NotReady::KeyringUnavailable
                                            : NotReady::StoreInvalid;
                                    // The stable code only (it names no path, key or record): the
                                    // owner's clue.
                                    QTextStream(stderr) << "veetbot-profile-service: not ready: "
                                                        << vault.error().code << '\n';
                                    return;
                                }
                                m_vault = std::move(vault).value();
                                QTextStream(stderr) << "veetbot-profile-service: ready\n";
                            });
}

QList<HttpRoute> ServiceHost::routes()
{
    QList<HttpRoute> routes;
    HttpRoute live;
    live.method = "GET";
    live.pattern = QRegularExpression(QStringLiteral("/health/live"));
    live.access = HttpRoute::Access::Public;
    live.handle = [](const HttpRequest &) { return json(200, {{QStringLiteral("live"), true}}); };
    routes.append(live);

    HttpRoute ready;
    ready.method = "GET";
    ready.pattern = QRegularExpression(QStringLiteral("/health/ready"));
    ready.access = HttpRoute::Access::Public;
    ready.handle = [this](const HttpRequest &) {
        if (isReady())
            return json(200, {{QStringLiteral("ready"), true}});
        return json(503, {{QStringLiteral("ready"), false},
                          {QStringLiteral("reason"), notReadyCode(m_notReady)}});
    };
    routes.append(ready);

    // What a client checks before it trusts the service with its calls: the same data
    // directory (a digest, never the path) and the same test settings.
    HttpRoute about;
    about.method = "GET";
    about.pattern = QRegularExpression(QStringLiteral("/v1/service"));
    about.handle = [this](const HttpRequest &) {
        QJsonObject answer{
            {QStringLiteral("ready"), isReady()},
            {QStringLiteral("pid"), qint64(QCoreApplication::applicationPid())},
            {QStringLiteral("version"), QCoreApplication::applicationVersion()},
            {QStringLiteral("data_directory_digest"),
             dataDirectoryDigest(m_configuration->dataDirectory())},
            {QStringLiteral("test_settings_digest"), testSettingsDigest(m_overrides)},
            {QStringLiteral("test_resolve"), m_overrides.resolveSpec()},
            {QStringLiteral("browsers"), m_sessions->liveBrowsers()},
            // Started by its systemd user unit (the unit's main process), which starts it
            // again after a restart; otherwise a client starts the next one itself.
            {QStringLiteral("supervised"), qEnvironmentVariable("SYSTEMD_EXEC_PID") ==
                                               QString::number(QCoreApplication::applicationPid())},
        };
        if (!isReady())
            answer.insert(QStringLiteral("reason"), notReadyCode(m_notReady));
        return json(200, answer);
    };
    routes.append(about);

    // Stopping: answered first, then the service ends its event loop.
    HttpRoute stop;
    stop.method = "POST";
    stop.pattern = QRegularExpression(QStringLiteral("/v1/service:stop"));
    stop.handle = [this](const HttpRequest &) {
        QMetaObject::invokeMethod(
            this, [] { QCoreApplication::quit(); }, Qt::QueuedConnection);
        return json(202, {{QStringLiteral("stopping"), true}});
    };
    routes.append(stop);

    // Restarting for a client of another version (an upgraded package): answered first,
    // then the service ends with kRestartExitCode, which its systemd unit restarts on.
    HttpRoute restart;
    restart.method = "POST";
    restart.pattern = QRegularExpression(QStringLiteral("/v1/service:restart"));
    restart.handle = [this](const HttpRequest &) {
        QMetaObject::invokeMethod(
            this, [] { QCoreApplication::exit(kRestartExitCode); }, Qt::QueuedConnection);
        return json(202, {{QStringLiteral("restarting"), true}});
    };
    routes.append(restart);

    // Key maintenance: re-seal one record under the current key; the versions still in use.
    HttpRoute rotate;
    rotate.method = "POST";
    rotate.pattern = QRegularExpression(QStringLiteral("/v1/keys:rotate"));
    rotate.maxBody = 4096;
    rotate.handle = [this](const HttpRequest &request) {
        const std::optional<QString> reference = KeysApi::parseRotation(request.body);
        if (!reference)
            return HttpError::response(HttpError::Kind::MalformedRequest);
        if (!m_vault)
            return HttpError::response(HttpError::Kind::NotReady);
        const Result<QString> version = m_vault->rotate(*reference);
        if (!version && version.error().code == QLatin1String("vault.not_found"))
            return json(200, {{QStringLiteral("found"), false}});
        if (!version)
            return HttpError::response(HttpError::Kind::Internal);
        return json(200,
                    {{QStringLiteral("found"), true}, {QStringLiteral("key_version"), *version}});
    };
    routes.append(rotate);
    HttpRoute inUse;
    inUse.method = "GET";
    inUse.pattern = QRegularExpression(QStringLiteral("/v1/keys"));
    inUse.handle = [this](const HttpRequest &) {
        if (!m_vault)
            return HttpError::response(HttpError::Kind::NotReady);
        return json(200, {{QStringLiteral("key_versions_in_use"),
                           QJsonArray::fromStringList(m_vault->keyVersionsInUse())}});
    };
    routes.append(inUse);
    // The keyring changed on disk or in the desktop keyring: open the vault again with it
    // (every envelope is validated again). Ready again once that succeeded.
    HttpRoute reload;
    reload.method = "POST";
    reload.pattern = QRegularExpression(QStringLiteral("/v1/keys:reload"));
    reload.handle = [this](const HttpRequest &) {
        m_sessions->endAll();
        m_vault.reset(); // releases the store's lock before it is taken again
        m_notReady = NotReady::Starting;
        QMetaObject::invokeMethod(this, &ServiceHost::openVault, Qt::QueuedConnection);
        return json(202, {{QStringLiteral("reloading"), true}});
    };
    routes.append(reload);

    // Revocation and deletion close every live runtime of the profile before they answer
    // (after the fence: from the fence on, no session operation passes).
    for (HttpRoute route : LifecycleApi::routes(
             [this]() -> BrowserProfileControlPlane * { return m_vault.get(); }, m_overrides)) {
        if (!route.pattern.pattern().endsWith(QLatin1String(":provision"))) {
            route.handle = [this, handle = route.handle](const HttpRequest &request) {
                const HttpResponse answer = handle(request);
                const QUuid id = QUuid::fromString(request.parameters.value(0));
                if (!id.isNull()) {
                    m_sessions->endProfile(id);
                    m_ceremonies->endProfile(id);
                }
                return answer;
            };
        }
        routes.append(route);
    }
    routes.append(m_sessions->routes());
    routes.append(m_ceremonies->routes());
    return routes;
}

} // namespace veetbot
