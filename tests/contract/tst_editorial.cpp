// Reading never asks, writing never without approval, on an application shaped like the
// editorial CMS and wiki owners work in (tests/fixtures/EditorialSite), on every placement
// (tst_editorial_qtwebengine, tst_editorial_chromium; real browsers, traffic through the egress
// proxy, every write counted at the fixture server, every "nothing arrived" closed by a
// positive control):
//  - a navigation no approval stands behind is judged at the request stage like any request:
//    a writing address, or a redirect hop to one, ends write_requires_approval with nothing
//    sent; approved, it reaches the site once;
//  - reading controls of an administration area run under ordinary interaction, and the next
//    page's scripts with cache-busting versions load;
//  - typing into a search box whose suggestions are GET ?action=opensearch runs;
//  - an approval covers its own act's consequence, nothing after it: the editor's autosave
//    after approved typing never arrives, and the page's evidence counts it; an approved save
//    arrives once;
//  - a page with unsaved input that answers beforeunload cancels a navigation, every time,
//    never provider_unavailable; a navigation that discards it goes, with nothing sent;
//  - extraction leaves out the header a table's <tfoot> repeats.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "EditorialSite.h"
#include "EngineUnderTest.h"
#include "EventWait.h"
#include "domain/authority/GrantCoverage.h"

#include <QApplication>
#include <QTest>

#include <memory>
#include <optional>

using namespace veetbot;
using namespace veetbot::testing;
using fixtures::EditorialSite;

namespace {

const QString kShop = QStringLiteral("shop.test");

QString codeOf(const Result<BrowserObservation> &result)
{
    return result.ok() ? QString() : result.error().code;
}

} // namespace

class TestEditorial : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void aWritingAddressIsRefusedAtTheRequestStage();
    void aRedirectToAWritingAddressIsRefused();
    void readingInTheAdministrationAreaRuns();
    void searchSuggestionsAreReads();
    void anApprovalCoversItsActNothingAfter();
    void whatTheGuardRefusedGoesWithTheNextCapture();
    void nothingTypedLeavesToStrangers();
    void unsavedInputCancelsUntilItIsDiscarded();
    void extractionLeavesOutRepeatedHeaders();

private:
    QUrl url(const QString &pathAndQuery) const { return m_harness.url(kShop, pathAndQuery); }
    Result<BrowserObservation> navigate(const QString &pathAndQuery, bool guarded = true,
                                        bool discard = false);
    // Clicks (or types into) the control named `name` with `role` on `page`.
    Result<BrowserObservation> use(const BrowserObservation &page, const QString &role,
                                   const QString &name, bool ordinary,
                                   const QString &text = QString());
    int countPath(const QString &path) { return m_harness.server().count(kShop, path); }
    int posts(const QString &path)
    {
        int n = 0;
        for (const auto &request : m_harness.server().requests())
            n += request.method == QLatin1String("POST") && request.path == path ? 1 : 0;
        return n;
    }

    BrowserTestHarness m_harness;
    EngineUnderTest m_engine;
    std::unique_ptr<EditorialSite> m_site;
    std::unique_ptr<BrowserProvider> m_provider;
};

void TestEditorial::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    QVERIFY2(m_engine.start(m_harness, &error), qPrintable(error));
    m_site = std::make_unique<EditorialSite>(m_harness.server());
    m_provider = m_engine.makeProvider(m_harness.policy({kShop}), m_harness.overrides());
    m_engine.admitFor(m_provider.get());
}

void TestEditorial::cleanupTestCase()
{
    m_engine.admitFor(nullptr);
    m_provider.reset();
}

void TestEditorial::init()
{
    BrowserTestHarness::admitEveryDispatch(*m_provider, this);
    m_harness.server().resetCounters();
}

