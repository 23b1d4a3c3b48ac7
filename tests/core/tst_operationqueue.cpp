// The provider's operation lock: one operation at a time in arrival order, each answered
// exactly once, late callbacks stale, close() answering the running one before the waiting.

#include "ports/OperationQueue.h"

#include <QCoreApplication>
#include <QTest>

using namespace veetbot;

class TestOperationQueue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsOneAtATimeInArrivalOrder();
    void lateCallbacksAreStale();
    void finishWithNothingRunning();
    void closeAnswersTheRunningOneThenTheWaiting();
    void afterCloseEveryCallIsRefusedAtOnce();
};

namespace {
BrowserObservation titled(const QString &title)
{
    BrowserObservation observation;
    observation.title = title;
    return observation;
}

ObservationCallback record(QStringList &answers)
{
    return [&answers](Result<BrowserObservation> result) {
        answers << (result ? result->title : result.error().code);
    };
}
} // namespace

void TestOperationQueue::runsOneAtATimeInArrivalOrder()
{
    OperationQueue queue;
    QStringList started;
    QStringList answers;
    for (const QString &name : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")})
        queue.enqueue([&started, name] { started << name; }, record(answers));
    QCOMPARE(started, QStringList{QStringLiteral("a")}); // the first starts at once
    QVERIFY(queue.busy());
    QVERIFY(queue.finish(titled(QStringLiteral("A"))));
    QCOMPARE(answers, QStringList{QStringLiteral("A")});
    // The next starts on the next pass of the event loop, never inside finish().
    QCOMPARE(started.size(), 1);
    QTRY_COMPARE(started.size(), 2);
    QCOMPARE(started.last(), QStringLiteral("b"));
    QVERIFY(queue.finish(titled(QStringLiteral("B"))));
    QTRY_COMPARE(started.size(), 3);
    QVERIFY(queue.finish(titled(QStringLiteral("C"))));
    QCOMPARE(answers, (QStringList{QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("C")}));
    QVERIFY(!queue.busy());
}

void TestOperationQueue::lateCallbacksAreStale()
{
    OperationQueue queue;
    QStringList answers;
    quint64 first = 0;
    queue.enqueue([&] { first = queue.current(); }, record(answers));
    QVERIFY(queue.isCurrent(first));
    QVERIFY(queue.finish(titled(QStringLiteral("one"))));
    QVERIFY(!queue.isCurrent(first)); // a late answer of the finished operation stands down
    quint64 second = 0;
    queue.enqueue([&] { second = queue.current(); }, record(answers));
    QTRY_VERIFY(second != 0);
    QVERIFY(second != first);
    QVERIFY(!queue.isCurrent(first));
    QVERIFY(queue.isCurrent(second));
}

void TestOperationQueue::finishWithNothingRunning()
{
    OperationQueue queue;
    QVERIFY(!queue.finish(titled(QStringLiteral("nobody asked"))));
    QStringList answers;
    queue.enqueue([] {}, record(answers));
    QVERIFY(queue.finish(titled(QStringLiteral("once"))));
    QVERIFY(!queue.finish(titled(QStringLiteral("twice")))); // answered exactly once
    QCOMPARE(answers, QStringList{QStringLiteral("once")});
}

void TestOperationQueue::closeAnswersTheRunningOneThenTheWaiting()
{
    OperationQueue queue;
    QStringList answers;
    int started = 0;
    for (int i = 0; i < 3; ++i)
        queue.enqueue([&started] { ++started; }, record(answers));
    queue.close([&queue] { QVERIFY(queue.finish(titled(QStringLiteral("running")))); });
    const QStringList expected{QStringLiteral("running"),
                               QStringLiteral("tool.browser.provider_unavailable"),
                               QStringLiteral("tool.browser.provider_unavailable")};
    QCOMPARE(answers, expected);
    // The pass of the event loop that finish() scheduled starts nothing, and nothing is
    // answered twice.
    QCoreApplication::processEvents();
    QCOMPARE(started, 1);
    QCOMPARE(answers, expected);
}

void TestOperationQueue::afterCloseEveryCallIsRefusedAtOnce()
{
    OperationQueue queue;
    bool endRunningCalled = false;
    queue.close([&endRunningCalled] { endRunningCalled = true; });
    QVERIFY(!endRunningCalled); // nothing ran
    QStringList answers;
    bool started = false;
    queue.enqueue([&started] { started = true; }, record(answers));
    QCOMPARE(answers, QStringList{QStringLiteral("tool.browser.provider_unavailable")});
    QVERIFY(!started);
}

QTEST_GUILESS_MAIN(TestOperationQueue)
#include "tst_operationqueue.moc"
