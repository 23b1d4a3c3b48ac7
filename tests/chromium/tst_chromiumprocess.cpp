// Debian's Chromium over the DevTools pipe, for real: the browser answers on the pipe, a page
// target attached as a flattened session loads a fixture page (counted at the fixture server),
// a script runs in an isolated world of that page and reads it, an unknown command is a
// protocol error, and close() ends the browser's whole process group and removes its private
// profile. A browser that cannot be started is chromium.unavailable. A missing Chromium fails
// this test; it never skips.

#include "ChromiumProcess.h"
#include "EventWait.h"
#include "FixtureServer.h"
#include "RequestGate.h"

#include <QDir>
#include <QJsonArray>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace veetbot;
using namespace veetbot::chromium;

class TestChromiumProcess : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aPageLoadsAndAnIsolatedWorldReadsIt();
    void everyRequestAndEveryHopPassesTheGate();
    void aLauncherThatIsNoProgramIsUnavailable();

private:
    // One command and its answer, the event loop running meanwhile.
    Result<QJsonObject> call(cdp::Connection *connection, const QString &method,
                             const QJsonObject &params = {}, const QString &session = {});

    // A new page target of `browser`, attached as a flattened session with Page events on.
    QString openPage(ChromiumProcess &browser);
    // Runs `expression` in the page (awaiting a promise) and returns its string value.
    QString evaluate(cdp::Connection *pipe, const QString &session, const QString &expression);

    fixtures::FixtureServer m_server;
};

void TestChromiumProcess::initTestCase()
{
    QVERIFY2(QFileInfo(ChromiumProcess::defaultExecutable()).isExecutable(),
             "Debian's chromium is not installed (scripts/setup.sh installs it)");
    QVERIFY(m_server.listenPlainHttp());
    fixtures::FixtureServer::Response page;
    page.body = "<!doctype html><title>Pipe</title><h1 id=h>Hello from the pipe</h1>";
    m_server.setRoute(QStringLiteral("/pipe"), page);
    fixtures::FixtureServer::Response gate;
    gate.body = "<!doctype html><title>Gate</title><img src=/refused-image.png>"
                "<script src=/refused-script.js></script>"
                "<iframe src=/refused-frame></iframe>";
    m_server.setRoute(QStringLiteral("/gate"), gate);
    fixtures::FixtureServer::Response hop;
    hop.status = 302;
    hop.headers = {{"Location", "/refused-after-hop"}};
    m_server.setRoute(QStringLiteral("/hop"), hop);
}

QString TestChromiumProcess::openPage(ChromiumProcess &browser)
{
    cdp::Connection *pipe = browser.connection();
    const Result<QJsonObject> target =
        call(pipe, QStringLiteral("Target.createTarget"),
             {{QStringLiteral("url"), QStringLiteral("about:blank")}});
    if (!target)
        return QString();
    const Result<QJsonObject> attached =
        call(pipe, QStringLiteral("Target.attachToTarget"),
             {{QStringLiteral("targetId"), target->value(QLatin1String("targetId"))},
              {QStringLiteral("flatten"), true}});
    if (!attached)
        return QString();
    const QString session = attached->value(QLatin1String("sessionId")).toString();
    return call(pipe, QStringLiteral("Page.enable"), {}, session).ok() ? session : QString();
}

QString TestChromiumProcess::evaluate(cdp::Connection *pipe, const QString &session,
                                      const QString &expression)
{
    const Result<QJsonObject> result = call(pipe, QStringLiteral("Runtime.evaluate"),
                                            {{QStringLiteral("expression"), expression},
                                             {QStringLiteral("awaitPromise"), true},
                                             {QStringLiteral("returnByValue"), true}},
                                            session);
    return result ? result->value(QLatin1String("result"))
                        .toObject()
                        .value(QLatin1String("value"))
                        .toString()
                  : result.error().code;
}

Result<QJsonObject> TestChromiumProcess::call(cdp::Connection *connection, const QString &method,
                                              const QJsonObject &params, const QString &session)
{
    std::optional<Result<QJsonObject>> answer;
    connection->send(
        method, params, [&answer](Result<QJsonObject> r) { answer = std::move(r); }, session);
    if (!testing::runEventsUntil([&answer] { return answer.has_value(); }, 30000))
        return Error{QStringLiteral("test.timeout"), QStringLiteral("no answer in time")};
    return std::move(*answer);
}

