// Real-Chromium confinement tests through the isolated browser host: every main-frame hop
// stays on the policy's origins, popups/downloads/non-public destinations never reach the
// fixture server, and the page stays usable after each refusal. "Nothing was sent" is
// asserted at the fixture server's counters. One placement per CTest entry
// (VEETBOT_TEST_ENGINE): a browser host of each engine, and `lease`, an agent's lease browser
// of the profile service (its default engine) reached as agents reach it, through
// ServiceProvider, for a READY profile of the same origin.

#include "BrowserTestHarness.h"
#include "EventWait.h"
#include "ServiceTestCase.h"
#include "domain/web/BrowserEngine.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "net/EgressProxy.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUdpSocket>

using namespace veetbot;
using namespace veetbot::testing;

class TestConfinement : public ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanupTestCase();

    void allowedPageLoads();
    void mainFrameRedirectChainRefused_data();
    void mainFrameRedirectChainRefused();
    void formPostRedirectRefused();
    void metaRefreshRefused();
    void metaRefreshToAllowedOriginFollowed();
    void scriptLocationChangeRefused();
    void windowOpenRefused();
    void blankTargetFormPostRefused();
    void downloadLinkRefused();
    void nonPublicResourcesNeverSent_data();
    void nonPublicResourcesNeverSent();
    void publicResourcesFromOtherOriginsLoad();
    void webRtcUdpNeverSent();
    void disallowedNavigateStartsNoRequest();
    void revisionsNeverRepeat();
    void continuationCrossesTheHost();
    void closingDoesNotWaitForTheHost();
    void theOwnersViewCrossesTheHost();

private:
    // Closes a "nothing reached the site" check, and shows the page stays usable. Waits until
    // the page has no load in progress (an observation answers only then: during a load it is
    // provider_unavailable, and a navigation the guard let through would land off the policy,
    // where nothing is observed), then browserLoadsControl().
    void settleAndCheckUsable();
    // Positive control: the browser loads /ok, which must reach the site after anything the old
    // page sent; only then are the site's counts final.
    void browserLoadsControl();

    std::unique_ptr<BrowserProvider> m_provider;
    // A browser host of the engine placements; null for the lease placement, whose host and
    // proxy live in the profile service.
    IsolatedBrowserProvider *m_isolated = nullptr;
    bool m_lease = false;
};

void TestConfinement::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_harness.page(QStringLiteral("/ok"),
                   "<!doctype html><title>OK page</title><h1>Everything is fine</h1>"
                   "<button>Continue</button>");
    // The placement: every one passes this suite (CTest registers it once per placement with
    // VEETBOT_TEST_ENGINE).
    const QString placement = qEnvironmentVariable("VEETBOT_TEST_ENGINE");
    if (placement == QLatin1String("lease")) {
        // The service's own engine, its default: the programs it starts get no engine here.
        m_lease = true;
        qunsetenv("VEETBOT_ENGINE");
        QVERIFY(setUpService());
        const QString id = createProfile(true);
        QVERIFY(!id.isEmpty());
        m_provider = provider(id, QStringLiteral("confinement"));
    } else {
        IsolatedBrowserProvider::Options options;
        const std::optional<BrowserEngine> engine = browserEngineFromName(placement);
        QVERIFY2(engine, "VEETBOT_TEST_ENGINE names no placement");
        options.engine = *engine;
        auto isolated = std::make_unique<IsolatedBrowserProvider>(
            m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides(), options);
        m_isolated = isolated.get();
        m_provider = std::move(isolated);
    }
    // A browser that cannot start is a failure, never a skip.
    const auto first = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().code));
}

void TestConfinement::init()
{
    m_harness.server().resetCounters();
    m_harness.udp().resetCounters();
}

void TestConfinement::cleanupTestCase()
{
    if (m_provider)
        m_provider->close();
    m_provider.reset();
    if (m_lease)
        QVERIFY(tearDownService());
}

void TestConfinement::settleAndCheckUsable()
{
    const QDeadlineTimer deadline(20000);
    Result<BrowserObservation> idle = BrowserTestHarness::observe(*m_provider);
    while (!idle.ok() && !deadline.hasExpired())
        idle = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(idle.ok(), idle.ok() ? "" : qPrintable(idle.error().code));
    browserLoadsControl();
}

