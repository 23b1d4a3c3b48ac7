// The shared provider contract (spec 000, hard gate 1): one source, run against every placement.
// CTest registers it once per engine (tst_contract_qtwebengine, tst_contract_chromium, with
// VEETBOT_TEST_ENGINE); each function holds for both, on real browsers and a real fixture
// server. A placement that fails one of these is a finding, never a skip. Every "nothing was
// sent" is checked at the fixture server and closed by a positive control that must arrive
// after it.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "EngineUnderTest.h"
#include "EventWait.h"
#include "domain/observation/Extraction.h"
#include "domain/web/Origin.h"
#include "net/EgressProxy.h"
#include "net/LocalForwarder.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QNetworkProxy>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTest>

#include <algorithm>
#include <memory>
#include <optional>

using namespace veetbot;
using namespace veetbot::testing;

namespace {
const QString kShop = QStringLiteral("shop.test");
const QString kEvil = QStringLiteral("evil.test");
const QString kCdn = QStringLiteral("cdn.test");

QString codeOf(const Result<BrowserObservation> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

// A form whose submission the fixture server records: /submit gets every field.
const QByteArray kFormPage = R"(<!doctype html><title>Form</title>
<h1>Order</h1>
<form method=post action=/submit>
 <input name=q aria-label=Query value="old value">
 <textarea name=t aria-label=Note>prior note</textarea>
 <select name=s aria-label=Size><option value=s>Small</option><option value=m>Medium
   size</option></select>
 <input type=checkbox name=c aria-label=Gift>
 <input type=password name=p aria-label=Password>
 <input name=code aria-label=Code autocomplete=one-time-code>
 <input name=np aria-label="New secret" autocomplete="section-a new-password">
 <input type=hidden name=trusted id=trusted value="">
 <input type=hidden name=changed id=changed value="">
 <input type=hidden name=clicks id=clicks value="0">
 <button aria-label=Send>Send</button>
</form>
<script>
 const f = document.forms[0];
 f.q.addEventListener('input', e => { trusted.value += 'q' + e.isTrusted + ';'; });
 f.t.addEventListener('input', e => { trusted.value += 't' + e.isTrusted + ';'; });
 f.s.addEventListener('change', () => { changed.value = 'yes'; });
 f.c.addEventListener('click', e => { clicks.value = String(+clicks.value + 1) + e.isTrusted; });
</script>)";

} // namespace

// Evaluates `result` once.
#define EXPECT_CODE(result, expected)                                                              \
    do {                                                                                           \
        const auto actual_ = (result);                                                             \
        QVERIFY2(!actual_.ok(), "the action succeeded");                                           \
        QCOMPARE(actual_.error().code, QLatin1String(expected));                                   \
    } while (false)

class TestProviderContract : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void declaresTheContractsOperations();
    void observesAPageOfTheProfile();
    void theCollectorWorldIsPrivate();
    void anOriginOffTheProfileIsRefusedBeforeAnyRequest();
    void aRedirectHopOffTheProfileNeverLeaves();
    void subresourcesLeaveOnlyForPublicHttps();
    void settlingWaitsForRequestsInFlight();
    void settlingIsBoundedOnEndlessMutation();
    void continuationCoversTheWholePage();
    void staleReferencesAreRefusedAndTheCurrentStays();
    void extractionReadsTypedRows();
    void newWindowsNeverLoad();
    void permissionsDialogsAndWorkersAreDenied();
    void aDownloadLeavesThePageAsItWas();
    void closeAnswersEveryCallOnce();
    void onlyThePagesRequestsLeave();
    void theEngineKnowsTheCurrentWebPlatform();
    void sealedStateGoesInAndComesOut();
    void aVerificationBrowserWaitsForTheNetwork();

    // browser.act: every kind once with exactly one effect and trusted input; every refusal
    // before dispatch with nothing sent; popups and disallowed navigations leave the page.
    void actWithoutAGateSendsNothing();
    void clickIsTrustedAndSendsOnce();
    void aWriteWhoseAnswerIsLostIsSentOnce();
    void anActWaitsForALateRequestAndThePagesOwnMove();
    void typeReplacesTheValue();
    void typeEmptyClearsTheValue();
    void selectByValueThenLabel();
    void checkClicksOnlyWhenTheStateDiffers();
    void pressEnterSubmitsOnce();
    void scrollReportsTheMeasuredDistance();
    void clickFollowsAnAllowedNavigation();
    void staleRevisionAndUnknownRefSendNothing();
    void regionRefIsNotActionable();
    void secretFieldsRefuseTyping();
    void disabledCoveredAndDetachedSendNothing();
    void popupsAndDisallowedNavigationsLeaveThePage();

private:
    std::unique_ptr<BrowserProvider> makeProvider(const QStringList &hosts);
    QUrl url(const QString &path) const { return m_harness.url(kShop, path); }
    Result<BrowserObservation> open(const QString &path);
    Result<BrowserObservation> act(const Result<ActRequest> &request, int timeoutMs = 40000);
    void pageFetchesControl();
    // The placement's own knobs, where a test needs one.
    void setTrialMs(int ms) { EngineUnderTest::setTrialMs(*m_provider, ms); }
    void runCollectorScript(const QString &source,
                            std::function<void(std::optional<QJsonObject>)> done)
    {
        EngineUnderTest::runCollectorScript(*m_provider, source, std::move(done));
    }
    QString currentRevision() const { return EngineUnderTest::currentRevision(*m_provider); }

    BrowserTestHarness m_harness;
    EngineUnderTest m_engine;
    std::unique_ptr<BrowserProvider> m_provider;
};

std::unique_ptr<BrowserProvider> TestProviderContract::makeProvider(const QStringList &hosts)
{
    return m_engine.makeProvider(m_harness.policy(hosts), m_harness.overrides());
}

void TestProviderContract::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    QVERIFY2(m_engine.start(m_harness, &error), qPrintable(error));
    m_harness.page(QStringLiteral("/ok"),
                   "<!doctype html><title>OK</title><p>fine</p><button>Go</button>");
    m_harness.page(QStringLiteral("/form"), kFormPage);
    m_harness.page(QStringLiteral("/submit"), "<!doctype html><title>Thanks</title><p>Sent");
    m_harness.page(QStringLiteral("/effect"), "ok");
    m_harness.page(QStringLiteral("/control"), "ok");
    m_harness.page(QStringLiteral("/next"), "<!doctype html><title>Next</title><p>next page");
    m_harness.page(QStringLiteral("/popup-target"), "<!doctype html><title>Popup</title>");
    m_provider = makeProvider({kShop});
    m_engine.admitFor(m_provider.get());
}

void TestProviderContract::cleanupTestCase()
{
    m_engine.admitFor(nullptr);
    m_provider.reset();
}

void TestProviderContract::init()
{
    setTrialMs(5000);
    BrowserTestHarness::admitEveryDispatch(*m_provider, this); // a test may have removed it
    m_harness.server().resetCounters();
}

Result<BrowserObservation> TestProviderContract::open(const QString &path)
{
    auto result = BrowserTestHarness::navigate(*m_provider, url(path));
    m_harness.server().resetCounters();
    return result;
}

Result<BrowserObservation> TestProviderContract::act(const Result<ActRequest> &request,
                                                     int timeoutMs)
{
    if (!request)
        return request.error();
    auto result = std::make_shared<std::optional<Result<BrowserObservation>>>();
    m_provider->act(*request, [result](Result<BrowserObservation> r) { *result = std::move(r); });
    if (!runEventsUntil([result] { return result->has_value(); }, timeoutMs))
        return Error{QStringLiteral("test.timeout"), QStringLiteral("no answer in time")};
    return std::move(**result);
}

// Closes a "nothing more arrived" check without leaving the page: the page's document fetches
// /control, which must reach the site after anything the page sent before it; only then are
// the site's counts final.
void TestProviderContract::pageFetchesControl()
{
    const int before = m_harness.server().count(kShop, QStringLiteral("/control"));
    runCollectorScript(
        QStringLiteral("(function(){fetch('/control');return JSON.stringify({ok:true});})()"),
        [](std::optional<QJsonObject>) {});
    QTRY_COMPARE(m_harness.server().count(kShop, QStringLiteral("/control")), before + 1);
}