void TestChromiumProcess::aPageLoadsAndAnIsolatedWorldReadsIt()
{
    ChromiumProcess browser;
    const Result<Unit> started = browser.start({.noSandbox = ::geteuid() == 0});
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().code));
    const QString profile = browser.profileDirectory();
    QCOMPARE(QFileInfo(profile).permissions() & (QFile::ReadGroup | QFile::ReadOther), 0);
    cdp::Connection *pipe = browser.connection();

    const Result<QJsonObject> version = call(pipe, QStringLiteral("Browser.getVersion"));
    QVERIFY2(version.ok(), version.ok() ? "" : qPrintable(version.error().code));
    const QString product = version->value(QLatin1String("product")).toString();
    QVERIFY2(product.startsWith(QLatin1String("Chrome/")), qPrintable(product));
    qInfo("engine: %s", qPrintable(product));

    // A page target, attached as a flattened session: its events name the session.
    const Result<QJsonObject> target =
        call(pipe, QStringLiteral("Target.createTarget"),
             {{QStringLiteral("url"), QStringLiteral("about:blank")}});
    QVERIFY(target.ok());
    const Result<QJsonObject> attached =
        call(pipe, QStringLiteral("Target.attachToTarget"),
             {{QStringLiteral("targetId"), target->value(QLatin1String("targetId"))},
              {QStringLiteral("flatten"), true}});
    QVERIFY(attached.ok());
    const QString session = attached->value(QLatin1String("sessionId")).toString();
    QVERIFY(!session.isEmpty());
    QStringList loads;
    connect(pipe, &cdp::Connection::event, this,
            [&loads](const QString &method, const QJsonObject &, const QString &from) {
                if (method == QLatin1String("Page.loadEventFired"))
                    loads << from;
            });
    QVERIFY(call(pipe, QStringLiteral("Page.enable"), {}, session).ok());
    const QString url = QStringLiteral("http://127.0.0.1:%1/pipe").arg(m_server.httpPort());
    const Result<QJsonObject> navigated =
        call(pipe, QStringLiteral("Page.navigate"), {{QStringLiteral("url"), url}}, session);
    QVERIFY(navigated.ok());
    QVERIFY(!navigated->contains(QLatin1String("errorText")));
    QVERIFY(testing::runEventsUntil([&loads] { return !loads.isEmpty(); }, 30000));
    QCOMPARE(loads, QStringList{session});
    QCOMPARE(m_server.count(QStringLiteral("127.0.0.1"), QStringLiteral("/pipe")), 1);

    // A script in an isolated world of the page's main frame reads the page's DOM, and none
    // of the page's own globals.
    QVERIFY(call(pipe, QStringLiteral("Runtime.evaluate"),
                 {{QStringLiteral("expression"), QStringLiteral("window.pageSecret = 42")}},
                 session)
                .ok());
    const Result<QJsonObject> world =
        call(pipe, QStringLiteral("Page.createIsolatedWorld"),
             {{QStringLiteral("frameId"), navigated->value(QLatin1String("frameId"))},
              {QStringLiteral("worldName"), QStringLiteral("veetbot")}},
             session);
    QVERIFY(world.ok());
    const Result<QJsonObject> read = call(
        pipe, QStringLiteral("Runtime.evaluate"),
        {{QStringLiteral("expression"),
          QStringLiteral("JSON.stringify([document.title, document.getElementById('h').textContent,"
                         " typeof window.pageSecret])")},
         {QStringLiteral("contextId"), world->value(QLatin1String("executionContextId"))},
         {QStringLiteral("returnByValue"), true}},
        session);
    QVERIFY(read.ok());
    QCOMPARE(
        read->value(QLatin1String("result")).toObject().value(QLatin1String("value")).toString(),
        QStringLiteral(R"(["Pipe","Hello from the pipe","undefined"])"));

    // An unknown command is the browser's refusal, by its code only.
    const Result<QJsonObject> unknown = call(pipe, QStringLiteral("No.suchMethod"));
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.error().code, QStringLiteral("chromium.protocol_error"));

    // Closed: reaped, its process group gone, its profile removed.
    const pid_t group = browser.processId();
    bool closed = false;
    browser.close([&closed] { closed = true; });
    QVERIFY(testing::runEventsUntil([&closed] { return closed; }, 20000));
    QVERIFY(!browser.isRunning());
    QVERIFY(testing::runEventsUntil([group] { return ::kill(-group, 0) != 0; }, 10000));
    QVERIFY(!QDir(profile).exists());
}

