// `veetbot mcp` end to end: the real binary over its stdin/stdout, the isolated browser host,
// the fixture site. Without --allow-origin there is no browser tool and no process below it;
// with origins the browser starts only on the first browser call; navigate and observe answer
// projections within the budget; with the default approver every act is refused with nothing
// sent to the site; a server killed after an approved act's dispatch started leaves it
// outcome_unknown, with one effect at the site and nothing resent after the restart; stdout
// carries protocol lines only; malformed, batched and oversized messages are refused and the
// server keeps serving; a cancelled call never answers; EOF exits 0.

#include "BrowserTestHarness.h"
#include "McpProcess.h"
#include "domain/web/BrowserEngine.h"
#include "ledger/EffectLedger.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;
using namespace veetbot::testing;

namespace {
QJsonObject initializeParams()
{
    return QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                       {QStringLiteral("capabilities"), QJsonObject()},
                       {QStringLiteral("clientInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("tst_mcp_cli")},
                                    {QStringLiteral("version"), QStringLiteral("0")}}}};
}

bool isBrowserProcess(const QString &command)
{
    return command.contains(QLatin1String("veetbot-browser-host")) ||
           command.contains(QLatin1String("QtWebEngineProcess"));
}

int browserProcesses(qint64 pid)
{
    int count = 0;
    for (const QString &command : McpProcess::descendants(pid))
        count += isBrowserProcess(command) ? 1 : 0;
    return count;
}
} // namespace

class TestMcpCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init() { m_harness.server().resetCounters(); }
    void withoutOriginsNoBrowserToolAndNoBrowserProcess();
    void malformedBatchedAndOversizedMessagesKeepServing();
    void navigateObserveAndRefusedAct();
    void cancelledNavigateNeverAnswers();
    void killedAfterDispatchStartedIsUncertainAndNeverResent();
    void resetReusedConnectionIsUncertainAndSentOnce();
    void usageErrors_data();
    void usageErrors();
    void refusedOriginLeavesStdoutEmpty();

private:
    // Starts `veetbot mcp --approver elicitation` on `mcp` (data directory `dataDir`, or its
    // own), navigates to `path` on shop.test, then sends veetbot_act click on the button named
    // `button` as request 3 and approves it when the server asks. False when a step failed.
    bool startApprovedClick(McpProcess &mcp, const QString &path, const QString &button,
                            const QString &dataDir = {});

    BrowserTestHarness m_harness;
};

void TestMcpCli::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_harness.page(QStringLiteral("/shop"),
                   "<!doctype html><title>Demo shop</title><h1>Welcome</h1>"
                   "<p>Fresh coffee beans.</p><label for=q>Search</label>"
                   "<input id=q name=q value='ENTERED-CANARY'>"
                   "<button>Buy</button><a href='/shop'>Home</a>"
                   "<script>console.log('CONSOLE-CANARY');console.error('CONSOLE-CANARY');"
                   "</script>");
    fixtures::FixtureServer::Response slow;
    slow.body = "<!doctype html><title>Slow</title><p>SLOW-PAGE</p><button>Late</button>";
    slow.delayMs = 3000;
    m_harness.server().setRoute(QStringLiteral("/slow"), slow);
    m_harness.page(QStringLiteral("/control"), "<!doctype html><title>Control</title>");
}

