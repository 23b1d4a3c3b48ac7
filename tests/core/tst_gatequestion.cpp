// The dispatch gate's one question and its one answer (ports/GateQuestion.h): the state machine
// the isolated host, the isolated provider, the session host and the service's client share.

#include "ports/GateQuestion.h"

#include <QList>
#include <QTest>

using namespace veetbot;

class TestGateQuestion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theAskerHearsOneAnswer();
    void anAnswerToAnEarlierQuestionAnswersNothing();
    void anUnansweredQuestionClosesAfterItsWait();
    void withdrawClosesAPendingQuestion();
    void copiesShareTheQuestion();
    void theAskerMayAskAgainFromItsAnswer();
    void aQuestionEveryHolderDroppedStillCloses();
};

namespace {

struct Heard
{
    QList<bool> answers;
    GateAnswer record()
    {
        return [this](bool open) { answers.append(open); };
    }
};

} // namespace

void TestGateQuestion::theAskerHearsOneAnswer()
{
    GateQuestion question;
    QCOMPARE(question.state(), GateQuestion::State::Idle);
    QVERIFY(!question.pending());
    Heard heard;
    const quint64 ticket = question.ask(this, 60'000, heard.record());
    QVERIFY(ticket != 0);
    QCOMPARE(question.ticket(), ticket);
    QCOMPARE(question.state(), GateQuestion::State::Asked);
    QVERIFY(heard.answers.isEmpty());

    QVERIFY(question.answer(ticket, true));
    QCOMPARE(question.state(), GateQuestion::State::Opened);
    QCOMPARE(heard.answers, QList<bool>{true});
    // A second answer (a replay, or the wait passing) changes nothing.
    QVERIFY(!question.answer(ticket, false));
    question.withdraw();
    QCOMPARE(question.state(), GateQuestion::State::Opened);
    QCOMPARE(heard.answers, QList<bool>{true});
}

void TestGateQuestion::anAnswerToAnEarlierQuestionAnswersNothing()
{
    GateQuestion question;
    Heard first;
    Heard second;
    const quint64 earlier = question.ask(this, 60'000, first.record());
    const quint64 later = question.ask(this, 60'000, second.record());
    QVERIFY(later != earlier);
    // Asking again closed the earlier question: its asker heard closed.
    QCOMPARE(first.answers, QList<bool>{false});
    QVERIFY(!question.answer(earlier, true));
    QVERIFY(question.pending());
    QVERIFY(second.answers.isEmpty());
    QVERIFY(question.answer(later, false));
    QCOMPARE(question.state(), GateQuestion::State::Closed);
    QCOMPARE(second.answers, QList<bool>{false});
    QCOMPARE(first.answers, QList<bool>{false});
}

void TestGateQuestion::anUnansweredQuestionClosesAfterItsWait()
{
    GateQuestion question;
    Heard heard;
    const quint64 ticket = question.ask(this, 50, heard.record());
    QTRY_COMPARE_WITH_TIMEOUT(question.state(), GateQuestion::State::Closed, 5000);
    QCOMPARE(heard.answers, QList<bool>{false});
    // The owner's answer after the wait opens nothing.
    QVERIFY(!question.answer(ticket, true));
    QCOMPARE(heard.answers, QList<bool>{false});

    // Positive control: answered inside its wait, the question opens, and the wait passing
    // afterwards changes nothing.
    Heard control;
    const quint64 next = question.ask(this, 50, control.record());
    QVERIFY(question.answer(next, true));
    QTest::qWait(150);
    QCOMPARE(control.answers, QList<bool>{true});
    QCOMPARE(question.state(), GateQuestion::State::Opened);
}

void TestGateQuestion::withdrawClosesAPendingQuestion()
{
    GateQuestion question;
    question.withdraw(); // nothing pending: nothing happens
    QCOMPARE(question.state(), GateQuestion::State::Idle);
    Heard heard;
    const quint64 ticket = question.ask(this, 60'000, heard.record());
    question.withdraw();
    QCOMPARE(question.state(), GateQuestion::State::Closed);
    QCOMPARE(heard.answers, QList<bool>{false});
    QVERIFY(!question.answer(ticket, true));
    QCOMPARE(heard.answers, QList<bool>{false});
}

void TestGateQuestion::copiesShareTheQuestion()
{
    GateQuestion question;
    Heard heard;
    const quint64 ticket = question.ask(this, 60'000, heard.record());
    GateQuestion copy = question;
    QVERIFY(copy.pending());
    QVERIFY(copy.answer(ticket, true));
    QCOMPARE(question.state(), GateQuestion::State::Opened);
    QVERIFY(!question.answer(ticket, true));
    QCOMPARE(heard.answers, QList<bool>{true});
}

void TestGateQuestion::theAskerMayAskAgainFromItsAnswer()
{
    GateQuestion question;
    Heard again;
    quint64 second = 0;
    const quint64 first = question.ask(this, 60'000, [&](bool open) {
        QVERIFY(!open);
        second = question.ask(this, 60'000, again.record());
    });
    QVERIFY(question.answer(first, false));
    QVERIFY(second != 0);
    QVERIFY(question.pending());
    QCOMPARE(question.ticket(), second);
    QVERIFY(question.answer(second, true));
    QCOMPARE(again.answers, QList<bool>{true});
}

void TestGateQuestion::aQuestionEveryHolderDroppedStillCloses()
{
    // The answerer went away with the question (a gate that keeps nothing): its wait still
    // closes it, and the asker hears closed.
    Heard heard;
    {
        GateQuestion question;
        (void)question.ask(this, 50, heard.record());
    }
    QVERIFY(heard.answers.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(heard.answers, QList<bool>{false}, 5000);
    // Positive control: a question still held and answered inside its wait opens.
    GateQuestion kept;
    Heard control;
    const quint64 ticket = kept.ask(this, 60'000, control.record());
    QVERIFY(kept.answer(ticket, true));
    QCOMPARE(control.answers, QList<bool>{true});
}

QTEST_GUILESS_MAIN(TestGateQuestion)
#include "tst_gatequestion.moc"
