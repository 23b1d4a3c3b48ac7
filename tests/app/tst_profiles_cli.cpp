// `veetbot profiles` and `veetbot-profile-service keys` end to end: the real programs, SQLite
// metadata under a temporary data directory, the vault with a key directory in the profile
// service, which the CLI starts on demand.

#include "ProgramRun.h"
#include "VaultComposition.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/ProfileService.h"
#include "profiles/SqlStores.h"
#include "vault/VaultControlPlane.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <sys/resource.h>

using namespace veetbot;

class TestProfilesCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void usageErrors_data();
    void usageErrors();
    void lifecycle();
    void keysRotateAndRemove();
    void withoutKeysNothingChangesButRevokeCommits();
    void unsafeKeyDirectoryIsRefused();
    void secretCanaryNeverLeaves();
    void postgresMetadataThroughTheCli();
    void keyCommandsCannotDumpCore();

private:
    using Run = veetbot::testing::ProgramRun;
    Run run(const QStringList &arguments, const QString &keyDir = QString(),
            const QProcessEnvironment &extra = QProcessEnvironment());
    // The same with veetbot-profile-service (its keys command).
    Run runService(const QStringList &arguments, const QString &keyDir = QString());
    Run runProgram(const QString &program, const QStringList &arguments, const QString &keyDir,
                   const QProcessEnvironment &extra);
    QString serviceLog() const;
    QProcessEnvironment environment(const QString &keyDir) const;
    // Seals material carrying `canary` for a new profile, in this process, the way a sign-in
    // hand-off will; returns the profile id.
    QString sealCanaryProfile(const QByteArray &canary, const QString &database = QString());
    QString createProfile(const QString &origin);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
    QString m_keyDir;
};

void TestProfilesCli::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_dataDir = m_dir->path() + QStringLiteral("/data");
    m_keyDir = m_dir->path() + QStringLiteral("/keys");
    QCOMPARE(runService({QStringLiteral("keys"), QStringLiteral("init"), m_keyDir}).exitCode, 0);
}

void TestProfilesCli::cleanup()
{
    // A service a command started on demand ends with the test.
    QCOMPARE(run({QStringLiteral("service"), QStringLiteral("stop")}).exitCode, 0);
}

QString TestProfilesCli::serviceLog() const
{
    QFile log(m_dataDir + QStringLiteral("/logs/service.log"));
    return log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()) : QString();
}

TestProfilesCli::Run TestProfilesCli::run(const QStringList &arguments, const QString &keyDir,
                                          const QProcessEnvironment &extra)
{
    return runProgram(QStringLiteral("veetbot"), arguments, keyDir, extra);
}

TestProfilesCli::Run TestProfilesCli::runService(const QStringList &arguments,
                                                 const QString &keyDir)
{
    return runProgram(QStringLiteral("veetbot-profile-service"), arguments, keyDir,
                      QProcessEnvironment());
}

TestProfilesCli::Run TestProfilesCli::runProgram(const QString &program,
                                                 const QStringList &arguments,
                                                 const QString &keyDir,
                                                 const QProcessEnvironment &extra)
{
    QProcessEnvironment env = environment(keyDir);
    for (const QString &key : extra.keys())
        env.insert(key, extra.value(key));
    return testing::runProgram(program, arguments, env, 30000);
}

QProcessEnvironment TestProfilesCli::environment(const QString &keyDir) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_DATA_DIR"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_KEY_DIR"), keyDir.isEmpty() ? m_keyDir : keyDir);
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_RUNTIME_DIR"), m_dir->path() + QStringLiteral("/run"));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    return env;
}

QString TestProfilesCli::createProfile(const QString &origin)
{
    const Run created = run(
        {QStringLiteral("profiles"), QStringLiteral("create"), QStringLiteral("--origin"), origin});
    if (created.exitCode != 0)
        return QString();
    return created.jsonValue().toObject().value(QStringLiteral("id")).toString();
}

void TestProfilesCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("no action") << QStringList{QStringLiteral("profiles")};
    QTest::newRow("unknown action")
        << QStringList{QStringLiteral("profiles"), QStringLiteral("frob")};
    QTest::newRow("create without origin")
        << QStringList{QStringLiteral("profiles"), QStringLiteral("create")};
    QTest::newRow("show without id")
        << QStringList{QStringLiteral("profiles"), QStringLiteral("show")};
    QTest::newRow("origin on list")
        << QStringList{QStringLiteral("profiles"), QStringLiteral("list"),
                       QStringLiteral("--origin"), QStringLiteral("https://a.acme-store.com")};
    QTest::newRow("keys moved to the service") << QStringList{QStringLiteral("keys")};
    QTest::newRow("service without action") << QStringList{QStringLiteral("service")};
    QTest::newRow("service unknown action")
        << QStringList{QStringLiteral("service"), QStringLiteral("restart")};
    QTest::newRow("service keys without action") << QStringList{QStringLiteral("service-keys")};
    QTest::newRow("service keys use without version")
        << QStringList{QStringLiteral("service-keys"), QStringLiteral("use")};
}

void TestProfilesCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    // "service-keys ..." stands for veetbot-profile-service keys ...
    const bool serviceKeys = arguments.first() == QLatin1String("service-keys");
    if (serviceKeys)
        arguments.first() = QStringLiteral("keys");
    const Run result = serviceKeys ? runService(arguments) : run(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY(result.out.isEmpty());
    QVERIFY(result.err.startsWith(serviceKeys ? "veetbot-profile-service " : "veetbot"));
}

void TestProfilesCli::lifecycle()
{
    const QString id = createProfile(QStringLiteral("https://shop.acme-store.com"));
    QVERIFY(!id.isEmpty());
    const Run shown = run({QStringLiteral("profiles"), QStringLiteral("show"), id});
    QCOMPARE(shown.exitCode, 0);
    const QJsonObject view = shown.jsonValue().toObject();
    QCOMPARE(view.value(QStringLiteral("status")).toString(),
             QStringLiteral("authentication_required"));
    // Never signed in yet: the verification time is there, and null.
    QVERIFY(view.contains(QStringLiteral("last_verified_at")));
    QVERIFY(view.value(QStringLiteral("last_verified_at")).isNull());
    // The view never carries control-plane data.
    QVERIFY(!shown.out.contains("reference"));
    QVERIFY(!shown.out.contains("key_version"));

    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("delete"), id}).exitCode, 3);
    const Run revoked = run({QStringLiteral("profiles"), QStringLiteral("revoke"), id});
    QCOMPARE(revoked.exitCode, 0);
    QCOMPARE(revoked.jsonValue().toObject().value(QStringLiteral("status")).toString(),
             QStringLiteral("revoked"));
    QVERIFY(revoked.jsonValue().toObject().value(QStringLiteral("generation")).toInt() >
            view.value(QStringLiteral("generation")).toInt());
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("revoke"), id}).exitCode, 0);
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("delete"), id}).exitCode, 0);
    const Run gone = run({QStringLiteral("profiles"), QStringLiteral("show"), id});
    QCOMPARE(gone.exitCode, 3);
    QCOMPARE(gone.jsonValue()
                 .toObject()
                 .value(QStringLiteral("error"))
                 .toObject()
                 .value(QStringLiteral("code"))
                 .toString(),
             QStringLiteral("profile.not_found"));
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("show"), QStringLiteral("not-a-uuid")})
                 .exitCode,
             3);
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("list")}).jsonValue().toArray().size(),
             0);
    // The vault holds no record any more.
    QDirIterator it(m_dataDir + QStringLiteral("/vault"), {QStringLiteral("*.env")}, QDir::Files);
    QVERIFY(!it.hasNext());
}

