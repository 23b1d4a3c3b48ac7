// Bounded observation continuation through WebEngineProvider in this process (real Chromium,
// offscreen, traffic through the egress proxy): every visible control of a large page is reached
// window by window with {after} and with {cursor}, exactly once and in traversal order; stale,
// foreign, removed or moved continuations are tool.browser.page_changed before any capture and
// leave the current revision valid; candidate positions stop at 65,536; and a model that reads only
// the projection at 1 KiB or 4 KiB walks past candidate position 3,000.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "WebEngineProvider.h"
#include "tools/ModelProjection.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QWebEnginePage>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

// 5,000 visible buttons v0..v4999 in traversal order, with hidden candidates interleaved
// (display:none, the hidden attribute, visibility:hidden, a closed <details>, zero size),
// v2000..v2999 inside open shadow roots (one of them nested), and a run of 9,000 hidden
// buttons between v2999 and v3000 so that whole windows hold no visible control.
const char kLargePage[] = R"(<!doctype html><title>Large</title><body><main id=top></main><script>
const main = document.getElementById('top');
function visible(parent, i) {
  const b = document.createElement('button'); b.textContent = 'v' + i; parent.appendChild(b);
}
function hidden(parent, kind) {
  const b = document.createElement('button'); b.textContent = 'HIDDEN';
  if (kind === 0) b.style.display = 'none';
  else if (kind === 1) b.hidden = true;
  else if (kind === 2) b.style.visibility = 'hidden';
  else if (kind === 3) { b.style.width = '0'; b.style.height = '0'; b.style.padding = '0';
                         b.style.border = '0'; b.style.overflow = 'hidden'; }
  else { const d = document.createElement('details'); const s = document.createElement('span');
         s.textContent = 'closed'; d.appendChild(s); d.appendChild(b); parent.appendChild(d);
         return; }
  parent.appendChild(b);
}
let light = document.createElement('div'); main.appendChild(light);
for (let i = 0; i < 2000; i++) { if (i % 7 === 3) hidden(light, i % 5); visible(light, i); }
for (let h = 0; h < 10; h++) {
  const host = document.createElement('section'); main.appendChild(host);
  const root = host.attachShadow({mode: 'open'});
  const count = h === 4 ? 50 : 100;
  for (let i = 0; i < count; i++) {
    const n = 2000 + h * 100 + i; if (n % 11 === 0) hidden(root, n % 5); visible(root, n);
  }
  if (h === 4) {
    const inner = document.createElement('div'); root.appendChild(inner);
    const nested = inner.attachShadow({mode: 'open'});
    for (let i = 50; i < 100; i++) visible(nested, 2400 + i);
  }
}
const run = document.createElement('div'); main.appendChild(run);
for (let i = 0; i < 9000; i++) hidden(run, 1);
light = document.createElement('div'); main.appendChild(light);
for (let i = 3000; i < 5000; i++) { if (i % 13 === 0) hidden(light, i % 5); visible(light, i); }
</script></body>)";

QStringList expectedNames()
{
    QStringList names;
    for (int i = 0; i < 5000; ++i)
        names << QStringLiteral("v%1").arg(i);
    return names;
}

QString codeOf(const Result<BrowserObservation> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

} // namespace

class TestContinuation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void afterWalkReachesEveryVisibleControlOnce();
    void cursorWalkReachesEveryVisibleControlOnce();
    void staleAndForeignCursorsAreRefused();
    void removedOrMovedAnchorsAreRefused();
    void continuationsEndWithTheDocument();
    void candidatePositionsStopAt65536();
    void projectionWalkReachesBeyond3000_data();
    void projectionWalkReachesBeyond3000();

private:
    struct Walk
    {
        QStringList names;
        int windows = 0;
        int cursorSteps = 0;
        int emptyWindows = 0;
        int furthestOffset = 0;
        bool reachedBeyond3000 = false;
        bool ok = false;
    };
    // Walks the page from a navigation to full coverage. preferAfter: continue after the last
    // control of each window (the cursor only for a window without controls, as the model
    // projection does); otherwise always with the provider's cursor.
    Walk walk(const QString &path, bool preferAfter);
    void runInPage(const QString &source);

    BrowserTestHarness m_harness;
    std::unique_ptr<WebEngineProvider> m_provider;
};

