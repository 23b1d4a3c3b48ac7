#include "QtKeychainKeyring.h"
#include "QtKeychainStore.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;
using namespace std::chrono_literals;

namespace {

constexpr int kWaitMs = 30000;

QStringList everythingUnder(const QString &root)
{
    QStringList found;
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        found.append(it.next());
    return found;
}

bool isFailClosedCode(const QString &code)
{
    return code == QStringLiteral("keyring.unavailable") ||
           code == QStringLiteral("keyring.timeout");
}

} // namespace

// With no session bus and a fresh HOME, the desktop keyring fails with keyring.unavailable
// (or keyring.timeout) and nothing (no QSettings fallback, no cache) appears under HOME.
class QtKeychainFailClosedTest : public QObject
{
    Q_OBJECT
public:
    QtKeychainFailClosedTest(QString home, QString runtime)
        : m_home(std::move(home)), m_runtime(std::move(runtime))
    {
    }

private Q_SLOTS:
    void initTestCase();
    void initializeFailsClosed();
    void loadFailsClosed();
    void storeWriteFailsWithoutFallback();
    void nothingWrittenUnderHome();

private:
    QString m_home;
    QString m_runtime;
};

void QtKeychainFailClosedTest::initTestCase()
{
    QVERIFY(qgetenv("DBUS_SESSION_BUS_ADDRESS").isEmpty());
    QCOMPARE(QString::fromLocal8Bit(qgetenv("HOME")), m_home);
    QVERIFY(everythingUnder(m_home).isEmpty());
}

void QtKeychainFailClosedTest::initializeFailsClosed()
{
    QtKeychainKeyringOptions options;
    options.retryDelay = 100ms;
    QtKeychainKeyring keyring(options);
    std::optional<Result<Unit>> result;
    keyring.initializeIfEmpty(true, [&](Result<Unit> r) { result.emplace(std::move(r)); });
    QVERIFY(QTest::qWaitFor([&] { return result.has_value(); }, kWaitMs));
    QVERIFY(!result->ok());
    QVERIFY2(isFailClosedCode(result->error().code), qPrintable(result->error().code));
    QVERIFY(!keyring.isLoaded());
    QCOMPARE(keyring.currentVersion().error().code, QStringLiteral("keyring.not_loaded"));
    QVERIFY(keyring.versions().isEmpty());
}

void QtKeychainFailClosedTest::loadFailsClosed()
{
    QtKeychainKeyringOptions options;
    options.retryDelay = 100ms;
    QtKeychainKeyring keyring(options);
    std::optional<Result<Unit>> result;
    keyring.load([&](Result<Unit> r) { result.emplace(std::move(r)); });
    QVERIFY(QTest::qWaitFor([&] { return result.has_value(); }, kWaitMs));
    QVERIFY(!result->ok());
    QVERIFY2(isFailClosedCode(result->error().code), qPrintable(result->error().code));
}

void QtKeychainFailClosedTest::storeWriteFailsWithoutFallback()
{
    // Below the keyring: a write with no secret service must fail, not land in a file.
    QtKeychainStore store(QStringLiteral("veetbot-workbench"));
    std::optional<KeychainStatus> written;
    store.write(QStringLiteral("failclosed/key/v1"), SecretBytes(QByteArray(32, 'k')),
                [&](KeychainStatus status) { written = status; });
    QVERIFY(QTest::qWaitFor([&] { return written.has_value(); }, kWaitMs));
    QCOMPARE(*written, KeychainStatus::Unavailable);

    std::optional<KeychainStatus> read;
    store.read(QStringLiteral("failclosed/key/v1"),
               [&](KeychainStatus status, SecretBytes) { read = status; });
    QVERIFY(QTest::qWaitFor([&] { return read.has_value(); }, kWaitMs));
    QCOMPARE(*read, KeychainStatus::Unavailable);
}

void QtKeychainFailClosedTest::nothingWrittenUnderHome()
{
    const QStringList home = everythingUnder(m_home);
    QVERIFY2(home.isEmpty(), qPrintable(home.join(u' ')));
    const QStringList runtime = everythingUnder(m_runtime);
    QVERIFY2(runtime.isEmpty(), qPrintable(runtime.join(u' ')));
}

int main(int argc, char **argv)
{
    // The environment is fixed before anything can reach D-Bus: no session bus, no display
    // to autolaunch one with, and a fresh HOME and runtime directory to watch.
    QTemporaryDir home;
    QTemporaryDir runtime;
    if (!home.isValid() || !runtime.isValid())
        return 2;
    for (const char *name :
         {"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME",
          "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CURRENT_DESKTOP",
          "DESKTOP_SESSION", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID"}) {
        qunsetenv(name);
    }
    // VEETBOT_FAILCLOSED_DESKTOP=kde4 makes QtKeychain pick its KWallet backend, the one
    // whose insecure fallback would write a QSettings file; by default it picks libsecret.
    if (qgetenv("VEETBOT_FAILCLOSED_DESKTOP") == "kde4") {
        qputenv("XDG_CURRENT_DESKTOP", "KDE");
        qputenv("KDE_SESSION_VERSION", "4");
    }
    qputenv("HOME", QFile::encodeName(home.path()));
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
    QCoreApplication app(argc, argv);
    QtKeychainFailClosedTest test(home.path(), runtime.path());
    return QTest::qExec(&test, argc, argv);
}

#include "tst_qtkeychain_failclosed.moc"