void TestProfilesCli::keysRotateAndRemove()
{
    QVERIFY(!createProfile(QStringLiteral("https://a.acme-store.com")).isEmpty());
    QVERIFY(!createProfile(QStringLiteral("https://b.acme-store.com")).isEmpty());
    const QString oldVersion = QString::fromUtf8(
        QFile(m_keyDir + QStringLiteral("/current")).exists()
            ? [&] {
                  QFile f(m_keyDir + QStringLiteral("/current"));
                  f.open(QIODevice::ReadOnly);
                  return f.readAll().trimmed();
              }()
            : QByteArray());
    QVERIFY(!oldVersion.isEmpty());
    const Run added = runService({QStringLiteral("keys"), QStringLiteral("add")});
    QCOMPARE(added.exitCode, 0);
    const QString newVersion =
        added.jsonValue().toObject().value(QStringLiteral("version")).toString();
    QCOMPARE(runService({QStringLiteral("keys"), QStringLiteral("use"), newVersion}).exitCode, 0);
    // Still sealed with the old key: it cannot go.
    const Run refused = runService({QStringLiteral("keys"), QStringLiteral("remove"), oldVersion});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY(refused.out.contains("keys.in_use"));
    const Run rotated = run({QStringLiteral("profiles"), QStringLiteral("rotate-keys")});
    QCOMPARE(rotated.exitCode, 0);
    QCOMPARE(rotated.jsonValue().toObject().value(QStringLiteral("resealed")).toInt(), 2);
    // Restartable: a second sweep has nothing left to do.
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("rotate-keys")})
                 .jsonValue()
                 .toObject()
                 .value(QStringLiteral("resealed"))
                 .toInt(),
             0);
    QCOMPARE(runService({QStringLiteral("keys"), QStringLiteral("remove"), oldVersion}).exitCode,
             0);
    QCOMPARE(runService({QStringLiteral("keys"), QStringLiteral("remove"), newVersion}).exitCode,
             3);
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("list")}).jsonValue().toArray().size(),
             2);
}

void TestProfilesCli::withoutKeysNothingChangesButRevokeCommits()
{
    const QString id = createProfile(QStringLiteral("https://shop.acme-store.com"));
    QVERIFY(!id.isEmpty());
    // The service started for the create has the keys; one started without them is live but
    // never ready, and says why.
    QCOMPARE(run({QStringLiteral("service"), QStringLiteral("stop")}).exitCode, 0);
    const QString missing = m_dir->path() + QStringLiteral("/no-such-keys");
    const Run created =
        run({QStringLiteral("profiles"), QStringLiteral("create"), QStringLiteral("--origin"),
             QStringLiteral("https://other.acme-store.com")},
            missing);
    QCOMPARE(created.exitCode, 3);
    QVERIFY(created.out.contains("service.not_ready"));
    const Run status = run({QStringLiteral("service"), QStringLiteral("status")}, missing);
    QCOMPARE(status.exitCode, 3);
    QCOMPARE(status.jsonValue().toObject().value(QStringLiteral("reason")).toString(),
             QStringLiteral("keyring_unavailable"));
    QVERIFY(serviceLog().contains("keyring.missing_directory"));
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("list")}).jsonValue().toArray().size(),
             1);
    const Run revoked = run({QStringLiteral("profiles"), QStringLiteral("revoke"), id}, missing);
    QCOMPARE(revoked.exitCode, 3);
    QVERIFY(revoked.out.contains("vault.fence_pending"));
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("show"), id})
                 .jsonValue()
                 .toObject()
                 .value(QStringLiteral("status"))
                 .toString(),
             QStringLiteral("revoked"));
    // With keys back (a service started with them), revoking again applies the fence and
    // delete works.
    QCOMPARE(run({QStringLiteral("service"), QStringLiteral("stop")}).exitCode, 0);
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("revoke"), id}).exitCode, 0);
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("delete"), id}).exitCode, 0);
    // Deleting what is already gone is still a success, end to end.
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("delete"), id}).exitCode, 0);
}

void TestProfilesCli::unsafeKeyDirectoryIsRefused()
{
    QVERIFY(QFile::setPermissions(m_keyDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                QFileDevice::ExeOwner | QFileDevice::ReadGroup |
                                                QFileDevice::ExeGroup));
    const Run created =
        run({QStringLiteral("profiles"), QStringLiteral("create"), QStringLiteral("--origin"),
             QStringLiteral("https://shop.acme-store.com")});
    QCOMPARE(created.exitCode, 3);
    QVERIFY(created.out.contains("service.not_ready"));
    QVERIFY(serviceLog().contains("keyring.unsafe_directory"));
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("list")}).jsonValue().toArray().size(),
             0);
}

