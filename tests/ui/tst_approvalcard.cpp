// The workbench's approval cards as the owner uses them: real windows under the offscreen
// platform, trusted mouse and keyboard input. First the channel alone (an agent's
// WorkbenchApprover and the workbench's broker over a private socket): approve once, deny with
// Esc, approve for the task with Alt+T, a closed window denying, an agent that goes away
// withdrawing its card, the queue, a screenshot and every control's accessible name. Then the
// whole path: `veetbot mcp --approver workbench` on a profile in the real profile service, a
// click that waits for this process's card, and the fixture site counting what arrived.

#include "ApprovalCard.h"
#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "GrantBanner.h"
#include "McpSession.h"
#include "RunsWindow.h"
#include "ServiceTestCase.h"
#include "SettingsWindow.h"
#include "TestPaths.h"
#include "WebEngineProvider.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"
#include "ledger/EffectLedger.h"
#include "profiles/InMemoryProfileRepository.h"
#include "tools/ToolPipeline.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>
#include <optional>

using namespace veetbot;
using veetbot::testing::McpSession;

namespace {

const QJsonObject kView{
    {QStringLiteral("summary"), QStringLiteral("Click a button on shop.test/account")},
    {QStringLiteral("kind"), QStringLiteral("click")},
    {QStringLiteral("host"), QStringLiteral("shop.test")},
    {QStringLiteral("path"), QStringLiteral("/account")},
    {QStringLiteral("page_title"), QStringLiteral("\"Your account\"")},
    {QStringLiteral("element_described"), true},
    {QStringLiteral("role_word"), QStringLiteral("button")},
    {QStringLiteral("element_role"), QStringLiteral("\"button\"")},
    {QStringLiteral("accessible_name"), QStringLiteral("\"Delete account\"")},
    {QStringLiteral("consequence"), QStringLiteral("destructive")}};

ApprovalRequest question(quint64 id, bool offered)
{
    ApprovalRequest request;
    request.id = id;
    request.view.summary = kView.value(QStringLiteral("summary")).toString();
    request.view.kind = QStringLiteral("click");
    request.view.host = QStringLiteral("shop.test");
    request.view.path = QStringLiteral("/account");
    request.view.pageTitle = QStringLiteral("\"Your account\"");
    request.view.elementDescribed = true;
    request.view.roleWord = QStringLiteral("button");
    request.view.elementRole = QStringLiteral("\"button\"");
    request.view.accessibleName = QStringLiteral("\"Delete account\"");
    request.view.consequence = QStringLiteral("destructive");
    if (offered) {
        // An offer comes only for an act a grant would cover: a routine one.
        request.view.summary = QStringLiteral("Click a button on www.acme-school.com/lesson/3");
        request.view.host = QStringLiteral("www.acme-school.com");
        request.view.path = QStringLiteral("/lesson/3");
        request.view.pageTitle = QStringLiteral("\"Lesson 3\"");
        request.view.accessibleName = QStringLiteral("\"Next\"");
        request.view.consequence.clear();
        request.offer = TaskGrantOffer{
            *TaskScope::parse(QStringLiteral("https://www.acme-school.com/lesson"), {})};
    }
    return request;
}

QAbstractButton *button(QWidget *root, const QString &name)
{
    for (QAbstractButton *candidate : root->findChildren<QAbstractButton *>()) {
        if (candidate->accessibleName() == name && candidate->isVisible())
            return candidate;
    }
    return nullptr;
}

} // namespace

class TestApprovalCard : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cardsAnswerThroughTheChannel();
    void aNavigationCardNamesTheAddress();
    void aRefusedWriteLeadsTheWorkbenchCard();
    void mcpAsksTheWorkbench();
    void aTaskGrantFromTheCardUntilRevoked();
    void settingsAsTheOwnerUsesThem();
    void aTaskGrantFromTheCardUntilItsEnd();
    void whileACardWaitsTheOwnerWatchesAndTheLeaseLives();
};

void TestApprovalCard::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
}

