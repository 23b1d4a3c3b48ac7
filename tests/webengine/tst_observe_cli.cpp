// `veetbot observe` end to end: the real CLI, the isolated browser host, the fixture site.

#include "BrowserTestHarness.h"
#include "ProgramRun.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace veetbot;
using namespace veetbot::testing;

class TestObserveCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init() { m_harness.server().resetCounters(); }
    void observesAllowedPage();
    void observationNeverLeaksHiddenOrEnteredContent();
    void usageErrors_data();
    void usageErrors();
    void refusedDestinations_data();
    void refusedDestinations();
    void defaultConfigurationRefusesLoopback();
    void waitForPollsUntilTheControlAppears();

private:
    using Run = veetbot::testing::ProgramRun;
    Run run(const QStringList &arguments, bool withTestSettings = true);

    BrowserTestHarness m_harness;
};

void TestObserveCli::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_harness.page(QStringLiteral("/shop"),
                   "<!doctype html><title>Demo shop</title><h1>Welcome</h1>"
                   "<p>Fresh coffee beans.</p><label for=q>Search</label>"
                   "<input id=q name=q value='ENTERED-CANARY'>"
                   "<input type=password value='PASSWORD-CANARY'>"
                   "<textarea>TEXTAREA-CANARY</textarea>"
                   "<div contenteditable>EDITABLE-CANARY</div>"
                   "<div hidden>HIDDEN-CANARY</div><div style='display:none'>NONE-CANARY</div>"
                   "<div aria-hidden=true>ARIA-CANARY</div><template>TEMPLATE-CANARY</template>"
                   "<script>var s='SCRIPT-CANARY';</script><style>/*STYLE-CANARY*/</style>"
                   "<select><option value=a selected>Option A</option></select>"
                   "<button data-secret='ATTRIBUTE-CANARY'>Buy</button>"
                   "<script>console.log('CONSOLE-CANARY');console.error('CONSOLE-CANARY');"
                   "</script>");
    // A control that appears well after the page settled, and a button that is always there.
    m_harness.page(QStringLiteral("/late"),
                   "<!doctype html><title>Late</title><button>Always</button><script>"
                   "setTimeout(() => { const b = document.createElement('button');"
                   "b.textContent = 'Ready'; document.body.appendChild(b); }, 1200);</script>");
}

TestObserveCli::Run TestObserveCli::run(const QStringList &arguments, bool withTestSettings)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("VEETBOT_TEST_RESOLVE"));
    env.remove(QStringLiteral("VEETBOT_TEST_CA"));
    if (withTestSettings) {
        env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), m_harness.overrides().resolveSpec());
        env.insert(QStringLiteral("VEETBOT_TEST_CA"), m_harness.caPath());
    }
    return testing::runProgram(QStringLiteral("veetbot"),
                               QStringList{QStringLiteral("observe")} + arguments, env, 60000);
}