void TestProviderContract::declaresTheContractsOperations()
{
    const ProviderCapabilities capabilities = m_provider->capabilities();
    QVERIFY(capabilities.navigate);
    QVERIFY(capabilities.observe);
    QVERIFY(capabilities.expand);
    QVERIFY(capabilities.extract);
    QVERIFY(!capabilities.upload);
}

void TestProviderContract::observesAPageOfTheProfile()
{
    m_harness.page(QStringLiteral("/shop"),
                   "<!doctype html><html lang=en><title>Shop</title><h1>Winter sale</h1>"
                   "<p>Warm socks, two for one.</p><a href=/cart>Cart</a>"
                   "<label>Search <input name=q></label><button>Buy now</button>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/shop")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QCOMPARE(page->url, url(QStringLiteral("/shop")));
    QCOMPARE(page->title, QStringLiteral("Shop"));
    QVERIFY(page->readiness.has_value());
    QVERIFY(page->text.contains(QStringLiteral("Warm socks, two for one.")));
    QVERIFY(!refOf(*page, QStringLiteral("link"), QStringLiteral("Cart")).isEmpty());
    QVERIFY(!refOf(*page, QStringLiteral("textbox"), QStringLiteral("Search")).isEmpty());
    QVERIFY(!refOf(*page, QStringLiteral("button"), QStringLiteral("Buy now")).isEmpty());
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/shop")), 1);

    // The same page observed again is a new revision with new references.
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(again.ok(), qPrintable(codeOf(again)));
    QVERIFY(again->revision != page->revision);
    QCOMPARE(again->title, page->title);
    QVERIFY(!again->readiness.has_value()); // only navigate and act settle

    // The browser names its engine and the Chromium version beneath it (diagnostics, --version).
    const std::optional<EngineIdentity> engine = m_provider->engineIdentity();
    QVERIFY(engine.has_value());
    QCOMPARE(browserEngineName(engine->engine), m_engine.name());
    QVERIFY2(isEngineVersion(engine->version), qPrintable(engine->version));
    qInfo("engine %s, Chromium %s", qPrintable(m_engine.name()), qPrintable(engine->version));
}

void TestProviderContract::theCollectorWorldIsPrivate()
{
    // The page's own world cannot see the collector, nor patch what it reads with.
    m_harness.page(QStringLiteral("/world"),
                   "<!doctype html><title>pending</title><p>body text</p><script>"
                   "document.title='main world sees '+typeof window.__veetbot;"
                   "JSON.stringify=function(){return '{}'};"
                   "Array.prototype.push=function(){throw new Error('patched')};</script>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/world")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QCOMPARE(page->title, QStringLiteral("main world sees undefined"));
    QVERIFY(page->text.contains(QStringLiteral("body text")));
}

void TestProviderContract::anOriginOffTheProfileIsRefusedBeforeAnyRequest()
{
    const auto refused =
        BrowserTestHarness::navigate(*m_provider, m_harness.url(kEvil, QStringLiteral("/ok")));
    QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.url_disallowed"));
    const auto plain =
        BrowserTestHarness::navigate(*m_provider, m_harness.plainUrl(kShop, QStringLiteral("/ok")));
    QCOMPARE(codeOf(plain), QStringLiteral("tool.browser.url_disallowed"));
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().count(kEvil, QStringLiteral("/ok")), 0);
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/ok")), 0);
    // Positive control: the profile's own page loads.
    const auto own = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/ok")));
    QVERIFY2(own.ok(), qPrintable(codeOf(own)));
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/ok")), 1);
}

void TestProviderContract::aRedirectHopOffTheProfileNeverLeaves()
{
    const QUrl target = m_harness.url(kEvil, QStringLiteral("/landed"));
    const auto refused =
        BrowserTestHarness::navigate(*m_provider, m_harness.redirect(kShop, target));
    QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.url_disallowed"));
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/redirect")), 1);
    QCOMPARE(m_harness.server().count(kEvil, QStringLiteral("/landed")), 0);
    // Positive control: a hop that stays on the profile is followed.
    const auto followed = BrowserTestHarness::navigate(
        *m_provider, m_harness.redirect(kShop, url(QStringLiteral("/ok"))));
    QVERIFY2(followed.ok(), qPrintable(codeOf(followed)));
    QCOMPARE(followed->url, url(QStringLiteral("/ok")));
}

void TestProviderContract::subresourcesLeaveOnlyForPublicHttps()
{
    const QByteArray plain = m_harness.plainUrl(kShop, QStringLiteral("/plain-image")).toEncoded();
    const QByteArray plainFetch =
        m_harness.plainUrl(kShop, QStringLiteral("/plain-fetch")).toEncoded();
    const QByteArray cdn = m_harness.url(kCdn, QStringLiteral("/cdn-image")).toEncoded();
    m_harness.page(QStringLiteral("/mixed"), "<!doctype html><title>Mixed</title><img src='" +
                                                 plain + "'><img src='" + cdn +
                                                 "'><script>fetch('" + plainFetch +
                                                 "').catch(function(){});</script><p>mixed</p>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/mixed")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/plain-image")), 0);
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/plain-fetch")), 0);
    // Positive control: another public HTTPS origin serves the page's image.
    QTRY_COMPARE_WITH_TIMEOUT(m_harness.server().count(kCdn, QStringLiteral("/cdn-image")), 1,
                              10000);
}

void TestProviderContract::settlingWaitsForRequestsInFlight()
{
    m_harness.page(QStringLiteral("/late"),
                   "<!doctype html><title>Late</title><div id=out></div><script>"
                   "fetch('/slow?ms=700').then(function(r){return r.text()}).then(function(){"
                   "var p=document.createElement('p');p.textContent='Loaded later';"
                   "document.getElementById('out').appendChild(p);});</script>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/late")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QCOMPARE(page->readiness, std::optional<Readiness>(Readiness::DomQuiet));
    QVERIFY(page->text.contains(QStringLiteral("Loaded later")));
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/slow")), 1);
}

void TestProviderContract::settlingIsBoundedOnEndlessMutation()
{
    m_harness.page(QStringLiteral("/ticker"),
                   "<!doctype html><title>Ticker</title><p id=t>0</p><script>"
                   "setInterval(function(){document.getElementById('t').textContent=Date.now()},"
                   "40);</script>");
    QElapsedTimer timer;
    timer.start();
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/ticker")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QCOMPARE(page->readiness, std::optional<Readiness>(Readiness::BoundExpired));
    // A generous ceiling: the 2 s settling bound plus load and capture, never the load bound.
    QVERIFY(timer.elapsed() < 15000);
}

void TestProviderContract::continuationCoversTheWholePage()
{
    QByteArray html = "<!doctype html><title>Many</title><main>";
    constexpr int kButtons = 700;
    for (int i = 0; i < kButtons; ++i)
        html += "<button>Item " + QByteArray::number(i) + "</button>";
    html += "</main>";
    m_harness.page(QStringLiteral("/many"), html);
    auto window = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/many")));
    QVERIFY2(window.ok(), qPrintable(codeOf(window)));
    QSet<QString> seen;
    int windows = 0;
    QString firstCursor;
    while (true) {
        ++windows;
        for (const ElementRecord &element : window->elements) {
            if (element.role == QLatin1String("button"))
                seen.insert(element.name);
        }
        if (!window->coverage.nextCursor)
            break;
        if (firstCursor.isEmpty())
            firstCursor = *window->coverage.nextCursor;
        QVERIFY(windows < 50);
        const auto cursor = ObserveRequest::cursor(*window->coverage.nextCursor);
        QVERIFY(cursor.ok());
        window = BrowserTestHarness::observe(*m_provider, *cursor);
        QVERIFY2(window.ok(), qPrintable(codeOf(window)));
    }
    QVERIFY2(windows > 1, "the page needs more than one window");
    QCOMPARE(seen.size(), kButtons);
    // A cursor of an earlier revision is not current.
    const auto stale =
        BrowserTestHarness::observe(*m_provider, ObserveRequest::cursor(firstCursor).value());
    QCOMPARE(codeOf(stale), QStringLiteral("tool.browser.page_changed"));
}

