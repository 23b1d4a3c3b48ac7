// The write guard on every placement (CTest runs it once per engine: tst_writeguard_qtwebengine,
// tst_writeguard_chromium; real browsers, traffic through the egress proxy): under ordinary
// interaction every request that can write is refused at the request
// stage, whatever the control is called, and the act ends
// tool.browser.write_requires_approval with nothing sent; reading controls run; a beacon is
// dropped without failing the act; the same controls, approved, reach the site exactly once.
// The fixtures are shaped like real applications: operations in the query string, generic
// "Save changes"/"Confirm"/"Move" POST forms, a rollback link carrying a token, a "Log out"
// link whose script posts to an API and then navigates, script-driven writes, an image GET
// that performs an operation, and a single-page application reading over POST /graphql.
// Every "nothing arrived" check is closed by a positive control that must arrive after it.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "EngineUnderTest.h"
#include "EventWait.h"
#include "domain/authority/GrantCoverage.h"

#include <QApplication>
#include <QJsonObject>
#include <QTest>
#include <QUrlQuery>

#include <memory>
#include <optional>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

// A page of a wiki-shaped application: every page is /w/index.php with its operation in the
// query string, as MediaWiki's are. The writing controls are driven by script, so no word and
// no target tells the classifier what they do: only the request stage can.
const QByteArray kWikiPage = R"(<!doctype html><title>Sandbox</title>
<h1>Sandbox</h1>
<nav>
 <a href="/w/index.php?title=Sandbox&amp;action=edit" title="Edit this page [alt-shift-e]">Edit</a>
 <a href="/w/index.php?title=Sandbox&amp;action=history">History</a>
</nav>
<div role=tablist><button role=tab aria-selected=true id=t1>Article</button><button role=tab id=t2>Talk</button></div>
<div id=panel>Article text</div>
<details><summary>More options</summary><p>Hidden options</p></details>
<form action="/w/index.php" method=get><input type=hidden name=title value=Special:Search>
 <input type=search name=search aria-label="Search the wiki"><button>Go</button></form>
<form id=edit method=post action="/w/index.php?title=Sandbox&amp;action=submit" hidden>
 <input type=hidden name=wpEditToken value="abc123"></form>
<form id=move method=post action="/w/index.php?title=Special:MovePage" hidden>
 <input type=hidden name=to value="Elsewhere"></form>
<button id=store>Store</button>
<button id=done>Done</button>
<button id=back>Go back</button>
<button id=earlier>Earlier version</button>
<button id=leave>Leave</button>
<button id=thanks>Thanks</button>
<button id=star>Star</button>
<button id=later>Later</button>
<button id=tell>Tell</button>
<script>
 t2.onclick = () => { t1.removeAttribute('aria-selected'); t2.setAttribute('aria-selected', 'true');
                      panel.textContent = 'Talk text'; };
 store.onclick = () => document.getElementById('edit').submit();
 done.onclick = () => document.getElementById('move').submit();
 back.onclick = () => { location.href =
   '/w/index.php?title=Sandbox&action=rollback&from=Editor&token=9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e%2B%5C'; };
 earlier.onclick = () => { location.href = '/w/index.php?title=Sandbox&action=undo&undoafter=10&undo=11'; };
 leave.onclick = () => { fetch('/api/logout', {method: 'POST'})
   .finally(() => { location.href = '/w/index.php?title=Main'; }); };
 thanks.onclick = () => fetch('/api/thank', {method: 'POST', body: 'rev=11'});
 star.onclick = () => { new Image().src = '/api/star?action=watch&title=Sandbox'; };
 later.onclick = () => document.addEventListener('later', () => {
   fetch('/api/autosave', {method: 'PUT', body: 'x'});
   fetch('/later-fired');
 }, {once: true});
 tell.onclick = () => { navigator.sendBeacon('/beacon', 'clicked'); panel.textContent = 'Told'; };
</script>)";

