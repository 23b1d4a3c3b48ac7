#include "ServiceHost.h"

#include "VaultComposition.h"
#include "domain/Sha256.h"
#include "service/HttpService.h"
#include "service/LifecycleApi.h"
#include "service/ThreadRunner.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include <atomic>
#include <thread>
#include <unistd.h>

namespace veetbot {

namespace {

// How long an HTTP worker waits for the Qt thread to run a route's work.
constexpr int kWorkTimeoutMs = 60000;

HttpResponse json(int status, const QJsonObject &object)
{
    return {status, QJsonDocument(object).toJson(QJsonDocument::Compact)};
}

} // namespace

QString testSettingsDigest(const TestOverrides &overrides)
{
    if (overrides.isEmpty())
        return {};
    return Sha256::hex((overrides.resolveSpec() + QLatin1Char('\n') + overrides.caPath()).toUtf8());
}

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

ServiceHost::ServiceHost(QObject *parent) : QObject(parent) {}

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

    m_http = std::make_unique<HttpService>(
        routes(), [this](QByteArrayView presented) { return m_credential->matches(presented); },
        [this](std::function<HttpResponse()> work) {
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
    if (m_location)
        (void)::unlink(m_location->socketPath().toLocal8Bit().constData()); // ours, under the lock
}

void ServiceHost::openVault()
{
    VaultControlPlane::open(m_configuration->vaultDirectory(), keyringLoader(*m_configuration),
                            [this](Result<std::unique_ptr<VaultControlPlane>> vault) {
                                if (!vault) {
                                    m_notReady =
                                        vault.error().code.startsWith(QLatin1String("keyring."))
                                            ? NotReady::KeyringUnavailable
                                            : NotReady::StoreInvalid;
                                    return;
                                }
                                m_vault = std::move(vault).value();
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
             Sha256::hex(m_configuration->dataDirectory().toUtf8())},
            {QStringLiteral("test_settings_digest"), testSettingsDigest(m_overrides)},
            {QStringLiteral("test_resolve"), m_overrides.resolveSpec()},
        };
        if (!isReady())
            answer.insert(QStringLiteral("reason"), notReadyCode(m_notReady));
        return json(200, answer);
    };
    routes.append(about);

    routes.append(LifecycleApi::routes(
        [this]() -> BrowserProfileControlPlane * { return m_vault.get(); }, m_overrides));
    return routes;
}

} // namespace veetbot
