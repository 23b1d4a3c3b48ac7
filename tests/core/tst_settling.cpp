// The settling rule: document ready, the requests in flight at settling entry completed, and
// DOM quiet; or the bound. Fed with collector probe answers as the browser adapter does.

#include "domain/observation/NetworkIdle.h"
#include "domain/observation/Settling.h"

#include <QJsonArray>
#include <QTest>

using namespace veetbot;

class TestSettling : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void quietReadyDocumentWithNothingInFlightSettles();
    void pendingRequestsHoldSettlingUntilCompleted();
    void completedIndexesReferToTheListLastProbed();
    void requestsReportedLaterAreWaitedForToo();
    void invalidIndexesCompleteNothing();
    void aLoadingDocumentIsNotReady();
    void aStalledLoadSettlesTheParsedDocument();
    void waitsOnlyTheQuietTimeLeft();
    void afterAnInputQuietCountsFromTheInput();
    void afterAnInputQuietCountsFromTheLastRequest();
    void theBoundEndsSettling();
    void neverWaitsPastTheBound();
    void tracksAtMostTheLimit();
    void networkIdleNeedsContentLoadedAndQuiet_data();
    void networkIdleNeedsContentLoadedAndQuiet();
    void networkIdleWaitsOnlyTheQuietTimeLeft();
    void networkIdleNeverWaitsPastTheBound();
};

namespace {
constexpr Settling::Timing kTiming{.boundMs = 2000, .quietMs = 300, .pollMs = 50};

QJsonObject probe(const QString &readyState, double quietMs, const QJsonArray &completed = {})
{
    return {{QStringLiteral("ok"), true},
            {QStringLiteral("readyState"), readyState},
            {QStringLiteral("quietMs"), quietMs},
            {QStringLiteral("completed"), completed}};
}
} // namespace

void TestSettling::quietReadyDocumentWithNothingInFlightSettles()
{
    Settling settling(kTiming, {}, false);
    const Settling::Step step = settling.round(probe(QStringLiteral("complete"), 300), false, 10);
    QCOMPARE(step.capture, std::optional(Readiness::DomQuiet));
}

void TestSettling::pendingRequestsHoldSettlingUntilCompleted()
{
    Settling settling(
        kTiming, {QStringLiteral("https://a.test/x"), QStringLiteral("https://a.test/y")}, false);
    Settling::Step step = settling.round(probe(QStringLiteral("complete"), 900), false, 10);
    QVERIFY(!step.capture);
    QCOMPARE(step.waitMs, kTiming.pollMs);
    QCOMPARE(settling.inFlight().size(), 2);
    step = settling.round(probe(QStringLiteral("complete"), 900, {0, 1}), false, 70);
    QCOMPARE(step.capture, std::optional(Readiness::DomQuiet));
    QVERIFY(settling.inFlight().isEmpty());
}

void TestSettling::completedIndexesReferToTheListLastProbed()
{
    const QString x = QStringLiteral("https://a.test/x");
    const QString y = QStringLiteral("https://a.test/y");
    const QString z = QStringLiteral("https://a.test/z");
    Settling settling(kTiming, {x, y, z}, false);
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 900, {1}), false, 10).capture);
    QCOMPARE(settling.inFlight(), QStringList({x, z}));
    // Index 1 is now z.
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 900, {1}), false, 60).capture);
    QCOMPARE(settling.inFlight(), QStringList({x}));
}

// A request the browser reports after settling began (Chromium's request stage hears of the
// fetch an act's click started after the input's evidence was read) holds settling like one
// in flight at the start; the list stays bounded.
void TestSettling::requestsReportedLaterAreWaitedForToo()
{
    const QString x = QStringLiteral("https://a.test/x");
    const QString late = QStringLiteral("https://a.test/late");
    Settling settling(kTiming, {x}, false);
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 900), false, 10).capture);
    settling.addStarted({late}, 30);
    QCOMPARE(settling.inFlight(), QStringList({x, late}));
    // x completes; the late one still holds the capture.
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 900, {0}), false, 60).capture);
    QCOMPARE(settling.inFlight(), QStringList({late}));
    const Settling::Step step =
        settling.round(probe(QStringLiteral("complete"), 900, {0}), false, 110);
    QCOMPARE(step.capture, std::optional(Readiness::DomQuiet));

    QStringList many;
    for (int i = 0; i < Settling::kMaxRequests + 10; ++i)
        many.append(QStringLiteral("https://a.test/%1").arg(i));
    Settling full(kTiming, {}, false);
    full.addStarted(many, 0);
    QCOMPARE(full.inFlight().size(), Settling::kMaxRequests);
}