void TestApprovalCard::cardsAnswerThroughTheChannel()
{
    QTemporaryDir dir(QStringLiteral("/tmp/vac-XXXXXX"));
    QVERIFY(dir.isValid());
    const QString path = WorkbenchChannel::socketPath(dir.path());
    ApprovalBroker broker;
    QVERIFY(broker.listen(path));
    // The socket is the owner's alone; a second workbench does not take it.
    QCOMPARE(QFileInfo(path).permissions() &
                 (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
             QFile::Permissions());
    ApprovalBroker second;
    QVERIFY(!second.listen(path));
    ApprovalsWindow window(broker);

    WorkbenchApprover agent(path);
    QVERIFY(agent.connectToWorkbench());
    QList<ApprovalAnswer> answers;
    const auto ask = [&](quint64 id, bool offered) {
        agent.requestApproval(question(id, offered),
                              [&answers](ApprovalAnswer answer) { answers << answer; });
    };

    // Two agents' questions queue; the first card is shown with the warning, and Deny has
    // the focus.
    ask(1, true);
    ask(2, false);
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 2; }, 5000));
    QVERIFY(window.isVisible());
    ApprovalCard *card = window.currentCard();
    QVERIFY(card && card->isVisible());
    const auto warns = [](ApprovalCard *shown) {
        bool warned = false;
        for (QLabel *label : shown->findChildren<QLabel *>())
            warned |= label->text().contains(QLatin1String("deleting or destroying"));
        return warned;
    };
    QVERIFY(!warns(card));
    QVERIFY(button(card, QStringLiteral("Approve for this task")));
    QVERIFY(QTest::qWaitFor(
        [&] { return QApplication::focusWidget() == button(card, QStringLiteral("Deny")); }, 5000));
    // Every control says what it is.
    for (QWidget *widget : window.findChildren<QWidget *>()) {
        if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLabel *>(widget))
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    }
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    QVERIFY(
        window.grab().save(testing::binaryPath(QStringLiteral("screenshots/approval-card.png"))));

    // Alt+T approves for the task; the next card has no offer, so no such button.
    QTest::keyClick(card, Qt::Key_T, Qt::AltModifier);
    QVERIFY(QTest::qWaitFor([&answers] { return answers.size() == 1; }, 5000));
    QCOMPARE(answers.at(0), ApprovalAnswer::ApprovedForTask);
    card = window.currentCard();
    QVERIFY(card);
    QVERIFY(!button(card, QStringLiteral("Approve for this task")));
    // The classifier's named consequence is a warning on the card.
    QVERIFY(warns(card));
    QVERIFY(window.grab().save(
        testing::binaryPath(QStringLiteral("screenshots/approval-card-warning.png"))));
    // Esc denies.
    QTest::keyClick(card, Qt::Key_Escape);
    QVERIFY(QTest::qWaitFor([&answers] { return answers.size() == 2; }, 5000));
    QCOMPARE(answers.at(1), ApprovalAnswer::Declined);
    // A click on Approve once approves.
    ask(3, false);
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 1; }, 5000));
    QTest::mouseClick(button(window.currentCard(), QStringLiteral("Approve once")), Qt::LeftButton);
    QVERIFY(QTest::qWaitFor([&answers] { return answers.size() == 3; }, 5000));
    QCOMPARE(answers.at(2), ApprovalAnswer::Approved);
    // Closing the window denies what it shows.
    ask(4, false);
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 1; }, 5000));
    window.close();
    QVERIFY(QTest::qWaitFor([&answers] { return answers.size() == 4; }, 5000));
    QCOMPARE(answers.at(3), ApprovalAnswer::Declined);
    // An agent that cancels, or goes away, takes its card with it.
    ask(5, false);
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 1; }, 5000));
    agent.cancel(5);
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 0; }, 5000));
    {
        WorkbenchApprover gone(path);
        QVERIFY(gone.connectToWorkbench());
        gone.requestApproval(question(6, false), [](ApprovalAnswer) {});
        QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 1; }, 5000));
    }
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 0; }, 5000));
    QCOMPARE(broker.pendingCount(), 0);
    // A workbench that closes denies what waits: the agent's question fails.
    const QString otherPath = WorkbenchChannel::socketPath(dir.path() + QStringLiteral("/b"));
    QVERIFY(QDir().mkpath(dir.path() + QStringLiteral("/b")));
    auto closing = std::make_unique<ApprovalBroker>();
    QVERIFY(closing->listen(otherPath));
    WorkbenchApprover waiting(otherPath);
    QVERIFY(waiting.connectToWorkbench());
    std::optional<ApprovalAnswer> last;
    waiting.requestApproval(question(7, false), [&last](ApprovalAnswer answer) { last = answer; });
    QVERIFY(QTest::qWaitFor([&closing] { return closing->pendingCount() == 1; }, 5000));
    closing.reset();
    QVERIFY(QTest::qWaitFor([&last] { return last.has_value(); }, 5000));
    QCOMPARE(*last, ApprovalAnswer::Failed);
    // And with no workbench at all, a question is denied at once.
    std::optional<ApprovalAnswer> none;
    waiting.requestApproval(question(8, false), [&none](ApprovalAnswer answer) { none = answer; });
    QVERIFY(QTest::qWaitFor([&none] { return none.has_value(); }, 5000));
    QCOMPARE(*none, ApprovalAnswer::Failed);
    // Nothing more came back on the first channel than the four answers and the cancel.
    QCOMPARE(answers.size(), 5);
    QCOMPARE(answers.at(4), ApprovalAnswer::Cancelled);
}