void TestConfinement::browserLoadsControl()
{
    const auto ok = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(ok.ok(), ok.ok() ? "" : qPrintable(ok.error().code));
    QCOMPARE(ok->title, QStringLiteral("OK page"));
}

void TestConfinement::allowedPageLoads()
{
    const auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY(observation.ok());
    QCOMPARE(observation->url, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY(observation->readiness.has_value());
    QVERIFY(observation->text.contains(QStringLiteral("Everything is fine")));
    QCOMPARE(observation->elements.size(), 1);
    QCOMPARE(observation->elements.first().role, QStringLiteral("button"));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/ok")), 1);
    // The host's own proxy counts its tunnels (a lease's is the service's, not reachable here).
    if (m_isolated)
        QVERIFY(m_isolated->egressProxy()->tunnelsOpened() >= 1);
}

void TestConfinement::mainFrameRedirectChainRefused_data()
{
    QTest::addColumn<int>("code");
    QTest::newRow("302") << 302;
    QTest::newRow("307") << 307;
}

void TestConfinement::mainFrameRedirectChainRefused()
{
    QFETCH(int, code);
    const QUrl evil = m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/landing"));
    const QUrl hop2 = m_harness.redirect(QStringLiteral("shop.test"), evil, code);
    const QUrl hop1 = m_harness.redirect(QStringLiteral("shop.test"), hop2, code);
    const auto result = BrowserTestHarness::navigate(*m_provider, hop1);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.url_disallowed"));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/redirect")), 2);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestConfinement::formPostRedirectRefused()
{
    fixtures::FixtureServer::Response redirect;
    redirect.status = 307;
    redirect.headers = {
        {"Location",
         m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/collect")).toEncoded()}};
    m_harness.server().setRoute(QStringLiteral("shop.test"), QStringLiteral("/post-redirect"),
                                redirect);
    m_harness.page(QStringLiteral("/form-post"),
                   "<!doctype html><title>Form</title>"
                   "<form id=f method=post action=/post-redirect>"
                   "<input name=q value=secret-form-value></form>"
                   "<script>setTimeout(function(){document.getElementById('f').submit()},10)"
                   "</script>");
    // The page leaves by itself within the navigation: the server's count is what counts.
    (void)BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/form-post")));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/post-redirect")), 1,
        10000);
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestConfinement::metaRefreshRefused()
{
    m_harness.page(
        QStringLiteral("/meta-evil"),
        "<!doctype html><title>Meta</title><meta http-equiv=refresh content=\"0;url=" +
            m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/meta")).toEncoded() +
            "\"><p>Refreshing</p>");
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/meta-evil")));
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/meta-evil")),
             1);
    Q_UNUSED(result);
}

void TestConfinement::metaRefreshToAllowedOriginFollowed()
{
    // The control for the refusal above: the same mechanism reaches an allowed page.
    m_harness.page(
        QStringLiteral("/meta-ok"),
        "<!doctype html><title>Meta</title><meta http-equiv=refresh content=\"0;url=" +
            m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")).toEncoded() + "\">");
    // The page leaves by itself within the navigation: the server's count is what counts.
    (void)BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/meta-ok")));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/ok")), 1, 10000);
}