Result<BrowserObservation> TestEditorial::navigate(const QString &pathAndQuery, bool guarded,
                                                   bool discard)
{
    NavigateRequest request{url(pathAndQuery)};
    request.guarded = guarded;
    request.discardUnsaved = discard;
    return BrowserTestHarness::navigate(*m_provider, request);
}

Result<BrowserObservation> TestEditorial::use(const BrowserObservation &page, const QString &role,
                                              const QString &name, bool ordinary,
                                              const QString &text)
{
    const QString ref = refOf(page, role, name);
    if (ref.isEmpty())
        return Error{QStringLiteral("test.no_such_element"), role + u' ' + name};
    const Result<ActRequest> request = text.isEmpty() ? ActRequest::click(page.revision, ref)
                                                      : ActRequest::type(page.revision, ref, text);
    // What the pipeline decides first: ordinary interaction covers every reading control.
    if (ordinary) {
        const std::optional<ElementFacts> facts = m_provider->elementFacts(page.revision, ref);
        if (!facts)
            return Error{QStringLiteral("test.no_facts"), name};
        if (const auto refused = GrantCoverage::refuseAct(request.value(), *facts, page.url))
            return Error{QStringLiteral("test.not_covered"),
                         name + u' ' + GrantCoverage::actRefusalString(*refused)};
    }
    return BrowserTestHarness::act(*m_provider, request.value(), ordinary);
}

// Every writing address the owner must approve, opened with no approval: the request stage
// refuses the document, nothing reaches the site; opened approved, it arrives once.
void TestEditorial::aWritingAddressIsRefusedAtTheRequestStage()
{
    for (const QString &address : EditorialSite::writingAddresses()) {
        const auto refused = navigate(address);
        QVERIFY2(codeOf(refused) == QLatin1String("tool.browser.write_requires_approval"),
                 qPrintable(address + QStringLiteral(": ") + codeOf(refused)));
    }
    QVERIFY(m_harness.settle());
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
    // The page it left is still there to read.
    QVERIFY(navigate(QString::fromLatin1(EditorialSite::kPostsList)).ok());

    const QString trash = EditorialSite::writingAddresses().first();
    const auto approved = navigate(trash, false);
    QVERIFY2(approved.ok(), qPrintable(codeOf(approved)));
    QVERIFY(m_harness.settle());
    QCOMPARE(EditorialSite::writes(m_harness.server()), 1);
    // Where the site sent it after the change: the list, which says so.
    QVERIFY2(approved->url.path().endsWith(QLatin1String("/edit.php")),
             qPrintable(approved->url.toString()));
}

// A reading address that redirects to a sign-out with a nonce: the first request is a read and
// arrives; the hop writes and is refused.
void TestEditorial::aRedirectToAWritingAddressIsRefused()
{
    QVERIFY(navigate(QString::fromLatin1(EditorialSite::kPostsList)).ok());
    m_harness.server().resetCounters();
    const auto refused = navigate(QString::fromLatin1(EditorialSite::kRedirectsToSignOut));
    QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.write_requires_approval"));
    QVERIFY(m_harness.settle());
    QCOMPARE(countPath(QStringLiteral("/wp-admin/goto.php")), 1);
    QCOMPARE(countPath(QStringLiteral("/wp-login.php")), 0);
    // Approved, the hop goes once.
    const auto approved = navigate(QString::fromLatin1(EditorialSite::kRedirectsToSignOut), false);
    QVERIFY2(approved.ok(), qPrintable(codeOf(approved)));
    QVERIFY(m_harness.settle());
    QCOMPARE(countPath(QStringLiteral("/wp-login.php")), 1);
}