QString TestProfilesCli::sealCanaryProfile(const QByteArray &canary, const QString &database)
{
    qputenv("VEETBOT_DATA_DIR", m_dataDir.toUtf8());
    qputenv("VEETBOT_KEY_DIR", m_keyDir.toUtf8());
    QString id;
    [&] {
        const Result<LocalConfiguration> config = LocalConfiguration::load();
        QVERIFY(config.ok());
        Result<std::unique_ptr<SqlStores>> repository =
            SqlStores::openSqlite(config->metadataPath());
        if (!database.isEmpty()) {
            const QUrl url(database, QUrl::StrictMode);
            PostgresProfileStoreSettings settings;
            settings.host = url.host();
            settings.port = url.port(5432);
            settings.user = url.userName();
            settings.database = url.path().mid(1);
            repository = SqlStores::openPostgres(settings);
        }
        QVERIFY(repository.ok());
        std::unique_ptr<VaultControlPlane> vault;
        VaultControlPlane::open(config->vaultDirectory(), keyringLoader(*config),
                                [&](Result<std::unique_ptr<VaultControlPlane>> opened) {
                                    QVERIFY(opened.ok());
                                    vault = std::move(opened).value();
                                });
        QVERIFY(vault);
        const ProfileScope scope{config->tenant(), config->principal()};
        ProfileService service((*repository)->profiles(), vault.get(), scope);
        const Result<BrowserProfile> created = service.create(
            {Origin::parse(QStringLiteral("https://shop.acme-store.com"), TestOverrides())
                 .value()});
        QVERIFY(created.ok());
        const MaterialScope material{created->id, created->tenant, created->principal,
                                     created->allowedOrigins};
        QVERIFY(vault
                    ->replaceMaterial(material, *created->providerReference,
                                      SecretBytes(QByteArray("{\"cookie\":\"") + canary + "\"}"))
                    .ok());
        id = created->id.toString(QUuid::WithoutBraces);
    }();
    qunsetenv("VEETBOT_DATA_DIR");
    qunsetenv("VEETBOT_KEY_DIR");
    return id;
}

namespace {
// True when no file below `dir` contains `needle`; counts the files read.
bool absentFromFiles(const QString &dir, const QByteArray &needle, int *files)
{
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        if (file.readAll().contains(needle))
            return false;
        ++*files;
    }
    return true;
}
} // namespace

void TestProfilesCli::secretCanaryNeverLeaves()
{
    const QByteArray canary = "SESSION-COOKIE-CANARY-5f1e2d";
    const QString id = sealCanaryProfile(canary);
    QVERIFY(!id.isEmpty());
    QByteArray output;
    for (const QStringList &arguments :
         {QStringList{QStringLiteral("profiles"), QStringLiteral("list")},
          QStringList{QStringLiteral("profiles"), QStringLiteral("show"), id},
          QStringList{QStringLiteral("profiles"), QStringLiteral("rotate-keys")},
          QStringList{QStringLiteral("profiles"), QStringLiteral("revoke"), id}}) {
        const Run result = run(arguments);
        QCOMPARE(result.exitCode, 0);
        output += result.out + result.err;
    }
    QVERIFY(!output.contains(canary));
    int files = 0;
    QVERIFY(absentFromFiles(m_dataDir, canary, &files));
    QVERIFY(files >= 3); // config, database, at least one envelope
}

