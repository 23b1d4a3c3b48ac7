// The workbench's main window as the owner uses it, built as veetbot-workbench builds it
// (ui/Workbench) against the real profile service: real windows under the offscreen platform,
// trusted mouse and keyboard input. The first run's three steps and the agent configuration;
// every section by keyboard; the window's place and section kept; a card that arrives while the
// window is hidden raising a notification on a real notification server (dunst on its own X
// server and session bus), whose click opens that card and approves nothing; the count on the
// Approvals entry, the title and the tray's tooltip following the cards; and a second
// veetbot-workbench bringing the first forward.

#include "AgentConfiguration.h"
#include "ApprovalCard.h"
#include "Autostart.h"
#include "DesktopNotifications.h"
#include "EventWait.h"
#include "GettingStarted.h"
#include "MainWindow.h"
#include "NotificationServer.h"
#include "RunsWindow.h"
#include "ServiceTestCase.h"
#include "SignInNotices.h"
#include "SingleInstance.h"
#include "TestPaths.h"
#include "WebsiteAccessWindow.h"
#include "Workbench.h"
#include "approval/WorkbenchChannel.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"
#include "domain/run/RunExport.h"
#include "profiles/SqlStores.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace veetbot;

namespace {

QAbstractButton *button(QWidget *root, const QString &name)
{
    for (QAbstractButton *candidate : root->findChildren<QAbstractButton *>()) {
        if (candidate->accessibleName() == name && candidate->isVisible())
            return candidate;
    }
    return nullptr;
}

ApprovalRequest question(quint64 id)
{
    ApprovalRequest request;
    request.id = id;
    request.view.summary = QStringLiteral("Click a button on shop.test/account");
    request.view.kind = QStringLiteral("click");
    request.view.host = QStringLiteral("shop.test");
    request.view.path = QStringLiteral("/account");
    request.view.pageTitle = QStringLiteral("\"Your private account\"");
    request.view.elementDescribed = true;
    request.view.roleWord = QStringLiteral("button");
    request.view.elementRole = QStringLiteral("\"button\"");
    request.view.accessibleName = QStringLiteral("\"Close my account\"");
    request.view.consequence = QStringLiteral("destructive");
    return request;
}

bool saveShot(QWidget &window, const QString &name)
{
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    return window.grab().save(testing::binaryPath(QStringLiteral("screenshots/") + name));
}

} // namespace

class TestMainWindow : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void theFirstRunShowsThreeSteps();
    void everySectionByKeyboard();
    void thePlaceAndSectionAreKept();
    void aCardWhileHiddenIsNotifiedAndItsClickOpensIt();
    void aSecondLaunchBringsTheFirstForward();
    void activityFiltersAndExportsARun();
    void aSignInNoticeIsCountedAndItsNotificationOpensIt();
    void startWithMySessionWritesTheAutostartEntry();
    void aDarkDesktopKeepsWarningsAndNoticesReadable();

private:
    // A workbench as veetbot-workbench builds it, shown; null when its window never showed.
    std::unique_ptr<Workbench> openWorkbench();
    // What a run does at a sign-in wall: the profile waits for the owner (READY -> NEEDS_USER).
    bool waitForOwner(const QString &profileId);

    testing::NotificationServer m_notifications;
};

std::unique_ptr<Workbench> TestMainWindow::openWorkbench()
{
    auto workbench = std::make_unique<Workbench>(m_harness.overrides(), m_notifications.bus());
    workbench->show();
    return QTest::qWaitForWindowExposed(&workbench->window()) ? std::move(workbench) : nullptr;
}

bool TestMainWindow::waitForOwner(const QString &profileId)
{
    const Result<MetadataStore> store = openMetadataStore({});
    const BrowserProfile current = profile(profileId);
    return store &&
           store->repository->profiles()
               .transition(store->scope(), current.id, current.generation, ProfileStatus::NeedsUser)
               .ok();
}

void TestMainWindow::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY2(m_notifications.start(&error), qPrintable(error));
}

void TestMainWindow::init()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
}

void TestMainWindow::cleanup()
{
    QVERIFY(tearDownService());
}