// Every request of the page, whatever its kind, and every redirect hop is judged before it
// leaves: here the judge refuses paths that start with /refused and, as the write guard, any
// request that could write. Nothing refused reaches the fixture server (closed by a request
// that must arrive after them); a GraphQL query posted with its body shown goes, because this
// engine shows the body; a mutation does not.
void TestChromiumProcess::everyRequestAndEveryHopPassesTheGate()
{
    ChromiumProcess browser;
    QVERIFY(browser.start({.noSandbox = ::geteuid() == 0}).ok());
    cdp::Connection *pipe = browser.connection();
    const QString session = openPage(browser);
    QVERIFY(!session.isEmpty());
    QStringList hops;
    RequestGate gate(pipe, session, [&hops](const RequestGate::PausedRequest &paused) {
        if (paused.redirectHop)
            hops << paused.request.url.path();
        return !paused.request.url.path().startsWith(QLatin1String("/refused")) &&
               WriteGuard::judge(paused.request).verdict == WriteGuard::Verdict::Read;
    });
    std::optional<Result<Unit>> enabled;
    gate.enable([&enabled](Result<Unit> r) { enabled = std::move(r); });
    QVERIFY(testing::runEventsUntil([&enabled] { return enabled.has_value(); }, 10000));
    QVERIFY(enabled->ok());
    m_server.resetCounters();

    int loads = 0;
    connect(pipe, &cdp::Connection::event, this,
            [&loads](const QString &method, const QJsonObject &, const QString &) {
                loads += method == QLatin1String("Page.loadEventFired");
            });
    const QString origin = QStringLiteral("http://127.0.0.1:%1").arg(m_server.httpPort());
    QVERIFY(call(pipe, QStringLiteral("Page.navigate"),
                 {{QStringLiteral("url"), QString(origin + QStringLiteral("/gate"))}}, session)
                .ok());
    QVERIFY(testing::runEventsUntil([&loads] { return loads >= 1; }, 30000));
    // A redirect hop is its own request: /hop goes, the hop to /refused-after-hop does not.
    QCOMPARE(evaluate(pipe, session,
                      QStringLiteral("fetch('/hop').then(() => 'went', () => 'refused')")),
             QStringLiteral("refused"));
    QCOMPARE(hops, QStringList{QStringLiteral("/refused-after-hop")});
    // The write guard at this request stage: a POST with a mutation is refused, a GraphQL
    // query (its body shown) goes.
    QCOMPARE(evaluate(pipe, session,
                      QStringLiteral("fetch('/graphql', {method: 'POST', headers: "
                                     "{'content-type': 'application/json'}, body: JSON.stringify("
                                     "{query: 'mutation { publish(id: 1) }'})}).then(() => 'went',"
                                     " () => 'refused')")),
             QStringLiteral("refused"));
    QCOMPARE(evaluate(pipe, session,
                      QStringLiteral("fetch('/graphql', {method: 'POST', headers: "
                                     "{'content-type': 'application/json'}, body: JSON.stringify("
                                     "{query: 'query { items { id } }'})}).then(() => 'went',"
                                     " () => 'refused')")),
             QStringLiteral("went"));
    // The positive control, after everything refused: a plain read that must arrive.
    QCOMPARE(evaluate(pipe, session,
                      QStringLiteral("fetch('/allowed-last').then(() => 'went', () => 'refused')")),
             QStringLiteral("went"));
    QCOMPARE(m_server.count(QStringLiteral("127.0.0.1"), QStringLiteral("/allowed-last")), 1);
    QCOMPARE(m_server.count(QStringLiteral("127.0.0.1"), QStringLiteral("/gate")), 1);
    QCOMPARE(m_server.count(QStringLiteral("127.0.0.1"), QStringLiteral("/hop")), 1);
    int posts = 0;
    QStringList refusedSeen;
    for (const auto &request : m_server.requests()) {
        if (request.path.startsWith(QLatin1String("/refused")))
            refusedSeen << request.path;
        posts += request.method == QLatin1String("POST");
    }
    QVERIFY2(refusedSeen.isEmpty(), qPrintable(refusedSeen.join(u' ')));
    QCOMPARE(posts, 1); // the query, not the mutation
    // The image, the script, the frame, the hop's target and the mutation.
    QCOMPARE(gate.refused(), 5);
    bool closed = false;
    browser.close([&closed] { closed = true; });
    QVERIFY(testing::runEventsUntil([&closed] { return closed; }, 20000));
}

void TestChromiumProcess::aLauncherThatIsNoProgramIsUnavailable()
{
    ChromiumProcess browser;
    const Result<Unit> started =
        browser.start({.executable = QDir::tempPath() + QStringLiteral("/no-such-chromium")});
    QVERIFY(!started.ok());
    QCOMPARE(started.error().code, QStringLiteral("chromium.unavailable"));
    QVERIFY(!browser.isRunning());
    QCOMPARE(browser.connection(), nullptr);
}

QTEST_GUILESS_MAIN(TestChromiumProcess)
#include "tst_chromiumprocess.moc"