// A navigation to an address that changes the site: the card names the address's host, path
// and operation, never its token; warns of what it reads as and says why it asks; names the
// page it leaves; and has no element rows. Approved once, it answers Approved.
void TestApprovalCard::aNavigationCardNamesTheAddress()
{
    QTemporaryDir dir(QStringLiteral("/tmp/vac-XXXXXX"));
    QVERIFY(dir.isValid());
    const QString path = WorkbenchChannel::socketPath(dir.path());
    ApprovalBroker broker;
    QVERIFY(broker.listen(path));
    ApprovalsWindow window(broker);
    WorkbenchApprover agent(path);
    QVERIFY(agent.connectToWorkbench());
    ApprovalRequest request;
    request.id = 7;
    request.view = ApprovalView::forNavigation(
        QUrl(QStringLiteral("https://cms.acme-news.com/wp-admin/"
                            "post.php?post=12&action=trash&_wpnonce=a1b2c3d4e5")),
        PageFacts{QUrl(QStringLiteral("https://cms.acme-news.com/wp-admin/edit.php")),
                  QStringLiteral("Posts \u2039 Editorial")});
    std::optional<ApprovalAnswer> answer;
    agent.requestApproval(request, [&answer](ApprovalAnswer given) { answer = given; });
    QVERIFY(QTest::qWaitFor([&window] { return window.waiting() == 1; }, 5000));
    ApprovalCard *card = window.currentCard();
    QVERIFY(card);
    QStringList texts;
    for (QLabel *label : card->findChildren<QLabel *>())
        texts << label->text();
    const QString all = texts.join(u'\n');
    QVERIFY2(all.contains(QLatin1String("Open an address that changes the site")), qPrintable(all));
    QVERIFY2(all.contains(QString::fromUtf8("/wp-admin/post.php \xC2\xB7 trash")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("deleting or destroying")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("area of the site (administration, settings, account")),
             qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("Address:")) &&
                 all.contains(QLatin1String("From the page:")),
             qPrintable(all));
    QVERIFY2(!all.contains(QLatin1String("a1b2c3d4e5")), qPrintable(all));
    QVERIFY2(!all.contains(QLatin1String("Element")) &&
                 !all.contains(QLatin1String("no longer describe")),
             qPrintable(all));
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    QVERIFY(window.grab().save(
        testing::binaryPath(QStringLiteral("screenshots/approval-card-navigation.png"))));
    QTest::mouseClick(button(card, QStringLiteral("Approve once")), Qt::LeftButton);
    QVERIFY(QTest::qWaitFor([&answer] { return answer.has_value(); }, 5000));
    QCOMPARE(*answer, ApprovalAnswer::Approved);
}

// "Read more" whose script deletes every message: tried under ordinary interaction the write
// guard stops it with nothing sent; the next attempt's card in the workbench leads with what the
// request stage saw and warns of a deletion; approved once, the delete arrives once.
void TestApprovalCard::aRefusedWriteLeadsTheWorkbenchCard()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();
    m_harness.page(QStringLiteral("/inbox"),
                   "<!doctype html><title>Inbox</title><p>Your digest is ready. <a href=#digest "
                   "onclick=\"event.preventDefault();fetch('/api/delete',{method:'POST',"
                   "body:'all=1'})\">Read more</a></p>");
    m_harness.page(QStringLiteral("/api/delete"), "ok");
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    ApprovalBroker broker;
    QVERIFY(broker.listen(*socket));
    ApprovalsWindow window(broker);
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                              QStringLiteral("--approver"), QStringLiteral("workbench")});
    QVERIFY(server->waitForStarted(10000));
    McpSession mcp(server);
    mcp.initialize(false);
    const auto open = [&] {
        QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                          {{QStringLiteral("url"), url(QStringLiteral("/inbox"))}})
                     .contains(QStringLiteral("error")));
    };
    open();
    QCOMPARE(mcp.click(QStringLiteral("Read more")),
             QStringLiteral("tool.browser.write_requires_approval"));
    QVERIFY(m_harness.settle());
    QCOMPARE(arrived(QStringLiteral("/api/delete")), 0);
    QCOMPARE(window.waiting(), 0);

    // The owner reads the card, keeps a picture of it, and approves once.
    QString shown;
    QTimer owner;
    owner.setInterval(50);
    connect(&owner, &QTimer::timeout, this, [&] {
        ApprovalCard *card = window.currentCard();
        if (!card || !card->isVisible() || !shown.isEmpty())
            return;
        QStringList texts;
        for (QLabel *label : card->findChildren<QLabel *>())
            texts << label->text();
        shown = texts.join(u'\n');
        QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
        window.grab().save(
            testing::binaryPath(QStringLiteral("screenshots/approval-card-refused.png")));
        QTest::mouseClick(button(card, QStringLiteral("Approve once")), Qt::LeftButton);
    });
    owner.start();
    open();
    QCOMPARE(mcp.click(QStringLiteral("Read more")), QString());
    owner.stop();
    QVERIFY2(shown.contains(QLatin1String("deleting or destroying")), qPrintable(shown));
    QVERIFY2(shown.contains(QLatin1String(
                 "This control sent a request that looks destructive (POST .../delete)")),
             qPrintable(shown));
    QVERIFY2(!shown.contains(QLatin1String("all=1")), qPrintable(shown));
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/api/delete")) == 1; },
                                    10000));
    QVERIFY(m_harness.settle());
    QCOMPARE(arrived(QStringLiteral("/api/delete")), 1);
    QVERIFY(QFileInfo::exists(
        testing::binaryPath(QStringLiteral("screenshots/approval-card-refused.png"))));
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    QVERIFY(tearDownService());
}