void TestProviderContract::staleReferencesAreRefusedAndTheCurrentStays()
{
    const auto first = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/ok")));
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
    const QString oldRef = refOf(*first, QStringLiteral("button"), QStringLiteral("Go"));
    QVERIFY(!oldRef.isEmpty());
    const auto second = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(second.ok(), qPrintable(codeOf(second)));
    // The first revision's ref is refused before any capture...
    const auto stale =
        BrowserTestHarness::observe(*m_provider, ObserveRequest::after(oldRef).value());
    QCOMPARE(codeOf(stale), QStringLiteral("tool.browser.page_changed"));
    const auto forged = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(QStringLiteral("e_forged_ref_0")).value());
    QCOMPARE(codeOf(forged), QStringLiteral("tool.browser.page_changed"));
    // ...and the current revision stays valid: its own ref anchors a continuation.
    const QString current = refOf(*second, QStringLiteral("button"), QStringLiteral("Go"));
    const auto after =
        BrowserTestHarness::observe(*m_provider, ObserveRequest::after(current).value());
    QVERIFY2(after.ok(), qPrintable(codeOf(after)));
    QVERIFY(refOf(*after, QStringLiteral("button"), QStringLiteral("Go")).isEmpty());
}

void TestProviderContract::extractionReadsTypedRows()
{
    m_harness.page(QStringLiteral("/table"),
                   "<!doctype html><title>Orders</title><table><thead><tr><th>SKU</th>"
                   "<th>Qty</th></tr></thead><tbody><tr><td>A-1</td><td>3</td></tr>"
                   "<tr><td>B-2</td><td>many</td></tr></tbody></table>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/table")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    ExtractRequest extract;
    extract.kind = ExtractRequest::Kind::Table;
    extract.index = 0;
    extract.columns = {ExtractColumn{QStringLiteral("sku"), ExtractColumn::Type::String, true},
                       ExtractColumn{QStringLiteral("qty"), ExtractColumn::Type::Integer, false}};
    extract.limit = 10;
    extract.revision = page->revision;
    const auto rows = BrowserTestHarness::observe(*m_provider, ObserveRequest::extract(extract));
    QVERIFY2(rows.ok(), qPrintable(codeOf(rows)));
    QVERIFY(rows->extraction.has_value());
    QVERIFY(rows->extraction->found);
    QCOMPARE(rows->extraction->rows.size(), 2);
    QCOMPARE(rows->extraction->rows[0].cells[0].value.toString(), QStringLiteral("A-1"));
    QCOMPARE(rows->extraction->rows[0].cells[1].value.toInt(), 3);
    QCOMPARE(rows->extraction->rows[1].cells[1].status, ExtractionCell::Status::Invalid);
    // The revision it read is no longer current: reading it again is refused.
    const auto again = BrowserTestHarness::observe(*m_provider, ObserveRequest::extract(extract));
    QCOMPARE(codeOf(again), QStringLiteral("tool.browser.page_changed"));
}

void TestProviderContract::newWindowsNeverLoad()
{
    m_harness.page(QStringLiteral("/opener"),
                   "<!doctype html><title>Opener</title>"
                   "<a id=blank target=_blank href='/popup-link'>new tab</a><script>"
                   "var w=window.open('/popup-script');"
                   "document.title='Opener '+(w?'got a window':'got none');"
                   "document.getElementById('blank').click();</script>");
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/opener")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QVERIFY(page->title.startsWith(QLatin1String("Opener")));
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/popup-script")), 0);
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/popup-link")), 0);
    // Positive control: the opener itself stays usable.
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(again.ok(), qPrintable(codeOf(again)));
    QCOMPARE(again->url, url(QStringLiteral("/opener")));
}

void TestProviderContract::permissionsDialogsAndWorkersAreDenied()
{
    m_harness.page(QStringLiteral("/sw.js"), "self.addEventListener('fetch',function(){});");
    m_harness.page(
        QStringLiteral("/denials"),
        "<!doctype html><title>Denials</title><ul id=out></ul><script>"
        "function note(t){var li=document.createElement('li');li.textContent=t;"
        "document.getElementById('out').appendChild(li);}"
        "note('alert-returned-'+String(alert('x')));"
        "note('confirm-'+String(confirm('leave?')));"
        "note('prompt-'+String(prompt('name?','d')));"
        "Notification.requestPermission().then(function(p){note('notification-'+p)});"
        "navigator.geolocation.getCurrentPosition(function(){note('geo-granted')},"
        "function(){note('geo-denied')});"
        "navigator.mediaDevices.getUserMedia({audio:true,video:true}).then(function(){"
        "note('media-granted')},function(){note('media-denied')});"
        "navigator.clipboard.readText().then(function(){note('clipboard-granted')},"
        "function(){note('clipboard-denied')});"
        "navigator.serviceWorker.register('/sw.js').then(function(){note('sw-registered')},"
        "function(){note('sw-refused')});"
        "</script>");
    const QStringList expected = {
        QStringLiteral("alert-returned-undefined"),
        QStringLiteral("confirm-false"),
        QStringLiteral("prompt-null"),
        QStringLiteral("notification-denied"),
        QStringLiteral("geo-denied"),
        QStringLiteral("media-denied"),
        QStringLiteral("clipboard-denied"),
        QStringLiteral("sw-refused"),
    };
    auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/denials")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    // Asynchronous answers may land after settling: observe until all are there. One observe
    // at a time, each waited for in its own loop (never inside another wait's predicate, whose
    // timer would start the next one inside it).
    QStringList missing;
    QElapsedTimer waited;
    waited.start();
    while (true) {
        missing.clear();
        for (const QString &line : expected) {
            if (!page.ok() || !page->text.contains(line))
                missing << line;
        }
        if (missing.isEmpty() || waited.elapsed() > 20000)
            break;
        (void)runEventsUntil([] { return false; }, 200);
        page = BrowserTestHarness::observe(*m_provider);
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char(' '))));
    QVERIFY(!page->text.contains(QStringLiteral("granted")));
    QVERIFY(!page->text.contains(QStringLiteral("sw-registered")));
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/sw.js")), 0);
}

void TestProviderContract::aDownloadLeavesThePageAsItWas()
{
    m_harness.page(QStringLiteral("/own-download"),
                   "<!doctype html><title>Own download</title>"
                   "<a id=d download href='/download'>file</a>"
                   "<script>document.getElementById('d').click();</script>");
    const auto page =
        BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/own-download")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QVERIFY(m_harness.settle());
    // The page stays; no download becomes a document, and the browser goes on.
    const auto stayed = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(stayed.ok(), qPrintable(codeOf(stayed)));
    QCOMPARE(stayed->title, QStringLiteral("Own download"));
    const auto after = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/ok")));
    QVERIFY2(after.ok(), qPrintable(codeOf(after)));
    QVERIFY(m_harness.server().count(kShop, QStringLiteral("/download")) <= 1);
}

void TestProviderContract::closeAnswersEveryCallOnce()
{
    std::unique_ptr<BrowserProvider> provider = makeProvider({kShop});
    QList<QString> answers;
    provider->navigate({url(QStringLiteral("/ok"))},
                       [&answers](Result<BrowserObservation> r) { answers << codeOf(r); });
    provider->observe({}, [&answers](Result<BrowserObservation> r) { answers << codeOf(r); });
    provider->close();
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 2, 10000);
    QCOMPARE(answers, (QList<QString>{QStringLiteral("tool.browser.provider_unavailable"),
                                      QStringLiteral("tool.browser.provider_unavailable")}));
    // After close every call is refused at once, and nothing answers twice.
    provider->observe({}, [&answers](Result<BrowserObservation> r) { answers << codeOf(r); });
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 3, 10000);
    provider.reset();
    QCoreApplication::processEvents();
    QCOMPARE(answers.size(), 3);
}