void TestMainWindow::theFirstRunShowsThreeSteps()
{
    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    // No website yet: the window opens on the three steps.
    QVERIFY(testing::runEventsUntil(
        [&window] { return window.currentSection() == MainWindow::Section::Start; }, 20000));
    GettingStarted *start = workbench.start();
    QVERIFY(start->shownJson().contains(QStringLiteral("PROFILE-ID")));
    QVERIFY(saveShot(window, QStringLiteral("workbench-first-run.png")));

    // The first step's button leads to Websites; a website added there is offered to agents.
    QAbstractButton *toWebsites = button(start, QStringLiteral("Go to Websites"));
    QVERIFY(toWebsites);
    QTest::mouseClick(toWebsites, Qt::LeftButton);
    QCOMPARE(window.currentSection(), MainWindow::Section::Websites);
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    workbench.websites()->refresh();
    QVERIFY(
        testing::runEventsUntil([start, &id] { return start->shownJson().contains(id); }, 20000));
    // The configuration is what an MCP client reads: one server, this program, this profile,
    // approvals in this workbench.
    const QJsonObject server = QJsonDocument::fromJson(start->shownJson().toUtf8())
                                   .object()
                                   .value(QStringLiteral("mcpServers"))
                                   .toObject()
                                   .value(QStringLiteral("veetbot"))
                                   .toObject();
    QCOMPARE(server.value(QStringLiteral("command")).toString(), AgentConfiguration::program());
    QCOMPARE(server.value(QStringLiteral("args")).toArray(),
             (QJsonArray{QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                         QStringLiteral("--approver"), QStringLiteral("workbench"),
                         QStringLiteral("--trust-turns"), QStringLiteral("owner")}));
    QVERIFY(QFileInfo(AgentConfiguration::program()).isExecutable());
    QCOMPARE(start->shownCommand(),
             QStringLiteral("mcp add veetbot -- %1 mcp --profile %2 --approver workbench "
                            "--trust-turns owner")
                 .arg(AgentConfiguration::program(), id));
    // Copy puts it on the clipboard as shown.
    window.showSection(MainWindow::Section::Start);
    QAbstractButton *copy = button(start, QStringLiteral("Copy the agent configuration"));
    QVERIFY(copy);
    QTest::mouseClick(copy, Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), start->shownJson());
    QVERIFY(saveShot(window, QStringLiteral("workbench-start-here.png")));
    // The third step leads to Tasks, where New task is.
    QTest::mouseClick(button(start, QStringLiteral("Go to Tasks")), Qt::LeftButton);
    QCOMPARE(window.currentSection(), MainWindow::Section::Tasks);
    QVERIFY(button(workbench.tasks(), QStringLiteral("New task")));
}