void TestConfinement::scriptLocationChangeRefused()
{
    m_harness.page(
        QStringLiteral("/js-evil"),
        "<!doctype html><title>JS</title><p>Moving</p><script>"
        "setTimeout(function(){location.href='" +
            m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/js")).toEncoded() +
            "'},20);</script>");
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/js-evil")));
    QVERIFY(result.ok()); // the page that stayed is observed
    QCOMPARE(result->title, QStringLiteral("JS"));
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestConfinement::windowOpenRefused()
{
    m_harness.page(
        QStringLiteral("/popup"),
        "<!doctype html><title>Popup</title><script>"
        "window.open('" +
            m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/popup")).toEncoded() +
            "');window.open('/ok-popup');</script>");
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/popup")));
    QVERIFY(result.ok());
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
    // Popups are refused whatever their origin.
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/ok-popup")), 0);
}

void TestConfinement::blankTargetFormPostRefused()
{
    m_harness.page(
        QStringLiteral("/blank-post"),
        "<!doctype html><title>Blank</title><form id=f target=_blank method=post "
        "action='" +
            m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/blank-post")).toEncoded() +
            "'><input name=a value=b></form><script>"
            "document.getElementById('f').submit();</script>");
    // The popup is refused and the page stays.
    QVERIFY(BrowserTestHarness::navigate(*m_provider, m_harness.url(QStringLiteral("shop.test"),
                                                                    QStringLiteral("/blank-post")))
                .ok());
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestConfinement::downloadLinkRefused()
{
    m_harness.page(
        QStringLiteral("/download-link"),
        "<!doctype html><title>Download</title><a id=d download href='" +
            m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/download")).toEncoded() +
            "'>file</a><script>document.getElementById('d').click();</script>");
    // The click during the load is a refused hop, which may end this navigation as
    // url_disallowed; what counts is the server's count and that the page stays usable.
    (void)BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/download-link")));
    settleAndCheckUsable();
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestConfinement::nonPublicResourcesNeverSent_data()
{
    // {https}: the HTTPS port, {http}: the plain HTTP port. Not QString::arg: its %2 would also
    // take the "%2F" of the percent-encoded redirect targets.
    QTest::addColumn<QString>("markup");
    QTest::addColumn<QString>("hopHost"); // a public host whose /redirect must be asked once
    QTest::newRow("image at IP literal")
        << QStringLiteral("<img src='https://127.0.0.1:{https}/ip.png'>") << QString();
    QTest::newRow("script at localhost")
        << QStringLiteral("<script src='https://localhost:{https}/script.js'></script>")
        << QString();
    QTest::newRow("iframe at single-label host")
        << QStringLiteral("<iframe src='https://fixture:{https}/frame'></iframe>") << QString();
    QTest::newRow("image over plain http")
        << QStringLiteral("<img src='http://shop.test:{http}/plain.png'>") << QString();
    QTest::newRow("fetch to IP literal")
        << QStringLiteral("<script>fetch('https://127.0.0.1:{https}/fetch').catch(function(){});"
                          "</script>")
        << QString();
    QTest::newRow("redirect hop to IP literal")
        << QStringLiteral(
               "<img src='https://shop.test:{https}/redirect?to=https%3A%2F%2F127.0.0.1%3A{https}"
               "%2Fhop.png'>")
        << QStringLiteral("shop.test");
    QTest::newRow("redirect hop to localhost")
        << QStringLiteral(
               "<img src='https://cdn.test:{https}/redirect?to=https%3A%2F%2Flocalhost%3A{https}"
               "%2Fhop.png'>")
        << QStringLiteral("cdn.test");
    QTest::newRow("redirect hop to plain http")
        << QStringLiteral(
               "<img src='https://cdn.test:{https}/redirect?to=http%3A%2F%2Fshop.test%3A{http}"
               "%2Fhop.png'>")
        << QStringLiteral("cdn.test");
    QTest::newRow("all at once")
        << QStringLiteral(
               "<img src='https://127.0.0.1:{https}/ip.png'>"
               "<script src='https://localhost:{https}/script.js'></script>"
               "<iframe src='https://fixture:{https}/frame'></iframe>"
               "<img src='http://shop.test:{http}/plain.png'>"
               "<img src='https://shop.test:{https}/redirect?to=https%3A%2F%2F127.0.0.1%3A{https}"
               "%2Fhop.png'>"
               "<img src='https://cdn.test:{https}/redirect?to=https%3A%2F%2Flocalhost%3A{https}"
               "%2Fhop.png'>")
        << QStringLiteral("shop.test");
}

void TestConfinement::nonPublicResourcesNeverSent()
{
    QFETCH(QString, markup);
    QFETCH(QString, hopHost);
    const QString html =
        QStringLiteral("<!doctype html><title>Resources</title>") +
        QString(markup)
            .replace(QStringLiteral("{https}"), QString::number(m_harness.server().httpsPort()))
            .replace(QStringLiteral("{http}"), QString::number(m_harness.server().httpPort())) +
        QStringLiteral("<p>Still here</p>");
    m_harness.page(QStringLiteral("/non-public"), html.toUtf8());
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/non-public")));
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().code));
    QVERIFY(result->text.contains(QStringLiteral("Still here")));
    if (!hopHost.isEmpty()) {
        // The redirecting hop itself was requested from a public origin...
        QTRY_COMPARE_WITH_TIMEOUT(m_harness.server().count(hopHost, QStringLiteral("/redirect")), 1,
                                  5000);
    }
    // Not settleAndCheckUsable(): an image asked for on the plain HTTP port never finishes, so
    // the load may still be in progress. Every resource was asked for (or refused) while the
    // navigation loaded the page.
    browserLoadsControl();
    // ...but nothing reached a non-public destination.
    QCOMPARE(m_harness.server().countHost(QStringLiteral("127.0.0.1")), 0);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("localhost")), 0);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("fixture")), 0);
    for (const auto &request : m_harness.server().requests())
        QVERIFY2(request.scheme == QLatin1String("https"), "a plain HTTP request was sent");
}