// A lease's sealed state (docs/vault.md "Material"): what restoreState puts in reaches the site
// as the signed-in browser's own (its cookies in the Cookie header, its localStorage on the
// page), nothing leaves while the state moves, and exportState reads back what the site and the
// page wrote, with their attributes. Every placement alike.
void TestProviderContract::sealedStateGoesInAndComesOut()
{
    // The handler outlives this function: what it keeps is shared.
    const auto cookieHeader = std::make_shared<QByteArray>();
    m_harness.server().setHandler(QStringLiteral("/state"), [cookieHeader](
                                                                const fixtures::FixtureServer::
                                                                    Request &request) {
        *cookieHeader = request.header("Cookie");
        fixtures::FixtureServer::Response page;
        page.headers = {{"Set-Cookie", "server=abc; Path=/; Secure; HttpOnly; SameSite=Strict"}};
        page.body = "<!doctype html><title>State</title><p>State</p><script>"
                    "fetch('/seen?ls=' + encodeURIComponent(localStorage.getItem('draft')));"
                    "localStorage.setItem('written', 'by-page');"
                    "document.cookie = 'page=1; Path=/; Secure; SameSite=Lax; Max-Age=3600';"
                    "</script>";
        return page;
    });
    m_harness.page(QStringLiteral("/seen"), "ok");
    std::unique_ptr<BrowserProvider> fresh = makeProvider({kShop});
    m_engine.admitFor(fresh.get());
    const auto readmit = qScopeGuard([this] { m_engine.admitFor(m_provider.get()); });
    const Result<Origin> origin = Origin::parse(m_harness.origin(kShop), m_harness.overrides());
    QVERIFY(origin.ok());
    const double inAnHour = double(QDateTime::currentSecsSinceEpoch() + 3600);

    SessionState state;
    state.cookies = {StoredCookie{QStringLiteral("sid"), QStringLiteral("s3cret"), kShop,
                                  QStringLiteral("/"), -1, true, true, QStringLiteral("Lax")},
                     StoredCookie{QStringLiteral("theme"), QStringLiteral("dark"),
                                  QLatin1Char('.') + kShop, QStringLiteral("/"), inAnHour, false,
                                  true, QStringLiteral("Strict")}};
    state.origins = {OriginStorage{origin->toString(),
                                   {{QStringLiteral("draft"), QStringLiteral("hello draft")}}}};
    const int before = m_harness.server().total();
    std::optional<Result<Unit>> restored;
    fresh->restoreState(state, [&restored](Result<Unit> result) { restored = result; });
    QVERIFY(runEventsUntil([&] { return restored.has_value(); }, 30000));
    QVERIFY2(restored->ok(), qPrintable(restored->ok() ? QString() : restored->error().code));
    QCOMPARE(m_harness.server().total(), before); // the state went in; nothing left

    // The site sees the session: the cookies on the first request, the storage on the page.
    const auto page = BrowserTestHarness::navigate(*fresh, url(QStringLiteral("/state")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QVERIFY(runEventsUntil(
        [this] { return m_harness.server().count(kShop, QStringLiteral("/seen")) == 1; }, 20000));
    QVERIFY(cookieHeader->contains("sid=s3cret"));
    QVERIFY(cookieHeader->contains("theme=dark"));
    bool sawDraft = false;
    for (const auto &request : m_harness.server().requests())
        sawDraft = sawDraft || (request.path == QLatin1String("/seen") &&
                                request.query == QLatin1String("ls=hello%20draft"));
    QVERIFY(sawDraft);

    // Read back: what was put in, what the site set, what the page wrote.
    const int beforeExport = m_harness.server().total();
    std::optional<Result<SessionState>> exported;
    fresh->exportState({*origin}, [&exported](Result<SessionState> result) { exported = result; });
    QVERIFY(runEventsUntil([&] { return exported.has_value(); }, 30000));
    QVERIFY2(exported->ok(), qPrintable(exported->ok() ? QString() : exported->error().code));
    QCOMPARE(m_harness.server().total(), beforeExport);
    const auto cookie = [&exported](const QString &name) -> std::optional<StoredCookie> {
        for (const StoredCookie &stored : (*exported)->cookies) {
            if (stored.name == name)
                return stored;
        }
        return std::nullopt;
    };
    const auto sid = cookie(QStringLiteral("sid"));
    QVERIFY(sid);
    QCOMPARE(sid->value, QStringLiteral("s3cret"));
    QCOMPARE(sid->domain, kShop);
    QVERIFY(sid->httpOnly && sid->secure);
    QCOMPARE(sid->expires, -1.0);
    const auto theme = cookie(QStringLiteral("theme"));
    QVERIFY(theme);
    QCOMPARE(theme->domain, QLatin1Char('.') + kShop);
    // Qt WebEngine 6.4 seals a SameSite it cannot read as Lax (decision 0008).
    const QString strict =
        m_engine.keepsSameSite() ? QStringLiteral("Strict") : QStringLiteral("Lax");
    QCOMPARE(theme->sameSite, strict);
    QVERIFY(qAbs(theme->expires - inAnHour) <= 1.0);
    const auto server = cookie(QStringLiteral("server"));
    QVERIFY(server);
    QVERIFY(server->httpOnly && server->secure);
    QCOMPARE(server->sameSite, strict);
    const auto written = cookie(QStringLiteral("page"));
    QVERIFY(written);
    QVERIFY(!written->httpOnly && written->secure);
    QVERIFY(written->expires > double(QDateTime::currentSecsSinceEpoch()));
    QCOMPARE((*exported)->origins.size(), 1);
    QCOMPARE(
        (*exported)->origins.constFirst().localStorage,
        (QList<QPair<QString, QString>>{{QStringLiteral("draft"), QStringLiteral("hello draft")},
                                        {QStringLiteral("written"), QStringLiteral("by-page")}}));

    // Positive control: the browser still reaches the site after the export.
    const auto control = BrowserTestHarness::navigate(*fresh, url(QStringLiteral("/ok")));
    QVERIFY2(control.ok(), qPrintable(codeOf(control)));
    QVERIFY(m_harness.server().total() > beforeExport);
}

// A verification browser (docs/signin.md): navigate {until: content_loaded} answers once the
// document is parsed, and waitForNetworkIdle() then waits for a slow script and the page's own
// slow request before it answers idle; a request still unanswered keeps it from idle until its
// bound. Every placement alike.
void TestProviderContract::aVerificationBrowserWaitsForTheNetwork()
{
    fixtures::FixtureServer::Response script;
    script.contentType = "text/javascript";
    script.body = "document.getElementById('script').textContent = 'SCRIPT-RAN';";
    script.delayMs = 1200;
    m_harness.server().setRoute(QStringLiteral("/verify-slow.js"), script);
    fixtures::FixtureServer::Response api;
    api.contentType = "text/plain";
    api.body = "API-DONE";
    api.delayMs = 1500;
    m_harness.server().setRoute(QStringLiteral("/verify-api"), api);
    m_harness.page(QStringLiteral("/verify"),
                   "<!doctype html><title>Verify</title><p id=script>waiting</p><p id=api>"
                   "waiting</p><script async src=/verify-slow.js></script><script>"
                   "fetch('/verify-api').then(r => r.text()).then(t => "
                   "{document.getElementById('api').textContent = t;});</script>");
    fixtures::FixtureServer::Response endless; // answers long after the bound below
    endless.contentType = "text/plain";
    endless.delayMs = fixtures::FixtureServer::kMaxDelayMs;
    m_harness.server().setRoute(QStringLiteral("/verify-endless"), endless);
    m_harness.page(QStringLiteral("/verify-busy"),
                   "<!doctype html><title>Busy</title><p>Busy</p><script>"
                   "fetch('/verify-endless');</script>");

    std::unique_ptr<BrowserProvider> fresh = makeProvider({kShop});
    EngineUnderTest::observeNetwork(*fresh);
    m_engine.admitFor(fresh.get());
    const auto readmit = qScopeGuard([this] { m_engine.admitFor(m_provider.get()); });
    const auto load = [&fresh](const QUrl &address) {
        std::optional<Result<BrowserObservation>> loaded;
        fresh->navigate({address, NavigateRequest::Until::ContentLoaded},
                        [&loaded](Result<BrowserObservation> result) { loaded = result; });
        (void)runEventsUntil([&] { return loaded.has_value(); }, 40000);
        return loaded;
    };
    const auto idle = [&fresh](int boundMs) {
        std::optional<Result<bool>> answer;
        fresh->waitForNetworkIdle({.boundMs = boundMs, .quietMs = 500},
                                  [&answer](Result<bool> result) { answer = result; });
        (void)runEventsUntil([&] { return answer.has_value(); }, boundMs + 20000);
        return answer;
    };

    const auto parsed = load(url(QStringLiteral("/verify")));
    QVERIFY(parsed.has_value());
    QVERIFY2(parsed->ok(), qPrintable(codeOf(*parsed)));
    const auto quiet = idle(10000);
    QVERIFY(quiet.has_value());
    QVERIFY2(quiet->ok(), qPrintable(quiet->ok() ? QString() : quiet->error().code));
    QVERIFY(quiet->value()); // idle within the bound
    // Idle came after both: the page as it is now shows what each of them did.
    const auto page = BrowserTestHarness::observe(*fresh, {});
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QVERIFY2(page->text.contains(QLatin1String("SCRIPT-RAN")), qPrintable(page->text));
    QVERIFY2(page->text.contains(QLatin1String("API-DONE")), qPrintable(page->text));

    // A request still unanswered: not idle, at the bound.
    const auto busy = load(url(QStringLiteral("/verify-busy")));
    QVERIFY(busy.has_value() && busy->ok());
    QVERIFY(runEventsUntil(
        [this] { return m_harness.server().count(kShop, QStringLiteral("/verify-endless")) >= 1; },
        20000));
    const auto endlessIdle = idle(1500);
    QVERIFY(endlessIdle.has_value());
    QVERIFY2(endlessIdle->ok(),
             qPrintable(endlessIdle->ok() ? QString() : endlessIdle->error().code));
    QVERIFY(!endlessIdle->value());
}

// The egress proxy sees only the page's own requests: a browser started for this test, its
// first page and the seconds after, in which Chromium 156 was measured to ask Google's servers
// for account, update and time information on its own. Each tunnel the forwarder let open
// went to a host of the page. The positive control: a tunnel to a host no request went to is
// refused (Chromium) or recorded (Qt WebEngine) by the same forwarder.
void TestProviderContract::onlyThePagesRequestsLeave()
{
    const int refusedBefore = m_engine.forwarder().tunnelsRefused();
    m_engine.admitted().clear();
    {
        std::unique_ptr<BrowserProvider> fresh = makeProvider({kShop});
        m_engine.admitFor(fresh.get());
        const auto page = BrowserTestHarness::navigate(*fresh, url(QStringLiteral("/ok")));
        QVERIFY2(page.ok(), qPrintable(codeOf(page)));
        (void)runEventsUntil([] { return false; }, 3000);
        m_engine.admitFor(m_provider.get());
    }
    QVERIFY(!m_engine.admitted().isEmpty());
    for (const QString &tunnel : std::as_const(m_engine.admitted()))
        QVERIFY2(tunnel.startsWith(kShop + QLatin1Char(':')), qPrintable(tunnel));
    qInfo("tunnels refused by the admission: %d",
          m_engine.forwarder().tunnelsRefused() - refusedBefore);

    // The positive control.
    const int refusedNow = m_engine.forwarder().tunnelsRefused();
    QTcpSocket probe;
    probe.setProxy(QNetworkProxy::NoProxy);
    probe.connectToHost(QHostAddress::LocalHost, m_engine.forwarder().port());
    QVERIFY(probe.waitForConnected(5000));
    probe.write("CONNECT update.example.org:443 HTTP/1.1\r\n\r\n");
    if (m_engine.isChromium()) {
        QTRY_COMPARE(m_engine.forwarder().tunnelsRefused(), refusedNow + 1);
        QVERIFY(!m_engine.admitted().contains(QStringLiteral("update.example.org:443")));
    } else {
        QTRY_VERIFY(m_engine.admitted().contains(QStringLiteral("update.example.org:443")));
    }
}

// Web-platform features shipped in Chromium 103-136, each detected by the page itself (the
// version that shipped it in the comment). The Chromium placement reports every one; Qt
// WebEngine 6.4 (Chromium 102 with later security fixes) none, as docs/architecture.md says.
namespace {
const char kWebPlatformPage[] = R"(<!doctype html><title>Platform</title><ul id=out></ul><script>
const css = (p, v) => { try { return v === undefined ? CSS.supports(p) : CSS.supports(p, v); }
                        catch (e) { return false; } };
const checks = {
  'has-selector': () => css('selector(:has(a))'),                               // 105
  'container-queries': () => css('container-type', 'inline-size'),              // 105
  'check-visibility': () => 'checkVisibility' in Element.prototype,             // 105
  'small-viewport-units': () => css('height', '1svh'),                          // 108
  'array-to-sorted': () => typeof Array.prototype.toSorted === 'function',      // 110
  'array-with': () => typeof Array.prototype.with === 'function',               // 110
  'view-transitions': () => 'startViewTransition' in document,                  // 111
  'color-mix': () => css('color', 'color-mix(in srgb, red, blue)'),             // 111
  'oklch': () => css('color', 'oklch(50% 0.1 100)'),                            // 111
  'nth-child-of': () => css('selector(:nth-child(1 of .a))'),                   // 111
  'string-is-well-formed': () => typeof ''.isWellFormed === 'function',         // 111
  'popover': () => HTMLElement.prototype.hasOwnProperty('popover'),             // 114
  'text-wrap-balance': () => css('text-wrap', 'balance'),                       // 114
  'scroll-timeline': () => css('animation-timeline', 'scroll()'),               // 115
  'object-group-by': () => typeof Object.groupBy === 'function',                // 117
  'map-group-by': () => typeof Map.groupBy === 'function',                      // 117
  'transition-behavior': () => css('transition-behavior', 'allow-discrete'),    // 117
  'promise-with-resolvers': () => typeof Promise.withResolvers === 'function',  // 119
  'user-valid': () => css('selector(:user-valid)'),                             // 119
  'url-can-parse': () => typeof URL.canParse === 'function',                    // 120
  'array-from-async': () => typeof Array.fromAsync === 'function',              // 121
  'set-union': () => typeof Set.prototype.union === 'function',                 // 122
  'iterator-helpers': () => typeof Iterator === 'function' &&
                            typeof Iterator.prototype.map === 'function',      // 122
  'field-sizing': () => css('field-sizing', 'content'),                         // 123
  'promise-try': () => typeof Promise.try === 'function',                       // 128
  'interpolate-size': () => css('interpolate-size', 'allow-keywords'),          // 129
  'float16-array': () => typeof Float16Array === 'function',                    // 135
  'regexp-escape': () => typeof RegExp.escape === 'function',                   // 136
};
const out = document.getElementById('out');
for (const [name, check] of Object.entries(checks)) {
  let ok = false;
  try { ok = check() === true; } catch (e) { ok = false; }
  const li = document.createElement('li');
  li.textContent = 'feature ' + name + ' ' + (ok ? 'yes' : 'no');
  out.appendChild(li);
}
</script>)";
} // namespace

void TestProviderContract::theEngineKnowsTheCurrentWebPlatform()
{
    m_harness.page(QStringLiteral("/platform"), kWebPlatformPage);
    const auto page = BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/platform")));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    QStringList supported;
    QStringList missing;
    static const QRegularExpression line(QStringLiteral("feature ([a-z0-9-]+) (yes|no)"));
    for (auto it = line.globalMatch(page->text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        (match.captured(2) == QLatin1String("yes") ? supported : missing) << match.captured(1);
    }
    QCOMPARE(supported.size() + missing.size(), 28); // every check answered
    qInfo("%s supports %lld of %lld: missing %s", qPrintable(m_engine.name()),
          qlonglong(supported.size()), qlonglong(supported.size() + missing.size()),
          qPrintable(missing.join(QLatin1Char(' '))));
    if (m_engine.isChromium()) {
        QCOMPARE(missing, QStringList());
    } else {
        // Measured on Qt WebEngine 6.4.2 (Debian 12): none of them (docs/architecture.md).
        QCOMPARE(supported, QStringList());
    }
}

// --- browser.act ------------------------------------------------------------------------------

// A provider with no dispatch gate refuses every act before any input: no ledger saw it
// start, so it must not happen. The same click with the gate back reaches the site once.
void TestProviderContract::actWithoutAGateSendsNothing()
{
    m_harness.page(QStringLiteral("/ungated"),
                   "<!doctype html><title>Ungated</title><button id=b>Pay</button><script>"
                   "b.onclick = () => fetch('/effect', {method: 'POST', body: 'paid'});</script>");
    const auto page = open(QStringLiteral("/ungated"));
    QVERIFY(page.ok());
    const QString pay = refOf(*page, QStringLiteral("button"), QStringLiteral("Pay"));
    m_provider->clearDispatchGate(this);
    EXPECT_CODE(act(ActRequest::click(page->revision, pay)), "tool.browser.provider_unavailable");

    // The positive control: the same click, gated, arrives; nothing came before it.
    BrowserTestHarness::admitEveryDispatch(*m_provider, this);
    const auto again = open(QStringLiteral("/ungated"));
    QVERIFY(again.ok());
    QVERIFY(act(ActRequest::click(again->revision,
                                  refOf(*again, QStringLiteral("button"), QStringLiteral("Pay"))))
                .ok());
    QTRY_COMPARE(m_harness.server().bodies(QStringLiteral("/effect")), QList<QByteArray>{"paid"});
}

void TestProviderContract::clickIsTrustedAndSendsOnce()
{
    m_harness.page(QStringLiteral("/click"),
                   "<!doctype html><title>Click</title><button id=b>Pay</button><script>"
                   "b.addEventListener('click', e => { fetch('/effect', {method: 'POST', "
                   "body: 'click trusted=' + e.isTrusted + ' x=' + (e.clientX > 0)}); "
                   "document.title = 'clicked'; });</script>");
    const auto page = open(QStringLiteral("/click"));
    QVERIFY(page.ok());
    const QString ref = refOf(*page, QStringLiteral("button"), QStringLiteral("Pay"));
    QVERIFY(!ref.isEmpty());
    const auto result = act(ActRequest::click(page->revision, ref));
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().code));
    QCOMPARE(result->title, QStringLiteral("clicked"));
    QVERIFY(result->readiness.has_value());
    QVERIFY(result->revision != page->revision);
    QCOMPARE(result->action->kind, QStringLiteral("click"));
    QVERIFY(result->action->dispatched);
    QCOMPARE(currentRevision(), result->revision);
    // Settling waited for the request the click started: it is already at the server.
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/effect")),
             QList<QByteArray>{"click trusted=true x=true"});
    pageFetchesControl();
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/effect")), 1);
    // The old revision is retired.
    EXPECT_CODE(act(ActRequest::click(page->revision, ref)), "tool.browser.page_changed");
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/effect")), 1);
}