// A single-page application that reads over POST /graphql.
const QByteArray kAppPage = R"(<!doctype html><title>App</title>
<h1>Inbox</h1>
<button id=inbox>Inbox</button> <button id=starred>Starred</button> <button id=recent>Recent</button>
<button id=fav>Favourite</button>
<form method=post action=/search><input name=q aria-label="Search mail"><button>Find</button></form>
<div id=list>loading</div>
<script>
 const gql = (body) => fetch('/graphql', {method: 'POST',
   headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
 const track = () => navigator.sendBeacon('/collect', 'click');
 document.addEventListener('click', track, true);
 gql({query: 'query Boot { me { id } }'});
 inbox.onclick = () => gql({query: 'query Inbox { messages { id } }'});
 starred.onclick = () => gql({query: '{ starred { id } }'});
 recent.onclick = () => fetch('/api/recent?after=eyJpZCI6MTIzNDU2Nzg5MH0x&limit=20');
 fav.onclick = () => gql({query: 'mutation Star { star(id: 1) { id } }'});
</script>)";

int countMethod(fixtures::FixtureServer &server, const QString &method, const QString &path)
{
    int n = 0;
    for (const auto &request : server.requests()) {
        if (request.method == method && request.path == path)
            ++n;
    }
    return n;
}

int countQuery(fixtures::FixtureServer &server, const QString &path, const QString &needle)
{
    int n = 0;
    for (const auto &request : server.requests()) {
        if (request.path == path && request.query.contains(needle))
            ++n;
    }
    return n;
}

} // namespace

class TestWriteGuard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void readingControlsRun();
    void writesAreRefusedWhateverTheControlIsCalled_data();
    void writesAreRefusedWhateverTheControlIsCalled();
    void aWriteAfterTheActIsRefusedToo();
    void aBeaconIsDroppedAndTheActGoesOn();
    void aSinglePageApplication();
    void namesReadAsDisplayed();

private:
    Result<BrowserObservation> open(const QString &pathAndQuery);
    Result<BrowserObservation> act(const ActRequest &request, bool ordinary, int timeoutMs = 40000);
    // The page fetches /control, which must arrive after anything it sent before.
    void pageFetchesControl();

    void runCollectorScript(const QString &source)
    {
        EngineUnderTest::runCollectorScript(*m_provider, source, [](std::optional<QJsonObject>) {});
    }

    BrowserTestHarness m_harness;
    EngineUnderTest m_engine;
    std::unique_ptr<BrowserProvider> m_provider;
};

void TestWriteGuard::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    QVERIFY2(m_engine.start(m_harness, &error), qPrintable(error));
    m_harness.page(QStringLiteral("/w/index.php"), kWikiPage);
    m_harness.page(QStringLiteral("/app"), kAppPage);
    for (const char *path : {"/api/logout", "/api/thank", "/api/star", "/api/autosave", "/beacon",
                             "/collect", "/control", "/search", "/api/recent"})
        m_harness.page(QString::fromLatin1(path), "ok");
    fixtures::FixtureServer::Response json;
    json.contentType = "application/json";
    json.body = R"({"data":{}})";
    m_harness.server().setRoute(QStringLiteral("/graphql"), json);
    m_provider = m_engine.makeProvider(m_harness.policy({QStringLiteral("shop.test")}),
                                       m_harness.overrides());
    m_engine.admitFor(m_provider.get());
}

void TestWriteGuard::cleanupTestCase()
{
    m_engine.admitFor(nullptr);
    m_provider.reset();
}

void TestWriteGuard::init()
{
    BrowserTestHarness::admitEveryDispatch(*m_provider, this);
    m_harness.server().resetCounters();
}

Result<BrowserObservation> TestWriteGuard::open(const QString &pathAndQuery)
{
    auto result = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), pathAndQuery));
    return result;
}

Result<BrowserObservation> TestWriteGuard::act(const ActRequest &request, bool ordinary,
                                               int timeoutMs)
{
    return BrowserTestHarness::act(*m_provider, request, ordinary, timeoutMs);
}

void TestWriteGuard::pageFetchesControl()
{
    const int before =
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/control"));
    runCollectorScript(
        QStringLiteral("(function(){fetch('/control');return JSON.stringify({ok:true});})()"));
    QTRY_COMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/control")),
                 before + 1);
}

#define EXPECT_CODE(result, expected)                                                              \
    do {                                                                                           \
        const auto actual_ = (result);                                                             \
        QVERIFY2(!actual_.ok(), "the action succeeded");                                           \
        QCOMPARE(actual_.error().code, QLatin1String(expected));                                   \
    } while (false)

