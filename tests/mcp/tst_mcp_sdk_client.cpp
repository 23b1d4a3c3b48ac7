// `veetbot mcp` under the official MCP TypeScript SDK client (@modelcontextprotocol/sdk,
// pinned in tests/mcp/package.json): runs tests/mcp/sdk_client.mjs with node against the
// fixture site (and serves the workbench's approvals socket for its `--approver workbench`
// part) and checks, at the site, what reached it. Missing node or missing
// node_modules (scripts/setup.sh runs `npm ci`) is a failure, never a skip.

#include "BrowserTestHarness.h"
#include "TestPaths.h"
#include "approval/WorkbenchChannel.h"
#include "ledger/EffectLedger.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace veetbot;
using namespace veetbot::testing;

class TestMcpSdkClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sdkClientDrivesTheServer();
};

void TestMcpSdkClient::sdkClientDrivesTheServer()
{
    const QString clientDir = testing::sourcePath(QStringLiteral("tests/mcp"));
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    QVERIFY2(!node.isEmpty(), "node is not installed (scripts/setup.sh installs it)");
    QVERIFY2(
        QFileInfo::exists(clientDir +
                          QStringLiteral("/node_modules/@modelcontextprotocol/sdk/package.json")),
        "tests/mcp/node_modules is missing: run `npm ci` in tests/mcp (scripts/setup.sh does)");

    BrowserTestHarness harness;
    QString error;
    QVERIFY2(harness.start(&error), qPrintable(error));
    harness.page(QStringLiteral("/shop"), "<!doctype html><title>Demo shop</title><h1>Welcome</h1>"
                                          "<p>Fresh coffee beans.</p><button>Buy</button>"
                                          "<script>console.log('CONSOLE-CANARY');</script>");
    fixtures::FixtureServer::Response slow;
    slow.body = "<!doctype html><title>Slow</title><p>SLOW-PAGE</p>";
    slow.delayMs = 3000;
    harness.server().setRoute(QStringLiteral("/slow"), slow);
    harness.page(QStringLiteral("/pay"),
                 "<!doctype html><title>Checkout</title><button id=pay>Pay</button><script>"
                 "pay.addEventListener('click', () => fetch('/effect', {method: 'POST', "
                 "body: 'order=7'}).then(() => { document.title = 'Paid'; }));</script>");
    QTemporaryDir dataDir;
    QVERIFY(dataDir.isValid());
    // The workbench's approvals, served here: the owner approves the first card and closes
    // the second (a denial).
    QTemporaryDir runtimeDir(QStringLiteral("/tmp/vsdk-XXXXXX"));
    QVERIFY(runtimeDir.isValid());
    ApprovalBroker workbench;
    QVERIFY(workbench.listen(WorkbenchChannel::socketPath(runtimeDir.path())));
    QList<QJsonObject> cards;
    connect(&workbench, &ApprovalBroker::asked, this,
            [&workbench, &cards](const ApprovalBroker::Question &question) {
                cards << question.view;
                const ApprovalAnswer answer =
                    cards.size() == 1 ? ApprovalAnswer::Approved : ApprovalAnswer::Declined;
                QTimer::singleShot(300, &workbench, [&workbench, key = question.key, answer] {
                    workbench.answer(key, answer);
                });
            });

    QProcess client;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_BIN"),
               QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"));
    env.insert(QStringLiteral("VEETBOT_MCP_ORIGIN"), harness.origin(QStringLiteral("shop.test")));
    env.insert(QStringLiteral("VEETBOT_MCP_URL"),
               harness.url(QStringLiteral("shop.test"), QStringLiteral("/shop")).toString());
    env.insert(QStringLiteral("VEETBOT_MCP_SLOW_URL"),
               harness.url(QStringLiteral("shop.test"), QStringLiteral("/slow")).toString());
    env.insert(QStringLiteral("VEETBOT_MCP_ACT_URL"),
               harness.url(QStringLiteral("shop.test"), QStringLiteral("/pay")).toString());
    env.insert(QStringLiteral("VEETBOT_MCP_DATA_DIR"), dataDir.path());
    env.insert(QStringLiteral("VEETBOT_MCP_RUNTIME_DIR"), runtimeDir.path());
    env.insert(QStringLiteral("VEETBOT_MCP_BUDGET"), QStringLiteral("4096"));
    env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), harness.overrides().resolveSpec());
    env.insert(QStringLiteral("VEETBOT_TEST_CA"), harness.caPath());
    client.setProcessEnvironment(env);
    client.setWorkingDirectory(clientDir);
    client.start(node, {clientDir + QStringLiteral("/sdk_client.mjs")});
    QVERIFY(client.waitForStarted(10000));
    // The fixture server lives in this process: keep its event loop running while waiting.
    const bool finished =
        QTest::qWaitFor([&client] { return client.state() == QProcess::NotRunning; }, 90000);
    if (!finished) {
        client.kill();
        client.waitForFinished(5000);
    }
    const QByteArray out = client.readAllStandardOutput();
    const QByteArray err = client.readAllStandardError();
    QVERIFY2(finished, "the SDK client did not finish in time");
    QVERIFY2(client.exitStatus() == QProcess::NormalExit && client.exitCode() == 0,
             QByteArray(out + '\n' + err).constData());
    const QJsonObject report = QJsonDocument::fromJson(out.trimmed()).object();
    QCOMPARE(report.value(QLatin1String("ok")).toBool(), true);
    QCOMPARE(report.value(QLatin1String("actRefused")).toString(),
             QStringLiteral("tool.approval_denied"));
    QCOMPARE(report.value(QLatin1String("toolsWithoutOrigins")).toInt(-1), 0);
    QCOMPARE(report.value(QLatin1String("tools")).toVariant().toStringList(),
             (QStringList{QStringLiteral("veetbot_navigate"), QStringLiteral("veetbot_observe"),
                          QStringLiteral("veetbot_act")}));
    QCOMPARE(report.value(QLatin1String("schemaSamples")).toInt(), 19);
    QCOMPARE(report.value(QLatin1String("observedAfterAbort")).toBool(), true);
    QCOMPARE(report.value(QLatin1String("elicitations")).toInt(), 2);
    QCOMPARE(report.value(QLatin1String("declined")).toString(),
             QStringLiteral("tool.approval_denied"));
    QCOMPARE(report.value(QLatin1String("approvedAct")).toBool(), true);
    QCOMPARE(report.value(QLatin1String("workbenchApproved")).toBool(), true);
    QCOMPARE(report.value(QLatin1String("workbenchClosed")).toString(),
             QStringLiteral("tool.approval_denied"));
    QCOMPARE(cards.size(), 2);
    QVERIFY(cards.first()
                .value(QLatin1String("accessible_name"))
                .toString()
                .contains(QLatin1String("Pay")));
    QVERIFY(!err.contains("CONSOLE-CANARY"));

    // At the site: the shop twice (before and after the aborted call), the slow page once; the
    // refused acts and the off-policy URL sent nothing,
    // the declined act nothing, the approved act exactly one effect.
    QCOMPARE(harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 2);
    QCOMPARE(harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/slow")), 1);
    QCOMPARE(harness.server().countHost(QStringLiteral("evil.test")), 0);
    // The elicitation server's approved act and the workbench's approved act: one each.
    QCOMPARE(harness.server().bodies(QStringLiteral("/effect")),
             (QList<QByteArray>{"order=7", "order=7"}));
    for (const auto &request : harness.server().requests()) {
        if (request.path != QLatin1String("/effect"))
            QVERIFY2(request.method == QLatin1String("GET"), qPrintable(request.path));
    }

    // The elicitation server's ledger: the declined act not_sent, the approved one sent.
    auto ledger =
        EffectLedger::open(dataDir.filePath(QStringLiteral("server-3/veetbot/effects.sqlite")));
    QVERIFY(ledger.ok());
    const auto records = ledger.value()->records();
    QVERIFY(records.ok());
    QCOMPARE(records->size(), 2);
    QCOMPARE(records->at(0).state, EffectState::NotSent);
    QCOMPARE(records->at(0).reasonCode, QStringLiteral("tool.approval_denied"));
    QCOMPARE(effectStateString(records->at(1).state), effectStateString(EffectState::Dispatched));
    // The workbench server's ledger: the approved act sent, the closed card's not_sent.
    auto workbenchLedger =
        EffectLedger::open(dataDir.filePath(QStringLiteral("server-4/veetbot/effects.sqlite")));
    QVERIFY(workbenchLedger.ok());
    const auto workbenchRecords = workbenchLedger.value()->records();
    QVERIFY(workbenchRecords.ok());
    QCOMPARE(workbenchRecords->size(), 2);
    QCOMPARE(effectStateString(workbenchRecords->at(0).state),
             effectStateString(EffectState::Dispatched));
    QCOMPARE(workbenchRecords->at(1).state, EffectState::NotSent);
}

QTEST_GUILESS_MAIN(TestMcpSdkClient)
#include "tst_mcp_sdk_client.moc"