void TestContinuation::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    m_harness.page(QStringLiteral("/large"), kLargePage);
    m_harness.page(QStringLiteral("/four"), "<!doctype html><title>Four</title><div id=list>"
                                            "<button id=a>A</button><button id=b>B</button>"
                                            "<button id=c>C</button><button id=d>D</button></div>");
    m_harness.page(QStringLiteral("/ok"), "<!doctype html><title>OK</title><button>Go</button>");
    m_provider = std::make_unique<WebEngineProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
    // A browser that cannot start is a failure, never a skip.
    const auto first = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
}

void TestContinuation::cleanupTestCase()
{
    m_provider.reset();
}

void TestContinuation::init()
{
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
}

void TestContinuation::runInPage(const QString &source)
{
    bool done = false;
    m_provider->view()->page()->runJavaScript(source, [&done](const QVariant &) { done = true; });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
}

TestContinuation::Walk TestContinuation::walk(const QString &path, bool preferAfter)
{
    Walk walk;
    auto observation =
        BrowserTestHarness::navigate(*m_provider, m_harness.url(QStringLiteral("shop.test"), path));
    QSet<QString> revisions;
    QString firstText;
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        if (!observation.ok()) {
            qWarning("window %d failed: %s", walk.windows, qPrintable(codeOf(observation)));
            return walk;
        }
        const BrowserObservation &o = observation.value();
        ++walk.windows;
        // The page does not change during the walk: every window carries the first one's text
        // (continuations do not read or send it again; the provider puts it back).
        if (walk.windows == 1)
            firstText = o.text;
        if (o.text != firstText || o.text.isEmpty()) {
            qWarning("window %d: text differs from the first window's", walk.windows);
            return walk;
        }
        if (revisions.contains(o.revision) || m_provider->currentRevision() != o.revision) {
            qWarning("window %d: revision reused or not current", walk.windows);
            return walk;
        }
        revisions.insert(o.revision);
        if (o.coverage.scanLimitReached) {
            qWarning("window %d: unexpected scan limit", walk.windows);
            return walk;
        }
        walk.furthestOffset = qMax(walk.furthestOffset, o.coverage.candidateOffset);
        if (o.elements.isEmpty())
            ++walk.emptyWindows;
        for (const ElementRecord &element : o.elements) {
            walk.names << element.name;
            if (o.coverage.candidateOffset > 3000 && element.name.mid(1).toInt() > 3000)
                walk.reachedBeyond3000 = true;
        }
        if (!o.coverage.nextCursor)
            break;
        if (walk.windows > 200) {
            qWarning("walk does not end");
            return walk;
        }
        if (preferAfter && !o.elements.isEmpty()) {
            observation = BrowserTestHarness::observe(
                *m_provider, ObserveRequest::after(o.elements.last().ref).value());
        } else {
            ++walk.cursorSteps;
            observation = BrowserTestHarness::observe(
                *m_provider, ObserveRequest::cursor(*o.coverage.nextCursor).value());
        }
    }
    qInfo("%s walk: %d windows (%d empty, %d by cursor) in %lld ms",
          preferAfter ? "after" : "cursor", walk.windows, walk.emptyWindows, walk.cursorSteps,
          timer.elapsed());
    walk.ok = true;
    return walk;
}

void TestContinuation::afterWalkReachesEveryVisibleControlOnce()
{
    const Walk result = walk(QStringLiteral("/large"), true);
    QVERIFY(result.ok);
    QCOMPARE(result.names.size(), 5000);
    QCOMPARE(result.names, expectedNames()); // each exactly once, in traversal order
    QVERIFY(result.reachedBeyond3000);
    QVERIFY(result.emptyWindows >= 1); // the 9,000-button hidden run
    QVERIFY(result.cursorSteps >= 1);  // windows without a control continue by cursor
    QVERIFY(result.furthestOffset > 9000);
}

void TestContinuation::cursorWalkReachesEveryVisibleControlOnce()
{
    const Walk result = walk(QStringLiteral("/large"), false);
    QVERIFY(result.ok);
    QCOMPARE(result.names, expectedNames());
    QVERIFY(result.reachedBeyond3000);
    QVERIFY(result.emptyWindows >= 1);
    QCOMPARE(result.cursorSteps, result.windows - 1);
}