void TestObserveCli::observesAllowedPage()
{
    const Run result =
        run({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/shop")).toString()});
    QCOMPARE(result.exitCode, 0);
    const QJsonObject json = QJsonDocument::fromJson(result.out).object();
    QCOMPARE(json.value(QStringLiteral("title")).toString(), QStringLiteral("Demo shop"));
    QVERIFY(json.value(QStringLiteral("text")).toString().contains(QStringLiteral("Welcome")));
    QVERIFY(json.contains(QStringLiteral("revision")));
    QVERIFY(json.contains(QStringLiteral("readiness")));
    QVERIFY(json.value(QStringLiteral("elements")).toArray().size() >= 4);
    // The test-only settings are announced on stderr.
    QVERIFY(result.err.contains("VEETBOT_TEST_RESOLVE"));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 1);
}

void TestObserveCli::observationNeverLeaksHiddenOrEnteredContent()
{
    const Run result =
        run({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/shop")).toString()});
    QCOMPARE(result.exitCode, 0);
    for (const char *canary :
         {"ENTERED-CANARY", "PASSWORD-CANARY", "TEXTAREA-CANARY", "EDITABLE-CANARY",
          "HIDDEN-CANARY", "NONE-CANARY", "ARIA-CANARY", "TEMPLATE-CANARY", "SCRIPT-CANARY",
          "STYLE-CANARY", "ATTRIBUTE-CANARY", "CONSOLE-CANARY"}) {
        QVERIFY2(!result.out.contains(canary), canary);
        QVERIFY2(!result.err.contains(canary), canary);
    }
    QVERIFY(result.out.contains("Fresh coffee beans."));
}

void TestObserveCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("no url") << QStringList{QStringLiteral("--allow-origin"),
                                           QStringLiteral("https://shop.example")};
    QTest::newRow("no allow-origin") << QStringList{QStringLiteral("https://shop.example/")};
    QTest::newRow("two urls") << QStringList{
        QStringLiteral("--allow-origin"), QStringLiteral("https://shop.example"),
        QStringLiteral("https://shop.example/a"), QStringLiteral("https://shop.example/b")};
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--frobnicate"), QStringLiteral("https://shop.example/")};
    QTest::newRow("unknown engine")
        << QStringList{QStringLiteral("--allow-origin"), QStringLiteral("https://shop.example"),
                       QStringLiteral("--engine"), QStringLiteral("firefox"),
                       QStringLiteral("https://shop.example/")};
    QTest::newRow("engine with a profile") << QStringList{
        QStringLiteral("--profile"), QStringLiteral("p-1"), QStringLiteral("--engine"),
        QStringLiteral("chromium"), QStringLiteral("https://shop.example/")};
    QTest::newRow("wait-for not json")
        << QStringList{QStringLiteral("--allow-origin"), QStringLiteral("https://shop.example"),
                       QStringLiteral("--wait-for"), QStringLiteral("button"),
                       QStringLiteral("https://shop.example/")};
    QTest::newRow("wait-for without name")
        << QStringList{QStringLiteral("--allow-origin"), QStringLiteral("https://shop.example"),
                       QStringLiteral("--wait-for"), QStringLiteral(R"({"role":"button"})"),
                       QStringLiteral("https://shop.example/")};
    QTest::newRow("wait-for timeout over 5000")
        << QStringList{QStringLiteral("--allow-origin"), QStringLiteral("https://shop.example"),
                       QStringLiteral("--wait-for"),
                       QStringLiteral(R"({"role":"button","name":"x","timeout_ms":5001})"),
                       QStringLiteral("https://shop.example/")};
    QTest::newRow("wait-for and extract")
        << QStringList{QStringLiteral("--allow-origin"),
                       QStringLiteral("https://shop.example"),
                       QStringLiteral("--wait-for"),
                       QStringLiteral(R"({"role":"b","name":"x"})"),
                       QStringLiteral("--extract"),
                       QStringLiteral(R"({"kind":"list","index":0,"columns":[{"name":"a",)"
                                      R"("type":"string"}],"limit":1})"),
                       QStringLiteral("https://shop.example/")};
}

void TestObserveCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    const Run result = run(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY(result.out.isEmpty());
}

void TestObserveCli::refusedDestinations_data()
{
    QTest::addColumn<QString>("allow");
    QTest::addColumn<QString>("url");
    const QString shop = QStringLiteral("https://shop.test:%1");
    QTest::newRow("other origin") << shop << QStringLiteral("https://evil.test:%1/");
    QTest::newRow("http") << shop << QStringLiteral("http://shop.test:%1/");
    QTest::newRow("data") << shop << QStringLiteral("data:text/html,x");
    QTest::newRow("blob") << shop << QStringLiteral("blob:https://shop.test/x");
    QTest::newRow("javascript") << shop << QStringLiteral("javascript:alert(1)");
    QTest::newRow("file") << shop << QStringLiteral("file:///etc/passwd");
    QTest::newRow("about") << shop << QStringLiteral("about:blank");
    QTest::newRow("ip literal") << shop << QStringLiteral("https://127.0.0.1:%1/");
    QTest::newRow("short ip") << shop << QStringLiteral("https://127.1:%1/");
    QTest::newRow("hex ip") << shop << QStringLiteral("https://0x7f.1:%1/");
    QTest::newRow("integer ip") << shop << QStringLiteral("https://2130706433:%1/");
    QTest::newRow("ipv6") << shop << QStringLiteral("https://[::1]:%1/");
    QTest::newRow("localhost") << shop << QStringLiteral("https://localhost:%1/");
    QTest::newRow("single label") << shop << QStringLiteral("https://fixture:%1/");
    QTest::newRow("userinfo") << shop << QStringLiteral("https://user@shop.test:%1/");
    QTest::newRow("allow ip") << QStringLiteral("https://127.0.0.1:%1")
                              << QStringLiteral("https://127.0.0.1:%1/");
    QTest::newRow("allow http") << QStringLiteral("http://shop.test:%1")
                                << QStringLiteral("http://shop.test:%1/");
    QTest::newRow("malformed") << shop << QStringLiteral("https://shop.test:%1\\@evil.test/");
}

void TestObserveCli::refusedDestinations()
{
    QFETCH(QString, allow);
    QFETCH(QString, url);
    const QString port = QString::number(m_harness.server().httpsPort());
    // Not QString::arg: most refused URLs have no port to fill in.
    const QString portMark = QStringLiteral("%1");
    const Run result =
        run({QStringLiteral("--allow-origin"), QString(allow).replace(portMark, port),
             QString(url).replace(portMark, port)});
    QCOMPARE(result.exitCode, 3);
    const QJsonObject error =
        QJsonDocument::fromJson(result.out).object().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(),
             QStringLiteral("tool.browser.url_disallowed"));
    QCOMPARE(error.value(QStringLiteral("message")).toString(),
             reasonCodeMessage(ReasonCode::UrlDisallowed));
    QCOMPARE(m_harness.server().total(), 0);
    QCOMPARE(m_harness.server().connections(), 0);
}

void TestObserveCli::defaultConfigurationRefusesLoopback()
{
    // Without the test-only settings even the fixture names are refused, and so is loopback.
    const QString port = QString::number(m_harness.server().httpsPort());
    for (const QString &host :
         {QStringLiteral("shop.test"), QStringLiteral("127.0.0.1"), QStringLiteral("localhost")}) {
        const QString origin = QStringLiteral("https://%1:%2").arg(host, port);
        const Run result = run(
            {QStringLiteral("--allow-origin"), origin, origin + QStringLiteral("/shop")}, false);
        QCOMPARE(result.exitCode, 3);
        QVERIFY(result.out.contains("tool.browser.url_disallowed"));
        QVERIFY(!result.err.contains("test-only"));
    }
    QCOMPARE(m_harness.server().total(), 0);
    QCOMPARE(m_harness.server().connections(), 0);
}

void TestObserveCli::waitForPollsUntilTheControlAppears()
{
    const QString url =
        m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/late")).toString();
    const QString origin = m_harness.origin(QStringLiteral("shop.test"));
    // Satisfied once "Ready" is rendered, after at least one further read.
    Run result =
        run({QStringLiteral("--allow-origin"), origin, QStringLiteral("--wait-for"),
             QStringLiteral(R"({"role":"button","name":"Ready","timeout_ms":5000})"), url});
    QCOMPARE(result.exitCode, 0);
    QJsonObject json = QJsonDocument::fromJson(result.out).object();
    QJsonObject wait = json.value(QStringLiteral("wait_for")).toObject();
    QCOMPARE(wait.value(QStringLiteral("status")).toString(), QStringLiteral("satisfied"));
    QCOMPARE(wait.value(QStringLiteral("scope")).toString(), QStringLiteral("first_window"));
    QVERIFY(wait.value(QStringLiteral("observations")).toInt() >= 2);
    QVERIFY(wait.value(QStringLiteral("observations")).toInt() <= 21);
    bool ready = false;
    for (const QJsonValue &element : json.value(QStringLiteral("elements")).toArray())
        ready =
            ready || element.toObject().value(QStringLiteral("name")) == QStringLiteral("Ready");
    QVERIFY(ready);

    // Never there: not_observed within the timeout, and the projection carries the outcome.
    result = run({QStringLiteral("--allow-origin"), origin, QStringLiteral("--budget"),
                  QStringLiteral("1024"), QStringLiteral("--wait-for"),
                  QStringLiteral(R"({"role":"button","name":"Never","timeout_ms":600})"), url});
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.out.size() <= 1024 + 1);
    json = QJsonDocument::fromJson(result.out).object();
    wait = json.value(QStringLiteral("observation"))
               .toObject()
               .value(QStringLiteral("wait_for"))
               .toObject();
    QCOMPARE(wait.value(QStringLiteral("status")).toString(), QStringLiteral("not_observed"));
    QVERIFY(wait.value(QStringLiteral("elapsed_ms")).toInt() <= 600 + 500);

    // A role/name match in the wrong state is not the predicate.
    result = run({QStringLiteral("--allow-origin"), origin, QStringLiteral("--wait-for"),
                  QStringLiteral(R"({"role":"button","name":"Always","disabled":true,)"
                                 R"("timeout_ms":0})"),
                  url});
    QCOMPARE(result.exitCode, 0);
    json = QJsonDocument::fromJson(result.out).object();
    wait = json.value(QStringLiteral("wait_for")).toObject();
    QCOMPARE(wait.value(QStringLiteral("status")).toString(), QStringLiteral("not_observed"));
    QCOMPARE(wait.value(QStringLiteral("observations")).toInt(), 1);
}

QTEST_GUILESS_MAIN(TestObserveCli)
#include "tst_observe_cli.moc"
