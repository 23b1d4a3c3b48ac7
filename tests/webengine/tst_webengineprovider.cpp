// WebEngineProvider in this process (real Chromium, offscreen), traffic through the egress
// proxy: settling, the isolated collector world, atomic capture and recycling of a page that
// does not answer (and typing into its replacement); a beforeunload prompt cancelling a
// navigation; the end of an act's trial bound never recycling a busy page; an act refused when
// its target was renamed. Confinement across the network namespace is tst_confinement's
// subject.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "Collector.h"
#include "EventWait.h"
#include "GuardedPage.h"
#include "WebEngineProvider.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QTest>
#include <QWebEngineDownloadRequest>
#include <QWebEngineProfile>

#include <algorithm>

using namespace veetbot;
using namespace veetbot::testing;

class TestWebEngineProvider : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void declaresOnlyWhatItImplements();
    void collectorWorldIsPrivateAndPerDocument();
    void permissionsAreAnsweredByThePage();
    void downloadFromTheAllowedOriginIsCancelled();
    void hostilePageStaysWithinBounds();
    void extremeNestingFailsCleanly();
    void pageThatNeverAnswersIsRecycled();
    void endlessScriptDuringLoadFailsCleanly();
    void callsRunInArrivalOrder();
    void neverNegotiatesHttp2();
    void beforeUnloadPromptCancelsTheNavigation();
    void trialBoundOnABusyPageKeepsThePage();
    void actOnARenamedTargetIsRefused();
    void destroyingAnswersEveryCallOnceAndNothingAfter();
    void onlyAVerificationBrowserObservesThePage();
    void theNetworkWaitCountsThePagesOwnRequests();

private:
    std::optional<QJsonObject> runInWorld(const QString &source);
    Result<BrowserObservation> act(const Result<ActRequest> &request);
    static QString refOf(const BrowserObservation &observation, const QString &role,
                         const QString &name);

    BrowserTestHarness m_harness;
    std::unique_ptr<WebEngineProvider> m_provider;
};

void TestWebEngineProvider::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    m_harness.page(QStringLiteral("/ok"),
                   "<!doctype html><title>OK</title><p>fine</p><button>Go</button>");
    m_provider = std::make_unique<WebEngineProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
    const auto first = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().code));
}

void TestWebEngineProvider::cleanupTestCase()
{
    m_provider.reset();
}

void TestWebEngineProvider::init()
{
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
    BrowserTestHarness::admitEveryDispatch(*m_provider, this); // a test may have replaced it
    m_harness.server().resetCounters();
}

std::optional<QJsonObject> TestWebEngineProvider::runInWorld(const QString &source)
{
    auto result = std::make_shared<std::optional<std::optional<QJsonObject>>>();
    m_provider->runCollectorScript(
        source, [result](std::optional<QJsonObject> value) { *result = std::move(value); });
    if (!testing::runEventsUntil([result] { return result->has_value(); }, 10000))
        return std::nullopt;
    return **result;
}

Result<BrowserObservation> TestWebEngineProvider::act(const Result<ActRequest> &request)
{
    if (!request)
        return request.error();
    auto result = std::make_shared<std::optional<Result<BrowserObservation>>>();
    m_provider->act(*request, [result](Result<BrowserObservation> r) { *result = std::move(r); });
    if (!testing::runEventsUntil([result] { return result->has_value(); }, 40000))
        return Error{QStringLiteral("test.timeout"), QStringLiteral("no answer in time")};
    return std::move(**result);
}

QString TestWebEngineProvider::refOf(const BrowserObservation &observation, const QString &role,
                                     const QString &name)
{
    for (const ElementRecord &element : observation.elements) {
        if (element.role == role && element.name == name)
            return element.ref;
    }
    return {};
}

