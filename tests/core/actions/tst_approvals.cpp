// The approval flow of browser.act: every non-approving answer is a denial, the wait is
// bounded, the page is revalidated after the wait, and a grant is single use and bound to
// (argument digest, revision, ref, origin). Also the deny, scripted and terminal approvers.

#include "domain/authority/TaskGrant.h"
#include "domain/web/TestOverrides.h"
#include "tools/Approvals.h"
#include "tools/Approvers.h"
#include "tools/ToolFailure.h"

#include <QBuffer>
#include <QTest>

using namespace veetbot;

namespace {

const QString kOrigin = QStringLiteral("https://shop.example");
const PageFacts kPage{QUrl(QStringLiteral("https://shop.example/cart?x=1")),
                      QStringLiteral("Cart")};
const ElementFacts kButton{QStringLiteral("button"), QStringLiteral("Place order"), {}, {}, {}, {}};

ActRequest click(const QString &revision = QStringLiteral("rev1"),
                 const QString &ref = QStringLiteral("e1"))
{
    return *ActRequest::click(revision, ref);
}

struct Outcome
{
    std::optional<Result<ApprovalGrant>> result;
    int calls = 0;
    bool done() const { return result.has_value(); }
    QString code() const
    {
        return result->ok() ? QStringLiteral("<granted>") : result->error().code;
    }
};

Approvals::GrantCallback record(Outcome &outcome)
{
    return [&outcome](Result<ApprovalGrant> result) {
        ++outcome.calls;
        outcome.result = std::move(result);
    };
}

Approvals::PageReader pageAt(const QString &revision, const QString &origin = kOrigin)
{
    return [revision, origin] { return CurrentPage{revision, origin}; };
}

// Positive control for "nothing more is answered": one more question, scripted to be declined,
// goes through the same approver and Approvals the way any late answer does (the approver's
// queued answer, then Approvals' queued settle), each step posted after the same step of
// anything already under way. Once it is answered, so would be everything before it. True when
// it was answered, declined, in time.
bool controlAnswered(ScriptedApprover &approver, Approvals &approvals)
{
    Outcome control;
    approver.enqueue(ApprovalAnswer::Declined);
    approvals.request(click(QStringLiteral("control")), kPage, kButton,
                      pageAt(QStringLiteral("control")), record(control));
    return QTest::qWaitFor([&control] { return control.done(); }, 5000) && control.calls == 1 &&
           control.code() == QLatin1String("tool.approval_denied");
}

// Answers twice, once inside requestApproval() itself: a broken approver must not make the
// flow answer twice or synchronously.
class UnrulyApprover final : public Approver
{
public:
    void requestApproval(const ApprovalRequest &, AnswerCallback done) override
    {
        done(ApprovalAnswer::Approved);
        done(ApprovalAnswer::Declined);
    }
    void cancel(quint64) override {}
};

} // namespace

class TestApprovals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void denyApproverDenies();
    void everyNonApprovingAnswerDenies_data();
    void everyNonApprovingAnswerDenies();
    void timeoutDeniesAndWithdraws();
    void callerCancelDeniesAndWithdraws();
    void approverSeesOnlyTheView();
    void grantIsSingleUse();
    void grantNeverCoversAnotherCall_data();
    void grantNeverCoversAnotherCall();
    void pageMovedBeforeDispatch();
    void revalidatesAfterTheWait_data();
    void revalidatesAfterTheWait();
    void answersExactlyOnceAndNeverSynchronously();
    void terminalApprover_data();
    void terminalApprover();
    void terminalApproverRefusesConcurrentRequests();
    void terminalApproverCancel();
    void approveForTaskMakesTheGrantOnce();
    void approveForTaskThatCannotBeMadeStaysPending();
    void approveForTaskOnAMovedPageMakesNothing();
    void approveForTaskWithoutAnOfferApprovesOnce();
    void terminalApproverOffersTheTask();
};