// A form's POST whose answer the site loses (the connection reset after the request arrived)
// reaches the site once: the browser must not send it again on a connection of its own
// choosing. Chromium resends a request that failed on a "reused" socket, and a socket its
// network prediction opened ahead of the submission counts as reused; the Chromium placement
// turns the prediction off (decision 0005). The act's outcome is whatever the engine saw; the
// count at the site is the rule.
void TestProviderContract::aWriteWhoseAnswerIsLostIsSentOnce()
{
    m_harness.page(QStringLiteral("/lost-form"),
                   "<!doctype html><title>Preferences</title><form method=post action=/lost>"
                   "<input type=hidden name=shipping value=on><button>Save preferences</button>"
                   "</form>");
    fixtures::FixtureServer::Response lost;
    lost.resetAfterRequest = true;
    m_harness.server().setRoute(QStringLiteral("/lost"), lost);
    const auto page = open(QStringLiteral("/lost-form"));
    QVERIFY(page.ok());
    const QString save = refOf(*page, QStringLiteral("button"), QStringLiteral("Save preferences"));
    QVERIFY(!save.isEmpty());
    // The gate as the browser host opens it: the keep-alive tunnels no request waits on are
    // retired, and their closes reach the browser's sockets before the act's first input.
    EgressProxy *proxy = m_harness.egressProxy();
    QVERIFY(proxy);
    m_provider->setDispatchGate(
        [this, proxy](const ActRequest &, GateAnswer answer) {
            proxy->retireIdleTunnels();
            m_engine.forwarder().propagateProxyCloses();
            answer(true);
        },
        this);
    const auto result = act(ActRequest::click(page->revision, save), 30000);
    QVERIFY2(result.ok() || result.error().code != QLatin1String("test.timeout"),
             "the act never answered");
    QTRY_VERIFY(m_harness.server().count(kShop, QStringLiteral("/lost")) >= 1);
    // The positive control: a page loaded after the act, through the same browser, arrives;
    // every resend the engine would make was made before it.
    QVERIFY(BrowserTestHarness::navigate(*m_provider, url(QStringLiteral("/next"))).ok());
    QTRY_COMPARE(m_harness.server().count(kShop, QStringLiteral("/next")), 1);
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/lost")), QList<QByteArray>{"shipping=on"});
}