// Links that only read (an operation that reads, the history), a tab, an expander, typing and
// a GET search form all run under ordinary interaction; each reached the site as a GET.
void TestWriteGuard::readingControlsRun()
{
    const QString page = QStringLiteral("/w/index.php?title=Sandbox");
    auto wiki = open(page);
    QVERIFY(wiki.ok());
    // The name is the link's content, not its tooltip (accname 1.2).
    const QString edit = refOf(*wiki, QStringLiteral("link"), QStringLiteral("Edit"));
    QVERIFY2(!edit.isEmpty(), "the Edit link is named by its content");
    auto edited = act(ActRequest::click(wiki->revision, edit).value(), true);
    QVERIFY2(edited.ok(), edited.ok() ? "" : qPrintable(edited.error().code));
    QCOMPARE(countQuery(m_harness.server(), QStringLiteral("/w/index.php"),
                        QStringLiteral("action=edit")),
             1);

    wiki = open(page);
    QVERIFY(wiki.ok());
    auto history = act(ActRequest::click(wiki->revision, refOf(*wiki, QStringLiteral("link"),
                                                               QStringLiteral("History")))
                           .value(),
                       true);
    QVERIFY2(history.ok(), history.ok() ? "" : qPrintable(history.error().code));

    wiki = open(page);
    QVERIFY(wiki.ok());
    auto tab = act(ActRequest::click(wiki->revision,
                                     refOf(*wiki, QStringLiteral("tab"), QStringLiteral("Talk")))
                       .value(),
                   true);
    QVERIFY2(tab.ok(), tab.ok() ? "" : qPrintable(tab.error().code));
    auto expander = act(ActRequest::click(tab->revision, refOf(*tab, QStringLiteral("button"),
                                                               QStringLiteral("More options")))
                            .value(),
                        true);
    QVERIFY2(expander.ok(), expander.ok() ? "" : qPrintable(expander.error().code));
    auto typed = act(ActRequest::type(expander->revision,
                                      refOf(*expander, QStringLiteral("searchbox"),
                                            QStringLiteral("Search the wiki")),
                                      QStringLiteral("bread"))
                         .value(),
                     true);
    QVERIFY2(typed.ok(), typed.ok() ? "" : qPrintable(typed.error().code));
    // Enter in a field is a submission whose target a field does not carry; the form's
    // button carries it.
    auto searched = act(ActRequest::click(typed->revision, refOf(*typed, QStringLiteral("button"),
                                                                 QStringLiteral("Go")))
                            .value(),
                        true);
    QVERIFY2(searched.ok(), searched.ok() ? "" : qPrintable(searched.error().code));
    QCOMPARE(countQuery(m_harness.server(), QStringLiteral("/w/index.php"),
                        QStringLiteral("search=bread")),
             1);
    QCOMPARE(
        countMethod(m_harness.server(), QStringLiteral("POST"), QStringLiteral("/w/index.php")), 0);
}

void TestWriteGuard::writesAreRefusedWhateverTheControlIsCalled_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("method"); // of the write at the site
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("query"); // a part of its query, or empty

    QTest::newRow("script-submitted POST form") << "button"
                                                << "Store"
                                                << "POST"
                                                << "/w/index.php"
                                                << "action=submit";
    QTest::newRow("another POST form") << "button"
                                       << "Done"
                                       << "POST"
                                       << "/w/index.php"
                                       << "MovePage";
    QTest::newRow("GET navigation with a token") << "button"
                                                 << "Go back"
                                                 << "GET"
                                                 << "/w/index.php"
                                                 << "action=rollback";
    QTest::newRow("GET navigation with an operation") << "button"
                                                      << "Earlier version"
                                                      << "GET"
                                                      << "/w/index.php"
                                                      << "action=undo";
    QTest::newRow("script POST, then a navigation") << "button"
                                                    << "Leave"
                                                    << "POST"
                                                    << "/api/logout"
                                                    << "";
    QTest::newRow("script fetch POST") << "button"
                                       << "Thanks"
                                       << "POST"
                                       << "/api/thank"
                                       << "";
    QTest::newRow("image GET with an operation") << "button"
                                                 << "Star"
                                                 << "GET"
                                                 << "/api/star"
                                                 << "action=watch";
}