void TestSettling::invalidIndexesCompleteNothing()
{
    Settling settling(kTiming, {QStringLiteral("https://a.test/x")}, false);
    const QJsonArray nonsense{-1, 1, 0.5, QStringLiteral("0"), 256, 1e300};
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 900, nonsense), false, 10).capture);
    QCOMPARE(settling.inFlight().size(), 1);
}

void TestSettling::aLoadingDocumentIsNotReady()
{
    Settling settling(kTiming, {}, false);
    QVERIFY(!settling.round(probe(QStringLiteral("loading"), 900), false, 10).capture);
    // The page still reports its load in progress (the load event has not fired).
    QVERIFY(!settling.round(probe(QStringLiteral("interactive"), 900), true, 20).capture);
    QCOMPARE(settling.round(probe(QStringLiteral("interactive"), 900), false, 30).capture,
             std::optional(Readiness::DomQuiet));
}

void TestSettling::aStalledLoadSettlesTheParsedDocument()
{
    Settling settling(kTiming, {}, true);
    QCOMPARE(settling.round(probe(QStringLiteral("interactive"), 900), true, 10).capture,
             std::optional(Readiness::DomQuiet));
    // Not one still being parsed.
    Settling parsing(kTiming, {}, true);
    QVERIFY(!parsing.round(probe(QStringLiteral("loading"), 900), true, 10).capture);
}

void TestSettling::waitsOnlyTheQuietTimeLeft()
{
    Settling settling(kTiming, {}, false);
    const Settling::Step step = settling.round(probe(QStringLiteral("complete"), 220), false, 10);
    QVERIFY(!step.capture);
    QCOMPARE(step.waitMs, 80);
}

// After an act's input, a page whose DOM has been still for long is not quiet yet: the request
// the input started may not have reached the request stage. Quiet counts from the input.
void TestSettling::afterAnInputQuietCountsFromTheInput()
{
    Settling settling(kTiming, {}, false, Settling::After::Input);
    Settling::Step step = settling.round(probe(QStringLiteral("complete"), 5000), false, 100);
    QVERIFY(!step.capture);
    QCOMPARE(step.waitMs, 200);
    // The DOM's own quiet still counts when it is shorter.
    step = settling.round(probe(QStringLiteral("complete"), 250), false, 300);
    QVERIFY(!step.capture);
    QCOMPARE(step.waitMs, 50);
    QCOMPARE(settling.round(probe(QStringLiteral("complete"), 5000), false, 300).capture,
             std::optional(Readiness::DomQuiet));
    // After a load, the DOM's quiet alone.
    Settling load(kTiming, {}, false);
    QCOMPARE(load.round(probe(QStringLiteral("complete"), 5000), false, 10).capture,
             std::optional(Readiness::DomQuiet));
}

// After an input, a request reported late or one just completed starts the quiet again: the
// page acts on an answer (clears its dirty flag, moves itself) after the answer came.
void TestSettling::afterAnInputQuietCountsFromTheLastRequest()
{
    const QString late = QStringLiteral("https://a.test/late");
    Settling settling(kTiming, {}, false, Settling::After::Input);
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 5000), false, 250).capture);
    settling.addStarted({late}, 280);
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 5000), false, 400).capture);
    // It completes at 500: quiet from then on.
    Settling::Step step = settling.round(probe(QStringLiteral("complete"), 5000, {0}), false, 500);
    QVERIFY(!step.capture);
    QVERIFY(settling.inFlight().isEmpty());
    QCOMPARE(step.waitMs, 300);
    QVERIFY(!settling.round(probe(QStringLiteral("complete"), 5000), false, 799).capture);
    QCOMPARE(settling.round(probe(QStringLiteral("complete"), 5000), false, 800).capture,
             std::optional(Readiness::DomQuiet));
    // Nothing reported: addStarted with no request is no activity.
    Settling quiet(kTiming, {}, false, Settling::After::Input);
    quiet.addStarted({}, 290);
    QCOMPARE(quiet.round(probe(QStringLiteral("complete"), 5000), false, 300).capture,
             std::optional(Readiness::DomQuiet));
}