void TestConfinement::publicResourcesFromOtherOriginsLoad()
{
    const QByteArray cdnImage =
        m_harness.url(QStringLiteral("cdn.test"), QStringLiteral("/pixel.png")).toEncoded();
    const QByteArray cdnScript =
        m_harness.url(QStringLiteral("cdn.test"), QStringLiteral("/script.js")).toEncoded();
    const QByteArray cdnFrame =
        m_harness.url(QStringLiteral("cdn.test"), QStringLiteral("/frame")).toEncoded();
    const QByteArray hop =
        m_harness
            .redirect(QStringLiteral("shop.test"),
                      m_harness.url(QStringLiteral("cdn.test"), QStringLiteral("/hop.png")))
            .toEncoded();
    m_harness.page(QStringLiteral("/frame"), "<!doctype html><p>frame</p>");
    m_harness.page(QStringLiteral("/public"), "<!doctype html><title>Public</title><img src='" +
                                                  cdnImage + "'><script src='" + cdnScript +
                                                  "'></script><iframe src='" + cdnFrame +
                                                  "'></iframe><img src='" + hop + "'>");
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/public")));
    QVERIFY(result.ok());
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/pixel.png")), 1,
        5000);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/script.js")), 1,
        5000);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/frame")), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/hop.png")), 1, 5000);
}

void TestConfinement::webRtcUdpNeverSent()
{
    // The listener works: a datagram from the test itself arrives.
    QUdpSocket probe;
    probe.writeDatagram("probe", QHostAddress::LocalHost, m_harness.udp().port());
    QTRY_COMPARE(m_harness.udp().datagrams(), 1);
    m_harness.udp().resetCounters();

    const QByteArray port = QByteArray::number(m_harness.udp().port());
    m_harness.page(QStringLiteral("/webrtc"),
                   "<!doctype html><title>RTC</title><script>"
                   "try{var pc=new RTCPeerConnection({iceServers:[{urls:'stun:127.0.0.1:" +
                       port + "'},{urls:'turn:127.0.0.1:" + port +
                       "?transport=udp',username:'u',credential:'p'}]});"
                       "pc.onicegatheringstatechange=function(){"
                       "if(pc.iceGatheringState==='gathering')fetch('/rtc-gathering');};"
                       "pc.createDataChannel('d');pc.createOffer().then(function(o){"
                       "return pc.setLocalDescription(o)}).catch(function(){});}catch(e){}"
                       "</script><p>rtc</p>");
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/webrtc")));
    QVERIFY(result.ok());
    // The page reports that ICE gathering started: from then on a STUN or TURN attempt would go
    // out.
    QTRY_COMPARE_WITH_TIMEOUT(
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/rtc-gathering")), 1,
        10000);
    // A sleep by design: with non-proxied UDP disabled, gathering never completes, and the page
    // has no datagram channel that could carry a control behind a STUN or TURN attempt.
    QTest::qWait(2500);
    QCOMPARE(m_harness.udp().datagrams(), 0);
    settleAndCheckUsable();
}

