// Which compositions may hold keys: no orchestration command opens the vault (no keyring, no
// encrypted store), whether it succeeds or is refused: `veetbot observe`, `veetbot mcp` and
// `veetbot profiles` (which reaches material only through the profile service). The profile
// service's own key command does.

#include "BrowserTestHarness.h"
#include "KeysCommand.h"
#include "McpCommand.h"
#include "ObserveCommand.h"
#include "ProfilesCommand.h"
#include "ServiceCommand.h"
#include "client/WebsiteAccess.h"
#include "vault/VaultControlPlane.h"

#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace veetbot;

class TestCliCompositions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void observeNeverOpensTheVault();
    void mcpNeverOpensTheVault();
    void profilesNeverOpenTheVault();
};

void TestCliCompositions::observeNeverOpensTheVault()
{
    testing::BrowserTestHarness harness;
    QString error;
    QVERIFY2(harness.start(&error), qPrintable(error));
    harness.page(QStringLiteral("/"), "<!doctype html><title>Shop</title><p>hello</p>");
    qputenv("VEETBOT_TEST_RESOLVE", harness.overrides().resolveSpec().toUtf8());
    qputenv("VEETBOT_TEST_CA", harness.caPath().toUtf8());
    const QString origin = harness.origin(QStringLiteral("shop.test"));

    QCOMPARE(runObserveCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"), origin,
                                QStringLiteral("https://127.0.0.1/")}),
             3);
    QCOMPARE(runObserveCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"), origin,
                                origin + QStringLiteral("/")}),
             0);
    QCOMPARE(harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/")), 1);
    QCOMPARE(VaultControlPlane::openedCount(), 0);
    qunsetenv("VEETBOT_TEST_RESOLVE");
    qunsetenv("VEETBOT_TEST_CA");
}

void TestCliCompositions::mcpNeverOpensTheVault()
{
    // Refused compositions return before serving; a served one reads stdin, so it runs in
    // the real binary with a session that initializes, lists its tools and ends.
    QCOMPARE(runMcpCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"),
                            QStringLiteral("http://shop.acme-store.com")}),
             3);
    QCOMPARE(
        runMcpCommand({QStringLiteral("veetbot"), QStringLiteral("--budget"), QStringLiteral("1")}),
        2);
    QCOMPARE(VaultControlPlane::openedCount(), 0);

    // In-process serving: stdin is a pipe that carries one session, then ends.
    int pipeFds[2];
    QCOMPARE(::pipe(pipeFds), 0);
    const int savedStdin = ::dup(STDIN_FILENO);
    const int savedStdout = ::dup(STDOUT_FILENO);
    QVERIFY(savedStdin >= 0 && savedStdout >= 0);
    const QByteArray session =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})"
        "\n"
        R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"
        "\n";
    QCOMPARE(::write(pipeFds[1], session.constData(), size_t(session.size())),
             ssize_t(session.size()));
    ::close(pipeFds[1]);
    ::dup2(pipeFds[0], STDIN_FILENO);
    ::close(pipeFds[0]);
    const int exitCode = runMcpCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"),
                                        QStringLiteral("https://shop.acme-store.com")});
    ::dup2(savedStdin, STDIN_FILENO);
    ::dup2(savedStdout, STDOUT_FILENO); // the command pointed fd 1 at stderr
    ::close(savedStdin);
    ::close(savedStdout);
    QCOMPARE(exitCode, 0);
    QCOMPARE(VaultControlPlane::openedCount(), 0);
}

void TestCliCompositions::profilesNeverOpenTheVault()
{
    QTemporaryDir data;
    QTemporaryDir keys;
    qputenv("VEETBOT_DATA_DIR", data.path().toUtf8());
    qputenv("VEETBOT_RUNTIME_DIR", (data.path() + QStringLiteral("/run")).toUtf8());
    const QString keyDir = keys.path() + QStringLiteral("/keys");
    qputenv("VEETBOT_KEY_DIR", keyDir.toUtf8());
    QCOMPARE(runKeysCommand({QStringLiteral("keys"), QStringLiteral("init"), keyDir}), 0);
    QCOMPARE(VaultControlPlane::openedCount(), 0);
    // Create, rotate, revoke and delete: the service (started on demand, another process)
    // opens the vault; this process never does.
    QCOMPARE(runProfilesCommand({QStringLiteral("profiles"), QStringLiteral("create"),
                                 QStringLiteral("--origin"),
                                 QStringLiteral("https://shop.acme-store.com")}),
             0);
    QCOMPARE(runProfilesCommand({QStringLiteral("profiles"), QStringLiteral("rotate-keys")}), 0);
    QCOMPARE(VaultControlPlane::openedCount(), 0);
    QCOMPARE(runServiceCommand({QStringLiteral("service"), QStringLiteral("status")}), 0);

    // The control: the counter does move when a composition opens the vault (the service's
    // key command, checking whether a key is still in use).
    QCOMPARE(runServiceCommand({QStringLiteral("service"), QStringLiteral("stop")}), 0);
    QCOMPARE(runKeysCommand({QStringLiteral("keys"), QStringLiteral("remove"),
                             QStringLiteral("20000101-aaaaaaaaaaaaaaaa")}),
             3);
    QCOMPARE(VaultControlPlane::openedCount(), 1);
    qunsetenv("VEETBOT_DATA_DIR");
    qunsetenv("VEETBOT_RUNTIME_DIR");
    qunsetenv("VEETBOT_KEY_DIR");
}

QTEST_GUILESS_MAIN(TestCliCompositions)
#include "tst_cli_compositions.moc"