void TestContinuation::staleAndForeignCursorsAreRefused()
{
    const QUrl large = m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/large"));
    const auto first = BrowserTestHarness::navigate(*m_provider, large);
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
    QVERIFY(first->coverage.nextCursor);
    QVERIFY(first->coverage.nextCursor->size() >= 32);
    const auto second = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(second.ok(), qPrintable(codeOf(second)));
    QVERIFY(second->coverage.nextCursor);
    QVERIFY(*second->coverage.nextCursor != *first->coverage.nextCursor);

    const auto expectPageChanged = [this](const ObserveRequest &request, const QString &current) {
        const auto refused = BrowserTestHarness::observe(*m_provider, request);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code, QStringLiteral("tool.browser.page_changed"));
        QCOMPARE(refused.error().message, reasonCodeMessage(ReasonCode::PageChanged));
        // Refused before any capture: the current revision stays valid.
        QCOMPARE(m_provider->currentRevision(), current);
    };
    // A cursor of an earlier revision.
    expectPageChanged(ObserveRequest::cursor(*first->coverage.nextCursor).value(),
                      second->revision);
    // Foreign-looking cursors: random, a revision, a forged position.
    expectPageChanged(ObserveRequest::cursor(randomToken(24)).value(), second->revision);
    expectPageChanged(ObserveRequest::cursor(second->revision + second->revision).value(),
                      second->revision);
    expectPageChanged(ObserveRequest::cursor(QString(32, u'0') + QStringLiteral("256")).value(),
                      second->revision);
    // An element ref of an earlier revision, and things that are no ref at all.
    expectPageChanged(ObserveRequest::after(first->elements.first().ref).value(), second->revision);
    expectPageChanged(ObserveRequest::after(second->revision).value(), second->revision);
    expectPageChanged(ObserveRequest::after(QStringLiteral("#top > button")).value(),
                      second->revision);

    // The current cursor still works, and is itself single-revision: once used, it is stale.
    const auto next = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::cursor(*second->coverage.nextCursor).value());
    QVERIFY2(next.ok(), qPrintable(codeOf(next)));
    QCOMPARE(next->coverage.candidateOffset, second->coverage.scannedCandidates);
    QCOMPARE(next->elements.first().name, QStringLiteral("v256"));
    expectPageChanged(ObserveRequest::cursor(*second->coverage.nextCursor).value(), next->revision);
}

void TestContinuation::removedOrMovedAnchorsAreRefused()
{
    const QUrl four = m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/four"));
    auto observation = BrowserTestHarness::navigate(*m_provider, four);
    QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
    QCOMPARE(observation->elements.size(), 4);
    QVERIFY(!observation->coverage.nextCursor); // covered
    const QString refB = observation->elements.at(1).ref;

    // Unchanged: after B come C and D; the window starts at B and counts it.
    auto after = BrowserTestHarness::observe(*m_provider, ObserveRequest::after(refB).value());
    QVERIFY2(after.ok(), qPrintable(codeOf(after)));
    QCOMPARE(after->elements.size(), 2);
    QCOMPARE(after->elements.at(0).name, QStringLiteral("C"));
    QCOMPARE(after->coverage.candidateOffset, 1);
    QCOMPARE(after->coverage.scannedCandidates, 3);
    QVERIFY(!after->coverage.nextCursor);
    // That was a new revision: B's ref of the earlier one is stale now.
    QVERIFY(after->revision != observation->revision);
    auto stale = BrowserTestHarness::observe(*m_provider, ObserveRequest::after(refB).value());
    QCOMPARE(codeOf(stale), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), after->revision);

    // Moved: B itself to the end of the list.
    observation = BrowserTestHarness::navigate(*m_provider, four);
    QVERIFY(observation.ok());
    runInPage(QStringLiteral("var l=document.getElementById('list');"
                             "l.append(document.getElementById('b'))"));
    auto moved = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.at(1).ref).value());
    QCOMPARE(codeOf(moved), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), observation->revision);
    // A did not move: continuing after it still works, and reads the live order.
    auto fromA = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.at(0).ref).value());
    QVERIFY2(fromA.ok(), qPrintable(codeOf(fromA)));
    QStringList names;
    for (const ElementRecord &element : fromA->elements)
        names << element.name;
    QCOMPARE(names, (QStringList{QStringLiteral("C"), QStringLiteral("D"), QStringLiteral("B")}));

    // Moved: a control inserted before the anchor shifts its position.
    observation = BrowserTestHarness::navigate(*m_provider, four);
    QVERIFY(observation.ok());
    runInPage(QStringLiteral(
        "document.getElementById('list').prepend(document.createElement('button'))"));
    auto shifted = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.at(0).ref).value());
    QCOMPARE(codeOf(shifted), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), observation->revision);

    // Removed.
    observation = BrowserTestHarness::navigate(*m_provider, four);
    QVERIFY(observation.ok());
    runInPage(QStringLiteral("document.getElementById('c').remove()"));
    auto removed = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.at(2).ref).value());
    QCOMPARE(codeOf(removed), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), observation->revision);
    // Replaced by an identical-looking node: not the same node.
    runInPage(
        QStringLiteral("var b=document.getElementById('b');b.replaceWith(b.cloneNode(true))"));
    auto replaced = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(observation->elements.at(1).ref).value());
    QCOMPARE(codeOf(replaced), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), observation->revision);
}