void TestConfinement::disallowedNavigateStartsNoRequest()
{
    const QStringList urls = {
        m_harness.origin(QStringLiteral("evil.test")) + QStringLiteral("/x"),
        m_harness.origin(QStringLiteral("cdn.test")) + QStringLiteral("/x"),
        QStringLiteral("https://127.0.0.1:%1/x").arg(m_harness.server().httpsPort()),
        QStringLiteral("http://shop.test:%1/x").arg(m_harness.server().httpPort()),
        QStringLiteral("data:text/html,hi"),
        QStringLiteral("javascript:alert(1)"),
        QStringLiteral("file:///etc/passwd"),
        QStringLiteral("about:blank"),
        QStringLiteral("blob:https://shop.test/x"),
    };
    for (const QString &text : urls) {
        const auto result =
            BrowserTestHarness::navigate(*m_provider, QUrl(text, QUrl::TolerantMode));
        QVERIFY2(!result.ok(), qPrintable(text));
        QCOMPARE(result.error().code, QStringLiteral("tool.browser.url_disallowed"));
    }
    QCOMPARE(m_harness.server().total(), 0);
    QCOMPARE(m_harness.server().connections(), 0);
}

void TestConfinement::revisionsNeverRepeat()
{
    QSet<QString> revisions;
    QSet<QString> refs;
    for (int i = 0; i < 4; ++i) {
        const auto observation =
            i % 2 == 0 ? BrowserTestHarness::navigate(
                             *m_provider,
                             m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")))
                       : BrowserTestHarness::observe(*m_provider);
        QVERIFY(observation.ok());
        QVERIFY(observation->revision.size() >= 22); // >= 128 bits, base64url
        QVERIFY(!revisions.contains(observation->revision));
        revisions.insert(observation->revision);
        for (const ElementRecord &element : observation->elements) {
            QVERIFY(!refs.contains(element.ref));
            refs.insert(element.ref);
        }
    }
}

void TestConfinement::continuationCrossesTheHost()
{
    // The observe mode travels on the protocol line; the host's provider decides what is
    // current, and its coverage and cursor come back validated.
    m_harness.page(QStringLiteral("/many"),
                   "<!doctype html><title>Many</title><div id=list></div><script>"
                   "const l = document.getElementById('list');"
                   "for (let i = 0; i < 300; i++) { const b = document.createElement('button');"
                   "  b.textContent = 'b' + i; l.appendChild(b); }</script>");
    const auto first = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/many")));
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().code));
    QCOMPARE(first->elements.size(), 256);
    QVERIFY(first->coverage.nextCursor.has_value());

    const auto byCursor = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::cursor(*first->coverage.nextCursor).value());
    QVERIFY2(byCursor.ok(), byCursor.ok() ? "" : qPrintable(byCursor.error().code));
    QVERIFY(byCursor->revision != first->revision);
    QCOMPARE(byCursor->elements.size(), 44);
    QCOMPARE(byCursor->elements.first().name, QStringLiteral("b256"));
    QCOMPARE(byCursor->coverage.candidateOffset, 256);
    QVERIFY(!byCursor->coverage.nextCursor.has_value());

    const auto stale = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::cursor(*first->coverage.nextCursor).value());
    QVERIFY(!stale.ok());
    QCOMPARE(stale.error().code, QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(stale.error().message, reasonCodeMessage(ReasonCode::PageChanged));

    // The refused call changed nothing: the current revision's refs still continue.
    const auto byAfter = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(byCursor->elements.at(10).ref).value());
    QVERIFY2(byAfter.ok(), byAfter.ok() ? "" : qPrintable(byAfter.error().code));
    QCOMPARE(byAfter->coverage.candidateOffset, 266);
    QCOMPARE(byAfter->elements.size(), 33);
    QCOMPARE(byAfter->elements.first().name, QStringLiteral("b267"));

    const auto foreign = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(first->elements.first().ref).value());
    QVERIFY(!foreign.ok());
    QCOMPARE(foreign.error().code, QStringLiteral("tool.browser.page_changed"));
}

QTEST_GUILESS_MAIN(TestConfinement)