void TestApprovals::denyApproverDenies()
{
    DenyApprover approver;
    Approvals approvals(approver);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QVERIFY(!outcome.done());
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("tool.approval_denied"));
    QCOMPARE(outcome.result->error().message, QStringLiteral("The action was not approved."));
    QCOMPARE(approvals.outstandingGrants(), 0);
}

void TestApprovals::everyNonApprovingAnswerDenies_data()
{
    QTest::addColumn<int>("answer");
    QTest::addColumn<QString>("code");
    QTest::newRow("approved") << int(ApprovalAnswer::Approved) << QStringLiteral("<granted>");
    QTest::newRow("declined") << int(ApprovalAnswer::Declined)
                              << QStringLiteral("tool.approval_denied");
    QTest::newRow("cancelled") << int(ApprovalAnswer::Cancelled)
                               << QStringLiteral("tool.approval_denied");
    QTest::newRow("failed") << int(ApprovalAnswer::Failed)
                            << QStringLiteral("tool.approval_denied");
    QTest::newRow("timed out") << int(ApprovalAnswer::TimedOut)
                               << QStringLiteral("tool.approval_denied");
}

void TestApprovals::everyNonApprovingAnswerDenies()
{
    QFETCH(int, answer);
    QFETCH(QString, code);
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer(answer));
    Approvals approvals(approver);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), code);
    QCOMPARE(approvals.outstandingGrants(), code == QLatin1String("<granted>") ? 1 : 0);
}

void TestApprovals::timeoutDeniesAndWithdraws()
{
    ScriptedApprover approver; // never answers by itself
    Approvals approvals(approver, 50);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QCOMPARE(approver.pendingCount(), 1);
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("tool.approval_denied"));
    QCOMPARE(approver.pendingCount(), 0); // the question was withdrawn
    // An approval arriving after the deadline changes nothing.
    QVERIFY(!approver.answerPending(ApprovalAnswer::Approved));
    QVERIFY(controlAnswered(approver, approvals));
    QCOMPARE(outcome.calls, 1);
    QCOMPARE(approvals.outstandingGrants(), 0);
    QCOMPARE(approvals.pendingCount(), 0);
}

void TestApprovals::callerCancelDeniesAndWithdraws()
{
    ScriptedApprover approver;
    Approvals approvals(approver);
    Outcome outcome;
    const quint64 id =
        approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    approvals.cancel(id);
    QCOMPARE(outcome.code(), QStringLiteral("tool.approval_denied"));
    QCOMPARE(approver.pendingCount(), 0);
    QVERIFY(controlAnswered(approver, approvals));
    QCOMPARE(outcome.calls, 1);
}

void TestApprovals::approverSeesOnlyTheView()
{
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::Declined);
    Approvals approvals(approver);
    Outcome outcome;
    approvals.request(
        *ActRequest::type(QStringLiteral("REVISION-x"), QStringLiteral("REF-y"),
                          QStringLiteral("hello")),
        kPage, ElementFacts{QStringLiteral("textbox"), QStringLiteral("Note"), {}, {}, {}, {}},
        pageAt(QStringLiteral("REVISION-x")), record(outcome));
    QTRY_VERIFY(outcome.done());
    QCOMPARE(approver.requests().size(), 1);
    const ApprovalView &view = approver.requests().first().view;
    QCOMPARE(view.summary, QStringLiteral("Type text into a text field on shop.example/cart"));
    QCOMPARE(view.typedText, QStringLiteral("\"hello\""));
    QVERIFY(!view.toText().contains(QLatin1String("REVISION-x")));
    QVERIFY(!view.toText().contains(QLatin1String("REF-y")));
}