// The reading controls of the posts list run under ordinary interaction (the write guard
// armed); each reached the site as a read, and the scripts of the page a filter opens, with a
// content hash as their version, load.
void TestEditorial::readingInTheAdministrationAreaRuns()
{
    const QString list = QString::fromLatin1(EditorialSite::kPostsList);
    int versioned = 0;
    for (const EditorialSite::Control &control : EditorialSite::readingControls()) {
        if (control.page != list)
            continue;
        const auto page = navigate(list);
        QVERIFY2(page.ok(), qPrintable(codeOf(page)));
        const int before = countPath(QString::fromLatin1(EditorialSite::kVersionedScript));
        const auto used = use(*page, control.role, control.name, true, control.text);
        QVERIFY2(used.ok(), qPrintable(control.name + QStringLiteral(": ") + codeOf(used)));
        if (countPath(QString::fromLatin1(EditorialSite::kVersionedScript)) > before)
            ++versioned;
    }
    QVERIFY(m_harness.settle());
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
    // Every control that opened another page loaded its versioned script: the filters, the
    // search, the next page, the title, the row's Edit and View links and the menu's links.
    QVERIFY2(versioned >= 9, qPrintable(QString::number(versioned)));
}

// Typing into the wiki's search box sends its suggestion request, a GET to
// api.php?action=opensearch: a read, under ordinary interaction.
void TestEditorial::searchSuggestionsAreReads()
{
    const auto wiki = navigate(QStringLiteral("/w/index.php?title=Sandbox"));
    QVERIFY2(wiki.ok(), qPrintable(codeOf(wiki)));
    const auto typed = use(*wiki, QStringLiteral("searchbox"), QStringLiteral("Search the wiki"),
                           true, QStringLiteral("bread"));
    QVERIFY2(typed.ok(), qPrintable(codeOf(typed)));
    QTRY_VERIFY(countPath(QStringLiteral("/w/api.php")) >= 1);
    QVERIFY(m_harness.settle());
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
}

// Approved typing into the block editor's title: its own act reaches the page; the autosave the
// editor sends five seconds later is refused at the request stage (its control, /autosave-fired,
// still arrives), and the next capture's evidence counts it. An approved "Save draft" then
// saves, once.
void TestEditorial::anApprovalCoversItsActNothingAfter()
{
    const QString autosave = QString::fromLatin1(EditorialSite::kAutosavePath);
    const QString fired = QString::fromLatin1(EditorialSite::kAutosaveFired);
    auto editor = navigate(QString::fromLatin1(EditorialSite::kBlockEditor));
    QVERIFY2(editor.ok(), qPrintable(codeOf(editor)));
    const auto typed = use(*editor, QStringLiteral("textbox"), QStringLiteral("Add title"), false,
                           QStringLiteral(" and rolls"));
    QVERIFY2(typed.ok(), qPrintable(codeOf(typed)));
    QVERIFY(runEventsUntil([&] { return countPath(fired) == 1; }, 15000));
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(autosave), 0);
    const auto observed = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(observed.ok(), qPrintable(codeOf(observed)));
    const std::optional<PageEvidence> evidence = m_provider->pageEvidence(observed->revision);
    QVERIFY(evidence.has_value());
    QCOMPARE(evidence->lateWrites, 1);

    const auto saved =
        use(*observed, QStringLiteral("button"), QStringLiteral("Save draft"), false);
    QVERIFY2(saved.ok(), qPrintable(codeOf(saved)));
    QTRY_COMPARE(posts(QString::fromLatin1(EditorialSite::kSavePath)), 1);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QString::fromLatin1(EditorialSite::kSavePath)), 1);
    QCOMPARE(posts(autosave), 0);
}

// "Read more" whose script deletes every notice: the act ends write_requires_approval with
// nothing sent, and the page's next capture says what the request stage refused (for the next
// card), never a value of it.
void TestEditorial::whatTheGuardRefusedGoesWithTheNextCapture()
{
    const auto page = navigate(QStringLiteral("/notices"));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    const auto refused = use(*page, QStringLiteral("link"), QStringLiteral("Read more"), true);
    QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.write_requires_approval"));
    const auto next = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(next.ok(), qPrintable(codeOf(next)));
    const std::optional<PageEvidence> evidence = m_provider->pageEvidence(next->revision);
    QVERIFY(evidence && evidence->refusedWrite);
    QCOMPARE(*evidence->refusedWrite,
             (WriteGuard::RefusedWrite{"POST", QStringLiteral("delete"),
                                       BrowserActionConsequence::Destructive}));
    // Taken once: the capture after it carries nothing more.
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY(again.ok());
    QVERIFY(!m_provider->pageEvidence(again->revision)->refusedWrite);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/api/delete")), 0);
}