// Whatever the control is called, its write never leaves the browser under ordinary
// interaction: the act ends write_requires_approval, the site saw nothing that writes (closed
// by a positive control), and the same control, approved, reaches the site exactly once.
void TestWriteGuard::writesAreRefusedWhateverTheControlIsCalled()
{
    QFETCH(QString, role);
    QFETCH(QString, name);
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(QString, query);
    const QString page = QStringLiteral("/w/index.php?title=Sandbox");
    const auto writes = [&] {
        int n = 0;
        for (const auto &request : m_harness.server().requests()) {
            if (request.method == method && request.path == path &&
                (query.isEmpty() || request.query.contains(query)))
                ++n;
        }
        return n;
    };

    auto wiki = open(page);
    QVERIFY(wiki.ok());
    const QString ref = refOf(*wiki, role, name);
    QVERIFY2(!ref.isEmpty(), qPrintable(name));
    EXPECT_CODE(act(ActRequest::click(wiki->revision, ref).value(), true),
                "tool.browser.write_requires_approval");
    // Its revision is retired: the refs of the page it ran on are stale.
    EXPECT_CODE(act(ActRequest::click(wiki->revision, ref).value(), true),
                "tool.browser.page_changed");
    pageFetchesControl();
    QCOMPARE(writes(), 0);

    // Approved (no constraint stands behind it): the write reaches the site exactly once.
    wiki = open(page);
    QVERIFY(wiki.ok());
    const auto approved =
        act(ActRequest::click(wiki->revision, refOf(*wiki, role, name)).value(), false);
    QVERIFY2(approved.ok(), approved.ok() ? "" : qPrintable(approved.error().code));
    QTRY_COMPARE(writes(), 1);
    pageFetchesControl();
    QCOMPARE(writes(), 1);
}

// A write the page sends after the act settled is refused all the same: the guard stays armed
// on that page until a navigation; and an approval covers its own act's consequence, nothing
// after it: after an approved act the guard stands again.
void TestWriteGuard::aWriteAfterTheActIsRefusedToo()
{
    // "Later" arms a save the page sends when it is told to ("later"), well after the act has
    // settled, as a debounced autosave does; the read it sends after its write is the control.
    const auto fireLater = [this] {
        const int fired =
            m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/later-fired"));
        runCollectorScript(QStringLiteral("(function(){document.dispatchEvent(new Event('later'));"
                                          "return JSON.stringify({ok:true});})()"));
        return runEventsUntil(
            [&] {
                return m_harness.server().count(QStringLiteral("shop.test"),
                                                QStringLiteral("/later-fired")) == fired + 1;
            },
            10000);
    };
    const auto autosaves = [this] {
        return countMethod(m_harness.server(), QStringLiteral("PUT"),
                           QStringLiteral("/api/autosave"));
    };
    for (const bool ordinary : {true, false}) {
        auto wiki = open(QStringLiteral("/w/index.php?title=Sandbox"));
        QVERIFY(wiki.ok());
        const auto later =
            act(ActRequest::click(wiki->revision,
                                  refOf(*wiki, QStringLiteral("button"), QStringLiteral("Later")))
                    .value(),
                ordinary);
        QVERIFY2(later.ok(), qPrintable(later.ok() ? QString() : later.error().code));
        QVERIFY(fireLater());
        pageFetchesControl();
        QCOMPARE(autosaves(), 0);
        // The page's next capture counts the refused write.
        const auto observed = BrowserTestHarness::observe(*m_provider);
        QVERIFY(observed.ok());
        QCOMPARE(m_provider->pageEvidence(observed->revision)->lateWrites, 1);
    }
    // A navigation the agent asked for ends the guard on the page it leaves: the new page's
    // own write goes.
    QVERIFY(open(QStringLiteral("/w/index.php?title=Sandbox")).ok());
    runCollectorScript(QStringLiteral("(function(){fetch('/api/autosave',{method:'PUT',body:'x'});"
                                      "return JSON.stringify({ok:true});})()"));
    QTRY_COMPARE(autosaves(), 1);
}