void TestApprovals::grantIsSingleUse()
{
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::Approved);
    Approvals approvals(approver);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QTRY_VERIFY(outcome.done());
    QVERIFY(outcome.result->ok());
    const ApprovalGrant grant = outcome.result->value();
    const ApprovalGrant copy = grant;
    QCOMPARE(grant.binding, ApprovalBinding::of(click(), kOrigin));

    QVERIFY(approvals.redeem(grant, click(), CurrentPage{QStringLiteral("rev1"), kOrigin}).ok());
    QCOMPARE(approvals.outstandingGrants(), 0);
    const Result<Unit> again =
        approvals.redeem(grant, click(), CurrentPage{QStringLiteral("rev1"), kOrigin});
    QCOMPARE(again.error().code, QStringLiteral("tool.approval_required"));
    QCOMPARE(approvals.redeem(copy, click(), CurrentPage{QStringLiteral("rev1"), kOrigin}).error(),
             ToolFailure::approvalRequired());
    // A forged handle with the right binding but no grant behind it.
    QCOMPARE(approvals
                 .redeem(ApprovalGrant{grant.id + 100, grant.binding}, click(),
                         CurrentPage{QStringLiteral("rev1"), kOrigin})
                 .error(),
             ToolFailure::approvalRequired());
}

void TestApprovals::grantNeverCoversAnotherCall_data()
{
    QTest::addColumn<QString>("revision");
    QTest::addColumn<QString>("ref");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::newRow("the approved call") << "rev1"
                                       << "e1"
                                       << "hello"
                                       << "<ok>";
    QTest::newRow("another ref") << "rev1"
                                 << "e2"
                                 << "hello"
                                 << "tool.approval_required";
    QTest::newRow("another revision") << "rev2"
                                      << "e1"
                                      << "hello"
                                      << "tool.approval_required";
    QTest::newRow("other text") << "rev1"
                                << "e1"
                                << "hello!"
                                << "tool.approval_required";
}

void TestApprovals::grantNeverCoversAnotherCall()
{
    QFETCH(QString, revision);
    QFETCH(QString, ref);
    QFETCH(QString, text);
    QFETCH(QString, code);
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::Approved);
    Approvals approvals(approver);
    Outcome outcome;
    const ActRequest approved =
        *ActRequest::type(QStringLiteral("rev1"), QStringLiteral("e1"), QStringLiteral("hello"));
    approvals.request(approved, kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QTRY_VERIFY(outcome.done());
    const ActRequest attempted = *ActRequest::type(revision, ref, text);
    // The page is wherever the attempted call says it is, so only the binding can refuse.
    const Result<Unit> redeemed =
        approvals.redeem(outcome.result->value(), attempted, CurrentPage{revision, kOrigin});
    QCOMPARE(redeemed.ok() ? QStringLiteral("<ok>") : redeemed.error().code, code);
    QCOMPARE(approvals.outstandingGrants(), 0); // consumed either way
}

void TestApprovals::pageMovedBeforeDispatch()
{
    for (const CurrentPage &moved :
         {CurrentPage{QStringLiteral("rev2"), kOrigin},
          CurrentPage{QStringLiteral("rev1"), QStringLiteral("https://evil.example")}}) {
        ScriptedApprover approver;
        approver.enqueue(ApprovalAnswer::Approved);
        Approvals approvals(approver);
        Outcome outcome;
        approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
        QTRY_VERIFY(outcome.done());
        const Result<Unit> redeemed = approvals.redeem(outcome.result->value(), click(), moved);
        QCOMPARE(redeemed.error().code, QStringLiteral("tool.browser.page_changed"));
        // And it is gone: a later attempt on the restored page needs a new approval.
        QCOMPARE(approvals
                     .redeem(outcome.result->value(), click(),
                             CurrentPage{QStringLiteral("rev1"), kOrigin})
                     .error()
                     .code,
                 QStringLiteral("tool.approval_required"));
    }
}

