// Regions and focused reads through WebEngineProvider in this process (real Chromium, offscreen,
// traffic through the egress proxy): visible dialogs, alerts, status messages, forms and headings
// in that priority, then main and section regions; bounded scans and summaries; region refs are
// evidence, never anchors; a focused read returns one region's controls and text, and text
// continuation advances only over an unchanged text.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "WebEngineProvider.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QWebEnginePage>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

const char kStructuredPage[] = R"(<!doctype html><title>Structured</title><body>
<nav><a href="/a">Home</a> <a href="/b">Orders</a></nav>
<main aria-label="Store">
  <h1>Orders</h1>
  <section aria-label="Filters"><h2>Filter orders</h2><button>Apply</button></section>
  <form aria-label="Search orders">
    <label>Query <input name=q value="CANARY_INPUT_VALUE"></label>
    <textarea>CANARY_TEXTAREA</textarea>
    <div contenteditable>CANARY_EDITABLE</div>
    <select><option>CANARY_OPTION</option></select>
    <span hidden>CANARY_HIDDEN_IN_FORM</span>
    <p>Search by order number</p>
    <button>Search</button>
  </form>
  <div role=status>3 orders shipped</div>
  <div role=alert>Payment method expires soon</div>
  <div role=alert style="display:none">CANARY_HIDDEN_ALERT</div>
  <div aria-hidden=true role=alert>CANARY_ARIA_HIDDEN_ALERT</div>
  <h3 aria-level=4>Older orders</h3>
  <div role=heading>Archive</div>
  <div id=shadowhost></div>
  <iframe srcdoc="<h1>CANARY_FRAME_HEADING</h1>"></iframe>
</main>
<dialog open aria-label="Cookie notice"><p>We use cookies</p><button>Accept</button></dialog>
<script>
const root = document.getElementById('shadowhost').attachShadow({mode: 'open'});
root.innerHTML = '<h2>CANARY_SHADOW_HEADING</h2><button>In shadow</button>';
</script></body>)";

QString codeOf(const Result<BrowserObservation> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

QStringList kinds(const BrowserObservation &observation)
{
    QStringList out;
    for (const RegionRecord &region : observation.regions)
        out << region.kind;
    return out;
}

const RegionRecord *regionNamed(const BrowserObservation &observation, const QString &kind,
                                const QString &name)
{
    for (const RegionRecord &region : observation.regions) {
        if (region.kind == kind && region.name == name)
            return &region;
    }
    return nullptr;
}

QStringList names(const BrowserObservation &observation)
{
    QStringList out;
    for (const ElementRecord &element : observation.elements)
        out << element.name;
    return out;
}

} // namespace

class TestRegions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void regionsInPriorityOrder();
    void regionContentIsBoundedAndPrivate();
    void scansAndRecordsAreBounded();
    void regionRefsAreEvidenceOnly();
    void focusReadsOneRegion();
    void focusedContinuationStaysInTheRegion();
    void textContinuationAdvancesOverUnchangedText();
    void focusRefusals();
    void modalDialogComesFirst();

private:
    Result<BrowserObservation> open(const QString &path);
    void runInPage(const QString &source);

    BrowserTestHarness m_harness;
    std::unique_ptr<WebEngineProvider> m_provider;
};