// A beacon is never the act's effect: it is dropped, and the act that sent it goes on.
void TestWriteGuard::aBeaconIsDroppedAndTheActGoesOn()
{
    auto wiki = open(QStringLiteral("/w/index.php?title=Sandbox"));
    QVERIFY(wiki.ok());
    const auto told = act(ActRequest::click(wiki->revision, refOf(*wiki, QStringLiteral("button"),
                                                                  QStringLiteral("Tell")))
                              .value(),
                          true);
    QVERIFY2(told.ok(), told.ok() ? "" : qPrintable(told.error().code));
    pageFetchesControl();
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/beacon")), 0);
}

// The single-page application: its boot query on navigation reaches the site (a navigation is
// a read the agent asked for); a GET with a cursor runs; the mutation is refused. Where the
// engine shows the request stage a request's body (Chromium), the GraphQL queries behind
// "Inbox" and "Starred" are reads and reach the site; Qt WebEngine 6.4 shows no body, so they
// read as writes there and ask the owner (ADR 0013): two more refusals, written down.
void TestWriteGuard::aSinglePageApplication()
{
    auto app = open(QStringLiteral("/app"));
    QVERIFY(app.ok());
    const QString graphql = QStringLiteral("/graphql");
    QTRY_COMPARE(countMethod(m_harness.server(), QStringLiteral("POST"), graphql), 1);
    const auto click = [&](const QString &name) {
        const auto current = BrowserTestHarness::observe(*m_provider);
        if (!current)
            return Result<BrowserObservation>(current.error());
        return act(
            ActRequest::click(current->revision, refOf(*current, QStringLiteral("button"), name))
                .value(),
            true);
    };
    const auto recent = click(QStringLiteral("Recent"));
    QVERIFY2(recent.ok(), recent.ok() ? "" : qPrintable(recent.error().code));
    QTRY_COMPARE(
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/api/recent")), 1);

    QStringList refused;
    for (const QString &name :
         {QStringLiteral("Inbox"), QStringLiteral("Starred"), QStringLiteral("Favourite")}) {
        const auto clicked = click(name);
        if (!clicked.ok()) {
            QCOMPARE(clicked.error().code, QStringLiteral("tool.browser.write_requires_approval"));
            refused.append(name);
        }
    }
    const int queries = m_engine.showsRequestBodies() ? 2 : 0;
    const QStringList expected =
        m_engine.showsRequestBodies()
            ? QStringList{QStringLiteral("Favourite")}
            : QStringList{QStringLiteral("Inbox"), QStringLiteral("Starred"),
                          QStringLiteral("Favourite")};
    QCOMPARE(refused, expected);
    pageFetchesControl();
    // The boot query, and the two queries where the engine could read them; never the mutation.
    QCOMPARE(countMethod(m_harness.server(), QStringLiteral("POST"), graphql), 1 + queries);
    for (const auto &request : m_harness.server().requests())
        QVERIFY(!request.body.contains("mutation"));
    // Every click's analytics beacon was dropped.
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/collect")), 0);
}

// Text is read as it is displayed: a zero-width no-break space inside a word joins it, so the
// classifier reads "Publish", never "Pu blish".
void TestWriteGuard::namesReadAsDisplayed()
{
    m_harness.page(QStringLiteral("/invisible"),
                   "<!doctype html><title>Invisible</title><button>Pu\xEF\xBB\xBF"
                   "blish</button><button>Sh\xC2\xAD"
                   "are</button><button>De\xE2\x80\x8B"
                   "lete</button>");
    const auto page = open(QStringLiteral("/invisible"));
    QVERIFY(page.ok());
    for (const QString &name :
         {QStringLiteral("Publish"), QStringLiteral("Share"), QStringLiteral("Delete")}) {
        const QString ref = refOf(*page, QStringLiteral("button"), name);
        QVERIFY2(!ref.isEmpty(), qPrintable(name));
        const auto facts = m_provider->elementFacts(page->revision, ref);
        QVERIFY(facts.has_value());
        QCOMPARE(facts->visibleText, name);
        QCOMPARE(GrantCoverage::refuseAct(ActRequest::click(page->revision, ref).value(), *facts,
                                          page->url),
                 GrantCoverage::ActRefusal::NamedConsequence);
    }
}

VEETBOT_BROWSER_TEST_MAIN(TestWriteGuard)
#include "tst_writeguard.moc"