void TestApprovals::revalidatesAfterTheWait_data()
{
    QTest::addColumn<QString>("revision");
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("code");
    QTest::newRow("unchanged") << "rev1"
                               << "https://shop.example"
                               << "<granted>";
    QTest::newRow("revision moved") << "rev2"
                                    << "https://shop.example"
                                    << "tool.browser.page_changed";
    QTest::newRow("origin moved") << "rev1"
                                  << "https://shop.example:8443"
                                  << "tool.browser.page_changed";
    QTest::newRow("page gone") << ""
                               << ""
                               << "tool.browser.page_changed";
}

void TestApprovals::revalidatesAfterTheWait()
{
    QFETCH(QString, revision);
    QFETCH(QString, origin);
    QFETCH(QString, code);
    ScriptedApprover approver;
    Approvals approvals(approver);
    Outcome outcome;
    QString current = QStringLiteral("rev1");
    QString currentOrigin = kOrigin;
    approvals.request(
        click(), kPage, kButton,
        [&] {
            return CurrentPage{current, currentOrigin};
        },
        record(outcome));
    // The page moves while the owner decides.
    current = revision;
    currentOrigin = origin;
    QVERIFY(approver.answerPending(ApprovalAnswer::Approved));
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), code);
    QCOMPARE(approvals.outstandingGrants(), code == QLatin1String("<granted>") ? 1 : 0);
}

void TestApprovals::answersExactlyOnceAndNeverSynchronously()
{
    UnrulyApprover approver;
    Approvals approvals(approver);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QCOMPARE(outcome.calls, 0);
    QTRY_COMPARE(outcome.calls, 1);
    // Positive control: a second question, asked after both answers to the first were queued,
    // is answered in turn; the first one's second answer ran before it.
    Outcome control;
    approvals.request(click(QStringLiteral("control")), kPage, kButton,
                      pageAt(QStringLiteral("control")), record(control));
    QTRY_COMPARE(control.calls, 1);
    QCOMPARE(outcome.calls, 1);
    QCOMPARE(outcome.code(), QStringLiteral("<granted>")); // the first answer wins
}

void TestApprovals::terminalApprover_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("code");
    QTest::newRow("y") << QByteArray("y\n") << QStringLiteral("<granted>");
    QTest::newRow("YES with spaces") << QByteArray("  YES \n") << QStringLiteral("<granted>");
    QTest::newRow("n") << QByteArray("n\n") << QStringLiteral("tool.approval_denied");
    QTest::newRow("empty line") << QByteArray("\n") << QStringLiteral("tool.approval_denied");
    QTest::newRow("yes please") << QByteArray("yes please\n")
                                << QStringLiteral("tool.approval_denied");
    QTest::newRow("y without newline, then EOF")
        << QByteArray("y") << QStringLiteral("tool.approval_denied");
    QTest::newRow("EOF") << QByteArray() << QStringLiteral("tool.approval_denied");
    QTest::newRow("very long line")
        << (QByteArray(500, 'y') + '\n') << QStringLiteral("tool.approval_denied");
}

void TestApprovals::terminalApprover()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, code);
    QBuffer in;
    in.setData(input);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    TerminalApprover approver(&in, &out);
    Approvals approvals(approver, 2000);
    Outcome outcome;
    approvals.request(
        *ActRequest::type(QStringLiteral("rev1"), QStringLiteral("REF-e1"),
                          QStringLiteral("Line one\u001B[2J")),
        kPage, ElementFacts{QStringLiteral("textbox"), QStringLiteral("Note"), {}, {}, {}, {}},
        pageAt(QStringLiteral("rev1")), record(outcome));
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), code);
    const QString prompt = QString::fromUtf8(out.data());
    QVERIFY(prompt.contains(QLatin1String("Type text into a text field on shop.example/cart")));
    QVERIFY(prompt.contains(QLatin1String("\"Line one\\u{001B}[2J\"")));
    QVERIFY(!prompt.contains(QChar(0x1B))); // no raw escape reaches the terminal
    QVERIFY(!prompt.contains(QLatin1String("REF-e1")));
    QVERIFY(prompt.endsWith(QLatin1String("Approve? [y/N] ")));
}