void TestMainWindow::everySectionByKeyboard()
{
    QVERIFY(!createProfile().isEmpty());
    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    QVERIFY(testing::runEventsUntil(
        [&workbench] { return workbench.websites()->profiles().size() == 1; }, 20000));
    // With a website the window opens where the owner was, the first time on Websites.
    QCOMPARE(window.currentSection(), MainWindow::Section::Websites);
    QCOMPARE(window.sectionTitles(),
             (QStringList{QStringLiteral("Start here"), QStringLiteral("Websites"),
                          QStringLiteral("Approvals"), QStringLiteral("Activity"),
                          QStringLiteral("Tasks"), QStringLiteral("Schedules"),
                          QStringLiteral("Settings")}));
    const QList<std::pair<Qt::Key, MainWindow::Section>> keys = {
        {Qt::Key_3, MainWindow::Section::Approvals}, {Qt::Key_4, MainWindow::Section::Activity},
        {Qt::Key_5, MainWindow::Section::Tasks},     {Qt::Key_6, MainWindow::Section::Schedules},
        {Qt::Key_7, MainWindow::Section::Settings},  {Qt::Key_1, MainWindow::Section::Start},
        {Qt::Key_2, MainWindow::Section::Websites}};
    const QStringList shots{
        QStringLiteral("workbench-approvals.png"), QStringLiteral("workbench-activity.png"),
        QStringLiteral("workbench-tasks.png"),     QStringLiteral("workbench-schedules.png"),
        QStringLiteral("workbench-settings.png"),  QString(),
        QStringLiteral("workbench-websites.png")};
    for (int i = 0; i < keys.size(); ++i) {
        QTest::keyClick(&window, keys.at(i).first, Qt::ControlModifier);
        QCOMPARE(window.currentSection(), keys.at(i).second);
        QVERIFY(window.windowTitle().startsWith(MainWindow::sectionName(keys.at(i).second)));
        if (!shots.at(i).isEmpty()) {
            QTest::qWait(200); // the section's own first read
            QVERIFY(saveShot(window, shots.at(i)));
        }
    }
    // The sidebar takes the arrow keys.
    auto *sidebar = window.findChild<QListWidget *>();
    QVERIFY(sidebar && sidebar->accessibleName() == QLatin1String("Sections"));
    sidebar->setFocus();
    QTest::keyClick(sidebar, Qt::Key_Down);
    QCOMPARE(window.currentSection(), MainWindow::Section::Approvals);
    QTest::keyClick(sidebar, Qt::Key_Down);
    QCOMPARE(window.currentSection(), MainWindow::Section::Activity);
    // Every control the keyboard reaches, in every section, has a name a screen reader says.
    QStringList unnamed;
    for (const MainWindow::Section section :
         {MainWindow::Section::Start, MainWindow::Section::Websites, MainWindow::Section::Approvals,
          MainWindow::Section::Activity, MainWindow::Section::Tasks, MainWindow::Section::Schedules,
          MainWindow::Section::Settings}) {
        window.showSection(section);
        for (QAbstractButton *control : window.findChildren<QAbstractButton *>()) {
            if (control->isVisible() && control->focusPolicy() != Qt::NoFocus &&
                control->accessibleName().isEmpty() && control->text().remove(u'&').isEmpty())
                unnamed << MainWindow::sectionName(section) + u':' +
                               QString::fromLatin1(control->metaObject()->className());
        }
    }
    QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(u',')));
}

void TestMainWindow::thePlaceAndSectionAreKept()
{
    QVERIFY(!createProfile().isEmpty());
    QRect placed;
    {
        Workbench workbench(m_harness.overrides(), m_notifications.bus());
        workbench.show();
        MainWindow &window = workbench.window();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
        window.resize(900, 640);
        QVERIFY(testing::runEventsUntil([&window] { return window.width() == 900; }, 5000));
        placed = window.geometry();
    }
    Workbench again(m_harness.overrides(), m_notifications.bus());
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again.window()));
    QCOMPARE(again.window().currentSection(), MainWindow::Section::Activity);
    QCOMPARE(again.window().size(), placed.size());
}