// After an act, settling counts its quiet from the input and from the last request: a request
// the click starts a little later (or one the request stage hears of late) is waited for, and a
// page that moves itself once its request answered ("Log out": fetch, then location) is
// followed, so the act answers with the page it led to.
void TestProviderContract::anActWaitsForALateRequestAndThePagesOwnMove()
{
    m_harness.page(QStringLiteral("/late"),
                   "<!doctype html><title>Editor</title><button id=s>Save</button>"
                   "<button id=o>Log out</button><script>"
                   "s.addEventListener('click', () => setTimeout(() => fetch('/late-effect', "
                   "{method: 'POST', body: 'late'}), 60));"
                   "o.addEventListener('click', () => fetch('/logout', {method: 'POST', "
                   "body: 'out'}).finally(() => { location.href = '/signed-out'; }));</script>");
    m_harness.page(QStringLiteral("/signed-out"),
                   "<!doctype html><title>Signed out</title><p>Goodbye</p>");
    fixtures::FixtureServer::Response answer;
    answer.body = "ok";
    answer.delayMs = 150;
    m_harness.server().setRoute(QStringLiteral("/logout"), answer);
    const auto page = open(QStringLiteral("/late"));
    QVERIFY(page.ok());
    const auto saved = act(ActRequest::click(
        page->revision, refOf(*page, QStringLiteral("button"), QStringLiteral("Save"))));
    QVERIFY2(saved.ok(), saved.ok() ? "" : qPrintable(saved.error().code));
    // The request the click started 60 ms after the input reached the site before the answer.
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/late-effect")), QList<QByteArray>{"late"});
    const auto out = act(ActRequest::click(
        saved->revision, refOf(*saved, QStringLiteral("button"), QStringLiteral("Log out"))));
    QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error().code));
    QCOMPARE(out->title, QStringLiteral("Signed out"));
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/logout")), QList<QByteArray>{"out"});
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/signed-out")),
             1);
    pageFetchesControl();
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/late-effect")),
             1);
}

