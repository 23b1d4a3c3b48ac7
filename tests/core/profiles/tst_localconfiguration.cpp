// Where the desktop's configuration lives (config.json with its tenant and principal) and
// the one-time move of a config.json from the data directory, where earlier versions kept
// it, to the configuration directory: tenant and principal kept, the new file written before
// the old one is removed, a file already in the configuration directory winning, and a
// broken old file refused without being touched.

#include "profiles/LocalConfiguration.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace veetbot;

class TestLocalConfiguration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void locationsFollowTheEnvironment_data();
    void locationsFollowTheEnvironment();
    void firstUseCreatesAPrivateFile();
    void oldFileMovesOnceKeepingIdentity();
    void newFileWinsAndOldIsLeftAlone();
    void brokenOldFileIsAnErrorAndUntouched_data();
    void brokenOldFileIsAnErrorAndUntouched();
    void brokenNewFileIsAnError();
    void sameDirectoryKeepsTheFileInPlace();
    void theServicesEngineIsReadAndKept();

private:
    LocalConfiguration::Locations locations() const;
    QString dataFile() const { return m_dir->filePath(QStringLiteral("data/config.json")); }
    QString configFile() const { return m_dir->filePath(QStringLiteral("config/config.json")); }
    static void writeFile(const QString &path, const QByteArray &bytes);
    static QByteArray readFile(const QString &path);
    static QByteArray identityJson(const QString &tenant, const QString &principal);
    static mode_t modeOf(const QString &path);

    std::unique_ptr<QTemporaryDir> m_dir;
};

namespace {
const QString kTenant = QStringLiteral("0b3c6a52-8a0e-4a43-9d0c-2f1d3f9a7c11");
const QString kPrincipal = QStringLiteral("5e2d9c0f-1b7a-4c3e-8f6d-9a0b1c2d3e4f");
const QString kOtherTenant = QStringLiteral("11111111-2222-4333-8444-555555555555");
const QString kOtherPrincipal = QStringLiteral("66666666-7777-4888-9999-aaaaaaaaaaaa");
} // namespace

void TestLocalConfiguration::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

LocalConfiguration::Locations TestLocalConfiguration::locations() const
{
    return LocalConfiguration::Locations{.dataDirectory = m_dir->filePath(QStringLiteral("data")),
                                         .configDirectory =
                                             m_dir->filePath(QStringLiteral("config")),
                                         .keyDirectory = {}};
}

void TestLocalConfiguration::writeFile(const QString &path, const QByteArray &bytes)
{
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

QByteArray TestLocalConfiguration::readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

QByteArray TestLocalConfiguration::identityJson(const QString &tenant, const QString &principal)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("tenant"), tenant},
                                     {QStringLiteral("principal"), principal}})
        .toJson();
}

mode_t TestLocalConfiguration::modeOf(const QString &path)
{
    struct stat status
    {
    };
    if (::lstat(QFile::encodeName(path).constData(), &status) != 0)
        return mode_t(-1);
    return status.st_mode & 07777;
}

void TestLocalConfiguration::locationsFollowTheEnvironment_data()
{
    QTest::addColumn<QString>("data");
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("expectedData");
    QTest::addColumn<QString>("expectedConfig");
    QTest::newRow("XDG") << QString() << QString() << QStringLiteral("xdg-data/veetbot")
                         << QStringLiteral("xdg-config/veetbot");
    QTest::newRow("data override keeps config beside the data")
        << QStringLiteral("d") << QString() << QStringLiteral("d") << QStringLiteral("d");
    QTest::newRow("config override") << QString() << QStringLiteral("c")
                                     << QStringLiteral("xdg-data/veetbot") << QStringLiteral("c");
    QTest::newRow("both overrides")
        << QStringLiteral("d") << QStringLiteral("c") << QStringLiteral("d") << QStringLiteral("c");
}