void TestMainWindow::aCardWhileHiddenIsNotifiedAndItsClickOpensIt()
{
    QVERIFY(!createProfile().isEmpty());
    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    QCOMPARE(window.attention(), 0);
    window.hide();

    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    WorkbenchApprover agent(*socket);
    QVERIFY(agent.connectToWorkbench());
    QVERIFY(testing::runEventsUntil(
        [&workbench] { return workbench.broker().connectedAgents() == 1; }, 5000));
    QList<ApprovalAnswer> answers;
    agent.requestApproval(question(7), [&answers](ApprovalAnswer answer) { answers << answer; });

    // Counted everywhere the owner looks, and shown by the desktop's notification server.
    QVERIFY(testing::runEventsUntil([&window] { return window.attention() == 1; }, 10000));
    QVERIFY(window.sectionTitles().contains(QStringLiteral("Approvals (1)")));
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("(1) ")));
    QCOMPARE(window.trayToolTip(), QStringLiteral("Veetbot Workbench — 1 approval waiting"));
    QVERIFY(testing::runEventsUntil([this] { return m_notifications.displayed() == 1; }, 10000));
    QVERIFY(testing::runEventsUntil([&workbench] { return workbench.notifications().shown() == 1; },
                                    5000));
    QVERIFY(!window.isVisible());

    // The owner clicks the notification: the window comes forward on the card, and nothing is
    // answered until the owner answers the card itself.
    QVERIFY(m_notifications.clickNewest());
    QVERIFY(testing::runEventsUntil(
        [&window] {
            return window.isVisible() && window.currentSection() == MainWindow::Section::Approvals;
        },
        10000));
    ApprovalCard *card = workbench.approvals()->currentCard();
    QVERIFY(card && card->isVisible());
    QTest::qWait(300);
    QVERIFY(answers.isEmpty());
    QVERIFY(saveShot(window, QStringLiteral("workbench-card-from-notification.png")));

    // Esc on the card denies; the count and the notification go.
    QTest::keyClick(card, Qt::Key_Escape);
    QVERIFY(testing::runEventsUntil([&answers] { return answers.size() == 1; }, 5000));
    QCOMPARE(answers.constFirst(), ApprovalAnswer::Declined);
    QVERIFY(testing::runEventsUntil([&window] { return window.attention() == 0; }, 5000));
    QCOMPARE(window.trayToolTip(), QStringLiteral("Veetbot Workbench — nothing waits for you"));
    QVERIFY(window.sectionTitles().contains(QStringLiteral("Approvals")));
    QCOMPARE(workbench.notifications().shown(), 0);

    // What the notification server keeps: the website's host, never the page's words.
    const QByteArray kept = m_notifications.keptText();
    QVERIFY2(kept.contains("shop.test"), kept.constData());
    QVERIFY(!kept.contains("Your private account"));
    QVERIFY(!kept.contains("Close my account"));
}

void TestMainWindow::aSecondLaunchBringsTheFirstForward()
{
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    SingleInstance first(SingleInstance::besideApprovals(*socket));
    QVERIFY(first.listen());
    QSignalSpy raised(&first, &SingleInstance::raiseRequested);
    QProcess second;
    QProcessEnvironment env = environment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    second.setProcessEnvironment(env);
    second.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-workbench"), {});
    QVERIFY(second.waitForStarted(10000));
    QVERIFY(testing::runEventsUntil([&second] { return second.state() == QProcess::NotRunning; },
                                    60000));
    QCOMPARE(second.exitCode(), 0);
    QVERIFY(second.readAllStandardOutput().contains("came forward"));
    QCOMPARE(raised.size(), 1);
}