void TestProviderContract::typeReplacesTheValue()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    const QString query = refOf(*page, QStringLiteral("textbox"), QStringLiteral("Query"));
    const QString note = refOf(*page, QStringLiteral("textbox"), QStringLiteral("Note"));
    QVERIFY(!query.isEmpty() && !note.isEmpty());
    const auto typed = act(ActRequest::type(page->revision, query, QStringLiteral("new é text")));
    QVERIFY2(typed.ok(), typed.ok() ? "" : qPrintable(typed.error().code));
    QCOMPARE(typed->action->kind, QStringLiteral("type"));
    QVERIFY(!typed->text.contains(QStringLiteral("new é text"))); // values are never read
    QVERIFY(!typed->confirmedDraft); // only rich-text editors keep a receipt
    const auto typedNote = act(ActRequest::type(
        typed->revision, refOf(*typed, QStringLiteral("textbox"), QStringLiteral("Note")),
        QStringLiteral("line")));
    QVERIFY2(typedNote.ok(), typedNote.ok() ? "" : qPrintable(typedNote.error().code));
    QCOMPARE(m_harness.server().total(), 0); // typing posts nothing by itself
    const auto sent = act(ActRequest::click(
        typedNote->revision, refOf(*typedNote, QStringLiteral("button"), QStringLiteral("Send"))));
    QVERIFY2(sent.ok(), sent.ok() ? "" : qPrintable(sent.error().code));
    QCOMPARE(sent->title, QStringLiteral("Thanks"));
    const QList<QByteArray> posted = m_harness.server().bodies(QStringLiteral("/submit"));
    QCOMPARE(posted.size(), 1);
    QVERIFY2(posted.first().startsWith("q=new+%C3%A9+text&t=line&s=s&"),
             posted.first().constData());
    QVERIFY2(posted.first().contains("&trusted=qtrue%3Bttrue%3B&"), posted.first().constData());
}

void TestProviderContract::typeEmptyClearsTheValue()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    const auto typed = act(ActRequest::type(
        page->revision, refOf(*page, QStringLiteral("textbox"), QStringLiteral("Query")), {}));
    QVERIFY2(typed.ok(), typed.ok() ? "" : qPrintable(typed.error().code));
    const auto sent = act(ActRequest::click(
        typed->revision, refOf(*typed, QStringLiteral("button"), QStringLiteral("Send"))));
    QVERIFY2(sent.ok(), qPrintable(codeOf(sent)));
    const QList<QByteArray> posted = m_harness.server().bodies(QStringLiteral("/submit"));
    QCOMPARE(posted.size(), 1);
    QVERIFY2(posted.first().startsWith("q=&t=prior+note&"), posted.first().constData());
}

void TestProviderContract::selectByValueThenLabel()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    const QString size = refOf(*page, QStringLiteral("combobox"), QStringLiteral("Size"));
    QVERIFY(!size.isEmpty());
    // By label, white space collapsed ("Medium\n   size").
    const auto selected =
        act(ActRequest::select(page->revision, size, QStringLiteral("Medium size")));
    QVERIFY2(selected.ok(), selected.ok() ? "" : qPrintable(selected.error().code));
    QCOMPARE(selected->action->kind, QStringLiteral("select"));
    // An option that does not exist is never actionable: nothing changes, nothing is sent.
    setTrialMs(800);
    EXPECT_CODE(
        act(ActRequest::select(selected->revision,
                               refOf(*selected, QStringLiteral("combobox"), QStringLiteral("Size")),
                               QStringLiteral("Large"))),
        "tool.browser.element_not_found");
    setTrialMs(5000);
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY(again.ok());
    const auto sent = act(ActRequest::click(
        again->revision, refOf(*again, QStringLiteral("button"), QStringLiteral("Send"))));
    QVERIFY2(sent.ok(), qPrintable(codeOf(sent)));
    const QList<QByteArray> posted = m_harness.server().bodies(QStringLiteral("/submit"));
    QCOMPARE(posted.size(), 1);
    QVERIFY2(posted.first().contains("&s=m&"), posted.first().constData());
    QVERIFY2(posted.first().contains("&changed=yes&"), posted.first().constData());

    // By value.
    const auto page2 = open(QStringLiteral("/form"));
    QVERIFY(page2.ok());
    const auto byValue = act(ActRequest::select(
        page2->revision, refOf(*page2, QStringLiteral("combobox"), QStringLiteral("Size")),
        QStringLiteral("m")));
    QVERIFY(byValue.ok());
    const auto sent2 = act(ActRequest::click(
        byValue->revision, refOf(*byValue, QStringLiteral("button"), QStringLiteral("Send"))));
    QVERIFY2(sent2.ok(), qPrintable(codeOf(sent2)));
    QVERIFY(m_harness.server().bodies(QStringLiteral("/submit")).first().contains("&s=m&"));
}

void TestProviderContract::checkClicksOnlyWhenTheStateDiffers()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    const auto checkedOn = act(ActRequest::check(
        page->revision, refOf(*page, QStringLiteral("checkbox"), QStringLiteral("Gift")), true));
    QVERIFY2(checkedOn.ok(), checkedOn.ok() ? "" : qPrintable(checkedOn.error().code));
    QVERIFY(checkedOn->action->dispatched);
    const QString gift = refOf(*checkedOn, QStringLiteral("checkbox"), QStringLiteral("Gift"));
    QVERIFY(std::any_of(checkedOn->elements.cbegin(), checkedOn->elements.cend(),
                        [&](const ElementRecord &e) {
                            return e.ref == gift && e.state.checked == CheckedState::True;
                        }));
    // Already checked: nothing is sent.
    const auto unchanged = act(ActRequest::check(checkedOn->revision, gift, true));
    QVERIFY(unchanged.ok());
    QVERIFY(!unchanged->action->dispatched);
    const auto sent = act(ActRequest::click(
        unchanged->revision, refOf(*unchanged, QStringLiteral("button"), QStringLiteral("Send"))));
    QVERIFY2(sent.ok(), qPrintable(codeOf(sent)));
    const QList<QByteArray> posted = m_harness.server().bodies(QStringLiteral("/submit"));
    QCOMPARE(posted.size(), 1);
    QVERIFY2(posted.first().contains("&c=on&"), posted.first().constData());
    QVERIFY2(posted.first().endsWith("&clicks=1true"), posted.first().constData());
}

void TestProviderContract::pressEnterSubmitsOnce()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    const auto pressed = act(ActRequest::press(
        page->revision, refOf(*page, QStringLiteral("textbox"), QStringLiteral("Query")),
        ActRequest::Key::Enter));
    QVERIFY2(pressed.ok(), pressed.ok() ? "" : qPrintable(pressed.error().code));
    QCOMPARE(pressed->title, QStringLiteral("Thanks"));
    QVERIFY(pressed->url.path() == QStringLiteral("/submit"));
    QCOMPARE(pressed->readiness, Readiness::DomQuiet);
    pageFetchesControl();
    const QList<QByteArray> posted = m_harness.server().bodies(QStringLiteral("/submit"));
    QCOMPARE(posted.size(), 1);
    QVERIFY2(posted.first().startsWith("q=old+value&"), posted.first().constData());
}

void TestProviderContract::scrollReportsTheMeasuredDistance()
{
    m_harness.page(QStringLiteral("/scroll"),
                   "<!doctype html><title>Scroll</title><button>Top</button>"
                   "<div style='height:5000px'></div>"
                   "<div id=box style='height:200px;overflow:auto'>"
                   "<div style='height:1000px'><button>Inner</button></div></div>");
    const auto page = open(QStringLiteral("/scroll"));
    QVERIFY(page.ok());
    const auto down = act(ActRequest::scroll(
        page->revision, refOf(*page, QStringLiteral("button"), QStringLiteral("Top")), 400));
    QVERIFY2(down.ok(), down.ok() ? "" : qPrintable(down.error().code));
    QCOMPARE(down->action->kind, QStringLiteral("scroll"));
    QCOMPARE(down->action->scrolledPx, std::optional<int>(400));
    const auto up = act(ActRequest::scroll(
        down->revision, refOf(*down, QStringLiteral("button"), QStringLiteral("Top")), -2000));
    QVERIFY(up.ok());
    QCOMPARE(up->action->scrolledPx, std::optional<int>(-400)); // measured: only 400 to go
    // An element inside a scroll container scrolls the container: 1000 - 200 at most.
    const auto inner = act(ActRequest::scroll(
        up->revision, refOf(*up, QStringLiteral("button"), QStringLiteral("Inner")), 2000));
    QVERIFY(inner.ok());
    QCOMPARE(inner->action->scrolledPx, std::optional<int>(800));
    QCOMPARE(m_harness.server().total(), 0);
}