void TestWebEngineProvider::declaresOnlyWhatItImplements()
{
    const ProviderCapabilities capabilities = m_provider->capabilities();
    QVERIFY(capabilities.navigate);
    QVERIFY(capabilities.observe);
    QVERIFY(capabilities.expand); // observe continues with {after} and {cursor}
    QVERIFY(capabilities.act);    // dispatch: tst_act
    QVERIFY(!capabilities.upload);
    std::optional<Result<BrowserObservation>> result;
    m_provider->act(ActionRequest{}, [&result](Result<BrowserObservation> r) { result = r; });
    QTRY_VERIFY(result.has_value());
    QCOMPARE(result->error().code, QStringLiteral("tool.browser.page_changed"));
}

void TestWebEngineProvider::collectorWorldIsPrivateAndPerDocument()
{
    // The page's own world cannot see the collector.
    m_harness.page(QStringLiteral("/world"),
                   "<!doctype html><title>pending</title><script>"
                   "document.title='main world sees '+typeof window.__veetbot;</script>");
    const auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/world")));
    QVERIFY(observation.ok());
    QCOMPARE(observation->title, QStringLiteral("main world sees undefined"));

    // The isolated world keeps its state between calls...
    const QString bump =
        QStringLiteral("(function(){globalThis.__mark=(globalThis.__mark||0)+1;"
                       "return JSON.stringify({ok:true,mark:globalThis.__mark})})()");
    QCOMPARE(runInWorld(bump)->value(QStringLiteral("mark")).toInt(), 1);
    QCOMPARE(runInWorld(bump)->value(QStringLiteral("mark")).toInt(), 2);
    const auto state = runInWorld(Collector::stateCall());
    QVERIFY(state.has_value());
    QVERIFY(!state->value(QStringLiteral("current")).isNull());
    QVERIFY(state->value(QStringLiteral("handles")).toInt() == 0); // no controls on the page

    // ...and drops it with the document.
    QVERIFY(BrowserTestHarness::navigate(
                *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")))
                .ok());
    QCOMPARE(runInWorld(bump)->value(QStringLiteral("mark")).toInt(), 1);
    QCOMPARE(runInWorld(Collector::stateCall())->value(QStringLiteral("handles")).toInt(), 1);
}

// Placement internals: the page's own permission handler answers each request a page makes,
// with a denial, and the answers are recorded as it gives them (left unanswered, a request
// would fall to Qt's defaults). What the page sees of every denial, dialog and worker is the
// contract suite's (tst_contract::permissionsDialogsAndWorkersAreDenied, on every engine).
void TestWebEngineProvider::permissionsAreAnsweredByThePage()
{
    auto *page = qobject_cast<GuardedPage *>(m_provider->view()->page());
    QVERIFY(page);
    auto answers = std::make_shared<QList<std::pair<int, QWebEnginePage::PermissionPolicy>>>();
    const QMetaObject::Connection recording = connect(
        page, &GuardedPage::featurePermissionAnswered, this,
        [answers](QWebEnginePage::Feature feature, QWebEnginePage::PermissionPolicy policy) {
            answers->append({int(feature), policy});
        });
    const auto stopRecording = qScopeGuard([recording] { QObject::disconnect(recording); });
    m_harness.page(QStringLiteral("/ask"),
                   "<!doctype html><title>Ask</title><ul id=out></ul><script>"
                   "function note(t){var li=document.createElement('li');li.textContent=t;"
                   "document.getElementById('out').appendChild(li);}"
                   "Notification.requestPermission().then(function(p){note('notification-'+p)});"
                   "navigator.geolocation.getCurrentPosition(function(){note('geo-granted')},"
                   "function(){note('geo-denied')});"
                   "navigator.mediaDevices.getUserMedia({audio:true,video:true}).then(function(){"
                   "note('media-granted')},function(){note('media-denied')});"
                   "</script>");
    QVERIFY(BrowserTestHarness::navigate(
                *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ask")))
                .ok());
    QTRY_COMPARE_WITH_TIMEOUT(answers->size(), 2, 15000);
    QList<int> asked;
    for (const auto &[feature, policy] : std::as_const(*answers)) {
        QCOMPARE(policy, QWebEnginePage::PermissionDeniedByUser);
        asked.append(feature);
    }
    std::sort(asked.begin(), asked.end());
    // getUserMedia fails before asking: there is no capture device.
    QList<int> expectedAsked{QWebEnginePage::Notifications, QWebEnginePage::Geolocation};
    std::sort(expectedAsked.begin(), expectedAsked.end());
    QCOMPARE(asked, expectedAsked);
}

void TestWebEngineProvider::downloadFromTheAllowedOriginIsCancelled()
{
    // A download offered by the allowed origin itself passes the navigation guard and reaches
    // the profile; the provider cancels it there, before anything else sees it.
    struct Offer
    {
        QWebEngineDownloadRequest::DownloadState stateWhenSeen;
        QString path;
    };
    auto offers = std::make_shared<QList<Offer>>();
    QWebEngineProfile *profile = m_provider->view()->page()->profile();
    const QMetaObject::Connection watching = connect(
        profile, &QWebEngineProfile::downloadRequested, this,
        [offers](QWebEngineDownloadRequest *download) {
            offers->append(
                {download->state(),
                 QDir(download->downloadDirectory()).filePath(download->downloadFileName())});
        });
    const auto stopWatching = qScopeGuard([watching] { QObject::disconnect(watching); });
    m_harness.page(QStringLiteral("/own-download"),
                   "<!doctype html><title>Own download</title>"
                   "<a id=d download href='/download'>file</a>"
                   "<script>document.getElementById('d').click();</script>");
    const auto page = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/own-download")));
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error().code));
    QTRY_COMPARE_WITH_TIMEOUT(offers->size(), 1, 10000);
    QCOMPARE(offers->first().stateWhenSeen, QWebEngineDownloadRequest::DownloadCancelled);
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/download")), 1);
    // Positive control: the page stays usable, and a later request arrives while the refused
    // download is never asked for again and nothing of it was saved.
    const auto after = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(after.ok(), after.ok() ? "" : qPrintable(after.error().code));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/ok")), 1);
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/download")), 1);
    QCOMPARE(offers->size(), 1);
    QVERIFY(!offers->first().path.isEmpty());
    QVERIFY(!QFile::exists(offers->first().path));
    QVERIFY(!QFile::exists(offers->first().path + QStringLiteral(".crdownload")));
}