void TestMcpCli::withoutOriginsNoBrowserToolAndNoBrowserProcess()
{
    McpProcess mcp;
    QVERIFY(mcp.start({}, m_harness.overrides().resolveSpec(), m_harness.caPath()));
    const QJsonObject init = mcp.call(1, QStringLiteral("initialize"), initializeParams());
    QCOMPARE(init.value(QLatin1String("result"))
                 .toObject()
                 .value(QLatin1String("protocolVersion"))
                 .toString(),
             QStringLiteral("2025-06-18"));
    mcp.notify(QStringLiteral("notifications/initialized"));
    const QJsonObject list = mcp.call(2, QStringLiteral("tools/list"));
    QCOMPARE(list.value(QLatin1String("result")).toObject().value(QLatin1String("tools")).toArray(),
             QJsonArray());
    // Even a direct call to a browser tool starts nothing.
    const QJsonObject navigate = mcp.callTool(
        3, QStringLiteral("veetbot_navigate"),
        QJsonObject{
            {QStringLiteral("url"),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/shop")).toString()}});
    QCOMPARE(navigate.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
             -32602);
    // No process of any kind below the server. Positive control: the server handles one message
    // at a time, in order; once it answered a ping sent after the call, whatever the call set off
    // has been done.
    QCOMPARE(mcp.call(4, QStringLiteral("ping")).value(QLatin1String("result")).toObject(),
             QJsonObject());
    QCOMPARE(McpProcess::descendants(mcp.pid()), QStringList());
    QCOMPARE(mcp.closeAndWait(), 0);
    QCOMPARE(mcp.nonProtocolLines(), QList<QByteArray>());
    QCOMPARE(m_harness.server().connections(), 0);
}

void TestMcpCli::malformedBatchedAndOversizedMessagesKeepServing()
{
    McpProcess mcp;
    QVERIFY(mcp.start({}));
    mcp.sendRaw("{not json\n");
    QCOMPARE(mcp.waitForNullIdAnswer()
                 .value(QLatin1String("error"))
                 .toObject()
                 .value(QLatin1String("code"))
                 .toInt(),
             -32700);
    mcp.sendRaw(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])"
                "\n");
    QCOMPARE(mcp.waitForNullIdAnswer()
                 .value(QLatin1String("error"))
                 .toObject()
                 .value(QLatin1String("code"))
                 .toInt(),
             -32600);
    // Over 1 MiB, written in pieces: refused once, the rest discarded, the next message served.
    QByteArray big = R"({"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":")";
    big.append(QByteArray(1024 * 1024 + 100, 'x'));
    big.append("\"}}\n");
    mcp.sendRaw(big);
    QCOMPARE(mcp.waitForNullIdAnswer()
                 .value(QLatin1String("error"))
                 .toObject()
                 .value(QLatin1String("code"))
                 .toInt(),
             -32600);
    const QJsonObject pong = mcp.call(6, QStringLiteral("ping"));
    QCOMPARE(pong.value(QLatin1String("result")).toObject(), QJsonObject());
    QCOMPARE(mcp.call(7, QStringLiteral("sampling/createMessage"))
                 .value(QLatin1String("error"))
                 .toObject()
                 .value(QLatin1String("code"))
                 .toInt(),
             -32601);
    // The oversized request itself was never answered.
    QVERIFY(mcp.waitForAnswer(5, 100).isEmpty());
    QCOMPARE(mcp.closeAndWait(), 0);
    QCOMPARE(mcp.nonProtocolLines(), QList<QByteArray>());
}