void TestProfilesCli::postgresMetadataThroughTheCli()
{
    // Needs the throwaway server of scripts/with-postgres.sh (./test.sh starts it); without it
    // this fails rather than skips.
    const QString host = qEnvironmentVariable("VEETBOT_TEST_PG_HOST");
    const int port = qEnvironmentVariableIntValue("VEETBOT_TEST_PG_PORT");
    QVERIFY2(!host.isEmpty() && port > 0,
             "run under scripts/with-postgres.sh (VEETBOT_TEST_PG_* missing)");
    const QString suffix = QString::number(QRandomGenerator::global()->bounded(1u << 30));
    const QString owner = QStringLiteral("vb_owner_") + suffix;
    const QString app = QStringLiteral("vb_app_") + suffix;
    const QString database = QStringLiteral("vb_cli_") + suffix;
    const QString ownerPassword = QStringLiteral("o") + suffix;
    const QString appPassword = QStringLiteral("a") + suffix;
    {
        QSqlDatabase admin =
            QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("admin"));
        admin.setHostName(host);
        admin.setPort(port);
        admin.setUserName(qEnvironmentVariable("VEETBOT_TEST_PG_USER"));
        admin.setPassword(qEnvironmentVariable("VEETBOT_TEST_PG_PASSWORD"));
        admin.setDatabaseName(qEnvironmentVariable("VEETBOT_TEST_PG_DB"));
        QVERIFY(admin.open());
        QSqlQuery q(admin);
        QVERIFY(
            q.exec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(owner, ownerPassword)));
        QVERIFY(q.exec(QStringLiteral("CREATE ROLE %1 LOGIN NOBYPASSRLS PASSWORD '%2'")
                           .arg(app, appPassword)));
        QVERIFY(q.exec(QStringLiteral("CREATE DATABASE %1 OWNER %2").arg(database, owner)));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("admin"));

    // Passwords only from the libpq password file.
    const QString passFile = m_dir->path() + QStringLiteral("/pgpass");
    {
        QFile file(passFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(
            QStringLiteral("%1:%2:%3:%4:%5\n%1:%2:%3:%6:%7\n")
                .arg(host, QString::number(port), database, owner, ownerPassword, app, appPassword)
                .toUtf8());
    }
    QProcessEnvironment pg;
    pg.insert(QStringLiteral("PGPASSFILE"), passFile);
    pg.insert(QStringLiteral("PGPASSWORD"), QString()); // not the superuser's
    const QString ownerUrl =
        QStringLiteral("postgresql://%1@%2:%3/%4").arg(owner, host).arg(port).arg(database);
    const QString appUrl =
        QStringLiteral("postgresql://%1@%2:%3/%4").arg(app, host).arg(port).arg(database);

    const Run migrated =
        run({QStringLiteral("profiles"), QStringLiteral("migrate"), QStringLiteral("--database"),
             ownerUrl, QStringLiteral("--grant"), app},
            QString(), pg);
    QCOMPARE(migrated.exitCode, 0);
    // The owner is refused as the application's connection.
    const Run asOwner = run({QStringLiteral("profiles"), QStringLiteral("list"),
                             QStringLiteral("--database"), ownerUrl},
                            QString(), pg);
    QCOMPARE(asOwner.exitCode, 3);
    QVERIFY(asOwner.out.contains("repository.privileged_role"));
    // A password in the URL is refused.
    QCOMPARE(run({QStringLiteral("profiles"), QStringLiteral("list"), QStringLiteral("--database"),
                  QStringLiteral("postgresql://%1:secret@%2:%3/%4")
                      .arg(app, host)
                      .arg(port)
                      .arg(database)},
                 QString(), pg)
                 .exitCode,
             3);

    const QByteArray canary = "PG-SESSION-CANARY-9a8b7c";
    qputenv("PGPASSFILE", passFile.toUtf8());
    qputenv("PGPASSWORD", QByteArray());
    const QString id = sealCanaryProfile(canary, appUrl);
    QVERIFY(!id.isEmpty());
    QByteArray output;
    for (const QStringList &arguments :
         {QStringList{QStringLiteral("profiles"), QStringLiteral("list")},
          QStringList{QStringLiteral("profiles"), QStringLiteral("show"), id},
          QStringList{QStringLiteral("profiles"), QStringLiteral("revoke"), id}}) {
        const Run result =
            run(arguments + QStringList{QStringLiteral("--database"), appUrl}, QString(), pg);
        QCOMPARE(result.exitCode, 0);
        output += result.out + result.err;
    }
    QVERIFY(output.contains(id.toUtf8()));
    QVERIFY(!output.contains(canary));

    // Nothing of the material reached the database: neither its rows nor its files.
    QSqlDatabase admin =
        QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("admin2"));
    admin.setHostName(host);
    admin.setPort(port);
    admin.setUserName(qEnvironmentVariable("VEETBOT_TEST_PG_USER"));
    admin.setPassword(qEnvironmentVariable("VEETBOT_TEST_PG_PASSWORD"));
    admin.setDatabaseName(database);
    QVERIFY(admin.open());
    QSqlQuery q(admin);
    QVERIFY(q.exec(QStringLiteral("CHECKPOINT")));
    QVERIFY(q.exec(QStringLiteral(
        "SELECT (SELECT coalesce(string_agg(row_to_json(p)::text, ''), '') FROM browser_profiles p)"
        " || (SELECT coalesce(string_agg(row_to_json(o)::text, ''), '') FROM "
        "browser_profile_origins o)")));
    QVERIFY(q.next());
    QVERIFY(q.value(0).toString().contains(id));
    QVERIFY(!q.value(0).toString().toUtf8().contains(canary));
    QVERIFY(q.exec(QStringLiteral("SHOW data_directory")));
    QVERIFY(q.next());
    const QString dataDirectory = q.value(0).toString();
    q.finish();
    admin.close();
    int files = 0;
    QVERIFY(absentFromFiles(dataDirectory, canary, &files));
    QVERIFY(files > 10);
    qunsetenv("PGPASSFILE");
    qunsetenv("PGPASSWORD");
}