void TestProviderContract::clickFollowsAnAllowedNavigation()
{
    m_harness.page(QStringLiteral("/links"),
                   "<!doctype html><title>Links</title><a href=/next>Next</a>");
    const auto page = open(QStringLiteral("/links"));
    QVERIFY(page.ok());
    const auto result = act(ActRequest::click(
        page->revision, refOf(*page, QStringLiteral("link"), QStringLiteral("Next"))));
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().code));
    QCOMPARE(result->title, QStringLiteral("Next"));
    QCOMPARE(result->url.path(), QStringLiteral("/next"));
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/next")), 1);
}

void TestProviderContract::staleRevisionAndUnknownRefSendNothing()
{
    m_harness.page(QStringLiteral("/counted"),
                   "<!doctype html><title>Counted</title><button id=b>Pay</button><script>"
                   "b.onclick = () => fetch('/effect', {method: 'POST', body: 'x'});</script>");
    const auto first = open(QStringLiteral("/counted"));
    QVERIFY(first.ok());
    const auto second = BrowserTestHarness::observe(*m_provider);
    QVERIFY(second.ok());
    const QString oldRef = refOf(*first, QStringLiteral("button"), QStringLiteral("Pay"));
    const QString ref = refOf(*second, QStringLiteral("button"), QStringLiteral("Pay"));
    EXPECT_CODE(act(ActRequest::click(first->revision, ref)), "tool.browser.page_changed");
    EXPECT_CODE(act(ActRequest::click(second->revision, oldRef)), "tool.browser.page_changed");
    EXPECT_CODE(act(ActRequest::click(second->revision, QStringLiteral("nope.0"))),
                "tool.browser.page_changed");
    EXPECT_CODE(act(ActRequest::type(QStringLiteral("forged"), ref, QStringLiteral("x"))),
                "tool.browser.page_changed");
    // The refusals kept the revision: the same action now goes through, once.
    QCOMPARE(currentRevision(), second->revision);
    pageFetchesControl();
    QCOMPARE(m_harness.server().total(), 1); // the control alone
    QVERIFY(act(ActRequest::click(second->revision, ref)).ok());
    // On a loaded machine Chromium may report the click's fetch after the act settled: it
    // reaches the site a moment later, once.
    pageFetchesControl();
    QTRY_COMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/effect")),
                 1);
}

void TestProviderContract::regionRefIsNotActionable()
{
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    QVERIFY(!page->regions.isEmpty());
    for (const RegionRecord &region : page->regions) {
        EXPECT_CODE(act(ActRequest::click(page->revision, region.ref)),
                    "tool.browser.region_not_actionable");
    }
    QCOMPARE(m_harness.server().total(), 0);
    QCOMPARE(currentRevision(), page->revision);
}

void TestProviderContract::secretFieldsRefuseTyping()
{
    m_harness.page(QStringLiteral("/late-secret"),
                   "<!doctype html><title>Late</title><form method=post action=/submit>"
                   "<input name=x aria-label=Plain><button>Send</button></form>");
    const auto page = open(QStringLiteral("/form"));
    QVERIFY(page.ok());
    for (const QString &name :
         {QStringLiteral("Password"), QStringLiteral("Code"), QStringLiteral("New secret")}) {
        const QString ref = refOf(*page, QStringLiteral("textbox"), name);
        QVERIFY2(!ref.isEmpty(), qPrintable(name));
        EXPECT_CODE(act(ActRequest::type(page->revision, ref, QStringLiteral("hunter2"))),
                    "tool.browser.action_not_allowed");
    }
    // A field that became a password field after the observation is refused in the page.
    const auto late = open(QStringLiteral("/late-secret"));
    QVERIFY(late.ok());
    const auto changed = std::make_shared<bool>(false);
    runCollectorScript(
        QStringLiteral("(function(){document.forms[0].x.type='password';return '{}';})()"),
        [changed](std::optional<QJsonObject> r) { *changed = r.has_value(); });
    QTRY_VERIFY(*changed);
    EXPECT_CODE(
        act(ActRequest::type(late->revision,
                             refOf(*late, QStringLiteral("textbox"), QStringLiteral("Plain")),
                             QStringLiteral("hunter2"))),
        "tool.browser.action_not_allowed");
    pageFetchesControl();
    QCOMPARE(m_harness.server().total(), 1); // the control alone
}

void TestProviderContract::disabledCoveredAndDetachedSendNothing()
{
    m_harness.page(
        QStringLiteral("/blocked"),
        "<!doctype html><title>Blocked</title>"
        "<button id=d disabled>Disabled</button>"
        "<button id=c>Covered</button><button id=g>Gone</button>"
        "<div style='position:fixed;left:0;top:0;width:100%;height:100%;z-index:9'>overlay</div>"
        "<script>for (const b of document.querySelectorAll('button'))"
        " b.addEventListener('click', () => fetch('/effect', {method: 'POST', body: b.id}));"
        "d.disabled = true;</script>");
    const auto page = open(QStringLiteral("/blocked"));
    QVERIFY(page.ok());
    setTrialMs(1500);
    EXPECT_CODE(act(ActRequest::click(page->revision, refOf(*page, QStringLiteral("button"),
                                                            QStringLiteral("Disabled")))),
                "tool.browser.element_not_found");
    EXPECT_CODE(act(ActRequest::click(page->revision, refOf(*page, QStringLiteral("button"),
                                                            QStringLiteral("Covered")))),
                "tool.browser.element_not_found");
    const auto removed = std::make_shared<bool>(false);
    runCollectorScript(
        QStringLiteral("(function(){document.getElementById('g').remove();return '{}';})()"),
        [removed](std::optional<QJsonObject> r) { *removed = r.has_value(); });
    QTRY_VERIFY(*removed);
    EXPECT_CODE(act(ActRequest::click(page->revision, refOf(*page, QStringLiteral("button"),
                                                            QStringLiteral("Gone")))),
                "tool.browser.element_not_found");
    pageFetchesControl();
    QCOMPARE(m_harness.server().total(), 1); // the control alone
    // Nothing was sent, so the revision is still current.
    QCOMPARE(currentRevision(), page->revision);
}

void TestProviderContract::popupsAndDisallowedNavigationsLeaveThePage()
{
    m_harness.page(QStringLiteral("/popups"),
                   "<!doctype html><title>Popups</title>"
                   "<a href=/popup-target target=_blank>Blank</a>"
                   "<button onclick=\"window.open('/popup-target')\">Open</button>"
                   "<a id=evil>Elsewhere</a><script>document.getElementById('evil').href = "
                   "location.origin.replace('shop.test', 'evil.test') + '/popup-target';</script>");
    const auto page = open(QStringLiteral("/popups"));
    QVERIFY(page.ok());
    const auto blank = act(ActRequest::click(
        page->revision, refOf(*page, QStringLiteral("link"), QStringLiteral("Blank"))));
    QVERIFY2(blank.ok(), blank.ok() ? "" : qPrintable(blank.error().code));
    QCOMPARE(blank->title, QStringLiteral("Popups"));
    const auto opened = act(ActRequest::click(
        blank->revision, refOf(*blank, QStringLiteral("button"), QStringLiteral("Open"))));
    QVERIFY2(opened.ok(), opened.ok() ? "" : qPrintable(opened.error().code));
    QCOMPARE(opened->title, QStringLiteral("Popups"));
    const auto elsewhere = act(ActRequest::click(
        opened->revision, refOf(*opened, QStringLiteral("link"), QStringLiteral("Elsewhere"))));
    QVERIFY2(elsewhere.ok(), elsewhere.ok() ? "" : qPrintable(elsewhere.error().code));
    QCOMPARE(elsewhere->title, QStringLiteral("Popups"));
    QCOMPARE(elsewhere->url.path(), QStringLiteral("/popups"));
    pageFetchesControl();
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/popup-target")),
             0);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

VEETBOT_BROWSER_TEST_MAIN(TestProviderContract)
#include "tst_contract.moc"