void TestRegions::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    m_harness.page(QStringLiteral("/structured"), kStructuredPage);

    // 100 headings, then main; a long section summary with astral characters at the cut.
    QByteArray many = "<!doctype html><title>Many</title><body>";
    for (int i = 0; i < 100; ++i)
        many += "<h2>Heading " + QByteArray::number(i) + "</h2>";
    many += "<main><p>Main text</p></main><section aria-label=Long><p>";
    for (int i = 0; i < 400; ++i)
        many += "ab\xF0\x9F\x98\x80 "; // 2 ASCII, one astral character (2 units), a space
    many += "</p></section></body>";
    m_harness.page(QStringLiteral("/many"), many);

    // 20,000 plain elements before the only heading: the scan bound stops first.
    m_harness.page(QStringLiteral("/deep"),
                   "<!doctype html><title>Deep</title><body><div id=filler></div>"
                   "<h1>Too far</h1><script>const f=document.getElementById('filler');"
                   "for(let i=0;i<20000;i++)f.appendChild(document.createElement('span'));"
                   "</script></body>");

    // A form with many controls and a long text for focus and text continuation.
    QByteArray focus = "<!doctype html><title>Focus</title><body><nav><button>Outside "
                       "before</button></nav><form aria-label=Checkout><p id=prose>";
    for (int i = 0; i < 3000; ++i)
        focus += "Zeile " + QByteArray::number(i) + " \xC3\xA4\xE2\x82\xAC\xF0\x9F\x98\x80 ";
    focus += "</p>";
    for (int i = 0; i < 300; ++i)
        focus += "<button>f" + QByteArray::number(i) + "</button>";
    focus += "</form><footer><button>Outside after</button></footer></body>";
    m_harness.page(QStringLiteral("/focus"), focus);

    m_harness.page(QStringLiteral("/modal"),
                   "<!doctype html><title>Modal</title><body><nav><button>Menu</button>"
                   "<a href=/x>Link</a></nav><h1>Page</h1><dialog id=d aria-label=Confirm>"
                   "<p>Delete the order?</p><button>Delete</button><button>Keep</button>"
                   "</dialog><script>document.getElementById('d').showModal();</script></body>");

    m_provider = std::make_unique<WebEngineProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
    // A browser that cannot start is a failure, never a skip.
    const auto first = open(QStringLiteral("/structured"));
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
}

void TestRegions::cleanupTestCase()
{
    m_provider.reset();
}

Result<BrowserObservation> TestRegions::open(const QString &path)
{
    return BrowserTestHarness::navigate(*m_provider,
                                        m_harness.url(QStringLiteral("shop.test"), path));
}

void TestRegions::runInPage(const QString &source)
{
    bool done = false;
    m_provider->view()->page()->runJavaScript(source, [&done](const QVariant &) { done = true; });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
}