void TestWebEngineProvider::hostilePageStaysWithinBounds()
{
    m_harness.page(
        QStringLiteral("/hostile"),
        "<!doctype html><title>Hostile</title><div id=root></div><script>"
        "var r=document.getElementById('root'),d=r;"
        "for(var i=0;i<3000;i++){var n=document.createElement('div');d.appendChild(n);d=n;}"
        "d.textContent='DEEP';var f=document.createDocumentFragment();"
        "for(var j=0;j<5000;j++){var b=document.createElement('button');b.textContent='b'+j;"
        "f.appendChild(b);}document.body.appendChild(f);"
        "var big=document.createElement('p');big.textContent='x'.repeat(1<<20);"
        "document.body.appendChild(big);"
        "Array.prototype.push=function(){throw new Error('patched')};"
        "JSON.stringify=function(){return '{}'};"
        "Element.prototype.getBoundingClientRect=function(){return {width:0,height:0}};"
        "window.getComputedStyle=function(){return {display:'none'}};</script>");
    const auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/hostile")));
    QVERIFY2(observation.ok(), observation.ok() ? "" : qPrintable(observation.error().code));
    QCOMPARE(observation->elements.size(), 256);
    QVERIFY(observation->text.toUtf8().size() <= 256 * 1024);
    QVERIFY(observation->textCoverage.nodeLimitReached ||
            observation->textCoverage.textLimitReached);
    // 5,000 candidates: more windows follow; no bound stopped the walk.
    QVERIFY(observation->coverage.nextCursor.has_value());
    QVERIFY(!observation->coverage.scanLimitReached);
}

