#include "ServiceTestCase.h"

#include <QDirIterator>

#include "EventWait.h"
#include "VaultComposition.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlStores.h"
#include "service/api/ServiceCredential.h"
#include "vault/VaultControlPlane.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QThreadPool>
#include <QUuid>

namespace veetbot::testing {

bool ServiceTestCase::setUpService()
{
    m_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/vss-XXXXXX"));
    m_dataDir = m_dir->path() + QStringLiteral("/data");
    m_runDir = m_dir->path() + QStringLiteral("/run");
    m_keyDir = m_dir->path() + QStringLiteral("/keys");
    m_harness.server().resetCounters();
    const bool keys = run(QStringLiteral("veetbot-profile-service"),
                          {QStringLiteral("keys"), QStringLiteral("init"), m_keyDir})
                          .exitCode == 0;
    // This process reads the same configuration (tenant, principal) as the programs.
    qputenv("VEETBOT_DATA_DIR", m_dataDir.toUtf8());
    return keys;
}

bool ServiceTestCase::tearDownService()
{
    // The service stops with the settings it was started with; later tests start without.
    const auto forgetSettings = qScopeGuard([this] { m_extraEnvironment.clear(); });
    // Work a window left behind as it went (a sign-in's cancel on the shared pool) reaches the
    // service before it stops; afterwards it would start the service again in this directory.
    QThreadPool::globalInstance()->waitForDone();
    const bool stopped =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
            .exitCode == 0;
    qunsetenv("VEETBOT_DATA_DIR");
    return stopped;
}

QProcessEnvironment ServiceTestCase::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_DATA_DIR"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_RUNTIME_DIR"), m_runDir);
    env.insert(QStringLiteral("VEETBOT_KEY_DIR"), m_keyDir);
    env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), m_harness.overrides().resolveSpec());
    env.insert(QStringLiteral("VEETBOT_TEST_CA"), m_harness.caPath());
    // The service's lease clock, moved ahead by writing milliseconds to this file.
    env.insert(QStringLiteral("VEETBOT_TEST_CLOCK"), m_dir->path() + QStringLiteral("/clock"));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    for (auto it = m_extraEnvironment.cbegin(); it != m_extraEnvironment.cend(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

ServiceTestCase::Run ServiceTestCase::run(const QString &program, const QStringList &arguments)
{
    return testing::runProgram(program, arguments, environment(), 90000);
}

QProcess *ServiceTestCase::start(const QStringList &arguments)
{
    auto *process = new QProcess(this);
    process->setProcessEnvironment(environment());
    process->start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"), arguments);
    return process;
}

QString ServiceTestCase::createProfile(bool ready, const QString &host)
{
    const Run created =
        run(QStringLiteral("veetbot"), {QStringLiteral("profiles"), QStringLiteral("create"),
                                        QStringLiteral("--origin"), m_harness.origin(host)});
    if (created.exitCode != 0)
        return QString();
    const QString id =
        QJsonDocument::fromJson(created.out).object().value(QStringLiteral("id")).toString();
    if (!ready)
        return id;
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    Result<std::unique_ptr<SqlStores>> repository =
        SqlStores::openSqlite(config->metadataPath(), {}, m_harness.overrides());
    const ProfileScope scope{config->tenant(), config->principal()};
    const Result<BrowserProfile> current =
        (*repository)->profiles().get(scope, QUuid::fromString(id));
    if (!current)
        return QString();
    const Result<BrowserProfile> readied =
        (*repository)
            ->profiles()
            .transition(scope, current->id, current->generation, ProfileStatus::Ready);
    return readied ? id : QString();
}

int ServiceTestCase::posts(const QString &path)
{
    int count = 0;
    for (const fixtures::FixtureServer::Request &request : m_harness.server().requests())
        count += request.method == QLatin1String("POST") && request.path == path;
    return count;
}

ServiceTestCase::Run ServiceTestCase::signInWithCookie(const QString &profile, const QString &name,
                                                       const QByteArray &value,
                                                       const QString &confirmedPath,
                                                       const QString &host)
{
    const QString path = m_dir->path() + QStringLiteral("/session.json");
    SessionState state;
    state.cookies = {StoredCookie{name, QString::fromLatin1(value), host, QStringLiteral("/"), -1,
                                  true, true, QStringLiteral("Lax")}};
    QJsonObject json = state.toJson();
    json.remove(QStringLiteral("format"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        out.write(QJsonDocument(json).toJson()) <= 0 ||
        !out.setPermissions(QFile::ReadOwner | QFile::WriteOwner))
        return Run{};
    out.close();
    return run(QStringLiteral("veetbot"),
               {QStringLiteral("profiles"), QStringLiteral("sign-in"), profile,
                QStringLiteral("--session-file"), path, QStringLiteral("--confirmed-url"),
                m_harness.url(host, confirmedPath).toString()});
}

bool ServiceTestCase::useSiteDefinition(const QString &profile, const QString &origin,
                                        const QString &protectedPath, const QString &readyLine,
                                        const QString &account, QFile::Permissions mode)
{
    const QJsonObject site{
        {QStringLiteral("id"), QStringLiteral("test-site")},
        {QStringLiteral("version"), 1},
        {QStringLiteral("profile_id"), profile},
        {QStringLiteral("origin"), origin},
        {QStringLiteral("protected_path"), protectedPath},
        {QStringLiteral("ready"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                              {QStringLiteral("text"), readyLine}}},
        {QStringLiteral("account"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                     {QStringLiteral("role"), QStringLiteral("button")},
                     {QStringLiteral("name"), QStringLiteral("Account menu")},
                     {QStringLiteral("text"), account}}}};
    const QString path = m_dir->path() + QStringLiteral("/sites.json");
    QFile file(path);
    const QByteArray json = QJsonDocument(QJsonObject{{QStringLiteral("version"), 1},
                                                      {QStringLiteral("sites"), QJsonArray{site}}})
                                .toJson();
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(json) != json.size())
        return false;
    file.close();
    if (!file.setPermissions(mode))
        return false;
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_PROFILE_VERIFICATION_FILE"), path);
    return run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
               .exitCode == 0;
}

QString ServiceTestCase::startedRunId(const QByteArray &err)
{
    static const QRegularExpression started(QStringLiteral("run ([0-9a-f-]{36}) started"));
    return started.match(QString::fromUtf8(err)).captured(1);
}

QJsonObject ServiceTestCase::runSummaryOf(const QByteArray &err)
{
    const QList<QByteArray> lines = err.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last()).object();
}

QStringList ServiceTestCase::dataFilesHolding(const QList<QByteArray> &secrets, int *read,
                                              const QString &except) const
{
    QStringList holding;
    *read = 0;
    QDirIterator files(m_dataDir, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile stored(files.next());
        if (stored.fileName() == except || !stored.open(QIODevice::ReadOnly))
            continue;
        ++*read;
        const QByteArray bytes = stored.readAll();
        for (const QByteArray &secret : secrets) {
            if (bytes.contains(secret)) {
                holding << files.fileName();
                break;
            }
        }
    }
    return holding;
}

BrowserProfile ServiceTestCase::profile(const QString &id)
{
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    Result<std::unique_ptr<SqlStores>> repository =
        SqlStores::openSqlite(config->metadataPath(), {}, m_harness.overrides());
    return (*repository)
        ->profiles()
        .get({config->tenant(), config->principal()}, QUuid::fromString(id))
        .value();
}

std::unique_ptr<ServiceProvider> ServiceTestCase::provider(const QString &id, const QString &runId)
{
    const BrowserProfile bound = profile(id);
    ServiceProvider::Options options;
    options.holder = {bound.id, bound.tenant, bound.principal, *bound.providerReference, runId, 1};
    options.keeperPath = m_runDir + QStringLiteral("/lease.sock");
    options.overrides = m_harness.overrides();
    options.acquireBackoffMs = 20;
    auto client = std::make_shared<ServiceClient>(m_runDir + QStringLiteral("/service.sock"),
                                                  ServiceCredential::read(m_dataDir).value());
    return std::make_unique<ServiceProvider>(client, options);
}

ServiceClient ServiceTestCase::serviceClient() const
{
    return ServiceClient(m_runDir + QStringLiteral("/service.sock"),
                         ServiceCredential::read(m_dataDir).value());
}

int ServiceTestCase::liveBrowsers() const
{
    const Result<HttpResponse> about = serviceClient().get("/v1/service");
    return about ? QJsonDocument::fromJson(about->body)
                       .object()
                       .value(QStringLiteral("browsers"))
                       .toInt(-1)
                 : -1;
}

QByteArray ServiceTestCase::cookieHeaderOf(const QString &path)
{
    QByteArray header;
    for (const fixtures::FixtureServer::Request &request : m_harness.server().requests()) {
        if (request.host == QLatin1String("shop.test") && request.path == path)
            header = request.header("Cookie");
    }
    return header;
}

std::unique_ptr<VaultControlPlane> ServiceTestCase::openVault()
{
    qputenv("VEETBOT_KEY_DIR", m_keyDir.toUtf8());
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    std::unique_ptr<VaultControlPlane> vault;
    if (config)
        VaultControlPlane::open(config->vaultDirectory(), keyringLoader(*config),
                                [&vault](Result<std::unique_ptr<VaultControlPlane>> opened) {
                                    if (opened)
                                        vault = std::move(opened).value();
                                });
    qunsetenv("VEETBOT_KEY_DIR");
    return vault;
}

bool ServiceTestCase::seal(const QString &id, const SessionState &state)
{
    const std::unique_ptr<VaultControlPlane> vault = openVault();
    if (!vault)
        return false;
    const BrowserProfile bound = profile(id);
    return vault
        ->sealSession(id, bound.tenant, bound.principal, *bound.providerReference,
                      state.toMaterial())
        .ok();
}

std::optional<SessionState> ServiceTestCase::sealedState(const QString &id)
{
    if (run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
            .exitCode != 0)
        return std::nullopt;
    const std::unique_ptr<VaultControlPlane> vault = openVault();
    if (!vault)
        return std::nullopt;
    const BrowserProfile bound = profile(id);
    const Result<SecretBytes> material = vault->sessionMaterial(
        id, bound.tenant, bound.principal, bound.providerReference.value_or(QString()));
    if (!material)
        return std::nullopt;
    Result<SessionState> state = SessionState::fromMaterial(*material, m_harness.overrides());
    if (!state)
        return std::nullopt;
    return std::move(state).value();
}

void ServiceTestCase::useServiceEnvironmentHere()
{
    const QProcessEnvironment env = environment();
    for (const QString &name :
         {QStringLiteral("VEETBOT_RUNTIME_DIR"), QStringLiteral("VEETBOT_KEY_DIR"),
          QStringLiteral("VEETBOT_TEST_RESOLVE"), QStringLiteral("VEETBOT_TEST_CA"),
          QStringLiteral("VEETBOT_TEST_CLOCK")})
        qputenv(name.toUtf8().constData(), env.value(name).toUtf8());
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
}

QByteArray ServiceTestCase::serviceLog() const
{
    QFile log(m_dataDir + QStringLiteral("/logs/service.log"));
    return log.open(QIODevice::ReadOnly) ? log.readAll() : QByteArray();
}

bool ServiceTestCase::recordReadySignIn(const QString &profileId)
{
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return false;
    Result<std::unique_ptr<SqlStores>> repository =
        SqlStores::openSqlite(config->metadataPath(), {}, m_harness.overrides());
    if (!repository)
        return false;
    const ProfileScope scope{config->tenant(), config->principal()};
    const BrowserProfile ready = profile(profileId);
    const Result<CeremonyBegun> begun =
        (*repository)
            ->profiles()
            .beginCeremony(scope, ready.id, ready.generation, QStringLiteral("device"),
                           [](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
                               return CeremonyLaunchRecord{
                                   QUuid::createUuid().toString(QUuid::WithoutBraces),
                                   QDateTime::currentDateTimeUtc().addSecs(300)};
                           });
    return begun &&
           (*repository)
               ->profiles()
               .finishCeremony(scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {})
               .ok();
}

} // namespace veetbot::testing