void TestContinuation::continuationsEndWithTheDocument()
{
    const QUrl large = m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/large"));
    const auto before = BrowserTestHarness::navigate(*m_provider, large);
    QVERIFY2(before.ok(), qPrintable(codeOf(before)));
    QVERIFY(before->coverage.nextCursor);
    // A navigation replaces the document: its refs and cursor expire.
    const auto other = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/ok")));
    QVERIFY(other.ok());
    QCOMPARE(codeOf(BrowserTestHarness::observe(
                 *m_provider, ObserveRequest::cursor(*before->coverage.nextCursor).value())),
             QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(codeOf(BrowserTestHarness::observe(
                 *m_provider, ObserveRequest::after(before->elements.first().ref).value())),
             QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), other->revision);

    // The page replaces its own document (a reload, no navigate call): the collector's
    // committed capture went with the document, so nothing of the old one continues.
    const auto again = BrowserTestHarness::navigate(*m_provider, large);
    QVERIFY(again.ok());
    QSignalSpy reloaded(m_provider->view()->page(), &QWebEnginePage::loadFinished);
    runInPage(QStringLiteral("location.reload()"));
    QTRY_VERIFY_WITH_TIMEOUT(reloaded.size() > 0, 20000);
    QCOMPARE(codeOf(BrowserTestHarness::observe(
                 *m_provider, ObserveRequest::cursor(*again->coverage.nextCursor).value())),
             QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(codeOf(BrowserTestHarness::observe(
                 *m_provider, ObserveRequest::after(again->elements.first().ref).value())),
             QStringLiteral("tool.browser.page_changed"));

    // A failed capture leaves no continuation: after the page is recycled nothing continues.
    const auto fresh = BrowserTestHarness::navigate(*m_provider, large);
    QVERIFY(fresh.ok());
    // A collector call that does not answer within 3 s recycles the page.
    m_provider->setTimeouts({.scriptMs = 3000});
    // The stall is in force before the collector runs: scripts sent to one frame run in the
    // order they were sent, so this endless one (sent without waiting for an answer it never
    // gives) holds the page's main thread before the capture's own call reaches it.
    m_provider->view()->page()->runJavaScript(QStringLiteral("for(;;){}"));
    const auto stuck = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::cursor(*fresh->coverage.nextCursor).value());
    QCOMPARE(codeOf(stuck), QStringLiteral("tool.browser.provider_unavailable"));
    QVERIFY(m_provider->currentRevision().isEmpty());
    m_provider->setTimeouts(WebEngineProvider::Timeouts{});
    QCOMPARE(codeOf(BrowserTestHarness::observe(
                 *m_provider, ObserveRequest::cursor(*fresh->coverage.nextCursor).value())),
             QStringLiteral("tool.browser.page_changed"));
}