// close() returns while the host is still shutting down: its input ends, it closes its browser
// and exits by itself, and it is reaped without blocking the event loop.
void TestConfinement::closingDoesNotWaitForTheHost()
{
    // A host that reports ready and then never ends on its own, not even when its input
    // closes: close() must return while it still runs (it never waits for the host), and the
    // reaper ends it after its grace period. A real host ends moments after its input closes,
    // which would make "still running after close()" a race.
    QTemporaryDir dir;
    const QString program = dir.filePath(QStringLiteral("stubborn-host"));
    {
        QFile script(program);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\necho '{\"event\":\"ready\"}'\nexec sleep 60\n");
    }
    QVERIFY(QFile::setPermissions(program, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                               QFileDevice::ExeOwner));
    IsolatedBrowserProvider::Options options;
    options.hostProgram = program;
    auto provider = std::make_unique<IsolatedBrowserProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides(), options);
    std::optional<Result<BrowserObservation>> answer;
    provider->navigate(
        NavigateRequest{m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok"))},
        [&answer](Result<BrowserObservation> result) { answer = result; });
    QVERIFY(testing::runEventsUntil([&provider] { return provider->hostProcessId() > 0; }, 10000));
    const qint64 pid = provider->hostProcessId();
    const QString stat = QStringLiteral("/proc/%1/stat").arg(pid);
    const auto running = [&stat] {
        QFile file(stat);
        if (!file.open(QIODevice::ReadOnly))
            return false;
        const QByteArray line = file.readAll();
        const qsizetype paren = line.lastIndexOf(')');
        return paren > 0 && paren + 2 < line.size() && line.at(paren + 2) != 'Z';
    };
    QVERIFY(running());
    provider->close();
    // The call in flight was answered, and the host still runs: close() did not wait for it.
    QVERIFY(answer.has_value());
    QCOMPARE(answer->error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QVERIFY(running());
    provider.reset();
    // The reaper ends it after its grace period and reaps it.
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(stat), 10000);
}

// The owner's remote view through the browser host in its namespace: on Chromium the page's
// frames come out as screen events while the view runs, and the owner's typing and Enter reach
// the site as one form post; Qt WebEngine's host offers no remote view (the owner's embedded
// view is Qt WebEngine itself) and sends nothing; and an agent's lease browser offers its
// holder none either (only the owner's sign-in ceremony has one).
void TestConfinement::theOwnersViewCrossesTheHost()
{
    m_harness.page(QStringLiteral("/owner-login"),
                   "<!doctype html><title>Sign in</title><style>body{margin:0}"
                   "#email{position:absolute;left:100px;top:100px;width:200px;height:30px}"
                   "</style><form method=post action=/owner-session>"
                   "<input id=email name=email></form>");
    m_harness.page(QStringLiteral("/owner-session"), "<!doctype html><title>Signed in</title>");
    const auto page = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/owner-login")));
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error().code));
    const bool chromium = qEnvironmentVariable("VEETBOT_TEST_ENGINE") == QLatin1String("chromium");
    int frames = 0;
    const auto connection = connect(m_provider.get(), &BrowserProvider::ownerViewFrame, this,
                                    [&frames](const OwnerViewFrame &frame) {
                                        if (frame.isValid() && !frame.page.isEmpty())
                                            ++frames;
                                    });
    QCOMPARE(m_provider->startOwnerView(QSize(640, 400)), chromium);
    OwnerInput click;
    click.kind = OwnerInput::Kind::MouseDown;
    click.point = QPointF(200, 115);
    click.button = OwnerInput::Button::Left;
    OwnerInput release = click;
    release.kind = OwnerInput::Kind::MouseUp;
    OwnerInput typed;
    typed.kind = OwnerInput::Kind::Text;
    typed.text = QStringLiteral("owner@example.test");
    OwnerInput enter;
    enter.kind = OwnerInput::Kind::KeyDown;
    enter.key = enter.code = QStringLiteral("Enter");
    enter.virtualKey = 13;
    enter.text = QStringLiteral("\r");
    for (const OwnerInput &input : {click, release, typed, enter})
        QCOMPARE(m_provider->ownerInput(input), chromium);
    if (chromium) {
        QVERIFY(runEventsUntil([&frames] { return frames > 0; }, 20000));
        QVERIFY(runEventsUntil(
            [this] {
                return m_harness.server().count(QStringLiteral("shop.test"),
                                                QStringLiteral("/owner-session")) == 1;
            },
            20000));
        QCOMPARE(m_harness.server().bodies(QStringLiteral("/owner-session")),
                 QList<QByteArray>{"email=owner%40example.test"});
    }
    m_provider->stopOwnerView();
    disconnect(connection);
    // Positive control on every engine: the host still serves the agent's operations after it,
    // and on Qt WebEngine nothing of the owner's input reached the site before it.
    browserLoadsControl();
    QCOMPARE(
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/owner-session")),
        chromium ? 1 : 0);
}

#include "tst_confinement.moc"