void TestMainWindow::activityFiltersAndExportsARun()
{
    QVERIFY(!createProfile().isEmpty());
    // Two websites' runs on the timeline: one today with its events, one two days ago.
    const Result<MetadataStore> store = openMetadataStore({});
    QVERIFY(store.ok());
    ActivityTimeline &timeline = store->repository->timeline();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    ActivityRun today{QUuid::createUuid(), QStringLiteral("mcp"), QUuid(),
                      QStringLiteral("https://shop.test"), now.addSecs(-600)};
    ActivityRun older{QUuid::createUuid(), QStringLiteral("mcp"), QUuid(),
                      QStringLiteral("https://wiki.test"), now.addDays(-2)};
    QVERIFY(timeline.startRun(store->scope(), older).ok());
    QVERIFY(timeline.startRun(store->scope(), today).ok());
    ActivityEvent observed{QStringLiteral("observation"), now.addSecs(-590),
                           QStringLiteral("browser.observe")};
    observed.outcome = QStringLiteral("succeeded");
    observed.elapsedMs = 412;
    observed.origin = QStringLiteral("https://shop.test");
    observed.pathSegment = QStringLiteral("account");
    observed.elements = 23;
    observed.regions = 4;
    ActivityEvent refused{QStringLiteral("tool.call"), now.addSecs(-580),
                          QStringLiteral("browser.act")};
    refused.actionKind = QStringLiteral("click");
    refused.targetRole = QStringLiteral("button");
    refused.approvalSource = QStringLiteral("none");
    refused.outcome = QStringLiteral("refused");
    refused.code = QStringLiteral("tool.approval_denied");
    refused.origin = QStringLiteral("https://shop.test");
    QVERIFY(timeline.appendEvent(store->scope(), today.id, observed).ok());
    QVERIFY(timeline.appendEvent(store->scope(), today.id, refused).ok());
    QVERIFY(timeline.endRun(store->scope(), today.id, QStringLiteral("input_ended")).ok());
    QVERIFY(timeline.endRun(store->scope(), older.id, QStringLiteral("input_ended")).ok());

    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    RunsWindow *runs = workbench.runs();
    QVERIFY(testing::runEventsUntil([runs] { return runs->runCount() == 2; }, 10000));
    const auto combo = [runs](const QString &name) {
        for (QComboBox *candidate : runs->findChildren<QComboBox *>())
            if (candidate->accessibleName() == name)
                return candidate;
        return static_cast<QComboBox *>(nullptr);
    };
    // Each filter as the owner uses it: the keyboard on its list.
    QComboBox *status = combo(QStringLiteral("Show runs by status"));
    QComboBox *when = combo(QStringLiteral("Show runs started"));
    QComboBox *website = combo(QStringLiteral("Show runs of website"));
    QVERIFY(status && when && website);
    QCOMPARE(website->count(), 3); // all, and the two websites
    status->setFocus();
    QTest::keyClick(status, Qt::Key_Down); // Running
    QCOMPARE(runs->runCount(), 0);
    QTest::keyClick(status, Qt::Key_Down); // Ended
    QCOMPARE(runs->runCount(), 2);
    when->setFocus();
    QTest::keyClick(when, Qt::Key_Down); // the last 24 hours
    QCOMPARE(runs->runCount(), 1);
    QTest::keyClick(when, Qt::Key_Up); // any time
    website->setFocus();
    QTest::keyClick(website, Qt::Key_Down); // the first website: shop.test
    QCOMPARE(website->currentText(), QStringLiteral("https://shop.test"));
    QCOMPARE(runs->runCount(), 1);
    // The filter holds through the view's own refreshes.
    runs->refresh();
    QCOMPARE(runs->runCount(), 1);

    // Export: the run selected, Export clicked, a file named in the save dialog.
    auto *table = runs->findChild<QTableWidget *>();
    QVERIFY(table);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualItemRect(table->item(0, 0)).center());
    QCOMPARE(runs->eventCount(), 2);
    QTemporaryDir exports;
    QVERIFY(exports.isValid());
    const auto exportAs = [&](const QString &name) {
        QAbstractButton *exporter =
            button(runs, QStringLiteral("Export the selected run's timeline"));
        QVERIFY(exporter && exporter->isEnabled());
        QTest::mouseClick(exporter, Qt::LeftButton);
        QFileDialog *dialog = nullptr;
        QVERIFY(testing::runEventsUntil(
            [&] {
                for (QFileDialog *shown : runs->findChildren<QFileDialog *>())
                    if (shown->isVisible())
                        dialog = shown; // (the one before closed, and goes)
                return dialog != nullptr;
            },
            5000));
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        auto *fileName = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
        QVERIFY(fileName);
        fileName->selectAll();
        QTest::keyClicks(fileName, exports.filePath(name));
        // The name typed, its completion list closed with Esc as a person would, Save clicked.
        // (The list fills as the directory is read, and may open again meanwhile.)
        QTest::qWait(300);
        QVERIFY(testing::runEventsUntil(
            [] {
                if (QWidget *popup = QApplication::activePopupWidget())
                    QTest::keyClick(popup, Qt::Key_Escape);
                QTest::qWait(50);
                return QApplication::activePopupWidget() == nullptr;
            },
            5000));
        auto *box = dialog->findChild<QDialogButtonBox *>();
        QVERIFY(box && box->button(QDialogButtonBox::Save));
        QTest::mouseClick(box->button(QDialogButtonBox::Save), Qt::LeftButton);
        const bool written = testing::runEventsUntil(
            [&] { return QFileInfo::exists(exports.filePath(name)); }, 5000);
        QLabel *status = nullptr;
        for (QLabel *label : runs->findChildren<QLabel *>())
            if (label->accessibleName() == QLatin1String("Status"))
                status = label;
        QVERIFY2(written, qPrintable(status ? status->text() : QString()));
        QVERIFY(status->text().startsWith(QStringLiteral("Exported 2 events")));
    };
    exportAs(QStringLiteral("run.json"));
    // The JSON is what `veetbot runs show` prints.
    QFile json(exports.filePath(QStringLiteral("run.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject exported = QJsonDocument::fromJson(json.readAll()).object();
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"),
                                        today.id.toString(QUuid::WithoutBraces)});
    QCOMPARE(shown.exitCode, 0);
    QCOMPARE(exported, QJsonDocument::fromJson(shown.out).object());
    QCOMPARE(exported.value(QStringLiteral("events")).toArray().size(), 2);

    exportAs(QStringLiteral("run.csv"));
    QFile csv(exports.filePath(QStringLiteral("run.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.size(), 4); // the header, two events, and the end of the last line
    QCOMPARE(lines.at(0).trimmed(), RunExport::csvColumns().join(u',').toUtf8());
    QCOMPARE(lines.at(1).trimmed(),
             QByteArray("observation,") + observed.at.toString(Qt::ISODateWithMs).toUtf8() +
                 ",browser.observe,,,,succeeded,,412,https://shop.test,account,23,4,,");
    QVERIFY(lines.at(2).contains(",click,button,none,refused,tool.approval_denied,"));
    QVERIFY(saveShot(window, QStringLiteral("workbench-activity-filtered.png")));
}

void TestMainWindow::aSignInNoticeIsCountedAndItsNotificationOpensIt()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    window.hide();
    QVERIFY(waitForOwner(id));
    // Read at the next two-second round: counted, and shown by the notification server.
    QVERIFY(testing::runEventsUntil([&window] { return window.attention() == 1; }, 10000));
    QCOMPARE(window.trayToolTip(),
             QStringLiteral("Veetbot Workbench — 1 website to sign in to again"));
    QVERIFY(testing::runEventsUntil([this] { return m_notifications.displayed() == 1; }, 10000));
    QWidget *notice = workbench.notices()->window();
    notice->hide(); // the owner is elsewhere; the notification is what they see
    QVERIFY(m_notifications.clickNewest());
    QVERIFY(testing::runEventsUntil(
        [&window, notice] { return window.isVisible() && notice->isVisible(); }, 10000));
    // Later hides the notice: the count and the notification go.
    QAbstractButton *later = button(notice, QStringLiteral("Later"));
    QVERIFY(later);
    QTest::mouseClick(later, Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&window] { return window.attention() == 0; }, 5000));
    QCOMPARE(workbench.notifications().shown(), 0);
    const QByteArray kept = m_notifications.keptText();
    QVERIFY2(kept.contains("Sign in to shop.test"), kept.constData());
}