void TestWebEngineProvider::extremeNestingFailsCleanly()
{
    // 100,000 nested, rendered boxes: Chromium 102 cannot render a few thousand (see
    // docs/observation-collector.md), so no observation of this page exists. The provider
    // answers provider_unavailable within its bounds, keeps no revision, and stays usable.
    // The chain is built from the inside out, so the page's own script stays linear and the
    // failure is the rendering, not a long script.
    m_harness.page(
        QStringLiteral("/nesting"),
        "<!doctype html><title>Nesting</title><div id=root></div><script>"
        "var n=document.createElement('span');n.textContent='DEEP';"
        "for(var i=1;i<100000;i++){var p=document.createElement('span');"
        "p.appendChild(n);n=p;}document.getElementById('root').appendChild(n);</script>");
    m_provider->setTimeouts({.navigationMs = 5000, .scriptMs = 3000});
    QElapsedTimer timer;
    timer.start();
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/nesting")));
    QVERIFY2(!result.ok(), "an observation of a page Chromium cannot render");
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QCOMPARE(result.error().message, reasonCodeMessage(ReasonCode::ProviderUnavailable));
    QVERIFY(timer.elapsed() < 15000);
    QVERIFY(m_provider->currentRevision().isEmpty());
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
    const auto after = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(after.ok(), after.ok() ? "" : qPrintable(after.error().code));
    QCOMPARE(m_provider->currentRevision(), after->revision);
}