void TestApprovalCard::mcpAsksTheWorkbench()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();
    m_harness.page(QStringLiteral("/pay"),
                   "<!doctype html><title>Pay</title><button onclick=\"fetch('/paid',"
                   "{method:'POST'})\">Pay now</button>");
    // Where this data directory's workbench serves its cards, as veetbot mcp finds it.
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    ApprovalBroker broker;
    QVERIFY(broker.listen(*socket));
    ApprovalsWindow window(broker);

    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--approver"), QStringLiteral("workbench")});
    QVERIFY(server->waitForStarted(10000));
    McpSession mcp(server);
    mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/pay"))}})
                 .contains(QStringLiteral("error")));
    // The owner answers each card as it appears: the first with Approve once, the second with
    // Esc, the third by closing the window.
    int answered = 0;
    QTimer owner;
    owner.setInterval(50);
    connect(&owner, &QTimer::timeout, this, [&] {
        ApprovalCard *card = window.currentCard();
        if (!card || !card->isVisible())
            return;
        if (answered == 0)
            QTest::mouseClick(button(card, QStringLiteral("Approve once")), Qt::LeftButton);
        else if (answered == 1)
            QTest::keyClick(card, Qt::Key_Escape);
        else
            window.close();
        ++answered;
    });
    owner.start();
    QCOMPARE(mcp.click(QStringLiteral("Pay now")), QString());
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/paid")) == 1; }, 10000));
    QCOMPARE(mcp.click(QStringLiteral("Pay now")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(mcp.click(QStringLiteral("Pay now")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(answered, 3);
    owner.stop();
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    // Only the approved one arrived.
    QCOMPARE(arrived(QStringLiteral("/paid")), 1);

    // The runs view shows the session: three acts, the last one that ran owner-approved, and
    // its timeline.
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    RunsWindow runs(metadata->repository->timeline(), metadata->scope());
    runs.show();
    QCOMPARE(runs.runCount(), 1);
    runs.selectRun(0);
    QVERIFY(runs.eventCount() >= 5); // navigate, its observation, three acts and their reads
    auto *table = runs.findChild<QTableWidget *>(QStringLiteral(), Qt::FindDirectChildrenOnly);
    QVERIFY(table);
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("3"));
    QCOMPARE(table->item(0, 4)->text(), QStringLiteral("owner_approval"));
    for (QWidget *widget : runs.findChildren<QWidget *>()) {
        if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLabel *>(widget) ||
            qobject_cast<QTableWidget *>(widget))
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    }
    QVERIFY(runs.grab().save(testing::binaryPath(QStringLiteral("screenshots/runs-view.png"))));
    QVERIFY(tearDownService());
}

// "Approve for this task" on the card, later acts in the scope without a card, the banner
// counting what is left, and Revoke in the banner making the next act ask again.
void TestApprovalCard::aTaskGrantFromTheCardUntilRevoked()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();
    m_harness.page(QStringLiteral("/lesson/a"),
                   "<!doctype html><title>Lesson</title><button onclick=\"fetch('/next-hit',"
                   "{method:'POST'})\">Next</button><button onclick=\"fetch('/pay-hit',"
                   "{method:'POST'})\">Pay</button>");
    // Where this data directory's workbench serves its cards, as veetbot mcp finds it.
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    ApprovalBroker broker;
    QVERIFY(broker.listen(*socket));
    ApprovalsWindow window(broker);
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    auto *banner = new GrantBanner(metadata->repository->taskGrants(), metadata->scope());
    window.setBanner(banner);
    QVERIFY(!banner->isVisible());

    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QCOMPARE(run(QStringLiteral("veetbot"),
                 {QStringLiteral("scopes"), QStringLiteral("add"), url(QStringLiteral("/lesson"))})
                 .exitCode,
             0);
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--approver"), QStringLiteral("workbench"),
                              QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                              QStringLiteral("--ordinary-interaction"), QStringLiteral("off")});
    QVERIFY(server->waitForStarted(10000));
    McpSession mcp(server);
    mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/lesson/a"))}})
                 .contains(QStringLiteral("error")));
    // The owner: a click on "Approve for this task" on the first card, Esc on any later one.
    // What the second card (the one that names "Pay") showed, and whether it offered the task.
    int cards = 0;
    QString secondShown;
    bool secondOffered = true;
    QTimer owner;
    owner.setInterval(50);
    connect(&owner, &QTimer::timeout, this, [&] {
        ApprovalCard *card = window.currentCard();
        if (!card || !card->isVisible())
            return;
        // Keys go where the focus is: wait until the card has it, as it takes it on appearing.
        if (!card->isAncestorOf(QApplication::focusWidget()))
            return;
        if (cards == 0) {
            QTest::mouseClick(button(card, QStringLiteral("Approve for this task")),
                              Qt::LeftButton);
        } else {
            if (cards == 1) {
                for (QLabel *label : card->findChildren<QLabel *>())
                    secondShown += label->text() + QLatin1Char('\n');
                secondOffered = button(card, QStringLiteral("Approve for this task")) != nullptr;
            }
            QTest::keyClick(card, Qt::Key_Escape);
        }
        ++cards;
    });
    owner.start();
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(cards, 1);
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/next-hit")) == 3; },
                                    10000));
    // The banner shows the grant: two uses taken, the time counting down from 30 minutes.
    banner->refresh();
    QCOMPARE(banner->activeCount(), 1);
    QVERIFY(banner->isVisible());
    QString shown;
    for (QLabel *label : banner->findChildren<QLabel *>())
        shown += label->text();
    QVERIFY2(shown.contains(QLatin1String("198 actions left")), qPrintable(shown));
    QVERIFY2(shown.contains(url(QStringLiteral("/lesson"))), qPrintable(shown));
    QVERIFY(
        window.grab().save(testing::binaryPath(QStringLiteral("screenshots/grant-banner.png"))));
    // The runs view shows the running session's grant too.
    RunsWindow runs(metadata->repository->timeline(), metadata->scope(),
                    &metadata->repository->taskGrants());
    auto *runTable = runs.findChild<QTableWidget *>();
    QVERIFY(runTable && runTable->rowCount() >= 1);
    QVERIFY2(runTable->item(0, 5)->text().startsWith(QLatin1String("198 actions, ")),
             qPrintable(runTable->item(0, 5)->text()));
    // "Pay" in the scope, while the grant stands: a named consequence, so its own card, and
    // that card offers no "Approve for this task" (asserted on the card the owner sees).
    QCOMPARE(mcp.click(QStringLiteral("Pay")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(cards, 2);
    QVERIFY2(secondShown.contains(QLatin1String("\"Pay\"")), qPrintable(secondShown));
    QVERIFY(!secondOffered);
    // Revoke in the banner: the next act asks again, and the owner's Esc sends nothing.
    QAbstractButton *revoke = button(banner, QStringLiteral("Revoke task grant"));
    QVERIFY(revoke);
    QTest::mouseClick(revoke, Qt::LeftButton);
    QVERIFY(QTest::qWaitFor([banner] { return banner->activeCount() == 0; }, 5000));
    QCOMPARE(mcp.click(QStringLiteral("Next")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(cards, 3);
    owner.stop();
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    QVERIFY(m_harness.settle());
    QCOMPARE(arrived(QStringLiteral("/next-hit")), 3);
    QCOMPARE(arrived(QStringLiteral("/pay-hit")), 0);
    QVERIFY(tearDownService());
}

// While the agent waits for the owner's card: the runs view shows its page, a frame a second,
// beside its latest observation (the route is the run's and its owner's alone, at most once a
// second, and nothing keeps a frame), and its lease is renewed past the 15 minutes it was
// acquired for, so the approved act still reaches the page it was asked on.
void TestApprovalCard::whileACardWaitsTheOwnerWatchesAndTheLeaseLives()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();
    // A page a frame can be recognized by: its lower half one colour from edge to edge.
    m_harness.page(
        QStringLiteral("/pay"),
        "<!doctype html><title>Checkout</title><style>html,body{margin:0;height:100%;"
        "background:#1b5e20;font:28px sans-serif}main{background:#fff;margin:60px auto;"
        "width:560px;padding:32px;border-radius:12px}button{font-size:28px;padding:12px 32px}"
        "</style><main><h1>Checkout</h1><p>Reading lamp, 1 item</p><p>Total: 42.00 EUR</p>"
        "<button onclick=\"fetch('/paid',{method:'POST'})\">Pay now</button></main>");
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    ApprovalBroker broker;
    QVERIFY(broker.listen(*socket));
    ApprovalsWindow window(broker);
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    const ProfileScope owner = metadata->scope();
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    QVERIFY(overrides.ok());
    const auto frameOf = [overrides = *overrides](const ProfileScope &asked, const QUuid &run) {
        return liveFrame(overrides, asked, run);
    };

    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    // The lease is renewed every second here (a minute in use), against the service's clock
    // that this test moves ahead.
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_TEST_RENEW_MS"), QStringLiteral("1000"));
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--approver"), QStringLiteral("workbench")});
    m_extraEnvironment.remove(QStringLiteral("VEETBOT_TEST_RENEW_MS"));
    QVERIFY(server->waitForStarted(10000));
    McpSession mcp(server);
    mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
    const Result<QList<ActivityRun>> runs = metadata->repository->timeline().runs(owner, 10);
    QVERIFY(runs.ok());
    QCOMPARE(runs->size(), 1);
    const QUuid run = runs->constFirst().id;
    // Before its first browser call the agent has no browser, so nothing to show.
    QCOMPARE(frameOf(owner, run).error().code, QStringLiteral("live_view.not_running"));
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/pay"))}})
                 .contains(QStringLiteral("error")));

    // The route: the page as it is, once a second, for this run's owner only.
    const Result<LiveFrame> first = frameOf(owner, run);
    QVERIFY2(first.ok(), qPrintable(first ? QString() : first.error().code));
    QCOMPARE(frameOf(owner, run).error().code, QStringLiteral("live_view.too_soon"));
    QCOMPARE(frameOf({owner.tenant, QStringLiteral("someone-else")}, run).error().code,
             QStringLiteral("live_view.not_running"));
    QCOMPARE(frameOf(owner, QUuid::createUuid()).error().code,
             QStringLiteral("live_view.not_running"));
    const QImage image = QImage::fromData(first->png, "PNG");
    QCOMPARE(image.size(), QSize(first->width, first->height));
    QVERIFY(first->png.size() <= LiveFrame::kMaxPngBytes);
    QCOMPARE(image.pixelColor(image.width() / 2, image.height() * 3 / 4), QColor(0x1b, 0x5e, 0x20));

    // The owner opens the runs view and watches the run while its card waits; the service's
    // clock moves on 10 minutes at a time, past the lease's first 15; after two more frames
    // and 30 minutes the owner approves.
    RunsWindow view(metadata->repository->timeline(), owner, &metadata->repository->taskGrants(),
                    [frameOf, owner](const QUuid &asked) { return frameOf(owner, asked); });
    view.show();
    view.selectRun(0);
    QVERIFY(QTest::qWaitFor([&view] { return view.framesShown() >= 1; }, 10000));
    QFile clock(m_dir->path() + QStringLiteral("/clock"));
    int framesAtCard = -1;
    int minutesAhead = 0;
    QElapsedTimer sinceStep;
    bool approved = false;
    QTimer ownerTimer;
    ownerTimer.setInterval(50);
    connect(&ownerTimer, &QTimer::timeout, this, [&] {
        ApprovalCard *card = window.currentCard();
        if (approved || !card || !card->isVisible())
            return;
        if (framesAtCard < 0) {
            framesAtCard = view.framesShown();
            sinceStep.start();
        }
        // A step once a renewal has had time to land since the last one.
        if (minutesAhead < 30 && sinceStep.hasExpired(2500)) {
            minutesAhead += 10;
            QVERIFY(clock.open(QIODevice::WriteOnly | QIODevice::Truncate));
            clock.write(QByteArray::number(qint64(minutesAhead) * 60 * 1000));
            clock.close();
            sinceStep.start();
            return;
        }
        if (minutesAhead == 30 && sinceStep.hasExpired(1500) &&
            view.framesShown() >= framesAtCard + 2) {
            QTest::mouseClick(button(card, QStringLiteral("Approve once")), Qt::LeftButton);
            approved = true;
        }
    });
    ownerTimer.start();
    QCOMPARE(mcp.click(QStringLiteral("Pay now")), QString());
    ownerTimer.stop();
    QVERIFY(approved);
    QCOMPARE(minutesAhead, 30);
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/paid")) == 1; }, 10000));
    // Still watched after the act: a frame is shown, beside the latest observation.
    QVERIFY(view.liveFrameSize().isValid());
    const int afterAct = view.framesShown();
    QVERIFY(QTest::qWaitFor([&] { return view.framesShown() > afterAct; }, 5000));
    QString besides;
    for (QLabel *label : view.findChildren<QLabel *>())
        if (label->accessibleName() == QLatin1String("Latest observation"))
            besides = label->text();
    QVERIFY2(besides.contains(QLatin1String(" element")) &&
                 besides.contains(url(QStringLiteral("/pay"))),
             qPrintable(besides));
    for (QWidget *widget : view.findChildren<QWidget *>()) {
        if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLabel *>(widget) ||
            qobject_cast<QTableWidget *>(widget))
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    }
    view.refresh();
    QVERIFY(
        view.grab().save(testing::binaryPath(QStringLiteral("screenshots/runs-live-view.png"))));

    // Hidden: the frame is dropped and no more is asked for.
    view.hide();
    QVERIFY(!view.liveFrameSize().isValid());
    const int whenHidden = view.framesShown();
    QTest::qWait(1500);
    QCOMPARE(view.framesShown(), whenHidden);

    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    QCOMPARE(arrived(QStringLiteral("/paid")), 1);
    // No file of the data or runtime directory holds a frame.
    for (const QString &root : {m_dataDir, m_runDir}) {
        QDirIterator files(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            if (file.open(QIODevice::ReadOnly))
                QVERIFY2(!file.readAll().contains("\x89PNG\r\n"), qPrintable(file.fileName()));
        }
    }
    QVERIFY(tearDownService());
}