void TestContinuation::candidatePositionsStopAt65536()
{
    // 65,540 candidates, all hidden but those at positions 0, 40,000, 65,535 and 65,538; the
    // last one lies beyond the 65,536 positions and is never reached.
    m_harness.page(QStringLiteral("/limit"),
                   "<!doctype html><title>Limit</title><div id=pile></div><script>"
                   "const f = document.createDocumentFragment();"
                   "for (let i = 0; i < 65540; i++) {"
                   "  const b = document.createElement('button');"
                   "  if (i === 0 || i === 40000 || i === 65535 || i === 65538)"
                   "    b.textContent = 'p' + i; else b.hidden = true;"
                   "  f.appendChild(b); }"
                   "document.getElementById('pile').appendChild(f);</script>");
    auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/limit")));
    QStringList names;
    QList<int> offsets;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 40; ++i) {
        QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
        offsets << observation->coverage.candidateOffset;
        for (const ElementRecord &element : observation->elements)
            names << element.name;
        if (!observation->coverage.nextCursor)
            break;
        QVERIFY(!observation->coverage.scanLimitReached);
        observation = BrowserTestHarness::observe(
            *m_provider, ObserveRequest::cursor(*observation->coverage.nextCursor).value());
    }
    qInfo("limit walk: %lld windows in %lld ms", qint64(offsets.size()), timer.elapsed());
    QCOMPARE(names, (QStringList{QStringLiteral("p0"), QStringLiteral("p40000"),
                                 QStringLiteral("p65535")}));
    // Sixteen full windows of 4,096 candidates; the last one ends at position 65,536, where
    // the limit (not the end of the page) stopped the walk.
    QVERIFY(!observation->coverage.nextCursor);
    QVERIFY(observation->coverage.scanLimitReached);
    QCOMPARE(observation->coverage.candidateOffset + observation->coverage.scannedCandidates,
             65536);
    QCOMPARE(offsets.size(), 16);
    for (int i = 0; i < offsets.size(); ++i)
        QCOMPARE(offsets.at(i), i * 4096);
}

void TestContinuation::projectionWalkReachesBeyond3000_data()
{
    QTest::addColumn<int>("budget");
    QTest::newRow("1 KiB") << 1024;
    QTest::newRow("4 KiB") << 4096;
}

// The model's view only: each step reads the projection bytes at the budget and sends exactly
// the next_observe request they carry. Controls arrive in page order, none skipped, until one
// beyond candidate position 3,000 (past the 9,000 hidden candidates) is reached.
void TestContinuation::projectionWalkReachesBeyond3000()
{
    QFETCH(int, budget);
    const QStringList expected = expectedNames();
    QStringList seen;
    int steps = 0;
    int emptySteps = 0;
    bool beyond = false;
    auto observation = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/large")));
    while (!beyond) {
        QVERIFY2(observation.ok(), qPrintable(codeOf(observation)));
        ++steps;
        QVERIFY2(steps < 2000, "no progress");
        const QByteArray bytes = ModelProjection::project(*observation, budget);
        QVERIFY(bytes.size() <= budget);
        const QJsonObject view =
            QJsonDocument::fromJson(bytes).object().value(QStringLiteral("observation")).toObject();
        QCOMPARE(view.value(QStringLiteral("revision")).toString(), observation->revision);
        const QJsonArray elements = view.value(QStringLiteral("elements")).toArray();
        if (elements.isEmpty())
            ++emptySteps;
        const int offset = view.value(QStringLiteral("coverage"))
                               .toObject()
                               .value(QStringLiteral("candidate_offset"))
                               .toInt();
        for (const QJsonValue &element : elements) {
            const QString name = element.toObject().value(QStringLiteral("name")).toString();
            QCOMPARE(name, expected.value(seen.size())); // in order, nothing skipped
            seen << name;
            if (offset > 3000 && name.mid(1).toInt() > 3000)
                beyond = true;
        }
        if (beyond)
            break;
        const QJsonObject next = view.value(QStringLiteral("next_observe")).toObject();
        QVERIFY2(!next.isEmpty(), "the projection stopped offering a continuation");
        const Result<ObserveRequest> request = ObserveRequest::fromJson(next);
        QVERIFY(request.ok());
        observation = BrowserTestHarness::observe(*m_provider, *request);
    }
    QVERIFY(beyond);
    QVERIFY(seen.size() > 3000);
    // The run of hidden candidates gave windows without controls, crossed by the cursor.
    QVERIFY(emptySteps >= 1);
    qInfo("budget %d: %d steps, %d controls seen", budget, steps, int(seen.size()));
}

int main(int argc, char **argv)
{
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestContinuation test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_continuation.moc"