void TestMainWindow::startWithMySessionWritesTheAutostartEntry()
{
    QTemporaryDir config;
    QVERIFY(config.isValid());
    const QByteArray before = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    const auto restore = qScopeGuard([&before] {
        if (before.isEmpty())
            qunsetenv("XDG_CONFIG_HOME");
        else
            qputenv("XDG_CONFIG_HOME", before);
    });
    const QString entry =
        config.path() + QStringLiteral("/autostart/org.veetbot.Workbench.desktop");
    QCOMPARE(Autostart::entryPath(), entry);
    const std::unique_ptr<Workbench> opened = openWorkbench();
    QVERIFY(opened);
    Workbench &workbench = *opened;
    MainWindow &window = workbench.window();
    // File › Start with my session, by the keyboard: Alt+F, then its letter.
    const auto toggle = [&window] {
        QTest::keyClick(&window, Qt::Key_F, Qt::AltModifier);
        QVERIFY(testing::runEventsUntil([] { return QApplication::activePopupWidget(); }, 5000));
        QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_S);
    };
    toggle();
    QVERIFY(testing::runEventsUntil([&entry] { return QFileInfo::exists(entry); }, 5000));
    QCOMPARE(QFileInfo(entry).permissions() & (QFile::ReadGroup | QFile::ReadOther),
             QFile::Permissions());
    // The entry is one desktops accept, and starts this program in the background.
    QProcess validate;
    validate.start(QStringLiteral("desktop-file-validate"), {entry});
    QVERIFY(validate.waitForFinished(30000));
    QVERIFY2(validate.exitCode() == 0 && validate.readAll().isEmpty(),
             validate.readAllStandardOutput().constData());
    QFile file(entry);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray exec = QByteArray("Exec=\"") +
                            QCoreApplication::applicationFilePath().toUtf8() +
                            QByteArray("\" --background\n");
    QVERIFY(file.readAll().contains(exec));
    toggle();
    QVERIFY(testing::runEventsUntil([&entry] { return !QFileInfo::exists(entry); }, 5000));

    // A program path with the characters Exec reserves is quoted as the specification says.
    const QByteArray odd = Autostart::entry(QStringLiteral("/opt/a \"b\" $c\\d/100%/veetbot"));
    QVERIFY2(odd.contains("Exec=\"/opt/a \\\\\"b\\\\\" \\\\$c\\\\\\\\d/100%%/veetbot\" "
                          "--background\n"),
             odd.constData());
    QFile oddFile(config.filePath(QStringLiteral("odd.desktop")));
    QVERIFY(oddFile.open(QIODevice::WriteOnly) && oddFile.write(odd) == odd.size());
    oddFile.close();
    QProcess validateOdd;
    validateOdd.start(QStringLiteral("desktop-file-validate"), {oddFile.fileName()});
    QVERIFY(validateOdd.waitForFinished(30000));
    QVERIFY2(validateOdd.exitCode() == 0, validateOdd.readAllStandardOutput().constData());
}