void TestMcpCli::navigateObserveAndRefusedAct()
{
    const int budget = 4096;
    McpProcess mcp;
    QVERIFY(
        mcp.start({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
                   QStringLiteral("--budget"), QString::number(budget)},
                  m_harness.overrides().resolveSpec(), m_harness.caPath()));
    mcp.call(1, QStringLiteral("initialize"), initializeParams());
    mcp.notify(QStringLiteral("notifications/initialized"));
    const QJsonArray tools = mcp.call(2, QStringLiteral("tools/list"))
                                 .value(QLatin1String("result"))
                                 .toObject()
                                 .value(QLatin1String("tools"))
                                 .toArray();
    QCOMPARE(tools.size(), 3);
    for (const QJsonValue &tool : tools)
        QVERIFY(tool.toObject()
                    .value(QLatin1String("description"))
                    .toString()
                    .contains(m_harness.origin(QStringLiteral("shop.test"))));
    // The browser starts on the first browser call, not before. Positive control: a ping sent
    // after tools/list is answered, so the server has done whatever the calls before it set off.
    QCOMPARE(mcp.call(20, QStringLiteral("ping")).value(QLatin1String("result")).toObject(),
             QJsonObject());
    QCOMPARE(McpProcess::descendants(mcp.pid()), QStringList());

    const QJsonObject navigated = mcp.callTool(
        3, QStringLiteral("veetbot_navigate"),
        QJsonObject{
            {QStringLiteral("url"),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/shop?q=QUERY-CANARY"))
                 .toString()}});
    QVERIFY2(!toolIsError(navigated), qPrintable(toolText(navigated)));
    const QByteArray navigatedText = toolText(navigated).toUtf8();
    QVERIFY(navigatedText.size() <= budget);
    const QJsonObject projection = QJsonDocument::fromJson(navigatedText).object();
    QCOMPARE(projection.value(QLatin1String("trust")).toString(),
             QStringLiteral("EXTERNAL_UNTRUSTED"));
    const QJsonObject page = projection.value(QLatin1String("observation")).toObject();
    QCOMPARE(page.value(QLatin1String("title")).toString(), QStringLiteral("Demo shop"));
    const QString revision = page.value(QLatin1String("revision")).toString();
    QVERIFY(!revision.isEmpty());
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 1);
    QVERIFY(browserProcesses(mcp.pid()) >= 1); // the process check sees a browser when there is one
    // The call's content-free diagnostics name the engine it ran on and its Chromium version.
    const QJsonObject engine = navigated.value(QLatin1String("result"))
                                   .toObject()
                                   .value(QLatin1String("_meta"))
                                   .toObject()
                                   .value(QLatin1String("veetbot/browser_diagnostics"))
                                   .toObject()
                                   .value(QLatin1String("engine"))
                                   .toObject();
    QCOMPARE(engine.value(QLatin1String("name")).toString(),
             qEnvironmentVariable("VEETBOT_TEST_ENGINE"));
    QVERIFY2(isEngineVersion(engine.value(QLatin1String("version")).toString()),
             qPrintable(engine.value(QLatin1String("version")).toString()));

    const QJsonObject observed = mcp.callTool(4, QStringLiteral("veetbot_observe"), QJsonObject());
    QVERIFY2(!toolIsError(observed), qPrintable(toolText(observed)));
    const QByteArray observedText = toolText(observed).toUtf8();
    QVERIFY(observedText.size() <= budget);
    const QJsonObject window = QJsonDocument::fromJson(observedText)
                                   .object()
                                   .value(QLatin1String("observation"))
                                   .toObject();
    QVERIFY(window.value(QLatin1String("text"))
                .toString()
                .contains(QLatin1String("Fresh coffee beans.")));
    const QJsonArray elements = window.value(QLatin1String("elements")).toArray();
    QString buyRef;
    bool searchFieldShown = false; // the field is in the response; its entered value is not
    for (const QJsonValue &element : elements) {
        const QString name = element.toObject().value(QLatin1String("name")).toString();
        if (name == QLatin1String("Buy"))
            buyRef = element.toObject().value(QLatin1String("ref")).toString();
        searchFieldShown = searchFieldShown || name == QLatin1String("Search");
    }
    QVERIFY(!buyRef.isEmpty());
    QVERIFY(searchFieldShown);

    // Acts: refused before any browser work; the site receives nothing.
    const int before = m_harness.server().total();
    const QJsonObject clicked =
        mcp.callTool(5, QStringLiteral("veetbot_act"),
                     QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                                 {QStringLiteral("expected_revision"),
                                  window.value(QLatin1String("revision")).toString()},
                                 {QStringLiteral("ref"), buyRef}});
    QVERIFY(toolIsError(clicked));
    QCOMPARE(
        toolText(clicked),
        QStringLiteral(
            R"({"error":{"code":"tool.approval_denied","message":"The action was not approved."}})"));
    const QJsonObject malformed =
        mcp.callTool(6, QStringLiteral("veetbot_act"),
                     QJsonObject{{QStringLiteral("kind"), QStringLiteral("scroll")},
                                 {QStringLiteral("expected_revision"), revision},
                                 {QStringLiteral("ref"), buyRef},
                                 {QStringLiteral("delta"), 0}});
    QCOMPARE(toolErrorCode(malformed), QStringLiteral("tool.invalid_arguments"));
    const QJsonObject offPolicy = mcp.callTool(
        7, QStringLiteral("veetbot_navigate"),
        QJsonObject{{QStringLiteral("url"),
                     m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/")).toString()}});
    QCOMPARE(toolErrorCode(offPolicy), QStringLiteral("tool.browser.url_disallowed"));
    // Positive control: the browser loads /control, which reaches the site after anything the
    // refused calls could still send; only then are the site's counts final.
    const QJsonObject control = mcp.callTool(
        8, QStringLiteral("veetbot_navigate"),
        QJsonObject{
            {QStringLiteral("url"),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/control")).toString()}});
    QVERIFY2(!toolIsError(control), qPrintable(toolText(control)));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/control")), 1);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
    QCOMPARE(m_harness.server().total(), before + 1);

    const QStringList browsers = McpProcess::descendants(mcp.pid());
    QCOMPARE(mcp.closeAndWait(), 0);
    QCOMPARE(mcp.nonProtocolLines(), QList<QByteArray>());
    const QByteArray err = mcp.standardError();
    for (const char *canary : {"CONSOLE-CANARY", "QUERY-CANARY", "ENTERED-CANARY"})
        QVERIFY2(!err.contains(canary), canary);
    // Nor in any response on stdout (re-serialized, so an escaped spelling is caught too). The
    // query canary belongs there: it is part of the URL the client asked for.
    QVERIFY(mcp.messages().size() >= 7);
    for (const QJsonObject &message : mcp.messages()) {
        const QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact);
        for (const char *canary : {"CONSOLE-CANARY", "ENTERED-CANARY"})
            QVERIFY2(!line.contains(canary), canary);
    }
    // Nothing below the server outlives it.
    QVERIFY(!browsers.isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return McpProcess::descendants(mcp.pid()).isEmpty(); }, 10000));
}

void TestMcpCli::cancelledNavigateNeverAnswers()
{
    McpProcess mcp;
    QVERIFY(
        mcp.start({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test"))},
                  m_harness.overrides().resolveSpec(), m_harness.caPath()));
    mcp.call(1, QStringLiteral("initialize"), initializeParams());
    mcp.request(
        10, QStringLiteral("tools/call"),
        QJsonObject{
            {QStringLiteral("name"), QStringLiteral("veetbot_navigate")},
            {QStringLiteral("arguments"),
             QJsonObject{{QStringLiteral("url"),
                          m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/slow"))
                              .toString()}}}});
    // Cancel once the slow page was asked for, while the call is in flight.
    QVERIFY(QTest::qWaitFor(
        [&] {
            return m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/slow")) ==
                   1;
        },
        60000));
    mcp.notify(QStringLiteral("notifications/cancelled"),
               QJsonObject{{QStringLiteral("requestId"), 10},
                           {QStringLiteral("reason"), QStringLiteral("test")}});
    QCOMPARE(mcp.call(11, QStringLiteral("ping")).value(QLatin1String("result")).toObject(),
             QJsonObject());
    // The next call answers with its own, current observation; the cancelled one never does.
    // It is also the positive control: calls reach the browser one at a time, so the observe ran
    // only after the cancelled navigation ended there, and an answer to it would have come first.
    const QJsonObject observed = mcp.callTool(12, QStringLiteral("veetbot_observe"), QJsonObject());
    QVERIFY2(!toolIsError(observed), qPrintable(toolText(observed)));
    QVERIFY(mcp.waitForAnswer(10, 10).isEmpty());
    QCOMPARE(mcp.closeAndWait(), 0);
    QCOMPARE(mcp.nonProtocolLines(), QList<QByteArray>());
    for (const QJsonObject &message : mcp.messages())
        QVERIFY(message.value(QLatin1String("id")) != QJsonValue(10));
}

// Lost response (d): the server dies (SIGKILL) after an approved act's dispatch_started was
// committed and its request reached the site. The browser host goes with it; the restarted
// server's ledger recovery ends the act as outcome_unknown; nothing is ever sent again.
void TestMcpCli::killedAfterDispatchStartedIsUncertainAndNeverResent()
{
    m_harness.page(QStringLiteral("/order"),
                   "<!doctype html><title>Order</title><button id=pay>Place order</button><script>"
                   "pay.addEventListener('click', () => fetch('/order-effect', {method: 'POST', "
                   "body: 'order=99'}));</script>");
    fixtures::FixtureServer::Response slow;
    slow.body = "ok";
    slow.delayMs = 20000; // the site never answers while the server lives
    m_harness.server().setRoute(QStringLiteral("/order-effect"), slow);
    QTemporaryDir dataDir;
    QVERIFY(dataDir.isValid());

    qint64 killedPid = 0;
    QList<qint64> orphans;
    {
        McpProcess mcp;
        // The moment the site has the request, the server dies.
        const auto connection =
            connect(&m_harness.server(), &fixtures::FixtureServer::requestReceived, this,
                    [&mcp, &orphans, &killedPid](const QString &, const QString &path) {
                        if (path != QLatin1String("/order-effect"))
                            return;
                        killedPid = mcp.pid();
                        orphans = McpProcess::descendantPids(killedPid);
                        mcp.killNow();
                    });
        QVERIFY(startApprovedClick(mcp, QStringLiteral("/order"), QStringLiteral("Place order"),
                                   dataDir.path()));
        QVERIFY(QTest::qWaitFor(
            [&] { return killedPid != 0 && !McpProcess::processExists(killedPid); }, 30000));
        disconnect(connection);
        // It died before answering.
        const QJsonObject early = mcp.waitForAnswer(3, 100);
        QVERIFY2(early.isEmpty(), QJsonDocument(early).toJson(QJsonDocument::Compact).constData());
    }
    QVERIFY(!orphans.isEmpty());
    // The browser host saw its owner go (end of input) and took Chromium with it.
    QVERIFY(QTest::qWaitFor(
        [&orphans] {
            return std::none_of(orphans.cbegin(), orphans.cend(), McpProcess::processExists);
        },
        15000));

    // The restart: recovery ends the act as outcome_unknown and says so, content-free.
    McpProcess restarted;
    QVERIFY(restarted.start(
        {QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
         QStringLiteral("--approver"), QStringLiteral("elicitation")},
        m_harness.overrides().resolveSpec(), m_harness.caPath(), dataDir.path()));
    QVERIFY(!restarted.call(1, QStringLiteral("initialize"), initializeParams()).isEmpty());
    QVERIFY(restarted.standardError().contains(
        "1 earlier action(s) may have reached the site and ended as outcome_unknown"));
    // Positive control: the restarted server's browser loads /control. It reaches the site after
    // anything still on its way from before the kill, and after anything the restart itself
    // would have resent; only then is the count of the effect final.
    const QJsonObject control = restarted.callTool(
        2, QStringLiteral("veetbot_navigate"),
        QJsonObject{
            {QStringLiteral("url"),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/control")).toString()}});
    QVERIFY2(!toolIsError(control), qPrintable(toolText(control)));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/control")), 1);
    QCOMPARE(restarted.closeAndWait(), 0);

    const auto ledger =
        EffectLedger::open(dataDir.filePath(QStringLiteral("veetbot/effects.sqlite")));
    QVERIFY(ledger.ok());
    const auto records = ledger.value()->records();
    QVERIFY(records.ok());
    QCOMPARE(records->size(), 1);
    QCOMPARE(effectStateString(records->first().state), QStringLiteral("outcome_unknown"));
    QVERIFY(records->first().recovered);
    QVERIFY(ledger.value()->recoveredUncertain().isEmpty()); // recovered once, by the restart

    // Exactly one effect at the site, and none later.
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/order-effect")),
             QList<QByteArray>{"order=99"});
}

// Lost response (a) through the isolated host: the form POST goes out while the page's own
// keep-alive connection is idle, and the site resets the connection after reading it. The host's
// dispatch gate retired that idle tunnel (docs/decisions/0005), so Chromium sent the POST on a
// fresh connection and does not resend it: outcome_unknown, one request at the site.
void TestMcpCli::resetReusedConnectionIsUncertainAndSentOnce()
{
    fixtures::FixtureServer::Response reset;
    reset.resetAfterRequest = true;
    m_harness.server().setRoute(QStringLiteral("/pay-reset"), reset);
    m_harness.page(QStringLiteral("/checkout"),
                   "<!doctype html><title>Checkout</title><form method=post action=/pay-reset>"
                   "<input type=hidden name=order value=7><button>Pay now</button></form>");
    McpProcess mcp;
    QVERIFY(startApprovedClick(mcp, QStringLiteral("/checkout"), QStringLiteral("Pay now")));
    const QJsonObject acted = mcp.waitForAnswer(3);
    QCOMPARE(toolErrorCode(acted), QStringLiteral("tool.browser.outcome_unknown"));
    // Positive control: the browser loads /control, which reaches the site after any resend of
    // the POST; only then is the count of the POST final.
    const QJsonObject control = mcp.callTool(
        4, QStringLiteral("veetbot_navigate"),
        QJsonObject{
            {QStringLiteral("url"),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/control")).toString()}});
    QVERIFY2(!toolIsError(control), qPrintable(toolText(control)));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/control")), 1);
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/pay-reset")), QList<QByteArray>{"order=7"});
    QCOMPARE(mcp.closeAndWait(), 0);
}

bool TestMcpCli::startApprovedClick(McpProcess &mcp, const QString &path, const QString &button,
                                    const QString &dataDir)
{
    if (!mcp.start({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
                    QStringLiteral("--approver"), QStringLiteral("elicitation")},
                   m_harness.overrides().resolveSpec(), m_harness.caPath(), dataDir))
        return false;
    QJsonObject init = initializeParams();
    init.insert(QStringLiteral("capabilities"),
                QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}});
    mcp.call(1, QStringLiteral("initialize"), init);
    const QJsonObject navigated =
        mcp.callTool(2, QStringLiteral("veetbot_navigate"),
                     QJsonObject{{QStringLiteral("url"),
                                  m_harness.url(QStringLiteral("shop.test"), path).toString()}});
    if (toolIsError(navigated))
        return false;
    const QJsonObject page = QJsonDocument::fromJson(toolText(navigated).toUtf8())
                                 .object()
                                 .value(QLatin1String("observation"))
                                 .toObject();
    QString ref;
    for (const QJsonValue &element : page.value(QLatin1String("elements")).toArray()) {
        if (element.toObject().value(QLatin1String("name")) == button)
            ref = element.toObject().value(QLatin1String("ref")).toString();
    }
    if (ref.isEmpty())
        return false;
    mcp.request(3, QStringLiteral("tools/call"),
                QJsonObject{{QStringLiteral("name"), QStringLiteral("veetbot_act")},
                            {QStringLiteral("arguments"),
                             QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                                         {QStringLiteral("expected_revision"),
                                          page.value(QLatin1String("revision")).toString()},
                                         {QStringLiteral("ref"), ref}}}});
    return mcp.answerElicitation(
        QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")},
                    {QStringLiteral("content"), QJsonObject{{QStringLiteral("approve"), true}}}});
}

void TestMcpCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("approver") << QStringList{QStringLiteral("--approver"),
                                             QStringLiteral("always")};
    QTest::newRow("budget small") << QStringList{QStringLiteral("--budget"), QStringLiteral("100")};
    QTest::newRow("budget text") << QStringList{QStringLiteral("--budget"), QStringLiteral("lots")};
    QTest::newRow("positional") << QStringList{QStringLiteral("https://shop.example/")};
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate")};
    QTest::newRow("trust-turns") << QStringList{QStringLiteral("--trust-turns"),
                                                QStringLiteral("page")};
    QTest::newRow("unknown engine")
        << QStringList{QStringLiteral("--engine"), QStringLiteral("firefox")};
    QTest::newRow("engine with a profile")
        << QStringList{QStringLiteral("--profile"), QStringLiteral("p-1"),
                       QStringLiteral("--engine"), QStringLiteral("chromium")};
}

void TestMcpCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    McpProcess mcp;
    QVERIFY(mcp.start(arguments));
    QCOMPARE(mcp.closeAndWait(), 2);
    QVERIFY(mcp.messages().isEmpty());
    QVERIFY(mcp.nonProtocolLines().isEmpty());
}

void TestMcpCli::refusedOriginLeavesStdoutEmpty()
{
    McpProcess mcp;
    QVERIFY(mcp.start({QStringLiteral("--allow-origin"), QStringLiteral("http://shop.example")}));
    QCOMPARE(mcp.closeAndWait(), 3);
    QVERIFY(mcp.messages().isEmpty());
    QVERIFY(mcp.nonProtocolLines().isEmpty());
    QVERIFY(mcp.standardError().contains("tool.browser.url_disallowed"));

    // More than 64 origins is its own error, not a disallowed URL; 64 are served.
    const auto origins = [](int count) {
        QStringList arguments;
        for (int i = 0; i < count; ++i)
            arguments << QStringLiteral("--allow-origin")
                      << QStringLiteral("https://site%1.acme-store.com").arg(i);
        return arguments;
    };
    McpProcess tooMany;
    QVERIFY(tooMany.start(origins(65)));
    QCOMPARE(tooMany.closeAndWait(), 3);
    QVERIFY(tooMany.messages().isEmpty());
    QVERIFY(tooMany.standardError().contains("origin_policy.too_many"));
    QVERIFY(!tooMany.standardError().contains("url_disallowed"));
    McpProcess enough;
    QVERIFY(enough.start(origins(64)));
    QCOMPARE(enough.closeAndWait(), 0); // input ended: a served session
    QVERIFY(!enough.standardError().contains("origin_policy"));
}

QTEST_GUILESS_MAIN(TestMcpCli)
#include "tst_mcp_cli.moc"