// Settings as the owner uses them: a task scope typed and added (and a malformed one refused
// with nothing stored), removed again; a standing grant listed and revoked; the MCP client
// configuration for a READY website, copied.
void TestApprovalCard::settingsAsTheOwnerUsesThem()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    SqlStores &store = *metadata->repository;
    const ProfileScope owner = metadata->scope();
    // A standing grant needs a sign-in with an outcome: record one, then make the grant.
    const BrowserProfile ready = *store.profiles().get(owner, QUuid::fromString(id));
    const Result<CeremonyBegun> begun = store.profiles().beginCeremony(
        owner, ready.id, ready.generation, QStringLiteral("device"),
        [](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
            return CeremonyLaunchRecord{QUuid::createUuid().toString(QUuid::WithoutBraces),
                                        QDateTime::currentDateTimeUtc().addSecs(300)};
        });
    QVERIFY(begun.ok());
    QVERIFY(store.profiles()
                .finishCeremony(owner, begun->ceremony.id, CeremonyStatus::Ready, QString(), {})
                .ok());
    const Result<StandingGrant> grant = store.standingGrants().createStandingGrant(
        owner, StandingGrantRequest{ready.id,
                                    QStringLiteral("veetbot test"),
                                    QString(64, u'a'),
                                    ready.allowedOrigins,
                                    {ActRequest::Kind::Click},
                                    std::nullopt,
                                    QStringLiteral("Next"),
                                    std::nullopt,
                                    3600 * 1000});
    QVERIFY(grant.ok());

    SettingsWindow settings(store, owner, m_harness.overrides());
    settings.show();
    auto *input = settings.findChild<QLineEdit *>();
    QVERIFY(input);
    // A malformed scope is refused and nothing is stored.
    QTest::keyClicks(input, QStringLiteral("http://shop.test/lesson"));
    QTest::mouseClick(button(&settings, QStringLiteral("Add scope")), Qt::LeftButton);
    QVERIFY(!settings.statusText().isEmpty());
    QCOMPARE(store.profiles().taskScopes(owner)->entries.size(), 0);
    input->clear();
    QTest::keyClicks(input, url(QStringLiteral("/lesson")));
    QTest::keyClick(input, Qt::Key_Return);
    QCOMPARE(store.profiles().taskScopes(owner)->entries.size(), 1);
    const Run listed =
        run(QStringLiteral("veetbot"), {QStringLiteral("scopes"), QStringLiteral("list")});
    QVERIFY(listed.out.contains(url(QStringLiteral("/lesson")).toUtf8()));
    auto *scopes = settings.findChild<QListWidget *>();
    QCOMPARE(scopes->count(), 1);

    // The MCP client configuration names this website's profile and the workbench approver.
    QVERIFY(settings.clientSnippet().contains(id));
    QVERIFY(settings.clientSnippet().contains(QLatin1String("\"workbench\"")));
    QTest::mouseClick(button(&settings, QStringLiteral("Copy configuration")), Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), settings.clientSnippet());

    for (QWidget *widget : settings.findChildren<QWidget *>()) {
        if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLabel *>(widget) ||
            qobject_cast<QTableWidget *>(widget) || qobject_cast<QLineEdit *>(widget))
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    }
    // The model for new tasks, as the workbench keeps it.
    QTemporaryDir iniDir;
    QSettings ini(iniDir.filePath(QStringLiteral("workbench.ini")), QSettings::IniFormat);
    ini.setValue(QStringLiteral("model/url"), QStringLiteral("http://127.0.0.1:8080/v1"));
    ini.setValue(QStringLiteral("model/name"), QStringLiteral("qwen2.5-7b-instruct"));
    settings.setWorkbenchSettings(&ini);
    settings.resize(settings.width(), settings.sizeHint().height());
    QVERIFY(QTest::qWaitFor(
        [&settings] {
            const auto *box =
                settings.findChild<QGroupBox *>(QString(), Qt::FindDirectChildrenOnly);
            return box && settings.findChildren<QGroupBox *>().constLast()->isVisible();
        },
        5000));
    for (QWidget *widget : settings.findChildren<QWidget *>()) {
        if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLineEdit *>(widget))
            QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    }
    QVERIFY(settings.grab().save(testing::binaryPath(QStringLiteral("screenshots/settings.png"))));

    // Revoke the standing grant from its row; remove the scope.
    auto *grants = settings.findChild<QTableWidget *>();
    QCOMPARE(grants->rowCount(), 1);
    grants->selectRow(0);
    QTest::mouseClick(button(&settings, QStringLiteral("Revoke standing grant")), Qt::LeftButton);
    QVERIFY(store.standingGrants().standingGrant(owner, grant->id)->revokedAt.has_value());
    QCOMPARE(grants->item(0, 4)->text(), QStringLiteral("revoked"));
    scopes->setCurrentRow(0);
    QTest::mouseClick(button(&settings, QStringLiteral("Remove scope")), Qt::LeftButton);
    QCOMPARE(store.profiles().taskScopes(owner)->entries.size(), 0);
    QVERIFY(tearDownService());
}