// The recovery code typed into "Notes", with a third party's session-replay script on the page:
// nothing the page sends after the typing reaches a stranger, whole or one character a
// request, as an image, a GET, a beacon or a POST; the tracking pixel before it did (a read),
// the analytics POST never did (a write to a stranger, refused whenever no approved act runs);
// the page's own origin and the third party's script it already loaded keep working; after the
// agent leaves the page its next page may read from strangers again; an approved "Pay" reaches
// its payment provider once.
void TestEditorial::nothingTypedLeavesToStrangers()
{
    const QString evil = QStringLiteral("evil.test");
    const auto strangers = [&] { return m_harness.server().countHost(evil); };
    const auto carrying = [&](const QString &part) {
        int n = 0;
        for (const auto &request : m_harness.server().requests()) {
            if (request.host == evil &&
                (request.query.contains(part) || request.path.contains(part) ||
                 QString::fromUtf8(request.body).contains(part)))
                ++n;
        }
        return n;
    };
    auto page = navigate(QStringLiteral("/notes"));
    QVERIFY2(page.ok(), qPrintable(codeOf(page)));
    // Before any typing: the pixel (a read) went; the analytics POST did not.
    QTRY_COMPARE(m_harness.server().count(evil, QStringLiteral("/px.gif")), 1);
    QTRY_COMPARE(m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/replay.js")),
                 1);
    const int before = strangers();
    QCOMPARE(before, 1);
    const auto typed = use(*page, QStringLiteral("textbox"), QStringLiteral("Notes"), true,
                           QStringLiteral("K7QX"));
    QVERIFY2(typed.ok(), qPrintable(codeOf(typed)));
    // The act's capture counts what was refused (the image, the GET, the POST, the image named
    // by the code), never where.
    QVERIFY(m_provider->pageEvidence(typed->revision)->strangerRequestsRefused >= 4);
    // The page's own save of the typing arrived: the positive control that the script ran.
    QTRY_VERIFY(countPath(QStringLiteral("/notes/draft")) >= 1);
    // The third party's script it already loaded loads again; a stranger's new address not.
    EngineUnderTest::runCollectorScript(
        *m_provider,
        QStringLiteral("(function(){const cdn='https://cdn.test:'+location.port;"
                       "const s=document.createElement('script');s.src=cdn+'/replay.js?ver=3';"
                       "document.head.append(s);new Image().src=cdn+'/new.png';"
                       "return JSON.stringify({ok:true});})()"),
        [](std::optional<QJsonObject>) {});
    QTRY_COMPARE(m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/replay.js")),
                 2);
    QVERIFY(m_harness.settle());
    QCOMPARE(strangers(), before);
    QCOMPARE(carrying(QStringLiteral("K7QX")), 0);
    QCOMPARE(m_harness.server().count(QStringLiteral("cdn.test"), QStringLiteral("/new.png")), 0);
    QCOMPARE(m_harness.server().count(evil, QStringLiteral("/collect")), 0);
    // The next capture counts the stranger's new address refused since.
    const auto observed = BrowserTestHarness::observe(*m_provider);
    QVERIFY(observed.ok());
    QCOMPARE(m_provider->pageEvidence(observed->revision)->strangerRequestsRefused, 1);

    // Approved, "Pay" reaches its payment provider once.
    const auto paid = use(*observed, QStringLiteral("button"), QStringLiteral("Pay"), false);
    QVERIFY2(paid.ok(), qPrintable(codeOf(paid)));
    QTRY_COMPARE(m_harness.server().count(evil, QStringLiteral("/charge")), 1);
    // A page the agent navigates to is not typed on: its pixel goes again.
    QVERIFY(navigate(QStringLiteral("/notes")).ok());
    QTRY_COMPARE(m_harness.server().count(evil, QStringLiteral("/px.gif")), 2);
    QVERIFY(m_harness.settle());
    QCOMPARE(carrying(QStringLiteral("K7QX")), 0);
    QCOMPARE(m_harness.server().count(evil, QStringLiteral("/collect")), 0);
}