void TestLocalConfiguration::locationsFollowTheEnvironment()
{
    QFETCH(QString, data);
    QFETCH(QString, config);
    QFETCH(QString, expectedData);
    QFETCH(QString, expectedConfig);
    const QString root = m_dir->path();
    // QStandardPaths reads the XDG variables of the process itself.
    qputenv("XDG_DATA_HOME", QFile::encodeName(root + QStringLiteral("/xdg-data")));
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(root + QStringLiteral("/xdg-config")));
    QProcessEnvironment environment;
    if (!data.isEmpty())
        environment.insert(QStringLiteral("VEETBOT_DATA_DIR"), root + QLatin1Char('/') + data);
    if (!config.isEmpty())
        environment.insert(QStringLiteral("VEETBOT_CONFIG_DIR"), root + QLatin1Char('/') + config);
    environment.insert(QStringLiteral("VEETBOT_KEY_DIR"), root + QStringLiteral("/keys"));
    const auto found = LocalConfiguration::Locations::fromEnvironment(environment);
    QCOMPARE(found.dataDirectory, root + QLatin1Char('/') + expectedData);
    QCOMPARE(found.configDirectory, root + QLatin1Char('/') + expectedConfig);
    QCOMPARE(found.keyDirectory, root + QStringLiteral("/keys"));
    qunsetenv("XDG_DATA_HOME");
    qunsetenv("XDG_CONFIG_HOME");
}

void TestLocalConfiguration::firstUseCreatesAPrivateFile()
{
    const Result<LocalConfiguration> first = LocalConfiguration::load(locations());
    QVERIFY(first);
    QCOMPARE(first->configPath(), configFile());
    QVERIFY(QFile::exists(configFile()));
    QVERIFY(!QFile::exists(dataFile()));
    QCOMPARE(modeOf(configFile()), mode_t(0600));
    QCOMPARE(modeOf(m_dir->filePath(QStringLiteral("config"))), mode_t(0700));
    QCOMPARE(modeOf(m_dir->filePath(QStringLiteral("data"))), mode_t(0700));
    QCOMPARE(first->tenant().size(), 36);
    QVERIFY(first->tenant() != first->principal());

    const Result<LocalConfiguration> again = LocalConfiguration::load(locations());
    QVERIFY(again);
    QCOMPARE(again->tenant(), first->tenant());
    QCOMPARE(again->principal(), first->principal());
}

void TestLocalConfiguration::oldFileMovesOnceKeepingIdentity()
{
    writeFile(dataFile(), identityJson(kTenant, kPrincipal));
    const Result<LocalConfiguration> moved = LocalConfiguration::load(locations());
    QVERIFY(moved);
    QCOMPARE(moved->tenant(), kTenant);
    QCOMPARE(moved->principal(), kPrincipal);
    QVERIFY(!QFile::exists(dataFile()));
    QCOMPARE(modeOf(configFile()), mode_t(0600));
    const QJsonObject stored = QJsonDocument::fromJson(readFile(configFile())).object();
    QCOMPARE(stored.value(QStringLiteral("tenant")).toString(), kTenant);
    QCOMPARE(stored.value(QStringLiteral("principal")).toString(), kPrincipal);

    // Once: the next load reads the new file, and a stray old file is no longer read.
    writeFile(dataFile(), identityJson(kOtherTenant, kOtherPrincipal));
    const Result<LocalConfiguration> again = LocalConfiguration::load(locations());
    QVERIFY(again);
    QCOMPARE(again->tenant(), kTenant);
    QCOMPARE(again->principal(), kPrincipal);
}

void TestLocalConfiguration::newFileWinsAndOldIsLeftAlone()
{
    const QByteArray old = identityJson(kOtherTenant, kOtherPrincipal);
    writeFile(dataFile(), old);
    writeFile(configFile(), identityJson(kTenant, kPrincipal));
    const Result<LocalConfiguration> loaded = LocalConfiguration::load(locations());
    QVERIFY(loaded);
    QCOMPARE(loaded->tenant(), kTenant);
    QCOMPARE(loaded->principal(), kPrincipal);
    QCOMPARE(readFile(dataFile()), old);
}