// The card flow through the tool pipeline over real Chromium, with the store's clock in the
// test's hands: "Approve for this task" clicked on the first card; later acts in the scope run
// without a card until the 200th; the 201st asks again (its card offers a new grant, taken);
// that grant runs without a card until thirty minutes pass, and then the next act asks again.
void TestApprovalCard::aTaskGrantFromTheCardUntilItsEnd()
{
    QVERIFY(m_harness.routeThroughEgressProxy());
    m_harness.page(QStringLiteral("/lesson/b"),
                   "<!doctype html><title>Lesson</title><button id=n>Next</button><script>"
                   "document.getElementById('n').addEventListener('click', () => "
                   "fetch('/effect-b', {method: 'POST', body: 'n'}));</script>");
    m_harness.server().resetCounters();
    WebEngineProvider provider(m_harness.policy({QStringLiteral("shop.test")}),
                               m_harness.overrides());
    QDateTime now = QDateTime::currentDateTimeUtc();
    InMemoryProfileRepository store([&now] { return now; });
    const ProfileScope owner{QStringLiteral("tenant"), QStringLiteral("owner")};
    Result<BrowserProfile> profile = store.create(
        owner,
        *BrowserProfile::reserve(
            owner,
            {*Origin::parse(m_harness.origin(QStringLiteral("shop.test")), m_harness.overrides())},
            now));
    QVERIFY(profile.ok());
    profile = store.bind(owner, profile->id, profile->generation, QStringLiteral("hosted"),
                         BrowserProfile::newProviderReference(), QStringLiteral("k1"));
    profile = store.transition(owner, profile->id, profile->generation, ProfileStatus::Ready);
    QVERIFY(profile.ok());
    const TaskScope lesson = *TaskScope::parse(
        m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/lesson")).toString(),
        m_harness.overrides());
    QVERIFY(store.replaceTaskScopes(owner, 0, {lesson}).ok());

    QTemporaryDir dir(QStringLiteral("/tmp/vtg-XXXXXX"));
    QVERIFY(dir.isValid());
    ApprovalBroker broker;
    QVERIFY(broker.listen(WorkbenchChannel::socketPath(dir.path())));
    ApprovalsWindow window(broker);
    WorkbenchApprover approver(WorkbenchChannel::socketPath(dir.path()));
    QVERIFY(approver.connectToWorkbench());
    auto ledger = EffectLedger::open(dir.filePath(QStringLiteral("effects.sqlite")));
    QVERIFY(ledger.ok());
    ToolPipeline::Options options;
    options.context.turn = TurnSource::Owner;
    options.context.isolatedProvider = true; // the composition's fact; the checks are the same
    options.context.readyProfile = true;
    options.settings.ordinaryInteraction = false;
    options.taskGrants = &store;
    options.owner = owner;
    options.pins = TaskGrantPins{QUuid::createUuid(), profile->id, profile->generation,
                                 QStringLiteral("veetbot test"), options.settings.version()};
    options.overrides = m_harness.overrides();
    ToolPipeline pipeline(&provider, approver, ledger->get(), options);

    // The owner at the card: a click on "Approve for this task" when the card offers it, Esc
    // otherwise.
    int cards = 0;
    QTimer person;
    person.setInterval(50);
    connect(&person, &QTimer::timeout, this, [&] {
        ApprovalCard *card = window.currentCard();
        if (!card || !card->isVisible() || !card->isAncestorOf(QApplication::focusWidget()))
            return;
        if (QAbstractButton *task = button(card, QStringLiteral("Approve for this task")))
            QTest::mouseClick(task, Qt::LeftButton);
        else
            QTest::keyClick(card, Qt::Key_Escape);
        ++cards;
    });
    person.start();
    std::optional<BrowserObservation> current;
    const auto run = [&](const QString &tool, const QJsonObject &arguments) {
        auto out = std::make_shared<std::optional<ToolPipeline::Outcome>>();
        pipeline.call(tool, arguments, [out](ToolPipeline::Outcome o) { *out = std::move(o); });
        (void)testing::runEventsUntil([out] { return out->has_value(); }, 30000);
        if (out->has_value() && (**out).result)
            current = *(**out).result;
        return out->has_value() ? (**out).result : Result<BrowserObservation>(Error{});
    };
    QVERIFY(
        run(QStringLiteral("browser.navigate"),
            {{QStringLiteral("url"),
              m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/lesson/b")).toString()}})
            .ok());
    const auto next = [&]() -> QString {
        QString ref;
        for (const ElementRecord &element : current->elements) {
            if (element.name == QLatin1String("Next"))
                ref = element.ref;
        }
        const Result<BrowserObservation> acted =
            run(QStringLiteral("browser.act"),
                {{QStringLiteral("kind"), QStringLiteral("click")},
                 {QStringLiteral("expected_revision"), current->revision},
                 {QStringLiteral("ref"), ref}});
        return acted ? QString() : acted.error().code;
    };
    const auto effects = [this] {
        return m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/effect-b"));
    };
    // The first card: approved for the task. Then one act without a card.
    QCOMPARE(next(), QString());
    QCOMPARE(cards, 1);
    QCOMPARE(next(), QString());
    QCOMPARE(cards, 1);
    QVERIFY(QTest::qWaitFor([&] { return effects() == 2; }, 10000));
    // Up to the 200th use without a card; the 201st act asks, and Esc sends nothing.
    const Result<std::optional<TaskGrant>> active =
        store.activeTaskGrant(owner, options.pins.session);
    QVERIFY(active.ok() && active->has_value());
    for (int i = 1; i < 199; ++i)
        QVERIFY(store.useTaskGrant(owner, options.pins, (*active)->id, 0, {}).ok());
    QCOMPARE(next(), QString()); // the 200th use
    QCOMPARE(cards, 1);
    QVERIFY(QTest::qWaitFor([&] { return effects() == 3; }, 10000));
    // The 201st act asks again: a card, which offers a new grant; the owner takes it.
    QCOMPARE(next(), QString());
    QCOMPARE(cards, 2);
    QCOMPARE(next(), QString()); // under the new grant, no card
    QCOMPARE(cards, 2);
    // Thirty minutes on, the next act asks again.
    now = now.addSecs(30 * 60);
    QCOMPARE(next(), QString());
    QCOMPARE(cards, 3);
    person.stop();
    QVERIFY(QTest::qWaitFor([&] { return effects() == 6; }, 10000));
    const Result<QList<TaskGrant>> grants = store.taskGrants(owner);
    QVERIFY(grants.ok());
    QStringList reasons;
    for (const TaskGrant &grant : *grants)
        reasons << (grant.endReason ? taskGrantEndString(*grant.endReason)
                                    : QStringLiteral("active"));
    reasons.sort();
    QCOMPARE(reasons, (QStringList{QStringLiteral("active"), QStringLiteral("exhausted"),
                                   QStringLiteral("expired")}));
}

int main(int argc, char **argv)
{
    veetbot::BrowserEnvironment::configureProcess();
    QApplication app(argc, argv);
    TestApprovalCard test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_approvalcard.moc"