void TestApprovals::terminalApproverRefusesConcurrentRequests()
{
    QBuffer in; // opened read-write and empty: no answer yet
    QVERIFY(in.open(QIODevice::ReadWrite));
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    TerminalApprover approver(&in, &out);
    QList<ApprovalAnswer> answers;
    approver.requestApproval(ApprovalRequest{1, ApprovalView()},
                             [&](ApprovalAnswer a) { answers.append(a); });
    approver.requestApproval(ApprovalRequest{2, ApprovalView()},
                             [&](ApprovalAnswer a) { answers.append(a); });
    QTRY_COMPARE(answers.size(), 2);
    // The first waited on an empty buffer, which can never answer; the second was refused.
    QVERIFY(answers.contains(ApprovalAnswer::Failed));
    QVERIFY(!answers.contains(ApprovalAnswer::Approved));
}

void TestApprovals::terminalApproverCancel()
{
    // A pipe-like device: sequential and open, nothing typed yet.
    class Pipe final : public QIODevice
    {
    public:
        bool isSequential() const override { return true; }
        qint64 bytesAvailable() const override { return 0; }

    protected:
        qint64 readData(char *, qint64) override { return 0; }
        qint64 writeData(const char *, qint64 len) override { return len; }
    } in;
    QVERIFY(in.open(QIODevice::ReadOnly));
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    TerminalApprover approver(&in, &out);
    Approvals approvals(approver, 60'000);
    Outcome outcome;
    const quint64 id =
        approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    // Positive control: a second terminal approver over a buffer holding "n" answers. It goes the
    // same way (the queued read, the approver's queued answer, Approvals' queued settle), each
    // step posted after the same step of the first, which would have answered before it.
    QBuffer controlIn;
    controlIn.setData("n\n");
    QVERIFY(controlIn.open(QIODevice::ReadOnly));
    QBuffer controlOut;
    QVERIFY(controlOut.open(QIODevice::WriteOnly));
    TerminalApprover controlApprover(&controlIn, &controlOut);
    Approvals controlApprovals(controlApprover, 60'000);
    Outcome control;
    controlApprovals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")),
                             record(control));
    QTRY_VERIFY(control.done());
    QCOMPARE(control.code(), QStringLiteral("tool.approval_denied"));
    QVERIFY(!outcome.done()); // still waiting for a line
    approvals.cancel(id);
    QCOMPARE(outcome.code(), QStringLiteral("tool.approval_denied"));
    QVERIFY(out.data().contains("withdrawn"));
}

namespace {
TaskGrantOffer lessonOffer()
{
    return TaskGrantOffer{
        *TaskScope::parse(QStringLiteral("https://www.acme-school.com/lesson"), TestOverrides())};
}
} // namespace

void TestApprovals::approveForTaskMakesTheGrantOnce()
{
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::ApprovedForTask);
    Approvals approvals(approver);
    int made = 0;
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome),
                      lessonOffer(), [&made]() -> Result<Unit> {
                          ++made;
                          return Unit{};
                      });
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("<granted>"));
    QCOMPARE(made, 1);
    // The question carried the offer, in server-authored words.
    QCOMPARE(approver.requests().size(), 1);
    QCOMPARE(approver.requests().first().offer, std::optional(lessonOffer()));
    QVERIFY(approver.requests().first().offer->toText().contains(
        QLatin1String("30 minutes at most 200")));
}