void TestSettling::theBoundEndsSettling()
{
    Settling settling(kTiming, {QStringLiteral("https://a.test/stalled")}, false);
    QCOMPARE(settling.round(probe(QStringLiteral("complete"), 900), false, 2000).capture,
             std::optional(Readiness::BoundExpired));
    QCOMPARE(settling.expired(1999), std::nullopt);
    QCOMPARE(settling.expired(2000), std::optional(Readiness::BoundExpired));
    // A quiet, ready page at the bound is still dom_quiet.
    Settling quiet(kTiming, {}, false);
    QCOMPARE(quiet.round(probe(QStringLiteral("complete"), 300), false, 2500).capture,
             std::optional(Readiness::DomQuiet));
}

void TestSettling::neverWaitsPastTheBound()
{
    Settling settling(kTiming, {QStringLiteral("https://a.test/x")}, false);
    const Settling::Step step = settling.round(probe(QStringLiteral("complete"), 0), false, 1990);
    QVERIFY(!step.capture);
    QCOMPARE(step.waitMs, 10);
}

void TestSettling::tracksAtMostTheLimit()
{
    QStringList many;
    for (int i = 0; i < Settling::kMaxRequests + 10; ++i)
        many << QStringLiteral("https://a.test/%1").arg(i);
    const Settling settling(kTiming, many, false);
    QCOMPARE(settling.inFlight().size(), Settling::kMaxRequests);
}

QTEST_APPLESS_MAIN(TestSettling)
void TestSettling::networkIdleNeedsContentLoadedAndQuiet_data()
{
    QTest::addColumn<bool>("loaded");
    QTest::addColumn<int>("resources");
    QTest::addColumn<int>("requests");
    QTest::addColumn<int>("quietMs");
    QTest::addColumn<int>("elapsedMs");
    QTest::addColumn<int>("idle"); // 1 idle, 0 the bound passed, -1 wait
    QTest::newRow("idle") << true << 0 << 0 << 500 << 100 << 1;
    QTest::newRow("idle long after") << true << 0 << 0 << 4000 << 100 << 1;
    QTest::newRow("not quiet long enough") << true << 0 << 0 << 499 << 100 << -1;
    QTest::newRow("before DOMContentLoaded") << false << 0 << 0 << 4000 << 100 << -1;
    QTest::newRow("a script pending") << true << 1 << 0 << 4000 << 100 << -1;
    QTest::newRow("a fetch in flight") << true << 0 << 1 << 4000 << 100 << -1;
    QTest::newRow("bound passed busy") << true << 0 << 1 << 4000 << 5000 << 0;
    QTest::newRow("bound passed not quiet") << true << 0 << 0 << 100 << 5000 << 0;
    QTest::newRow("idle at the bound") << true << 0 << 0 << 500 << 5000 << 1;
}

void TestSettling::networkIdleNeedsContentLoadedAndQuiet()
{
    QFETCH(bool, loaded);
    QFETCH(int, resources);
    QFETCH(int, requests);
    QFETCH(int, quietMs);
    QFETCH(int, elapsedMs);
    QFETCH(int, idle);
    const NetworkIdle rule({.boundMs = 5000, .quietMs = 500, .pollMs = 50});
    const NetworkIdle::Step step = rule.round({loaded, resources, requests, quietMs}, elapsedMs);
    if (idle < 0) {
        QVERIFY(!step.idle.has_value());
        QVERIFY(step.waitMs > 0);
    } else {
        QCOMPARE(step.idle, std::optional<bool>(idle == 1));
    }
}

void TestSettling::networkIdleWaitsOnlyTheQuietTimeLeft()
{
    const NetworkIdle rule({.boundMs = 5000, .quietMs = 500, .pollMs = 50});
    QCOMPARE(rule.round({true, 0, 0, 300}, 1000).waitMs, 200);
    QCOMPARE(rule.round({true, 0, 1, 300}, 1000).waitMs, 50); // busy: the poll interval
    QCOMPARE(rule.round({true, 0, 0, 0}, 1000).waitMs, 500);
}

void TestSettling::networkIdleNeverWaitsPastTheBound()
{
    const NetworkIdle rule({.boundMs = 5000, .quietMs = 500, .pollMs = 50});
    QCOMPARE(rule.round({true, 0, 0, 0}, 4900).waitMs, 100);
    QCOMPARE(rule.round({true, 2, 0, 0}, 4990).waitMs, 10);
}

#include "tst_settling.moc"