void TestWebEngineProvider::pageThatNeverAnswersIsRecycled()
{
    // The page's own script loops forever once a marker attribute appears; the test sets it
    // after the navigation returned, so the stall never races the first capture.
    m_harness.page(QStringLiteral("/stall"),
                   "<!doctype html><title>Stall</title><button>b</button><script>"
                   "new MutationObserver(function(){for(;;){}}).observe(document.body,"
                   "{attributes:true});</script>");
    const auto before = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/stall")));
    QVERIFY2(before.ok(), before.ok() ? "" : qPrintable(before.error().code));
    QCOMPARE(m_provider->currentRevision(), before->revision);
    // A collector call that does not answer within 4 s recycles the page.
    m_provider->setTimeouts({.scriptMs = 4000});
    // The page's observer runs (and never returns) before this call can answer.
    m_provider->runCollectorScript(
        QStringLiteral("(function(){document.body.setAttribute('data-stall','1');"
                       "return JSON.stringify({ok:true})})()"),
        [](std::optional<QJsonObject>) {});
    QElapsedTimer timer;
    timer.start();
    const auto stuck = BrowserTestHarness::observe(*m_provider);
    QVERIFY(!stuck.ok());
    QCOMPARE(stuck.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QVERIFY(timer.elapsed() < 10000);
    // A failed capture leaves no usable reference.
    QVERIFY(m_provider->currentRevision().isEmpty());
    // The recycled page works.
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
    const auto after = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(after.ok(), after.ok() ? "" : qPrintable(after.error().code));
    QVERIFY(after->revision != before->revision);
    QCOMPARE(m_provider->currentRevision(), after->revision);
    // Keys and text reach the replaced page too (its render widget is focused for them).
    m_harness.page(QStringLiteral("/field"),
                   "<!doctype html><title>Field</title><input aria-label=Note>");
    const auto field = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/field")));
    QVERIFY(field.ok());
    const auto typed = act(ActRequest::type(
        field->revision, refOf(*field, QStringLiteral("textbox"), QStringLiteral("Note")),
        QStringLiteral("text")));
    QVERIFY2(typed.ok(), typed.ok() ? "" : qPrintable(typed.error().code));
}

void TestWebEngineProvider::endlessScriptDuringLoadFailsCleanly()
{
    m_provider->setTimeouts({.navigationMs = 5000, .scriptMs = 2000});
    m_harness.page(QStringLiteral("/loop"),
                   "<!doctype html><title>Loop</title><script>for(;;){}</script>");
    QElapsedTimer timer;
    timer.start();
    const auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/loop")));
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QCOMPARE(result.error().message, reasonCodeMessage(ReasonCode::ProviderUnavailable));
    QVERIFY(timer.elapsed() < 15000);
    QVERIFY(m_provider->currentRevision().isEmpty());
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
    const auto after = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(after.ok(), after.ok() ? "" : qPrintable(after.error().code));
}

void TestWebEngineProvider::callsRunInArrivalOrder()
{
    m_harness.page(QStringLiteral("/a"), "<!doctype html><title>A</title>");
    m_harness.page(QStringLiteral("/b"), "<!doctype html><title>B</title>");
    QStringList order;
    m_provider->navigate({m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/a"))},
                         [&order](Result<BrowserObservation> r) {
                             order << (r ? r->title : QStringLiteral("error"));
                         });
    m_provider->observe(ObserveRequest(), [&order](Result<BrowserObservation> r) {
        order << (r ? QStringLiteral("observe ") + r->title : QStringLiteral("error"));
    });
    m_provider->navigate({m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/b"))},
                         [&order](Result<BrowserObservation> r) {
                             order << (r ? r->title : QStringLiteral("error"));
                         });
    QTRY_COMPARE_WITH_TIMEOUT(order.size(), 3, 30000);
    QCOMPARE(order,
             (QStringList{QStringLiteral("A"), QStringLiteral("observe A"), QStringLiteral("B")}));
}

// The agent browser speaks HTTP/1.1 only (docs/decisions/0005), so retiring idle tunnels at an
// act's dispatch gate leaves Chromium no reused connection to resend a write on. A site that
// prefers h2 still gets http/1.1.
void TestWebEngineProvider::neverNegotiatesHttp2()
{
    m_harness.server().offerHttp2(true);
    m_harness.page(QStringLiteral("/h1"), "<!doctype html><title>H1</title><p>one</p>");
    m_harness.egressProxy()->retireIdleTunnels(); // the page needs a fresh TLS handshake
    const auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/h1")));
    m_harness.server().offerHttp2(false);
    const QList<QByteArray> negotiated = m_harness.server().negotiatedProtocols();
    QVERIFY2(observation.ok(), qPrintable(observation.ok() ? QString() : observation.error().code));
    QCOMPARE(observation->title, QStringLiteral("H1"));
    QVERIFY(!negotiated.isEmpty());
    for (const QByteArray &protocol : negotiated)
        QCOMPARE(protocol, QByteArrayLiteral("http/1.1"));
}

// A page whose beforeunload handler asks (an unsaved draft after typing) keeps the page: the
// navigation is tool.browser.navigation_cancelled at once, nothing is requested, and the page
// that stayed can be observed.
void TestWebEngineProvider::beforeUnloadPromptCancelsTheNavigation()
{
    m_harness.page(QStringLiteral("/draft"),
                   "<!doctype html><title>Draft</title><textarea aria-label=Draft></textarea>"
                   "<button id=discard>Discard</button><script>let dirty = false;"
                   "document.querySelector('textarea').addEventListener('input', () => {"
                   "dirty = true; });"
                   "discard.addEventListener('click', () => { dirty = false; });"
                   "addEventListener('beforeunload', (e) => { if (!dirty) return undefined;"
                   "e.preventDefault(); e.returnValue = 'unsaved'; return 'unsaved'; });"
                   "</script>");
    m_harness.page(QStringLiteral("/away"), "<!doctype html><title>Away</title>");
    const QUrl away = m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/away"));
    const auto page = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/draft")));
    QVERIFY(page.ok());
    const auto typed = act(ActRequest::type(
        page->revision, refOf(*page, QStringLiteral("textbox"), QStringLiteral("Draft")),
        QStringLiteral("unsaved words")));
    QVERIFY2(typed.ok(), typed.ok() ? "" : qPrintable(typed.error().code));
    m_harness.server().resetCounters();

    QElapsedTimer timer;
    timer.start();
    const auto left = BrowserTestHarness::navigate(*m_provider, away);
    QVERIFY(!left.ok());
    QCOMPARE(left.error().code, QStringLiteral("tool.browser.navigation_cancelled"));
    QVERIFY2(timer.elapsed() < 4000, "decided by the prompt, not by the load patience bound");
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/away")), 0);
    const auto stayed = BrowserTestHarness::observe(*m_provider);
    QVERIFY(stayed.ok());
    QCOMPARE(stayed->title, QStringLiteral("Draft"));

    // Without the draft the page lets go.
    const auto discarded = act(ActRequest::click(
        stayed->revision, refOf(*stayed, QStringLiteral("button"), QStringLiteral("Discard"))));
    QVERIFY2(discarded.ok(), discarded.ok() ? "" : qPrintable(discarded.error().code));
    const auto gone = BrowserTestHarness::navigate(*m_provider, away);
    QVERIFY2(gone.ok(), gone.ok() ? "" : qPrintable(gone.error().code));
    QCOMPARE(gone->title, QStringLiteral("Away"));
}

// A trial round that starts a few milliseconds before the trial bound on a page whose main
// thread is busy answers late: that is the bound passing (element_not_found, the revision
// kept), never a stuck page to replace.
void TestWebEngineProvider::trialBoundOnABusyPageKeepsThePage()
{
    m_harness.page(QStringLiteral("/busy-covered"),
                   "<!doctype html><title>Busy</title><button>Buy</button>"
                   "<div style='position:fixed;inset:0'></div><script>setInterval(() => {"
                   "const t = performance.now(); while (performance.now() - t < 40) {} }, 45);"
                   "</script>");
    const auto page = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/busy-covered")));
    QVERIFY(page.ok());
    const QString ref = refOf(*page, QStringLiteral("button"), QStringLiteral("Buy"));
    QVERIFY(!ref.isEmpty());
    // The second trial round starts about 20 ms before the 300 ms bound.
    m_provider->setTimeouts({.pollMs = 280, .actTrialMs = 300});
    for (int round = 0; round < 5; ++round) {
        const auto click = act(ActRequest::click(page->revision, ref));
        QVERIFY(!click.ok());
        QCOMPARE(click.error().code, QStringLiteral("tool.browser.element_not_found"));
        QCOMPARE(m_provider->currentRevision(), page->revision);
    }
}

// The ref names the node that was observed, and the owner approved its role and name: once
// the site renames that same node, acting on it is tool.browser.page_changed with nothing
// sent, and the revision stays valid.
void TestWebEngineProvider::actOnARenamedTargetIsRefused()
{
    m_harness.page(QStringLiteral("/effect"), "ok");
    m_harness.page(QStringLiteral("/control"), "ok");
    m_harness.page(QStringLiteral("/payee"),
                   "<!doctype html><title>Payee</title><button id=pay>Pay Alice</button><script>"
                   "pay.addEventListener('click', () => fetch('/effect', {method: 'POST', "
                   "body: pay.textContent}).then((r) => r.text()));</script>");
    const auto page = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/payee")));
    QVERIFY(page.ok());
    const QString ref = refOf(*page, QStringLiteral("button"), QStringLiteral("Pay Alice"));
    QVERIFY(!ref.isEmpty());
    const auto renamed = runInWorld(
        QStringLiteral("(function(){document.getElementById('pay').textContent = 'Pay Mallory';"
                       "return JSON.stringify({ok: true});})()"));
    QVERIFY(renamed.has_value());
    m_harness.server().resetCounters();
    const auto click = act(ActRequest::click(page->revision, ref));
    QVERIFY(!click.ok());
    QCOMPARE(click.error().code, QStringLiteral("tool.browser.page_changed"));
    // Positive control: the page fetches /control, which reaches the site after anything a
    // click on it could have sent; only then is the count of /effect final.
    QVERIFY(runInWorld(QStringLiteral(
                           "(function(){fetch('/control');return JSON.stringify({ok:true});})()"))
                .has_value());
    QVERIFY(runEventsUntil(
        [this] {
            return m_harness.server().count(QStringLiteral("shop.test"),
                                            QStringLiteral("/control")) == 1;
        },
        10000));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/effect")), 0);
    QCOMPARE(m_provider->currentRevision(), page->revision);
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY(again.ok());
    QVERIFY(!refOf(*again, QStringLiteral("button"), QStringLiteral("Pay Mallory")).isEmpty());
}

int main(int argc, char **argv)
{
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestWebEngineProvider test;
    return QTest::qExec(&test, argc, argv);
}

// Destroying a provider closes it first: the operation in flight (its capture waiting on a
// page whose script never returns) and the one queued behind it are each answered exactly
// once, provider_unavailable, before the destructor returns; nothing runs after it.
void TestWebEngineProvider::destroyingAnswersEveryCallOnceAndNothingAfter()
{
    m_harness.page(QStringLiteral("/stall-late"),
                   "<!doctype html><title>Stall</title><button>b</button><script>"
                   "new MutationObserver(function(){for(;;){}}).observe(document.body,"
                   "{attributes:true});</script>");
    auto provider = std::make_unique<WebEngineProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
    const auto page = BrowserTestHarness::navigate(
        *provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/stall-late")));
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error().code));
    provider->setTimeouts(WebEngineProvider::Timeouts{.scriptMs = 60000});
    provider->runCollectorScript(
        QStringLiteral("(function(){document.body.setAttribute('data-stall','1');"
                       "return JSON.stringify({ok:true})})()"),
        [](std::optional<QJsonObject>) {});

    auto answers = std::make_shared<QStringList>();
    const auto record = [answers](Result<BrowserObservation> result) {
        answers->append(result ? QStringLiteral("ok") : result.error().code);
    };
    provider->observe(ObserveRequest(), record);
    provider->navigate({m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok"))}, record);
    // The observation's capture is at the page now, and cannot answer.
    QVERIFY(answers->isEmpty());

    provider.reset();
    const QStringList unavailable{QStringLiteral("tool.browser.provider_unavailable"),
                                  QStringLiteral("tool.browser.provider_unavailable")};
    QCOMPARE(*answers, unavailable);
    // The event loop runs on (a whole navigation of another provider): nothing more arrives.
    const auto later = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY(later.ok());
    QCOMPARE(*answers, unavailable);
}

namespace {
// Runs `source` in the page's main world (where the page's own scripts run) and returns what
// it evaluates to as a string.
QString inMainWorld(WebEngineProvider &provider, const QString &source)
{
    auto result = std::make_shared<std::optional<QString>>();
    provider.view()->page()->runJavaScript(
        source, QWebEngineScript::MainWorld,
        [result](const QVariant &value) { *result = value.toString(); });
    if (!runEventsUntil([result] { return result->has_value(); }, 10000))
        return QStringLiteral("(no answer)");
    return **result;
}

// The wait's answer, or nullopt when it failed.
std::optional<bool> isIdle(const Result<bool> &answer)
{
    return answer ? std::optional<bool>(*answer) : std::nullopt;
}

Result<bool> waitIdle(WebEngineProvider &provider, NetworkIdleRequest request)
{
    auto result = std::make_shared<std::optional<Result<bool>>>();
    provider.waitForNetworkIdle(request, [result](Result<bool> idle) { *result = idle; });
    if (!runEventsUntil([result] { return result->has_value(); }, 20000))
        return Error{QStringLiteral("test.timeout"), QStringLiteral("no answer in time")};
    return **result;
}
} // namespace

void TestWebEngineProvider::onlyAVerificationBrowserObservesThePage()
{
    const QString probe = QStringLiteral(
        "[String(window.fetch).indexOf('[native code]') >= 0, "
        "String(XMLHttpRequest.prototype.send).indexOf('[native code]') >= 0, "
        "String(window.EventSource).indexOf('[native code]') >= 0, "
        "Object.getOwnPropertyNames(window).some(function(n){return n.indexOf('__veetbot')===0;})"
        "].join(',')");
    // An agent's browser: the page's main world is exactly what Chromium made it.
    QCOMPARE(inMainWorld(*m_provider, probe), QStringLiteral("true,true,true,false"));
    // Neither the verification navigate nor the network wait is open to it.
    QCOMPARE(waitIdle(*m_provider, {}).error().code,
             QStringLiteral("tool.browser.provider_unavailable"));
    const auto shown = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY(shown.ok());
    std::optional<Result<BrowserObservation>> contentLoaded;
    m_provider->navigate({m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")),
                          NavigateRequest::Until::ContentLoaded},
                         [&contentLoaded](Result<BrowserObservation> r) { contentLoaded = r; });
    QTRY_VERIFY(contentLoaded.has_value());
    QCOMPARE(contentLoaded->error().code, QStringLiteral("tool.browser.provider_unavailable"));

    // A verification browser: the observer is there, under a name of its own.
    WebEngineProvider verifying(m_harness.policy({QStringLiteral("shop.test")}),
                                m_harness.overrides());
    verifying.observeNetwork();
    std::optional<Result<BrowserObservation>> loaded;
    verifying.navigate({m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")),
                        NavigateRequest::Until::ContentLoaded},
                       [&loaded](Result<BrowserObservation> r) { loaded = r; });
    QTRY_VERIFY_WITH_TIMEOUT(loaded.has_value(), 20000);
    QVERIFY(loaded->ok());
    QCOMPARE(inMainWorld(verifying, probe), QStringLiteral("false,false,false,true"));
}

void TestWebEngineProvider::theNetworkWaitCountsThePagesOwnRequests()
{
    // A page whose fetch is answered after 1.5 s, and one whose fetch never ends.
    fixtures::FixtureServer::Response slow;
    slow.contentType = "application/json";
    slow.body = "{}";
    slow.delayMs = 1500;
    m_harness.server().setRoute(QStringLiteral("/api/slow"), slow);
    fixtures::FixtureServer::Response hang;
    hang.contentType = "text/plain";
    hang.body = "partial";
    hang.holdOpen = true;
    m_harness.server().setRoute(QStringLiteral("/api/hang"), hang);
    m_harness.page(QStringLiteral("/asks-slow"),
                   "<!doctype html><title>A</title><p>a</p><script>fetch('/api/slow')</script>");
    m_harness.page(QStringLiteral("/asks-hang"),
                   "<!doctype html><title>B</title><p>b</p><script>fetch('/api/hang')</script>");
    WebEngineProvider verifying(m_harness.policy({QStringLiteral("shop.test")}),
                                m_harness.overrides());
    verifying.observeNetwork();
    const auto go = [&](const QString &path) {
        std::optional<Result<BrowserObservation>> loaded;
        verifying.navigate({m_harness.url(QStringLiteral("shop.test"), path),
                            NavigateRequest::Until::ContentLoaded},
                           [&loaded](Result<BrowserObservation> r) { loaded = r; });
        return runEventsUntil([&loaded] { return loaded.has_value(); }, 20000) && loaded->ok();
    };

    QVERIFY(go(QStringLiteral("/asks-slow")));
    // A bound shorter than the answer passes first; a longer one sees the network idle, after
    // the answer arrived.
    QVERIFY(isIdle(waitIdle(verifying, {.boundMs = 200, .quietMs = 100})) == false);
    QVERIFY(isIdle(waitIdle(verifying, {.boundMs = 10000, .quietMs = 300})) == true);
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/api/slow")), 1);

    // A request that never ends is never idle; the navigation away from it is not taken for
    // the next document's DOMContentLoaded.
    QVERIFY(go(QStringLiteral("/asks-hang")));
    QVERIFY(isIdle(waitIdle(verifying, {.boundMs = 1500, .quietMs = 300})) == false);
    QVERIFY(go(QStringLiteral("/ok")));
    QVERIFY(isIdle(waitIdle(verifying, {.boundMs = 5000, .quietMs = 300})) == true);
    // While a wait runs nothing else does, and closing answers it.
    QVERIFY(go(QStringLiteral("/asks-hang")));
    std::optional<Result<bool>> closed;
    verifying.waitForNetworkIdle({.boundMs = 10000, .quietMs = 300},
                                 [&closed](Result<bool> r) { closed = r; });
    QCOMPARE(waitIdle(verifying, {}).error().code,
             QStringLiteral("tool.browser.provider_unavailable"));
    verifying.close();
    QVERIFY(closed.has_value());
    QCOMPARE(closed->error().code, QStringLiteral("tool.browser.provider_unavailable"));
}

#include "tst_webengineprovider.moc"
