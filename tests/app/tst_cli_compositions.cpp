// Which compositions may hold keys: `veetbot observe` never opens the vault (no keyring, no
// encrypted store), whether it succeeds or is refused; `veetbot profiles create` does.

#include "BrowserTestHarness.h"
#include "ObserveCommand.h"
#include "KeysCommand.h"
#include "ProfilesCommand.h"
#include "vault/VaultControlPlane.h"

#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;

class TestCliCompositions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void observeNeverOpensTheVault();
    void profilesCreateOpensTheVault();
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

    QCOMPARE(runObserveCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"),
                                origin, QStringLiteral("https://127.0.0.1/")}),
             3);
    QCOMPARE(runObserveCommand({QStringLiteral("veetbot"), QStringLiteral("--allow-origin"),
                                origin, origin + QStringLiteral("/")}),
             0);
    QCOMPARE(harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/")), 1);
    QCOMPARE(VaultControlPlane::openedCount(), 0);
    qunsetenv("VEETBOT_TEST_RESOLVE");
    qunsetenv("VEETBOT_TEST_CA");
}

void TestCliCompositions::profilesCreateOpensTheVault()
{
    // The control: the counter does move when a composition opens the vault.
    QTemporaryDir data;
    QTemporaryDir keys;
    qputenv("VEETBOT_DATA_DIR", data.path().toUtf8());
    const QString keyDir = keys.path() + QStringLiteral("/keys");
    qputenv("VEETBOT_KEY_DIR", keyDir.toUtf8());
    QCOMPARE(runKeysCommand({QStringLiteral("veetbot"), QStringLiteral("init"), keyDir}), 0);
    QCOMPARE(runProfilesCommand({QStringLiteral("veetbot"), QStringLiteral("create"),
                                 QStringLiteral("--origin"),
                                 QStringLiteral("https://shop.acme-store.com")}),
             0);
    QCOMPARE(VaultControlPlane::openedCount(), 1);
    qunsetenv("VEETBOT_DATA_DIR");
    qunsetenv("VEETBOT_KEY_DIR");
}

QTEST_GUILESS_MAIN(TestCliCompositions)
#include "tst_cli_compositions.moc"