void TestRegions::regionsInPriorityOrder()
{
    const auto observation = open(QStringLiteral("/structured"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    QCOMPARE(kinds(*observation),
             (QStringList{"dialog", "alert", "status", "form", "heading", "heading", "heading",
                          "heading", "main", "section"}));
    QVERIFY(regionNamed(*observation, QStringLiteral("dialog"), QStringLiteral("Cookie notice")));
    QVERIFY(regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Search orders")));
    QVERIFY(regionNamed(*observation, QStringLiteral("main"), QStringLiteral("Store")));
    QVERIFY(regionNamed(*observation, QStringLiteral("section"), QStringLiteral("Filters")));
    // Headings in document order with their levels; the name is the heading's text.
    QStringList headings;
    QList<int> levels;
    for (const RegionRecord &region : observation->regions) {
        if (region.kind == QLatin1String("heading")) {
            headings << region.name;
            levels << region.level;
            QCOMPARE(region.summary, QString());
        } else {
            QCOMPARE(region.level, 0);
        }
    }
    QCOMPARE(headings, (QStringList{"Orders", "Filter orders", "Older orders", "Archive"}));
    QCOMPARE(levels, (QList<int>{1, 2, 4, 2}));
    const RegionRecord *status = &observation->regions.at(2);
    QCOMPARE(status->summary, QStringLiteral("3 orders shipped"));
    QCOMPARE(observation->regions.at(1).summary, QStringLiteral("Payment method expires soon"));
    QCOMPARE(observation->regions.at(0).summary, QStringLiteral("We use cookies Accept"));
    QVERIFY(observation->regionCoverage);
    QCOMPARE(observation->regionCoverage->version, 1);
    QCOMPARE(observation->regionCoverage->scope, QStringLiteral("main_document"));
    QVERIFY(observation->regionCoverage->scannedNodes > 20);
    QVERIFY(!observation->regionCoverage->scanExhausted);
    QCOMPARE(observation->regionCoverage->omittedRegions, 0);
    // Region refs are distinct from element refs and bound to this revision.
    for (const RegionRecord &region : observation->regions) {
        for (const ElementRecord &element : observation->elements)
            QVERIFY(region.ref != element.ref);
    }
}

void TestRegions::regionContentIsBoundedAndPrivate()
{
    const auto observation = open(QStringLiteral("/structured"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const QByteArray json = QJsonDocument(observation->toJson()).toJson(QJsonDocument::Compact);
    // Hidden, ARIA-hidden, form-control and editable content, frames and shadow roots never
    // supply a region or a summary.
    const QByteArray regions =
        QJsonDocument(observation->toJson().value(QStringLiteral("regions")).toArray())
            .toJson(QJsonDocument::Compact);
    for (const char *canary :
         {"CANARY_INPUT_VALUE", "CANARY_TEXTAREA", "CANARY_EDITABLE", "CANARY_OPTION",
          "CANARY_HIDDEN_IN_FORM", "CANARY_HIDDEN_ALERT", "CANARY_ARIA_HIDDEN_ALERT",
          "CANARY_FRAME_HEADING", "CANARY_SHADOW_HEADING"})
        QVERIFY2(!regions.contains(canary), canary);
    for (const char *canary : {"CANARY_INPUT_VALUE", "CANARY_TEXTAREA", "CANARY_EDITABLE",
                               "CANARY_HIDDEN_ALERT", "CANARY_FRAME_HEADING"})
        QVERIFY2(!json.contains(canary), canary);
    const RegionRecord *form =
        regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Search orders"));
    QVERIFY(form);
    QCOMPARE(form->summary, QStringLiteral("Query Search by order number Search"));
    QVERIFY(!form->summaryTruncated);
}

void TestRegions::scansAndRecordsAreBounded()
{
    auto observation = open(QStringLiteral("/many"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    // 100 headings + main + section found; 32 whole records kept, the rest counted.
    QCOMPARE(observation->regions.size(), ObservationBounds::kMaxRegions);
    QCOMPARE(observation->regionCoverage->omittedRegions, 102 - 32);
    QVERIFY(!observation->regionCoverage->scanExhausted);
    for (const RegionRecord &region : observation->regions)
        QCOMPARE(region.kind, QStringLiteral("heading")); // headings outrank main and sections

    // The section summary: 512 UTF-16 units at most, never half a surrogate pair.
    runInPage(QStringLiteral("for (const h of [...document.querySelectorAll('h2')]) h.remove()"));
    observation = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const RegionRecord *section =
        regionNamed(*observation, QStringLiteral("section"), QStringLiteral("Long"));
    QVERIFY(section);
    QVERIFY(section->summaryTruncated);
    QVERIFY(section->summary.size() <= ObservationBounds::kMaxSummaryUnits);
    QVERIFY(section->summary.size() >= ObservationBounds::kMaxSummaryUnits - 1);
    QVERIFY(!section->summary.back().isHighSurrogate());
    QVERIFY(section->summary.startsWith(QStringLiteral("ab\U0001F600 ab")));

    // The 8,192-node scan bound.
    observation = open(QStringLiteral("/deep"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    QVERIFY(observation->regionCoverage->scanExhausted);
    QCOMPARE(observation->regionCoverage->scannedNodes, ObservationBounds::kMaxRegionScanNodes);
    QVERIFY(observation->regions.isEmpty());
}

void TestRegions::regionRefsAreEvidenceOnly()
{
    const auto observation = open(QStringLiteral("/structured"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const QString revision = observation->revision;
    for (const RegionRecord &region : observation->regions) {
        const auto refused =
            BrowserTestHarness::observe(*m_provider, ObserveRequest::after(region.ref).value());
        QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.region_not_actionable"));
        QCOMPARE(refused.error().message, reasonCodeMessage(ReasonCode::RegionNotActionable));
        // Refused before any capture: the snapshot stays current.
        QCOMPARE(m_provider->currentRevision(), revision);
    }
    // An element ref is not a region.
    const auto notRegion = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(observation->elements.first().ref, revision).value());
    QCOMPARE(codeOf(notRegion), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), revision);
    // The revision's element refs still work.
    const auto after = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.first().ref).value());
    QVERIFY2(after.ok(), qPrintable(codeOf(after)));
}

void TestRegions::focusReadsOneRegion()
{
    const auto observation = open(QStringLiteral("/structured"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const RegionRecord *form =
        regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Search orders"));
    QVERIFY(form);
    const auto focused = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(form->ref, observation->revision).value());
    QVERIFY2(focused.ok(), qPrintable(codeOf(focused)));
    QVERIFY(focused->revision != observation->revision);
    // Controls and text of the form only.
    QStringList roles;
    for (const ElementRecord &element : focused->elements)
        roles << element.role;
    QCOMPARE(roles, (QStringList{"textbox", "textbox", "textbox", "combobox", "button"}));
    QCOMPARE(focused->elements.last().name, QStringLiteral("Search"));
    QCOMPARE(focused->text, QStringLiteral("Query\nSearch by order number\nSearch"));
    QCOMPARE(focused->textCoverage.scope, QStringLiteral("focused_region"));
    QVERIFY(!focused->text.contains(QLatin1String("CANARY")));
    // The focused region is named in this revision, first among the regions.
    QVERIFY(focused->focus);
    QCOMPARE(focused->focus->regionRef, focused->regions.first().ref);
    QCOMPARE(focused->regions.first().kind, QStringLiteral("form"));
    QCOMPARE(focused->regions.first().name, QStringLiteral("Search orders"));
    QCOMPARE(focused->focus->textOffset, 0);
    QCOMPARE(focused->focus->textBytes, int(focused->text.toUtf8().size()));
    // Other regions stay discoverable, each once.
    QCOMPARE(focused->regions.size(), observation->regions.size());
    // The canonical observation validates with the focus.
    QVERIFY(BrowserObservation::fromJson(focused->toJson(), m_harness.overrides()).ok());

    // A plain observe leaves focus.
    const auto plain = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(plain.ok(), qPrintable(codeOf(plain)));
    QVERIFY(!plain->focus);
    QCOMPARE(plain->textCoverage.scope, QStringLiteral("main_document_open_shadow_roots"));
}

void TestRegions::focusedContinuationStaysInTheRegion()
{
    const auto observation = open(QStringLiteral("/focus"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const RegionRecord *form =
        regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Checkout"));
    QVERIFY(form);
    auto focused = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(form->ref, observation->revision).value());
    QVERIFY2(focused.ok(), qPrintable(codeOf(focused)));
    QCOMPARE(focused->elements.size(), ObservationBounds::kMaxElements);
    QCOMPARE(focused->elements.first().name, QStringLiteral("f0"));
    QVERIFY(focused->coverage.nextCursor);
    // Continuing after the last control stays in the form: f256..f299, never "Outside".
    auto next = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(focused->elements.last().ref).value());
    QVERIFY2(next.ok(), qPrintable(codeOf(next)));
    QCOMPARE(next->elements.size(), 44);
    QCOMPARE(next->elements.first().name, QStringLiteral("f256"));
    QCOMPARE(next->elements.last().name, QStringLiteral("f299"));
    QVERIFY(!next->coverage.nextCursor);
    QVERIFY(next->focus);
    QCOMPARE(next->focus->regionRef, next->regions.first().ref);
    // And by cursor.
    focused = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(next->focus->regionRef, next->revision).value());
    QVERIFY2(focused.ok(), qPrintable(codeOf(focused)));
    next = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::cursor(*focused->coverage.nextCursor).value());
    QVERIFY2(next.ok(), qPrintable(codeOf(next)));
    QCOMPARE(names(*next).first(), QStringLiteral("f256"));
    QVERIFY(!names(*next).contains(QStringLiteral("Outside after")));
}

void TestRegions::textContinuationAdvancesOverUnchangedText()
{
    const auto observation = open(QStringLiteral("/focus"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const RegionRecord *form =
        regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Checkout"));
    QVERIFY(form);
    const auto first = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(form->ref, observation->revision).value());
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
    const QByteArray whole = first->text.toUtf8();
    QCOMPARE(first->focus->textBytes, int(whole.size()));
    QVERIFY(whole.size() > 60000);

    // Continue at a code-point boundary inside the text: exactly the rest.
    int offset = 50000;
    while ((quint8(whole.at(offset)) & 0xC0) == 0x80)
        ++offset;
    const auto second = BrowserTestHarness::observe(
        *m_provider,
        ObserveRequest::focus(first->focus->regionRef, first->revision, offset).value());
    QVERIFY2(second.ok(), qPrintable(codeOf(second)));
    QCOMPARE(second->text.toUtf8(), whole.mid(offset));
    QCOMPARE(second->focus->textOffset, offset);
    QCOMPARE(second->focus->textBytes, int(whole.size()));

    // An offset inside a UTF-8 sequence does not match the focus: refused, snapshot kept.
    int inside = offset + 1;
    while ((quint8(whole.at(inside)) & 0xC0) != 0x80)
        ++inside;
    const auto split = BrowserTestHarness::observe(
        *m_provider,
        ObserveRequest::focus(second->focus->regionRef, second->revision, inside).value());
    QCOMPARE(codeOf(split), QStringLiteral("tool.browser.focus_required"));
    QCOMPARE(m_provider->currentRevision(), second->revision);
    // Past the end: refused the same way.
    const auto beyond = BrowserTestHarness::observe(
        *m_provider,
        ObserveRequest::focus(second->focus->regionRef, second->revision, whole.size() + 1)
            .value());
    QCOMPARE(codeOf(beyond), QStringLiteral("tool.browser.focus_required"));
    QCOMPARE(m_provider->currentRevision(), second->revision);

    // Changed text: the continuation is page_changed (and the revision is gone).
    runInPage(QStringLiteral("document.getElementById('prose').append(' more')"));
    const auto changed = BrowserTestHarness::observe(
        *m_provider,
        ObserveRequest::focus(second->focus->regionRef, second->revision, offset).value());
    QCOMPARE(codeOf(changed), QStringLiteral("tool.browser.page_changed"));
}

void TestRegions::focusRefusals()
{
    const auto observation = open(QStringLiteral("/structured"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    const RegionRecord *form =
        regionNamed(*observation, QStringLiteral("form"), QStringLiteral("Search orders"));
    QVERIFY(form);
    QString revision = observation->revision;
    const auto expect = [this, &revision](const ObserveRequest &request, const char *code) {
        const auto refused = BrowserTestHarness::observe(*m_provider, request);
        QCOMPARE(codeOf(refused), QString::fromLatin1(code));
        QCOMPARE(m_provider->currentRevision(), revision);
    };
    // A nonzero offset without focus on that region.
    expect(ObserveRequest::focus(form->ref, revision, 4).value(), "tool.browser.focus_required");
    // A stale or foreign revision, or a ref that is no region of it.
    expect(ObserveRequest::focus(form->ref, newRevision()).value(), "tool.browser.page_changed");
    expect(ObserveRequest::focus(QStringLiteral("zz.g0"), revision).value(),
           "tool.browser.page_changed");

    // Focus on a region of an earlier revision.
    const auto fresh = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(fresh.ok(), qPrintable(codeOf(fresh)));
    revision = fresh->revision;
    expect(ObserveRequest::focus(form->ref, fresh->revision).value(), "tool.browser.page_changed");

    // A detached region: page_changed, the snapshot stays.
    const RegionRecord *freshForm =
        regionNamed(*fresh, QStringLiteral("form"), QStringLiteral("Search orders"));
    QVERIFY(freshForm);
    runInPage(QStringLiteral("document.querySelector('form').remove()"));
    expect(ObserveRequest::focus(freshForm->ref, revision).value(), "tool.browser.page_changed");
}

void TestRegions::modalDialogComesFirst()
{
    const auto observation = open(QStringLiteral("/modal"));
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    QVERIFY(!observation->regions.isEmpty());
    const RegionRecord &dialog = observation->regions.first();
    QCOMPARE(dialog.kind, QStringLiteral("dialog"));
    QCOMPARE(dialog.name, QStringLiteral("Confirm"));
    // Focusing the active dialog reads its controls before (and without) the navigation.
    const auto focused = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::focus(dialog.ref, observation->revision).value());
    QVERIFY2(focused.ok(), qPrintable(codeOf(focused)));
    QCOMPARE(names(*focused), (QStringList{"Delete", "Keep"}));
    QCOMPARE(focused->text, QStringLiteral("Delete the order?\nDeleteKeep"));
}

int main(int argc, char **argv)
{
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestRegions test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_regions.moc"