void TestLocalConfiguration::brokenOldFileIsAnErrorAndUntouched_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("not JSON") << QByteArray("{\"tenant\":");
    QTest::newRow("not an object") << QByteArray("[]");
    QTest::newRow("no principal") << QByteArray("{\"tenant\":\"") + kTenant.toUtf8() + "\"}";
    QTest::newRow("not a UUID") << identityJson(QStringLiteral("tenant"), kPrincipal);
}

void TestLocalConfiguration::brokenOldFileIsAnErrorAndUntouched()
{
    QFETCH(QByteArray, bytes);
    writeFile(dataFile(), bytes);
    for (int attempt = 0; attempt < 2; ++attempt) {
        const Result<LocalConfiguration> loaded = LocalConfiguration::load(locations());
        QVERIFY(!loaded);
        QCOMPARE(loaded.error().code, QStringLiteral("config.invalid"));
        QCOMPARE(readFile(dataFile()), bytes);
        QVERIFY(!QFile::exists(configFile()));
    }
}

void TestLocalConfiguration::brokenNewFileIsAnError()
{
    const QByteArray old = identityJson(kTenant, kPrincipal);
    writeFile(dataFile(), old);
    writeFile(configFile(), QByteArray("not json"));
    const Result<LocalConfiguration> loaded = LocalConfiguration::load(locations());
    QVERIFY(!loaded);
    QCOMPARE(loaded.error().code, QStringLiteral("config.invalid"));
    QCOMPARE(readFile(configFile()), QByteArray("not json"));
    QCOMPARE(readFile(dataFile()), old);
}

void TestLocalConfiguration::sameDirectoryKeepsTheFileInPlace()
{
    // VEETBOT_DATA_DIR alone: config.json stays in the data directory, as before.
    LocalConfiguration::Locations same = locations();
    same.configDirectory = same.dataDirectory;
    writeFile(dataFile(), identityJson(kTenant, kPrincipal));
    const Result<LocalConfiguration> loaded = LocalConfiguration::load(same);
    QVERIFY(loaded);
    QCOMPARE(loaded->configPath(), dataFile());
    QCOMPARE(loaded->tenant(), kTenant);
    QCOMPARE(loaded->principal(), kPrincipal);
    QVERIFY(QFile::exists(dataFile()));
    QVERIFY(!QFile::exists(configFile()));
}

// "engine" names the engine of the profile service's browsers: read, kept when the file moves,
// absent by default, and any other name is config.invalid with the file untouched.
void TestLocalConfiguration::theServicesEngineIsReadAndKept()
{
    QByteArray withEngine = identityJson(kTenant, kPrincipal);
    withEngine.replace("{", "{\"engine\": \"qtwebengine\", ");
    writeFile(dataFile(), withEngine);
    const Result<LocalConfiguration> moved = LocalConfiguration::load(locations());
    QVERIFY(moved);
    QCOMPARE(moved->engine(), std::optional<BrowserEngine>(BrowserEngine::QtWebEngine));
    QVERIFY(!QFile::exists(dataFile()));
    const Result<LocalConfiguration> again = LocalConfiguration::load(locations());
    QVERIFY(again);
    QCOMPARE(again->engine(), std::optional<BrowserEngine>(BrowserEngine::QtWebEngine));
    QCOMPARE(again->tenant(), kTenant);

    // Positive control: a file without it names none.
    writeFile(configFile(), identityJson(kOtherTenant, kOtherPrincipal));
    const Result<LocalConfiguration> none = LocalConfiguration::load(locations());
    QVERIFY(none);
    QVERIFY(!none->engine().has_value());

    QByteArray unknown = identityJson(kTenant, kPrincipal);
    unknown.replace("{", "{\"engine\": \"gecko\", ");
    writeFile(configFile(), unknown);
    const Result<LocalConfiguration> refused = LocalConfiguration::load(locations());
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("config.invalid"));
    QCOMPARE(readFile(configFile()), unknown);
}

QTEST_GUILESS_MAIN(TestLocalConfiguration)
#include "tst_localconfiguration.moc"