// The classic edit form with unsaved input answers beforeunload: every navigation away is
// tool.browser.navigation_cancelled (never provider_unavailable), the page and its input stay;
// a navigation that discards the input leaves, and nothing is sent.
void TestEditorial::unsavedInputCancelsUntilItIsDiscarded()
{
    auto form = navigate(QString::fromLatin1(EditorialSite::kClassicEditor));
    QVERIFY2(form.ok(), qPrintable(codeOf(form)));
    const auto typed = use(*form, QStringLiteral("textbox"), QStringLiteral("Add title"), true,
                           QStringLiteral(" again"));
    QVERIFY2(typed.ok(), qPrintable(codeOf(typed)));
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto left = navigate(QString::fromLatin1(EditorialSite::kPostsList));
        QVERIFY2(codeOf(left) == QLatin1String("tool.browser.navigation_cancelled"),
                 qPrintable(QStringLiteral("attempt %1: %2").arg(attempt).arg(codeOf(left))));
    }
    // The form is still the page, with the input the browser holds.
    const auto still = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(still.ok(), qPrintable(codeOf(still)));
    QCOMPARE(still->title, form->title);
    // Cancelled once more, then left at once: the browser has finished the cancelled one.
    QCOMPARE(codeOf(navigate(QString::fromLatin1(EditorialSite::kPostsList))),
             QStringLiteral("tool.browser.navigation_cancelled"));
    const auto discarded = navigate(QString::fromLatin1(EditorialSite::kPostsList), true, true);
    QVERIFY2(discarded.ok(), qPrintable(codeOf(discarded)));
    QVERIFY2(discarded->url.path().endsWith(QLatin1String("/edit.php")),
             qPrintable(discarded->url.toString()));
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/wp-admin/post.php")), 0);
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
}

// The posts table repeats its header in <tfoot>, with a "Select All" check box in a data cell:
// the extraction reads the two posts, never the header again.
void TestEditorial::extractionLeavesOutRepeatedHeaders()
{
    const auto list = navigate(QString::fromLatin1(EditorialSite::kPostsList));
    QVERIFY2(list.ok(), qPrintable(codeOf(list)));
    ExtractRequest extract;
    extract.kind = ExtractRequest::Kind::Table;
    extract.index = 0;
    extract.columns = {ExtractColumn{QStringLiteral("select"), ExtractColumn::Type::String, false},
                       ExtractColumn{QStringLiteral("title"), ExtractColumn::Type::String, true}};
    extract.limit = 10;
    extract.revision = list->revision;
    const auto rows = BrowserTestHarness::observe(*m_provider, ObserveRequest::extract(extract));
    QVERIFY2(rows.ok(), qPrintable(codeOf(rows)));
    QVERIFY(rows->extraction.has_value() && rows->extraction->found);
    QCOMPARE(rows->extraction->rows.size(), 2);
    QVERIFY(rows->extraction->rows[0].cells[1].value.toString().startsWith(
        QLatin1String("Hello world!")));
    QVERIFY(rows->extraction->rows[1].cells[1].value.toString().startsWith(
        QLatin1String("Bread notes")));
}

VEETBOT_BROWSER_TEST_MAIN(TestEditorial)
#include "tst_editorial.moc"