void TestProfilesCli::keyCommandsCannotDumpCore()
{
    // The profile service, the one program that opens the vault or the keys, disables core
    // dumps in main(): read the limit of the running program. Each child first allows core files
    // (unlimited where it may raise the hard limit, else up to it), so a 0 is the program's own
    // doing; the control below fails, rather than skips, on a machine where no core file may be
    // written.
    const auto coreLimitOf = [](qint64 pid) {
        QFile limits(QStringLiteral("/proc/%1/limits").arg(pid));
        if (!limits.open(QIODevice::ReadOnly))
            return QByteArray();
        for (const QByteArray &line : limits.readAll().split('\n')) {
            if (line.startsWith("Max core file size"))
                return line.mid(int(qstrlen("Max core file size"))).simplified();
        }
        return QByteArray();
    };
    const auto start = [this](QProcess &process, const QString &program,
                              const QStringList &arguments) {
        process.setProcessEnvironment(environment(m_keyDir));
        process.setChildProcessModifier([] {
            struct rlimit limit = {RLIM_INFINITY, RLIM_INFINITY};
            if (::setrlimit(RLIMIT_CORE, &limit) != 0 && ::getrlimit(RLIMIT_CORE, &limit) == 0) {
                limit.rlim_cur = limit.rlim_max;
                ::setrlimit(RLIMIT_CORE, &limit);
            }
        });
        process.start(QCoreApplication::applicationDirPath() + QLatin1Char('/') + program,
                      arguments);
        return process.waitForStarted();
    };
    const QByteArray disabled = "0 0 bytes";

    // The service, once it answers (its main() has run).
    QProcess service;
    QVERIFY(start(service, QStringLiteral("veetbot-profile-service"), {}));
    QTRY_VERIFY_WITH_TIMEOUT(
        run({QStringLiteral("service"), QStringLiteral("status")}).exitCode == 0, 10000);
    QCOMPARE(coreLimitOf(service.processId()), disabled);
    QCOMPARE(run({QStringLiteral("service"), QStringLiteral("stop")}).exitCode, 0);
    // run() keeps this thread's event loop going, so the service's end may be seen already.
    QVERIFY(service.state() == QProcess::NotRunning || service.waitForFinished(10000));

    // The control: `veetbot mcp` holds no keys and keeps the limit it was given, checked once
    // it has answered, so its main() has certainly run.
    QProcess mcp;
    QVERIFY(start(mcp, QStringLiteral("veetbot"), {QStringLiteral("mcp")}));
    mcp.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})"
              "\n");
    QTRY_VERIFY_WITH_TIMEOUT(mcp.canReadLine(), 10000);
    const QByteArray inherited = coreLimitOf(mcp.processId());
    QVERIFY(!inherited.isEmpty());
    QVERIFY2(inherited != disabled,
             "core files are forbidden by a hard limit this test may not raise: it cannot tell "
             "the program's own limit from the machine's");
    mcp.closeWriteChannel();
    QVERIFY(mcp.waitForFinished(10000));
}

QTEST_GUILESS_MAIN(TestProfilesCli)
#include "tst_profiles_cli.moc"