namespace {

double luminance(QColor color)
{
    const auto channel = [](double c) {
        return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) +
           0.0722 * channel(color.blueF());
}

// The contrast (WCAG) between a label's background as drawn in its parent (the corner pixel)
// and the pixel of its text farthest from it.
double drawnContrast(QWidget *widget)
{
    const QImage image = widget->parentWidget()->grab(widget->geometry()).toImage();
    const QColor background = image.pixelColor(1, 1);
    double best = 1.0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const double a = luminance(background);
            const double b = luminance(image.pixelColor(x, y));
            best = std::max(best, (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05));
        }
    return best;
}

} // namespace

void TestMainWindow::aDarkDesktopKeepsWarningsAndNoticesReadable()
{
    const QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xf0, 0xf0, 0xf0));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xf0, 0xf0, 0xf0));
    dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::ButtonText, QColor(0xf0, 0xf0, 0xf0));
    const auto restore = qScopeGuard([&light] { QApplication::setPalette(light); });
    for (const QPalette &palette : {light, dark}) {
        QApplication::setPalette(palette);
        // A card's warning of a named consequence.
        ApprovalBroker::Question asked;
        asked.key = 1;
        asked.view = QJsonObject{{QStringLiteral("summary"), QStringLiteral("Click a button")},
                                 {QStringLiteral("kind"), QStringLiteral("click")},
                                 {QStringLiteral("consequence"), QStringLiteral("destructive")}};
        ApprovalCard card(asked);
        card.show();
        QVERIFY(QTest::qWaitForWindowExposed(&card));
        QLabel *warning = nullptr;
        for (QLabel *label : card.findChildren<QLabel *>())
            if (label->accessibleName() == QLatin1String("Warning"))
                warning = label;
        QVERIFY(warning);
        QVERIFY2(drawnContrast(warning) >= 4.5,
                 qPrintable(QString::number(drawnContrast(warning))));
        // A sign-in notice's words on its highlight.
        const QString id = createProfile();
        QVERIFY(!id.isEmpty());
        QVERIFY(waitForOwner(id));
        SignInNotices notices([] { return listProfiles(); });
        notices.refresh();
        QVERIFY(!notices.notices().isEmpty());
        QVERIFY(QTest::qWaitForWindowExposed(notices.window()));
        for (QLabel *label : notices.notices().constLast()->findChildren<QLabel *>())
            QVERIFY2(drawnContrast(label) >= 4.5,
                     qPrintable(label->text() + u' ' + QString::number(drawnContrast(label))));
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