void TestApprovals::approveForTaskThatCannotBeMadeStaysPending()
{
    // The sign-in is still open: no grant, so no approval either. The same question comes
    // again without the offer, saying why; approving once then approves once.
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::ApprovedForTask);
    approver.enqueue(ApprovalAnswer::Approved);
    Approvals approvals(approver);
    int made = 0;
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome),
                      lessonOffer(), [&made]() -> Result<Unit> {
                          ++made;
                          return taskGrantError(TaskGrantFailure::Unavailable);
                      });
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("<granted>"));
    QCOMPARE(made, 1);
    QCOMPARE(approver.requests().size(), 2);
    QCOMPARE(approver.requests().at(1).id, approver.requests().at(0).id);
    QVERIFY(!approver.requests().at(1).offer);
    QCOMPARE(approver.requests().at(1).offerRefused, QStringLiteral("task_grant_unavailable"));
    // A second approve_for_task on the question without an offer approves once, makes nothing.
    ScriptedApprover again;
    again.enqueue(ApprovalAnswer::ApprovedForTask);
    again.enqueue(ApprovalAnswer::ApprovedForTask);
    Approvals second(again);
    Outcome twice;
    second.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(twice),
                   lessonOffer(), [&made]() -> Result<Unit> {
                       ++made;
                       return taskGrantError(TaskGrantFailure::Unavailable);
                   });
    QTRY_VERIFY(twice.done());
    QCOMPARE(twice.code(), QStringLiteral("<granted>"));
    QCOMPARE(made, 2);
}

void TestApprovals::approveForTaskOnAMovedPageMakesNothing()
{
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::ApprovedForTask);
    Approvals approvals(approver);
    int made = 0;
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev2")), record(outcome),
                      lessonOffer(), [&made]() -> Result<Unit> {
                          ++made;
                          return Unit{};
                      });
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(made, 0);
}

void TestApprovals::approveForTaskWithoutAnOfferApprovesOnce()
{
    // No offer (or no way to make one): the answer approves this action only.
    ScriptedApprover approver;
    approver.enqueue(ApprovalAnswer::ApprovedForTask);
    approver.enqueue(ApprovalAnswer::ApprovedForTask);
    Approvals approvals(approver);
    Outcome plain;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(plain));
    Outcome makerless;
    approvals.request(click(QStringLiteral("rev1"), QStringLiteral("e2")), kPage, kButton,
                      pageAt(QStringLiteral("rev1")), record(makerless), lessonOffer());
    QTRY_VERIFY(plain.done() && makerless.done());
    QCOMPARE(plain.code(), QStringLiteral("<granted>"));
    QCOMPARE(makerless.code(), QStringLiteral("<granted>"));
    for (const ApprovalRequest &request : approver.requests())
        QVERIFY(!request.offer);
}

void TestApprovals::terminalApproverOffersTheTask()
{
    for (const QByteArray &input : {QByteArray("t\n"), QByteArray("y\n")}) {
        QBuffer in;
        in.setData(input);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QBuffer out;
        QVERIFY(out.open(QIODevice::WriteOnly));
        TerminalApprover approver(&in, &out);
        Approvals approvals(approver, 2000);
        int made = 0;
        Outcome outcome;
        approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome),
                          lessonOffer(), [&made]() -> Result<Unit> {
                              ++made;
                              return Unit{};
                          });
        QTRY_VERIFY(outcome.done());
        QCOMPARE(outcome.code(), QStringLiteral("<granted>"));
        QCOMPARE(made, input == "t\n" ? 1 : 0);
        const QString prompt = QString::fromUtf8(out.data());
        QVERIFY(prompt.contains(QLatin1String("https://www.acme-school.com/lesson")));
        QVERIFY(prompt.contains(QLatin1String("[y/N/t]")));
    }
    // Without an offer, "t" is no answer: a denial.
    QBuffer in;
    in.setData("t\n");
    QVERIFY(in.open(QIODevice::ReadOnly));
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    TerminalApprover approver(&in, &out);
    Approvals approvals(approver, 2000);
    Outcome outcome;
    approvals.request(click(), kPage, kButton, pageAt(QStringLiteral("rev1")), record(outcome));
    QTRY_VERIFY(outcome.done());
    QCOMPARE(outcome.code(), QStringLiteral("tool.approval_denied"));
}

QTEST_GUILESS_MAIN(TestApprovals)
#include "tst_approvals.moc"
