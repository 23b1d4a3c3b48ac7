// `veetbot run` end to end: the real binary, the real profile service and Chromium, the
// fixture site of tests/tasks/manifest.json, a scripted chat-completions server that decides
// every call from the projections it is sent, and the workbench's approvals answered by an
// in-process ApprovalBroker. The site is the witness: every task's effects are checked at the
// fixture server. Also: the run ceilings (a model that never stops; a price that runs out
// with the reserve kept), Ctrl-C while an act waits for the owner, a crash right after a
// dispatch and --resume without a second effect, a refused plain-HTTP model URL, and the API
// key in no file of the data directory and on no output. The run's authority is `veetbot mcp
// --trust-turns owner`'s: routine controls run without a card, each named consequence asks
// once, and on a wiki-shaped application every control that writes asks once (by its words
// and target, or after the write guard stopped it with nothing sent) and nothing writes under
// --approver deny. A run is verified only when the completion predicate its model stated was
// seen after its last act.

#include "EventWait.h"
#include "FileSweep.h"
#include "NewTask.h"
#include "NotificationServer.h"
#include "RunsWindow.h"
#include "SchedulesView.h"
#include "ScriptedModelServer.h"
#include "ServiceTestCase.h"
#include "SignInNotices.h"
#include "TaskManifest.h"
#include "TaskReport.h"
#include "TaskSite.h"
#include "TestPaths.h"
#include "approval/WorkbenchChannel.h"
#include "client/WebsiteAccess.h"
#include "domain/profile/SessionState.h"
#include "domain/run/TaskRun.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlStores.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <array>
#include <csignal>

using namespace veetbot;
using namespace veetbot::testing;
using namespace veetbot::tasks;

namespace {
const QByteArray kKeyCanary = "sk-KEY-CANARY-5e0f1d";
// The fixture tasks the scripted model plays: those whose steps need no in-process page hook, no
// typed read of a region or table, no scroll and no choice of a dialog.
const QStringList kTasks{QStringLiteral("lesson-quiz"),        QStringLiteral("multilingual-form"),
                         QStringLiteral("mixed-script-names"), QStringLiteral("dense-controls"),
                         QStringLiteral("hidden-controls"),    QStringLiteral("shadow-roots"),
                         QStringLiteral("slow-spa"),           QStringLiteral("multi-step-form"),
                         QStringLiteral("search-filter"),      QStringLiteral("beforeunload-draft"),
                         QStringLiteral("settings-switches"),  QStringLiteral("overlay-cover")};

// A wiki-shaped application (aWikiShapedApplicationThroughARun): every page is
// /tasks/wiki/w/index.php with the operation in its query, and the server answers the same page
// for every query (a saved edit, a POST, is sent back to the article). It reads through Edit (a
// title tooltip), History, a tab and a GET search; it writes through a form post ("Save changes"),
// a GET with a token ("rollback 1 edit"), and scripts that post to its API ("Thanks", "Speichern",
// and "Log out", which then navigates).
const QString kWikiPage = QStringLiteral("/tasks/wiki/w/index.php");
const QString kWikiApi = QStringLiteral("/tasks/wiki/w/api.php");
const QByteArray kWiki = R"(<!doctype html><title>Sandbox</title>
<h1>Sandbox</h1>
<nav>
 <a href="/tasks/wiki/w/index.php?title=Sandbox&amp;action=edit" title="Edit this page [alt-shift-e]">Edit</a>
 <a href="/tasks/wiki/w/index.php?title=Sandbox&amp;action=history">History</a>
 <a href="/tasks/wiki/w/index.php?title=Sandbox&amp;action=rollback&amp;from=Editor&amp;token=9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e%2B%5C">rollback 1 edit</a>
 <a id=logout href="/tasks/wiki/w/index.php?title=Special:UserLogout&amp;returnto=Sandbox">Log out</a>
</nav>
<div role=tablist><button role=tab aria-selected=true id=article>Article</button><button role=tab id=talk>Talk</button></div>
<div id=panel>Article text</div>
<form action="/tasks/wiki/w/index.php" method=get><input type=hidden name=title value=Special:Search>
 <input type=search name=search aria-label="Search the wiki"><button>Go</button></form>
<form method=post action="/tasks/wiki/w/index.php?title=Sandbox&amp;action=submit">
 <input type=hidden name=wpEditToken value="abc123"><button>Save changes</button></form>
<button type=button id=thank>Thanks</button> <button type=button id=options>Speichern</button>
<button type=button id=watch>Suivre</button>
<p role=status id=note></p>
<script>
 const byId = (id) => document.getElementById(id);
 const say = (what) => () => { byId('note').textContent = what; };
 const post = (operation, body) => fetch('/tasks/wiki/w/api.php?action=' + operation,
                                         {method: 'POST', body}).then((r) => r.text());
 byId('talk').onclick = () => { byId('article').removeAttribute('aria-selected');
   byId('talk').setAttribute('aria-selected', 'true'); byId('panel').textContent = 'Talk text'; };
 byId('thank').onclick = () => post('thank', 'rev=2').then(say('Thanked'));
 byId('options').onclick = () => post('options', 'language=de').then(say('Gespeichert'));
 byId('watch').onclick = () => post('watch', 'title=Sandbox').then(say('Suivi'));
 byId('logout').onclick = (e) => { e.preventDefault();
   post('logout', '').finally(() => { location.href = '/tasks/wiki/w/index.php?title=Main'; }); };
</script>)";

// The wiki's state-changing controls, in the order the run meets them, and the requests that
// are each one's write at the site.
struct WikiWrite
{
    QString control;
    QString role;
    QString method;
    QString path;
    QString operation; // in the query
};
const QList<WikiWrite> kWikiWrites{
    {QStringLiteral("Save changes"), QStringLiteral("button"), QStringLiteral("POST"), kWikiPage,
     QStringLiteral("action=submit")},
    {QStringLiteral("Thanks"), QStringLiteral("button"), QStringLiteral("POST"), kWikiApi,
     QStringLiteral("action=thank")},
    {QStringLiteral("Speichern"), QStringLiteral("button"), QStringLiteral("POST"), kWikiApi,
     QStringLiteral("action=options")},
    {QStringLiteral("Suivre"), QStringLiteral("button"), QStringLiteral("POST"), kWikiApi,
     QStringLiteral("action=watch")},
    // Its page, at the rollback's address, is itself sensitive: what follows asks anyway.
    {QStringLiteral("rollback 1 edit"), QStringLiteral("link"), QStringLiteral("GET"), kWikiPage,
     QStringLiteral("action=rollback")},
    {QStringLiteral("Log out"), QStringLiteral("link"), QStringLiteral("POST"), kWikiApi,
     QStringLiteral("action=logout")},
};
const QString kWikiTask = QStringLiteral(
    "Look at the sandbox's edit view, its history and talk page, search the wiki for bread, then "
    "save the sandbox, thank its editor, save my preferences, watch the page, roll back the last "
    "edit and log out.");
const QString kWikiDeniedTask =
    QStringLiteral("Save the sandbox, thank its editor, save my preferences, watch the page, roll "
                   "back the last edit and log out, then look at the sandbox's history.");
const QString kWikiThanksTask = QStringLiteral("Thank the sandbox's editor.");
} // namespace

class TestTaskRuns : public ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void aPlainHttpModelUrlIsRefused();
    void fixtureTasksEndToEnd();
    void routineActsRunWithoutACardAndEachConsequenceAsksOnce();
    void aWikiShapedApplicationThroughARun();
    void aRunWithoutAPredicateIsUnverified();
    void aModelThatNeverStopsEndsAtTheCeiling();
    void aPriceRunsOutWithTheReserveKept();
    void manyToolCallsAtOnceEndAtTheStepCeiling();
    void tokensRunOutWithoutPricesWithTheReserveKept();
    void ctrlCWhileAnActWaitsSendsNothing();
    void theTerminalApproves();
    void aCrashAfterDispatchResumesWithoutADuplicate();
    void aSignInWallWaitsForTheOwnerAndResumesOnce();
    void stoppedWhileWaitingForSignIn();
    void theKeyIsInNoFileAndOnNoOutput();
    void theTaskIsStoredOnlyAsItsDigest();
    void theWorkbenchStartsAndStopsATask();
    void aScheduleOccursAsItsTimerStartsIt();
    void aScheduleWhoseWebsiteNeedsYouNotifiesOnce();

private:
    // `veetbot schedules ...` with the units under this test's own configuration directory
    // and no user service manager asked.
    Run schedules(const QStringList &arguments);
    QString unitDirectory() const { return m_dir->path() + QStringLiteral("/config/systemd/user"); }
    QJsonObject scheduleShown(const QString &id);
    // The programs this test starts send their desktop notifications to `server` until the
    // returned guard goes.
    [[nodiscard]] auto notifyingTo(const NotificationServer &server)
    {
        m_extraEnvironment.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), server.address());
        return qScopeGuard(
            [this] { m_extraEnvironment.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS")); });
    }
    struct RunResult
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
        QJsonObject summary; // the last line of stderr
    };
    RunResult runTask(const QString &task, const QStringList &extra = {},
                      const QHash<QString, QString> &environment = {});
    QList<ObservedRequest> observedRequests();
    const Task *task(const QString &id) const;
    // The member pages of the sign-in wall tests (their session's token is m_memberToken), a
    // verified sign-in with a member cookie of `value`, and the reorder task as a process.
    Run signInAsMember(const QString &profile, const QByteArray &value)
    {
        return signInWithCookie(profile, QStringLiteral("member"), value,
                                QStringLiteral("/tasks/sign-in-wall/orders"));
    }
    void serveSignInWall();
    void serveErrands();
    // The requests at the site that write: any method but GET and HEAD, and a GET whose query
    // carries the rollback token; and those of one control of the wiki.
    int writes();
    int writesOf(const WikiWrite &write);
    QProcess *startReorder(const QString &profile);

    TaskManifest m_manifest;
    ScriptedModelServer m_model;
    std::unique_ptr<TaskModel> m_taskModel;
    ApprovalBroker m_workbench;
    bool m_holdApprovals = false;
    int m_cards = 0;
    // Called for each card as it is asked, before the owner answers it.
    std::function<void(const ApprovalBroker::Question &)> m_onCard;
    QString m_profile;
    std::shared_ptr<QByteArray> m_memberToken = std::make_shared<QByteArray>();
    QByteArray m_allOutput;     // every run's stdout and stderr, for the key check
    QStringList m_tasks;        // every task given to `veetbot run`
    QStringList m_startedTasks; // those whose run started (and so has a record)
};

void TestTaskRuns::initTestCase()
{
    QFile file(sourcePath(QStringLiteral("tests/tasks/manifest.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    Result<TaskManifest> manifest = TaskManifest::fromJson(file.readAll());
    QVERIFY2(manifest.ok(), manifest.ok() ? "" : qPrintable(manifest.error().message));
    m_manifest = *manifest;
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    // Its screenshots' directory, made here too: run alone, no other test has made it.
    QVERIFY(QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots"))));
    // What each task's page shows when it is done: the completion predicate its model states.
    const auto shows = [](const QString &text) {
        return QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                           {QStringLiteral("text"), text}};
    };
    const QHash<QString, QJsonObject> predicates{
        {QStringLiteral("lesson-quiz"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("region")},
                     {QStringLiteral("name"), QStringLiteral("Answer received")},
                     {QStringLiteral("region_kind"), QStringLiteral("heading")}}},
        {QStringLiteral("multilingual-form"), shows(QStringLiteral("Готово · 完了"))},
        {QStringLiteral("mixed-script-names"), shows(QStringLiteral("Paid"))},
        {QStringLiteral("dense-controls"), shows(QStringLiteral("Reserved"))},
        {QStringLiteral("hidden-controls"), shows(QStringLiteral("Done"))},
        {QStringLiteral("shadow-roots"), shows(QStringLiteral("Booked"))},
        {QStringLiteral("slow-spa"), shows(QStringLiteral("Saved"))},
        {QStringLiteral("multi-step-form"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("url")},
                     {QStringLiteral("url"), url(QStringLiteral("/tasks/multi-step-form/done"))}}},
        {QStringLiteral("search-filter"), shows(QStringLiteral("Added"))},
        {QStringLiteral("beforeunload-draft"), shows(QStringLiteral("Draft saved"))},
        {QStringLiteral("settings-switches"), shows(QStringLiteral("Saved"))},
        {QStringLiteral("overlay-cover"), shows(QStringLiteral("Bought"))}};
    // Every task's site at /tasks/<id>/, as tst_controlled_tasks serves it.
    QList<TaskModel::Script> scripts;
    for (const Task &task : m_manifest.tasks) {
        QVERIFY2(serveTaskSite(m_harness.server(), task), qPrintable(task.id));
        TaskModel::Script script{task.id, task.summary, {}, predicates.value(task.id)};
        for (const TaskStep &step : task.steps) {
            TaskModel::Step played;
            // The scripted model plays these verbs; a task with any other is not run here.
            constexpr std::array kPlayed{
                TaskStep::Verb::Navigate, TaskStep::Verb::Click,  TaskStep::Verb::Type,
                TaskStep::Verb::Select,   TaskStep::Verb::Check,  TaskStep::Verb::Press,
                TaskStep::Verb::See,      TaskStep::Verb::Absent, TaskStep::Verb::WaitFor};
            played.verb = std::find(kPlayed.begin(), kPlayed.end(), step.verb) != kPlayed.end()
                              ? TaskStep::verbName(step.verb)
                              : QStringLiteral("unsupported");
            played.page = step.page;
            played.role = step.control.role;
            played.name = step.control.name;
            played.text = step.text;
            played.checked = step.checked;
            played.expect = step.expect;
            played.timeoutMs = step.timeoutMs;
            script.steps << played;
        }
        scripts << script;
        // The same task, its model stating nothing of what shows it done.
        if (task.id == QLatin1String("dense-controls"))
            scripts << TaskModel::Script{
                task.id, QStringLiteral("Reserve seat 333, just do it."), script.steps, {}};
    }
    // Routine reads and two consequences (routineActsRunWithoutACardAndEachConsequenceAsksOnce).
    const auto click = [](const QString &role, const QString &name) {
        return TaskModel::Step{QStringLiteral("click"), {}, role, name};
    };
    scripts << TaskModel::Script{
        QStringLiteral("errands"),
        QStringLiteral("Find bread, look at more items and the next page, then pay and order."),
        {TaskModel::Step{QStringLiteral("navigate"), QStringLiteral("list")},
         TaskModel::Step{QStringLiteral("type"),
                         {},
                         QStringLiteral("searchbox"),
                         QStringLiteral("Search items"),
                         QStringLiteral("bread")},
         click(QStringLiteral("button"), QStringLiteral("Show more")),
         click(QStringLiteral("link"), QStringLiteral("Next")),
         click(QStringLiteral("button"), QStringLiteral("Pay")),
         click(QStringLiteral("button"), QStringLiteral("Place order"))},
        shows(QStringLiteral("Order placed"))};
    // The wiki (aWikiShapedApplicationThroughARun): its reading controls, then each control
    // that writes; and those again, each refused, then History as the last read.
    {
        const TaskModel::Step open{.verb = QStringLiteral("navigate"),
                                   .page = QStringLiteral("w/index.php?title=Sandbox")};
        QList<TaskModel::Step> steps{open,
                                     click(QStringLiteral("link"), QStringLiteral("Edit")),
                                     click(QStringLiteral("link"), QStringLiteral("History")),
                                     click(QStringLiteral("tab"), QStringLiteral("Talk")),
                                     TaskModel::Step{.verb = QStringLiteral("type"),
                                                     .role = QStringLiteral("searchbox"),
                                                     .name = QStringLiteral("Search the wiki"),
                                                     .text = QStringLiteral("bread")},
                                     click(QStringLiteral("button"), QStringLiteral("Go"))};
        QList<TaskModel::Step> denied{open};
        for (const WikiWrite &write : kWikiWrites) {
            steps << click(write.role, write.control);
            denied << TaskModel::Step{.verb = QStringLiteral("click"),
                                      .role = write.role,
                                      .name = write.control,
                                      .expect = QStringLiteral("tool.approval_denied")};
        }
        denied << click(QStringLiteral("link"), QStringLiteral("History"));
        // Done when "Log out" has taken the browser to the main page.
        scripts << TaskModel::Script{
            QStringLiteral("wiki"), kWikiTask, steps,
            QJsonObject{{QStringLiteral("kind"), QStringLiteral("url")},
                        {QStringLiteral("url"), url(kWikiPage + QStringLiteral("?title=Main"))}}};
        scripts << TaskModel::Script{QStringLiteral("wiki"), kWikiDeniedTask, denied, {}};
        // One write-guarded control (aScheduleOccursAsItsTimerStartsIt): in the owner's turn,
        // inside a task scope, its card offers a task grant.
        scripts << TaskModel::Script{
            QStringLiteral("wiki"),
            kWikiThanksTask,
            {open, click(QStringLiteral("button"), QStringLiteral("Thanks"))},
            QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                        {QStringLiteral("text"), QStringLiteral("Thanked")}}};
    }
    // A member's page behind a session (aSignInWallWaitsForTheOwnerAndResumesOnce).
    scripts << TaskModel::Script{
        QStringLiteral("sign-in-wall"),
        QStringLiteral("Reorder my last order."),
        {TaskModel::Step{QStringLiteral("navigate"), QStringLiteral("orders")},
         TaskModel::Step{
             QStringLiteral("click"), {}, QStringLiteral("button"), QStringLiteral("Reorder")}}};
    QVERIFY(setUpService());
    serveSignInWall();
    serveErrands();
    m_harness.server().setHandler(kWikiPage, [](const fixtures::FixtureServer::Request &request) {
        fixtures::FixtureServer::Response response;
        if (request.method == QLatin1String("POST")) {
            response.status = 303;
            response.headers = {{"Location", "/tasks/wiki/w/index.php?title=Sandbox"}};
        } else {
            response.body = kWiki;
        }
        return response;
    });
    m_harness.page(kWikiApi, "{}");
    // The ledger of this data directory's agents lives in the test's directory too.
    m_extraEnvironment.insert(QStringLiteral("XDG_DATA_HOME"),
                              m_dir->path() + QStringLiteral("/xdg"));
    m_profile = createProfile();
    QVERIFY(!m_profile.isEmpty());
    // This process holds the metadata database open, as the workbench does: the runs' writes
    // then stay in its write-ahead log (SQLite removes it at the last close), which the file
    // sweeps must read too.
    {
        QSqlDatabase held =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("held"));
        held.setDatabaseName(m_dataDir + QStringLiteral("/profiles.sqlite"));
        QVERIFY(held.open());
        QSqlQuery read(held);
        QVERIFY(read.exec(QStringLiteral("SELECT count(*) FROM browser_profiles")));
        QVERIFY(read.next());
        QCOMPARE(read.value(0).toInt(), 1);
    }
    QVERIFY(m_model.listen());
    m_taskModel =
        std::make_unique<TaskModel>(scripts, [this](const QString &path) { return url(path); });
    // The workbench of this runtime directory: the owner approves every card at once, unless
    // a test holds them.
    QVERIFY(m_workbench.listen(WorkbenchChannel::socketPath(m_runDir)));
    connect(&m_workbench, &ApprovalBroker::asked, this,
            [this](const ApprovalBroker::Question &question) {
                ++m_cards;
                if (m_onCard)
                    m_onCard(question);
                if (m_holdApprovals)
                    return;
                QTimer::singleShot(0, &m_workbench, [this, key = question.key] {
                    m_workbench.answer(key, ApprovalAnswer::Approved);
                });
            });
}

void TestTaskRuns::cleanupTestCase()
{
    QSqlDatabase::database(QStringLiteral("held"), false).close();
    QSqlDatabase::removeDatabase(QStringLiteral("held"));
    if (m_dir)
        QVERIFY(tearDownService());
}

TestTaskRuns::RunResult TestTaskRuns::runTask(const QString &task, const QStringList &extra,
                                              const QHash<QString, QString> &environment)
{
    const auto saved = m_extraEnvironment;
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_MODEL_API_KEY"), QString());
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        m_extraEnvironment.insert(it.key(), it.value());
    QStringList arguments{
        QStringLiteral("run"),         QStringLiteral("--task"), task,
        QStringLiteral("--model-url"), m_model.baseUrl(),        QStringLiteral("--model"),
        QStringLiteral("scripted")};
    if (!extra.contains(QStringLiteral("--resume")))
        arguments << QStringLiteral("--profile") << m_profile;
    const Run ran = run(QStringLiteral("veetbot"), arguments + extra);
    m_extraEnvironment = saved;
    m_allOutput += ran.out + ran.err;
    m_tasks.append(task);
    if (!startedRunId(ran.err).isEmpty())
        m_startedTasks.append(task);
    return RunResult{ran.exitCode, ran.out, ran.err, runSummaryOf(ran.err)};
}

QList<ObservedRequest> TestTaskRuns::observedRequests()
{
    QList<ObservedRequest> out;
    for (const auto &request : m_harness.server().requests())
        out.append(ObservedRequest{request.method, request.path, request.query, request.body});
    return out;
}

const Task *TestTaskRuns::task(const QString &id) const
{
    for (const Task &task : m_manifest.tasks) {
        if (task.id == id)
            return &task;
    }
    return nullptr;
}

void TestTaskRuns::aPlainHttpModelUrlIsRefused()
{
    m_model.reset();
    const Run refused =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("run"), QStringLiteral("--profile"), m_profile,
             QStringLiteral("--task"), QStringLiteral("Say hello."), QStringLiteral("--model-url"),
             QStringLiteral("http://198.51.100.7:8080/v1"), QStringLiteral("--model"),
             QStringLiteral("m")});
    QCOMPARE(refused.exitCode, 3);
    QCOMPARE(runSummaryOf(refused.err).value(QLatin1String("error")).toObject().value("code"),
             QStringLiteral("model.url_refused"));
    QVERIFY(!refused.err.contains("198.51.100.7")); // the message never repeats the URL
    QCOMPARE(m_model.requests(), 0);

    // A run's browser is the profile service's, and so is its engine: --engine is a usage
    // error that says so, before anything starts.
    const Run engine =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("run"), QStringLiteral("--profile"), m_profile,
             QStringLiteral("--task"), QStringLiteral("Say hello."), QStringLiteral("--model-url"),
             QStringLiteral("https://198.51.100.7:8080/v1"), QStringLiteral("--model"),
             QStringLiteral("m"), QStringLiteral("--engine"), QStringLiteral("chromium")});
    QCOMPARE(engine.exitCode, 2);
    QVERIFY2(engine.err.contains("whose engine is the service's"), engine.err.constData());
    QCOMPARE(m_model.requests(), 0);
}

void TestTaskRuns::fixtureTasksEndToEnd()
{
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    QElapsedTimer all;
    all.start();
    int passed = 0;
    for (const QString &id : kTasks) {
        const Task *fixture = task(id);
        QVERIFY2(fixture, qPrintable(id));
        m_harness.server().resetCounters();
        m_model.reset();
        QElapsedTimer clock;
        clock.start();
        // The first run carries a key: the model endpoint must see it (and nothing else may).
        const RunResult result =
            runTask(fixture->summary, {QStringLiteral("--approver"), QStringLiteral("workbench")},
                    passed == 0 ? QHash<QString, QString>{{QStringLiteral("VEETBOT_MODEL_API_KEY"),
                                                           QString::fromLatin1(kKeyCanary)}}
                                : QHash<QString, QString>{});
        // Nothing more may arrive: the positive control closes what the site saw.
        QVERIFY(m_harness.settle());
        const EffectCheck effects = checkEffects(*fixture, observedRequests());
        qInfo("%s: exit %d, %lld ms, %d model calls, effects %d/%d %s", qPrintable(id),
              result.exitCode, clock.elapsed(), m_model.requests(), effects.observed,
              effects.expected, effects.matched ? "matched" : "MISMATCH");
        QVERIFY2(result.exitCode == 0, result.err.constData());
        QCOMPARE(result.out.trimmed(), QByteArray("Done."));
        QCOMPARE(result.summary.value(QLatin1String("status")).toString(),
                 QStringLiteral("completed"));
        // Verified: the predicate the model stated was seen after the last act.
        QVERIFY2(result.summary.value(QLatin1String("outcome")).toString() ==
                         QLatin1String("verified") &&
                     result.summary.value(QLatin1String("evidence")).toString() ==
                         QLatin1String("predicate_seen"),
                 QJsonDocument(result.summary).toJson(QJsonDocument::Compact).constData());
        QVERIFY2(effects.matched, qPrintable(id));
        if (passed == 0)
            QCOMPARE(m_model.authorizations().value(0), QByteArray("Bearer ") + kKeyCanary);
        else
            QVERIFY(m_model.authorizations().value(0).isEmpty());
        ++passed;
    }
    QCOMPARE(passed, kTasks.size());
    qInfo("%lld tasks in %lld ms", qint64(passed), all.elapsed());

    // The last run is on the timeline as a task run, with its calls and why it stopped.
    const Run runs =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("list")});
    QCOMPARE(runs.exitCode, 0);
    const QJsonArray listed =
        QJsonDocument::fromJson(runs.out).object().value(QLatin1String("runs")).toArray();
    QVERIFY(!listed.isEmpty());
    const QJsonObject newest = listed.first().toObject();
    QCOMPARE(newest.value(QLatin1String("kind")).toString(), QStringLiteral("task"));
    QCOMPARE(newest.value(QLatin1String("end_reason")).toString(), QStringLiteral("completed"));
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"),
                                        newest.value(QLatin1String("id")).toString()});
    QCOMPARE(shown.exitCode, 0);
    QVERIFY(shown.out.contains("\"model.call\""));
    QVERIFY(shown.out.contains("\"browser.act\""));
    const QJsonObject record =
        QJsonDocument::fromJson(shown.out).object().value(QLatin1String("task_run")).toObject();
    QCOMPARE(record.value(QLatin1String("status")).toString(), QStringLiteral("completed"));
    QCOMPARE(record.value(QLatin1String("outcome")).toString(), QStringLiteral("verified"));
    QCOMPARE(record.value(QLatin1String("model")).toString(), QStringLiteral("scripted"));

    // The workbench's runs view shows it too: its status, its step of the ceiling and its last
    // verified progress.
    useServiceEnvironmentHere();
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    RunsWindow view(metadata->repository->timeline(), metadata->scope(),
                    &metadata->repository->taskGrants());
    view.setTaskRuns(&metadata->repository->taskRuns());
    view.refresh();
    auto *table = view.findChild<QTableWidget *>(QStringLiteral(), Qt::FindDirectChildrenOnly);
    QVERIFY(table && table->rowCount() >= kTasks.size());
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("completed"));
    QVERIFY2(table->item(0, 6)->text().endsWith(QLatin1String(" of 160")),
             qPrintable(table->item(0, 6)->text()));
    QVERIFY2(table->item(0, 7)->text().startsWith(QLatin1String("verified, ")),
             qPrintable(table->item(0, 7)->text()));
    view.show();
    view.selectRun(0);
    QVERIFY(view.grab().save(testing::binaryPath(QStringLiteral("screenshots/runs-tasks.png"))));
}

void TestTaskRuns::serveErrands()
{
    // A list with a search field, "Show more" (it reads more items) and a "Next" link; the next
    // page's "Pay" and "Place order" each POST once.
    m_harness.page(QStringLiteral("/tasks/errands/list"),
                   "<!doctype html><title>Errands</title><h1>Groceries</h1>"
                   "<input type=search aria-label=\"Search items\"><ul id=items><li>Milk</li>"
                   "</ul><button type=button id=more>Show more</button> <a href=list2>Next</a>"
                   "<script>document.getElementById('more').onclick = () => fetch('more')"
                   ".then((r) => r.text()).then(() => { const li = document.createElement('li');"
                   " li.textContent = 'Bread'; document.getElementById('items').appendChild(li);"
                   " });</script>");
    m_harness.page(QStringLiteral("/tasks/errands/more"), "Bread");
    m_harness.page(QStringLiteral("/tasks/errands/list2"),
                   "<!doctype html><title>Errands</title><h1>Basket</h1>"
                   "<button type=button id=pay>Pay</button> <button type=button id=order>Place "
                   "order</button><p role=status id=status></p><script>"
                   "const done = (what) => () => { document.getElementById('status').textContent"
                   " = what; };"
                   "document.getElementById('pay').onclick = () => fetch('pay', {method: 'POST',"
                   " body: 'basket=1'}).then((r) => r.text()).then(done('Paid'));"
                   "document.getElementById('order').onclick = () => fetch('order', {method: "
                   "'POST', body: 'basket=1'}).then((r) => r.text()).then(done('Order placed'));"
                   "</script>");
    m_harness.page(QStringLiteral("/tasks/errands/pay"), "{}");
    m_harness.page(QStringLiteral("/tasks/errands/order"), "{}");
}

// The run's authority is the owner's turn in `veetbot mcp --profile ID --trust-turns owner`:
// typing into a search field, "Show more" and "Next" run without a card (ordinary interaction
// on the profile service's browser, under its dispatch constraint); "Pay" and "Place order"
// are named consequences: one card each, and each reaches the site once. With
// `--ordinary-interaction off` every act asks, unless a standing grant (`--grant`) covers its
// routine clicks; an unknown standing grant is refused.
void TestTaskRuns::routineActsRunWithoutACardAndEachConsequenceAsksOnce()
{
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    const QString errands =
        QStringLiteral("Find bread, look at more items and the next page, then pay and order.");
    const auto runErrands = [&](const QStringList &extra, int cards) {
        m_harness.server().resetCounters();
        m_model.reset();
        m_cards = 0;
        const RunResult result =
            runTask(errands,
                    QStringList{QStringLiteral("--approver"), QStringLiteral("workbench")} + extra);
        QVERIFY(m_harness.settle());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        QCOMPARE(result.out.trimmed(), QByteArray("Done."));
        QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(),
                 QStringLiteral("verified"));
        QCOMPARE(m_cards, cards);
        QCOMPARE(arrived(QStringLiteral("/tasks/errands/more")), 1);
        QCOMPARE(arrived(QStringLiteral("/tasks/errands/list2")), 1);
        QCOMPARE(posts(QStringLiteral("/tasks/errands/pay")), 1);
        QCOMPARE(posts(QStringLiteral("/tasks/errands/order")), 1);
    };
    runErrands({}, 2);
    if (QTest::currentTestFailed())
        return;
    runErrands({QStringLiteral("--ordinary-interaction"), QStringLiteral("off"),
                QStringLiteral("--task-grants"), QStringLiteral("off")},
               5);
    if (QTest::currentTestFailed())
        return;
    // A standing grant for clicks, made for runs without ordinary interaction, stands in for the
    // cards of "Show more" and "Next"; typing into the search field, "Pay" and "Place order"
    // still ask. A grant needs a sign-in with a recorded outcome: one is recorded first.
    useServiceEnvironmentHere();
    QVERIFY(recordReadySignIn(m_profile));
    const Run created =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("grants"), QStringLiteral("create"), QStringLiteral("--profile"),
             m_profile, QStringLiteral("--origin"), m_harness.origin(QStringLiteral("shop.test")),
             QStringLiteral("--action"), QStringLiteral("click"), QStringLiteral("--expires-in"),
             QStringLiteral("1h"), QStringLiteral("--ordinary-interaction"), QStringLiteral("off"),
             QStringLiteral("--task-grants"), QStringLiteral("off")});
    QVERIFY2(created.exitCode == 0, QByteArray(created.out + created.err).constData());
    const QString grant =
        QJsonDocument::fromJson(created.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!grant.isEmpty());
    runErrands({QStringLiteral("--ordinary-interaction"), QStringLiteral("off"),
                QStringLiteral("--task-grants"), QStringLiteral("off"), QStringLiteral("--grant"),
                grant},
               3);
    if (QTest::currentTestFailed())
        return;
    m_model.reset();
    const RunResult unknown = runTask(
        errands, {QStringLiteral("--grant"), QUuid::createUuid().toString(QUuid::WithoutBraces)});
    QCOMPARE(unknown.exitCode, 3);
    QCOMPARE(unknown.summary.value(QLatin1String("error")).toObject().value("code").toString(),
             QStringLiteral("grant.not_found"));
    QCOMPARE(m_model.requests(), 0);
}

int TestTaskRuns::writes()
{
    int n = 0;
    for (const auto &request : m_harness.server().requests()) {
        if ((request.method != QLatin1String("GET") && request.method != QLatin1String("HEAD")) ||
            request.query.contains(QLatin1String("action=rollback")))
            ++n;
    }
    return n;
}

int TestTaskRuns::writesOf(const WikiWrite &write)
{
    int n = 0;
    for (const auto &request : m_harness.server().requests())
        n += request.method == write.method && request.path == write.path &&
             request.query.contains(write.operation);
    return n;
}

// The run's authority on a wiki-shaped application, whose words are no boundary: under
// ordinary interaction Edit, History, a tab and a GET search read without a card; "Save
// changes" (a form that posts: a submission), "rollback 1 edit" (a token in its target's query:
// a state change) and "Log out" ask before anything is dispatched, and "Thanks" and
// "Speichern", whose scripts post, are stopped by the write guard with nothing sent
// (tool.browser.write_requires_approval) and ask when the model acts on them again. One card
// each, and each approved write reaches the site exactly once, never before its card. Under
// --approver deny nothing that writes reaches the site, and a read after the last refusal does.
void TestTaskRuns::aWikiShapedApplicationThroughARun()
{
    // The model is told of each act the write guard stopped.
    int guarded = 0;
    m_model.setBrain([this, &guarded](const QJsonObject &request) {
        const QJsonObject last =
            request.value(QLatin1String("messages")).toArray().last().toObject();
        if (last.value(QLatin1String("role")).toString() == QLatin1String("tool") &&
            QJsonDocument::fromJson(last.value(QLatin1String("content")).toString().toUtf8())
                    .object()
                    .value(QLatin1String("error"))
                    .toObject()
                    .value(QLatin1String("code"))
                    .toString() == QLatin1String("tool.browser.write_requires_approval"))
            ++guarded;
        return m_taskModel->next(request);
    });
    QElapsedTimer clock;
    clock.start();
    m_harness.server().resetCounters();
    m_model.reset();
    m_cards = 0;
    // At each card: the control it names (quoted, as the card shows it), and how many writes
    // the site had seen by then; and how many cards lead with what the write guard saw when
    // their control was tried (those the guard sent there), each naming a consequence.
    QStringList asked;
    QList<int> writesBeforeCard;
    int fromGuard = 0;
    m_onCard = [&](const ApprovalBroker::Question &question) {
        asked << question.view.value(QLatin1String("accessible_name")).toString();
        writesBeforeCard << writes();
        const QString consequence = question.view.value(QLatin1String("consequence")).toString();
        const QString first =
            question.view.value(QLatin1String("notes")).toArray().first().toString();
        if (first.startsWith(QLatin1String("This control sent a request that looks"))) {
            ++fromGuard;
            QVERIFY(!consequence.isEmpty());
        }
        qInfo("card: %s (%s)", qPrintable(asked.constLast()), qPrintable(consequence));
    };
    const RunResult result =
        runTask(kWikiTask, {QStringLiteral("--approver"), QStringLiteral("workbench")});
    QVERIFY(m_harness.settle());
    m_onCard = nullptr;
    qInfo("approved: exit %d, %lld ms, %d cards, %d stopped by the write guard, %d model calls",
          result.exitCode, clock.elapsed(), m_cards, guarded, m_model.requests());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.out.trimmed(), QByteArray("Done."));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(), QStringLiteral("verified"));
    // The reads arrived, and asked nothing: every card is a control that writes, one each, in
    // the order the run met them.
    const auto queried = [this](const QString &marker) {
        int n = 0;
        for (const auto &request : m_harness.server().requests())
            n += request.method == QLatin1String("GET") && request.path == kWikiPage &&
                 request.query.contains(marker);
        return n;
    };
    QCOMPARE(queried(QStringLiteral("action=edit")), 1);
    QCOMPARE(queried(QStringLiteral("action=history")), 1);
    QCOMPARE(queried(QStringLiteral("search=bread")), 1);
    QStringList writing;
    for (const WikiWrite &write : kWikiWrites)
        writing << QLatin1Char('"') + write.control + QLatin1Char('"');
    QCOMPARE(asked, writing);
    QCOMPARE(m_cards, int(kWikiWrites.size()));
    // The controls whose words name nothing ("Thanks", "Suivre") were stopped by the write guard,
    // with nothing sent, and their cards came, leading with what it saw, when the model acted on
    // them again.
    QVERIFY(fromGuard >= 1);
    QCOMPARE(guarded, fromGuard);
    // Each approved write reached the site exactly once, and none before its card.
    for (const WikiWrite &write : kWikiWrites)
        QVERIFY2(writesOf(write) == 1, qPrintable(write.control));
    QCOMPARE(posts(kWikiPage), 1);
    QCOMPARE(posts(kWikiApi), 4);
    QCOMPARE(writes(), int(kWikiWrites.size()));
    QCOMPARE(writesBeforeCard, (QList<int>{0, 1, 2, 3, 4, 5}));

    // The owner is not there: each control that writes is refused, and nothing that writes
    // reaches the site; History, read after the last refusal, does.
    clock.restart();
    m_harness.server().resetCounters();
    m_model.reset();
    m_cards = 0;
    guarded = 0;
    const RunResult denied =
        runTask(kWikiDeniedTask, {QStringLiteral("--approver"), QStringLiteral("deny")});
    QVERIFY(m_harness.settle());
    qInfo("denied: exit %d, %lld ms, %d stopped by the write guard, %d model calls",
          denied.exitCode, clock.elapsed(), guarded, m_model.requests());
    QVERIFY2(denied.exitCode == 0, denied.err.constData());
    QCOMPARE(denied.out.trimmed(), QByteArray("Done."));
    QCOMPARE(m_cards, 0);
    QCOMPARE(guarded, fromGuard);
    QCOMPARE(writes(), 0);
    QCOMPARE(queried(QStringLiteral("action=history")), 1);
}

// The same task as in fixtureTasksEndToEnd, its model stating no completion predicate: the
// seat is reserved and the page changes, which is no evidence: unverified.
void TestTaskRuns::aRunWithoutAPredicateIsUnverified()
{
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    m_harness.server().resetCounters();
    m_model.reset();
    const RunResult result = runTask(QStringLiteral("Reserve seat 333, just do it."),
                                     {QStringLiteral("--approver"), QStringLiteral("workbench")});
    QVERIFY(m_harness.settle());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.out.trimmed(), QByteArray("Done."));
    QCOMPARE(posts(QStringLiteral("/tasks/dense-controls/reserve")), 1);
    QCOMPARE(result.summary.value(QLatin1String("status")).toString(), QStringLiteral("completed"));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(),
             QStringLiteral("unverified"));
    QCOMPARE(result.summary.value(QLatin1String("evidence")).toString(),
             QStringLiteral("no_predicate"));
}

void TestTaskRuns::aModelThatNeverStopsEndsAtTheCeiling()
{
    m_model.reset();
    // It asks for observations forever (with arguments the tool refuses before any browser
    // work, so the ceiling, not the browser, sets the pace).
    m_model.setBrain([](const QJsonObject &request) {
        if (!ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_observe")))
            return ScriptedModelServer::text(QStringLiteral("Stopped at the limit."));
        return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"),
                                             {{QStringLiteral("again"), true}});
    });
    const RunResult result = runTask(QStringLiteral("Keep looking forever."));
    QCOMPARE(result.exitCode, 4);
    QCOMPARE(result.summary.value(QLatin1String("status")).toString(),
             QStringLiteral("budget_exhausted"));
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(),
             QStringLiteral("run.model_call_limit"));
    const QJsonObject usage = result.summary.value(QLatin1String("usage")).toObject();
    QCOMPARE(usage.value(QLatin1String("model_calls")).toInt(), RunCeilings::kModelCalls);
    QCOMPARE(usage.value(QLatin1String("tool_calls")).toInt(), RunCeilings::kModelCalls - 1);
    QVERIFY(usage.value(QLatin1String("steps")).toInt() <= RunCeilings::kSteps);
    QCOMPARE(m_model.requests(), RunCeilings::kModelCalls);
    // The last call offered no tool, and its answer is the run's.
    QCOMPARE(result.out.trimmed(), QByteArray("Stopped at the limit."));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(), QStringLiteral("none"));
}

void TestTaskRuns::aPriceRunsOutWithTheReserveKept()
{
    m_model.reset();
    // Every working call costs USD 9 (a million prompt tokens at USD 9); the final answer
    // costs USD 0.9 out of the reserve.
    m_model.setBrain([](const QJsonObject &request) {
        ScriptedModelServer::Answer answer;
        if (!ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_observe"))) {
            answer = ScriptedModelServer::text(QStringLiteral("Out of money."));
            answer.promptTokens = 100'000;
        } else {
            answer = ScriptedModelServer::toolCall(QStringLiteral("veetbot_unknown"), {});
            answer.promptTokens = 1'000'000;
        }
        answer.completionTokens = 0;
        return answer;
    });
    const RunResult result = runTask(QStringLiteral("Spend it all."),
                                     {QStringLiteral("--price-in"), QStringLiteral("9"),
                                      QStringLiteral("--price-out"), QStringLiteral("30")});
    QCOMPARE(result.exitCode, 4);
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(),
             QStringLiteral("run.cost_limit"));
    const QJsonObject usage = result.summary.value(QLatin1String("usage")).toObject();
    QCOMPARE(usage.value(QLatin1String("model_calls")).toInt(), 4); // 3 x USD 9, then the answer
    QCOMPARE(usage.value(QLatin1String("cost_usd")).toDouble(), 27.9);
    QVERIFY(usage.value(QLatin1String("cost_usd")).toDouble() <= 30.0);
    QCOMPARE(result.out.trimmed(), QByteArray("Out of money."));
}

// A model that asks for four tools in every reply (each refused before any browser work): every
// tool call is a step, and one step is kept for the final answer, so the run stops at the step
// ceiling with 159 tool calls, within the tool-call ceiling of 160; the calls of the last reply
// past the ceiling are answered with the limit, never made.
void TestTaskRuns::manyToolCallsAtOnceEndAtTheStepCeiling()
{
    m_model.reset();
    m_model.setBrain([](const QJsonObject &request) {
        if (!ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_observe")))
            return ScriptedModelServer::text(QStringLiteral("Stopped at the step limit."));
        ScriptedModelServer::Answer answer = ScriptedModelServer::toolCall(
            QStringLiteral("veetbot_observe"), {{QStringLiteral("again"), true}});
        QJsonArray calls = answer.message.value(QLatin1String("tool_calls")).toArray();
        for (int i = 0; i < 3; ++i)
            calls << ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"),
                                                   {{QStringLiteral("again"), true}})
                         .message.value(QLatin1String("tool_calls"))
                         .toArray()
                         .first();
        answer.message.insert(QStringLiteral("tool_calls"), calls);
        return answer;
    });
    const RunResult result = runTask(QStringLiteral("Look at everything at once."));
    QCOMPARE(result.exitCode, 4);
    QCOMPARE(result.summary.value(QLatin1String("status")).toString(),
             QStringLiteral("budget_exhausted"));
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(),
             QStringLiteral("run.step_limit"));
    const QJsonObject usage = result.summary.value(QLatin1String("usage")).toObject();
    QCOMPARE(usage.value(QLatin1String("steps")).toInt(), RunCeilings::kSteps);
    QCOMPARE(usage.value(QLatin1String("tool_calls")).toInt(), RunCeilings::kSteps - 1);
    QVERIFY(usage.value(QLatin1String("tool_calls")).toInt() <= RunCeilings::kToolCalls);
    // 40 replies of four calls (the last one's fourth answered with the limit), then the answer.
    QCOMPARE(usage.value(QLatin1String("model_calls")).toInt(), 41);
    QCOMPARE(m_model.requests(), 41);
    QCOMPARE(result.out.trimmed(), QByteArray("Stopped at the step limit."));
}

// Without prices the run is held to tokens: every working call reports 450,000 prompt tokens,
// so after four (1.8 million) only the reserve of 200,000 is left, and the final answer, without
// tools, is paid from it; the run never passes 2 million.
void TestTaskRuns::tokensRunOutWithoutPricesWithTheReserveKept()
{
    m_model.reset();
    int finalMaxTokens = -1;
    m_model.setBrain([&finalMaxTokens](const QJsonObject &request) {
        ScriptedModelServer::Answer answer;
        if (!ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_observe"))) {
            finalMaxTokens = request.value(QLatin1String("max_tokens")).toInt(-1);
            answer = ScriptedModelServer::text(QStringLiteral("Out of tokens."));
            answer.promptTokens = 100'000;
        } else {
            answer = ScriptedModelServer::toolCall(QStringLiteral("veetbot_unknown"), {});
            answer.promptTokens = 450'000;
        }
        answer.completionTokens = 0;
        return answer;
    });
    const RunResult result = runTask(QStringLiteral("Spend every token."));
    QCOMPARE(result.exitCode, 4);
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(),
             QStringLiteral("run.token_limit"));
    const QJsonObject usage = result.summary.value(QLatin1String("usage")).toObject();
    QCOMPARE(usage.value(QLatin1String("model_calls")).toInt(), 5);
    QCOMPARE(usage.value(QLatin1String("prompt_tokens")).toInteger(), 1'900'000);
    QVERIFY(usage.value(QLatin1String("prompt_tokens")).toInteger() +
                usage.value(QLatin1String("completion_tokens")).toInteger() <=
            RunCeilings::kTokenCap);
    QCOMPARE(usage.value(QLatin1String("cost_usd")).toDouble(), 0.0);
    // The final answer may use what is left of the cap, no more.
    QVERIFY2(finalMaxTokens > 0 && finalMaxTokens <= 200'000,
             qPrintable(QString::number(finalMaxTokens)));
    QCOMPARE(result.out.trimmed(), QByteArray("Out of tokens."));
}

// "Pay" is a named consequence: its card waits for the owner, who presses Ctrl-C instead. The
// card left waiting is the one that names "Pay" (typing the recipient asks first, since the
// page's path names a payment and nothing on it is ordinary; the owner approves that one), and
// it offers no "approve for this task". Nothing reaches the site; the positive control, the same
// task with its cards approved, pays exactly once.
void TestTaskRuns::ctrlCWhileAnActWaitsSendsNothing()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    m_holdApprovals = true;
    m_cards = 0;
    // The owner approves typing the recipient; only the card that names "Pay" is left waiting.
    QStringList asked;
    bool offered = false;
    m_onCard = [&](const ApprovalBroker::Question &question) {
        const QString name = question.view.value(QLatin1String("accessible_name")).toString();
        if (name != QLatin1String("\"Pay\"")) {
            m_workbench.answer(question.key, ApprovalAnswer::Approved);
            return;
        }
        asked << name;
        offered = offered || question.offer.has_value();
    };
    const auto cleanup = qScopeGuard([this] {
        m_onCard = nullptr;
        m_holdApprovals = false;
    });
    const Task *fixture = task(QStringLiteral("mixed-script-names"));
    QProcess *process =
        start({QStringLiteral("run"), QStringLiteral("--profile"), m_profile,
               QStringLiteral("--task"), fixture->summary, QStringLiteral("--model-url"),
               m_model.baseUrl(), QStringLiteral("--model"), QStringLiteral("scripted")});
    QVERIFY(runEventsUntil([&asked] { return !asked.isEmpty(); }, 30000));
    QCOMPARE(asked, QStringList{QStringLiteral("\"Pay\"")});
    QVERIFY(!offered);
    ::kill(pid_t(process->processId()), SIGINT);
    QVERIFY(runEventsUntil([process] { return process->state() == QProcess::NotRunning; }, 20000));
    m_holdApprovals = false;
    const QByteArray err = process->readAllStandardError();
    m_allOutput += process->readAllStandardOutput() + err;
    QCOMPARE(process->exitCode(), 5);
    const QJsonObject summary = runSummaryOf(err);
    QCOMPARE(summary.value(QLatin1String("status")).toString(), QStringLiteral("cancelled"));
    QCOMPARE(summary.value(QLatin1String("uncertain_acts")).toInt(), 0);

    // The positive control: the same task, its card approved, pays exactly once, and that is
    // the first payment the site saw.
    QCOMPARE(posts(QStringLiteral("/tasks/mixed-script-names/pay")), 0);
    m_model.reset();
    asked.clear();
    const RunResult paid = runTask(fixture->summary);
    QVERIFY2(paid.exitCode == 0, paid.err.constData());
    QVERIFY(m_harness.settle());
    QCOMPARE(asked, QStringList{QStringLiteral("\"Pay\"")});
    QCOMPARE(posts(QStringLiteral("/tasks/mixed-script-names/pay")), 1);
}

// The workbench's "New task" as the owner uses it: the runs view's button, the task and the
// model typed (a refused endpoint first: said, nothing started), Start; the run completes with
// its effects at the site and shows in the runs view. Then the same task with its card left
// waiting, and Stop clicked: the run ends cancelled and nothing reaches the site.
void TestTaskRuns::theWorkbenchStartsAndStopsATask()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    m_cards = 0;
    // The workbench's children get this process's environment.
    useServiceEnvironmentHere();
    qputenv("XDG_DATA_HOME", m_extraEnvironment.value(QStringLiteral("XDG_DATA_HOME")).toUtf8());
    qputenv("VEETBOT_MODEL_API_KEY", QByteArray());
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    QTemporaryDir settingsDir;
    QSettings settings(settingsDir.filePath(QStringLiteral("workbench.ini")), QSettings::IniFormat);
    TaskLauncher launcher;
    QSignalSpy ended(&launcher, &TaskLauncher::finished);
    RunsWindow view(metadata->repository->timeline(), metadata->scope(),
                    &metadata->repository->taskGrants());
    view.setTaskRuns(&metadata->repository->taskRuns());
    const BrowserProfile website = profile(m_profile);
    view.setTaskLauncher(
        &launcher, [website] { return QList<BrowserProfile>{website}; }, &settings);
    view.show();
    QPushButton *newTask = nullptr;
    QPushButton *stop = nullptr;
    for (QPushButton *candidate : view.findChildren<QPushButton *>()) {
        if (candidate->accessibleName() == QLatin1String("New task"))
            newTask = candidate;
        if (candidate->accessibleName() == QLatin1String("Stop the selected run"))
            stop = candidate;
    }
    QVERIFY(newTask && stop && newTask->isVisible());
    const Task *fixture = task(QStringLiteral("mixed-script-names"));
    const auto openDialog = [&view, newTask]() -> NewTaskDialog * {
        QTest::mouseClick(newTask, Qt::LeftButton);
        NewTaskDialog *dialog = nullptr;
        const bool shown = QTest::qWaitFor(
            [&] {
                dialog = view.findChild<NewTaskDialog *>();
                return dialog && dialog->isVisible();
            },
            5000);
        return shown ? dialog : nullptr;
    };
    const auto field = [](QWidget *dialog, const QString &name) -> QWidget * {
        for (QWidget *widget : dialog->findChildren<QWidget *>())
            if (widget->accessibleName() == name)
                return widget;
        return nullptr;
    };
    const auto clickStart = [&field](NewTaskDialog *dialog) {
        QTest::mouseClick(qobject_cast<QPushButton *>(field(dialog, QStringLiteral("Start"))),
                          Qt::LeftButton);
    };

    // Settings first: the model's prices (a malformed one refused, nothing saved).
    {
        ModelSettingsBox box(settings);
        box.show();
        QTest::keyClicks(field(&box, QStringLiteral("Default model name")),
                         QStringLiteral("scripted"));
        QTest::keyClicks(field(&box, QStringLiteral("Price of prompt tokens")),
                         QStringLiteral("2"));
        auto *save =
            qobject_cast<QPushButton *>(field(&box, QStringLiteral("Save model settings")));
        QTest::mouseClick(save, Qt::LeftButton);
        QVERIFY2(box.statusText().contains(QLatin1String("both or neither")),
                 qPrintable(box.statusText()));
        QVERIFY(!ModelSettingsBox::prices(settings, QStringLiteral("scripted")));
        QTest::keyClicks(field(&box, QStringLiteral("Price of completion tokens")),
                         QStringLiteral("8"));
        QTest::mouseClick(save, Qt::LeftButton);
        const auto prices = ModelSettingsBox::prices(settings, QStringLiteral("scripted"));
        QVERIFY(prices && prices->first == 2 && prices->second == 8);
    }

    NewTaskDialog *dialog = openDialog();
    QVERIFY(dialog);
    QTest::keyClicks(field(dialog, QStringLiteral("Task")), fixture->summary);
    // The model name comes from Settings.
    QCOMPARE(qobject_cast<QLineEdit *>(field(dialog, QStringLiteral("Model name")))->text(),
             QStringLiteral("scripted"));
    qobject_cast<QLineEdit *>(field(dialog, QStringLiteral("Model endpoint")))->clear();
    QTest::keyClicks(field(dialog, QStringLiteral("Model endpoint")),
                     QStringLiteral("http://models.example.com/v1"));
    clickStart(dialog);
    QVERIFY2(dialog->problem().contains(QLatin1String("loopback")), qPrintable(dialog->problem()));
    QVERIFY(dialog->isVisible());
    QCOMPARE(launcher.running(), 0);
    auto *endpoint = qobject_cast<QLineEdit *>(field(dialog, QStringLiteral("Model endpoint")));
    endpoint->selectAll();
    QTest::keyClicks(endpoint, m_model.baseUrl());
    QCOMPARE(dialog->problem(), QString()); // the edit cleared it
    QVERIFY(dialog->grab().save(binaryPath(QStringLiteral("screenshots/new-task.png"))));
    // Every control of the dialog and the runs view has an accessible name.
    for (QWidget *root : {static_cast<QWidget *>(dialog), static_cast<QWidget *>(&view)})
        for (QWidget *widget : root->findChildren<QWidget *>())
            if (qobject_cast<QAbstractButton *>(widget) || qobject_cast<QLineEdit *>(widget) ||
                qobject_cast<QPlainTextEdit *>(widget) || qobject_cast<QComboBox *>(widget))
                QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    clickStart(dialog);
    QCOMPARE(launcher.running(), 1);
    QVERIFY(runEventsUntil([&ended] { return ended.size() == 1; }, 60000));
    QCOMPARE(ended.at(0).at(0).toInt(), 0);
    QVERIFY(m_harness.settle());
    QVERIFY(checkEffects(*fixture, observedRequests()).matched);
    view.refresh();
    auto *table = view.findChild<QTableWidget *>(QStringLiteral(), Qt::FindDirectChildrenOnly);
    QVERIFY(table);
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("completed"));
    // It ran under the money cap: its prices came from Settings.
    const Result<QList<ActivityRun>> timeline =
        metadata->repository->timeline().runs(metadata->scope(), 1);
    QVERIFY(timeline.ok() && !timeline->isEmpty());
    const Result<TaskRunRecord> record =
        metadata->repository->taskRuns().taskRun(metadata->scope(), timeline->constFirst().id);
    QVERIFY(record.ok());
    QVERIFY(record->usage.costMicroUsd > 0);
    // The endpoint and model are remembered for the next task.
    QCOMPARE(settings.value(QStringLiteral("model/url")).toString(), m_model.baseUrl());

    // The owner leaves the card waiting and stops the run instead.
    m_harness.server().resetCounters();
    m_model.reset();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    m_holdApprovals = true;
    m_cards = 0;
    QStringList asked;
    m_onCard = [this, &asked](const ApprovalBroker::Question &question) {
        const QString name = question.view.value(QLatin1String("accessible_name")).toString();
        if (name != QLatin1String("\"Pay\"")) {
            m_workbench.answer(question.key, ApprovalAnswer::Approved);
            return;
        }
        asked << name;
    };
    const auto cleanup = qScopeGuard([this] {
        m_onCard = nullptr;
        m_holdApprovals = false;
    });
    dialog = openDialog();
    QVERIFY(dialog);
    QCOMPARE(qobject_cast<QLineEdit *>(field(dialog, QStringLiteral("Model name")))->text(),
             QStringLiteral("scripted"));
    QTest::keyClicks(field(dialog, QStringLiteral("Task")), fixture->summary);
    clickStart(dialog);
    QCOMPARE(launcher.running(), 1);
    // The card that waits is the one that names "Pay".
    QVERIFY(runEventsUntil([&asked] { return !asked.isEmpty(); }, 30000));
    QCOMPARE(asked, QStringList{QStringLiteral("\"Pay\"")});
    view.refresh();
    view.selectRun(0);
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("running"));
    QVERIFY(stop->isEnabled());
    QTest::mouseClick(stop, Qt::LeftButton);
    QVERIFY(runEventsUntil([&ended] { return ended.size() == 2; }, 20000));
    m_holdApprovals = false;
    QCOMPARE(ended.at(1).at(0).toInt(), 5);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/mixed-script-names/pay")), 0);
    view.refresh();
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("cancelled"));
    QVERIFY(!stop->isEnabled());
    // The positive control: started again and its card approved, the task pays exactly once.
    m_model.reset();
    asked.clear();
    dialog = openDialog();
    QVERIFY(dialog);
    QTest::keyClicks(field(dialog, QStringLiteral("Task")), fixture->summary);
    clickStart(dialog);
    QVERIFY(runEventsUntil([&asked] { return !asked.isEmpty(); }, 30000));
    QCOMPARE(asked, QStringList{QStringLiteral("\"Pay\"")});
    // (The owner approves it: approvals are no longer held.)
    QVERIFY(runEventsUntil([&ended] { return ended.size() == 3; }, 60000));
    QCOMPARE(ended.at(2).at(0).toInt(), 0);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/mixed-script-names/pay")), 1);
    qunsetenv("VEETBOT_MODEL_API_KEY");
}

void TestTaskRuns::theTerminalApproves()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    m_cards = 0;
    const Task *fixture = task(QStringLiteral("mixed-script-names"));
    QProcess *process =
        start({QStringLiteral("run"), QStringLiteral("--profile"), m_profile,
               QStringLiteral("--task"), fixture->summary, QStringLiteral("--model-url"),
               m_model.baseUrl(), QStringLiteral("--model"), QStringLiteral("scripted"),
               QStringLiteral("--approver"), QStringLiteral("terminal")});
    // The owner's answers, typed ahead: yes to every card.
    process->write("y\ny\ny\n");
    QVERIFY(runEventsUntil([process] { return process->state() == QProcess::NotRunning; }, 30000));
    const QByteArray err = process->readAllStandardError();
    m_allOutput += process->readAllStandardOutput() + err;
    QVERIFY2(process->exitCode() == 0, err.constData());
    QVERIFY(err.contains("Approve? [y/N"));
    QCOMPARE(m_cards, 0); // the workbench was not asked
    QVERIFY(m_harness.settle());
    QVERIFY(checkEffects(*fixture, observedRequests()).matched);
}

void TestTaskRuns::aCrashAfterDispatchResumesWithoutADuplicate()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    const QString summary = task(QStringLiteral("dense-controls"))->summary;
    // The process kills itself right after its first act reached the site. Every act is
    // approved at its card (ordinary interaction off), so the first one writes.
    const QStringList asked{QStringLiteral("--ordinary-interaction"), QStringLiteral("off")};
    const RunResult crashed = runTask(
        summary, asked, {{QStringLiteral("VEETBOT_TEST_KILL_AFTER_ACT"), QStringLiteral("1")}});
    QCOMPARE(crashed.exitCode, -1); // killed
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/dense-controls/reserve")), 1);
    const QString runId = startedRunId(crashed.err);
    QVERIFY2(!runId.isEmpty(), crashed.err.constData());

    // Another task's words cannot resume it.
    const RunResult other =
        runTask(QStringLiteral("Something else."), {QStringLiteral("--resume"), runId});
    QCOMPARE(other.exitCode, 3);

    const RunResult resumed =
        runTask(summary, asked + QStringList{QStringLiteral("--resume"), runId});
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QCOMPARE(resumed.summary.value(QLatin1String("run")).toString(), runId);
    QCOMPARE(resumed.summary.value(QLatin1String("outcome")).toString(),
             QStringLiteral("outcome_unknown"));
    QCOMPARE(resumed.summary.value(QLatin1String("uncertain_acts")).toInt(), 1);
    // The model was told, was offered no act, and said so.
    QCOMPARE(resumed.out.trimmed(), QByteArray("Failed: actions are suspended"));
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/dense-controls/reserve")), 1);
    // One run on the timeline: the resumed process held it, so it was never ended as
    // interrupted, and it ended as the run did.
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"), runId});
    const QJsonObject timeline = QJsonDocument::fromJson(shown.out).object();
    QCOMPARE(timeline.value(QLatin1String("end_reason")).toString(), QStringLiteral("completed"));
    QCOMPARE(timeline.value(QLatin1String("task_run"))
                 .toObject()
                 .value(QLatin1String("outcome"))
                 .toString(),
             QStringLiteral("outcome_unknown"));
    // Once ended, it is not resumed again.
    const RunResult again = runTask(summary, {QStringLiteral("--resume"), runId});
    QCOMPARE(again.exitCode, 3);
    QCOMPARE(again.summary.value(QLatin1String("error")).toObject().value("code").toString(),
             QStringLiteral("run.not_resumable"));
}

void TestTaskRuns::serveSignInWall()
{
    // A member's pages: the orders for the session's current token, the sign-in form (at the
    // same address) for anyone else.
    const std::shared_ptr<QByteArray> token = m_memberToken;
    const QByteArray signInForm =
        "<!doctype html><title>Sign in</title><form method=post action=/login><label>Email "
        "<input name=u autocomplete=username></label><label>Password <input type=password "
        "name=p></label><button>Sign in</button></form>";
    const auto member = [token](const fixtures::FixtureServer::Request &request) {
        return request.header("Cookie").contains(QByteArray(QByteArray("member=") + *token));
    };
    m_harness.server().setHandler(
        QStringLiteral("/tasks/sign-in-wall/orders"),
        [member, signInForm](const fixtures::FixtureServer::Request &request) {
            fixtures::FixtureServer::Response response;
            response.body = member(request)
                                ? QByteArray("<!doctype html><title>Orders</title><h1>Your "
                                             "orders</h1><form method=post action=reorder>"
                                             "<button>Reorder</button></form>")
                                : signInForm;
            return response;
        });
    // The order is placed, and the session ends with it: the answer is the sign-in form.
    m_harness.server().setHandler(
        QStringLiteral("/tasks/sign-in-wall/reorder"),
        [member, token, signInForm](const fixtures::FixtureServer::Request &request) {
            if (member(request))
                *token = "member-ended";
            fixtures::FixtureServer::Response response;
            response.body = signInForm;
            return response;
        });
}

QProcess *TestTaskRuns::startReorder(const QString &profile)
{
    const auto saved = m_extraEnvironment;
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_MODEL_API_KEY"), QString());
    QProcess *process = start({QStringLiteral("run"), QStringLiteral("--profile"), profile,
                               QStringLiteral("--task"), QStringLiteral("Reorder my last order."),
                               QStringLiteral("--model-url"), m_model.baseUrl(),
                               QStringLiteral("--model"), QStringLiteral("scripted"),
                               QStringLiteral("--approver"), QStringLiteral("workbench")});
    m_extraEnvironment = saved;
    return process;
}

// The session expires: the run meets the sign-in form, waits with its browser released and no
// model call, and goes on by itself once the owner's sign-in of that profile was verified (a
// sign-in of another profile does nothing). An act after which the site asked to sign in
// again is uncertain and never sent again; the second verified sign-in resumes the run once
// more, read-only. The site is the witness: one order. The timeline says it all.
void TestTaskRuns::aSignInWallWaitsForTheOwnerAndResumesOnce()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    const std::shared_ptr<QByteArray> token = m_memberToken;
    *token = "member-t1";
    const auto signIn = [this](const QString &profile, const QByteArray &value) {
        return signInAsMember(profile, value);
    };
    // The owner signed in to the website once, through a verified sign-in.
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    const Run signedUp = signIn(id, "member-t1");
    QVERIFY2(signedUp.exitCode == 0, QByteArray(signedUp.out + signedUp.err).constData());
    *token = "member-t2"; // the session the profile holds has expired

    QProcess *process = startReorder(id);
    QByteArray err;
    const auto waits = [&err, process] {
        err += process->readAllStandardError();
        return err.count("asks to sign in");
    };
    // The wall: the profile needs its owner, the run waits with nothing sent.
    QVERIFY2(runEventsUntil(
                 [&] { return waits() == 1 || process->state() == QProcess::NotRunning; }, 60000),
             err.constData());
    QCOMPARE(waits(), 1);
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
    const QString runId = startedRunId(err);
    QVERIFY(!runId.isEmpty());
    const auto taskRun = [this, &runId] {
        const Run shown =
            run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"), runId});
        return QJsonDocument::fromJson(shown.out).object();
    };
    QCOMPARE(taskRun().value("task_run").toObject().value("status").toString(),
             QStringLiteral("needs_user"));
    QCOMPARE(m_model.requests(), 1);
    // The owner's surfaces: the runs view says the run waits for a sign-in, and one notice asks
    // for it, however often the workbench looks.
    useServiceEnvironmentHere();
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    RunsWindow view(metadata->repository->timeline(), metadata->scope(),
                    &metadata->repository->taskGrants());
    view.setTaskRuns(&metadata->repository->taskRuns());
    view.refresh();
    auto *table = view.findChild<QTableWidget *>(QString(), Qt::FindDirectChildrenOnly);
    QVERIFY(table && table->rowCount() > 0);
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("waiting for sign-in"));
    SignInNotices notices(
        [&metadata] { return metadata->repository->profiles().list(metadata->scope()); });
    notices.refresh();
    notices.refresh();
    QCOMPARE(notices.notices().size(), 1);
    // Another profile's sign-in is not this one's.
    const Run other = signIn(m_profile, "member-t2");
    QVERIFY2(other.exitCode == 0, QByteArray(other.out + other.err).constData());
    runEventsUntil([] { return false; }, 1500);
    QCOMPARE(m_model.requests(), 1);
    QCOMPARE(waits(), 1);
    QCOMPARE(posts(QStringLiteral("/tasks/sign-in-wall/reorder")), 0);

    // The owner signs in: the run goes on by itself, orders once, and the site asks again.
    const Run first = signIn(id, "member-t2");
    QVERIFY2(first.exitCode == 0, QByteArray(first.out + first.err).constData());
    QVERIFY2(runEventsUntil(
                 [&] { return waits() == 2 || process->state() == QProcess::NotRunning; }, 60000),
             err.constData());
    QCOMPARE(waits(), 2);
    QCOMPARE(posts(QStringLiteral("/tasks/sign-in-wall/reorder")), 1);
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
    notices.refresh(); // a new wall after a verified sign-in: a new notice, still one
    QCOMPARE(notices.notices().size(), 1);
    const int modelCalls = m_model.requests();

    // Signed in once more: a fresh look, no act (the order's outcome is unknown), an answer.
    *token = "member-t3"; // the site's next session
    const Run second = signIn(id, "member-t3");
    QVERIFY2(second.exitCode == 0, QByteArray(second.out + second.err).constData());
    QVERIFY(runEventsUntil([process] { return process->state() == QProcess::NotRunning; }, 60000));
    waits();
    const QByteArray out = process->readAllStandardOutput();
    m_allOutput += out + err;
    QVERIFY2(process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0,
             err.constData());
    QCOMPARE(out.trimmed(), QByteArray("Failed: actions are suspended"));
    const QJsonObject summary = runSummaryOf(err);
    QCOMPARE(summary.value("status").toString(), QStringLiteral("completed"));
    QCOMPARE(summary.value("outcome").toString(), QStringLiteral("outcome_unknown"));
    QCOMPARE(summary.value("uncertain_acts").toInt(), 1);
    QCOMPARE(m_model.requests(), modelCalls + 1);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/sign-in-wall/reorder")), 1); // never twice
    QCOMPARE(waits(), 2);

    // The timeline: two walls, two resumptions, one attempt.
    const QJsonObject shown = taskRun();
    QCOMPARE(shown.value("task_run").toObject().value("sign_in_waits").toInt(), 2);
    QStringList kinds;
    for (const QJsonValue &event : shown.value("events").toArray()) {
        const QString kind = event.toObject().value("kind").toString();
        if (kind.startsWith(QLatin1String("sign_in.")))
            kinds << kind;
    }
    QCOMPARE(kinds,
             (QStringList{QStringLiteral("sign_in.required"), QStringLiteral("sign_in.resumed"),
                          QStringLiteral("sign_in.required"), QStringLiteral("sign_in.resumed")}));
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    notices.refresh();
    QVERIFY(notices.notices().isEmpty());
    view.refresh();
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("completed"));
}

// Stop (the workbench sends the run's own SIGINT, as Ctrl-C) while the run waits for a sign-in:
// it ends cancelled at once, nothing reached the site, and the website still needs the owner.
void TestTaskRuns::stoppedWhileWaitingForSignIn()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    *m_memberToken = "member-s1";
    const Run signedUp = signInAsMember(id, "member-s1");
    QVERIFY2(signedUp.exitCode == 0, QByteArray(signedUp.out + signedUp.err).constData());
    *m_memberToken = "member-s2"; // expired
    QProcess *process = startReorder(id);
    QByteArray err;
    QVERIFY(runEventsUntil(
        [&] {
            err += process->readAllStandardError();
            return err.contains("asks to sign in") || process->state() == QProcess::NotRunning;
        },
        60000));
    QVERIFY2(err.contains("asks to sign in"), err.constData());
    QVERIFY(::kill(pid_t(process->processId()), SIGINT) == 0);
    QVERIFY(runEventsUntil([process] { return process->state() == QProcess::NotRunning; }, 30000));
    err += process->readAllStandardError();
    m_allOutput += err + process->readAllStandardOutput();
    QCOMPARE(process->exitStatus(), QProcess::NormalExit);
    QCOMPARE(process->exitCode(), 5);
    const QJsonObject summary = runSummaryOf(err);
    QCOMPARE(summary.value("status").toString(), QStringLiteral("cancelled"));
    QCOMPARE(summary.value("stop_code").toString(), QStringLiteral("run.cancelled"));
    QCOMPARE(m_model.requests(), 1);
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(QStringLiteral("/tasks/sign-in-wall/reorder")), 0);
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
    const Run shown =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("runs"), QStringLiteral("show"), summary.value("run").toString()});
    const QJsonObject record =
        QJsonDocument::fromJson(shown.out).object().value("task_run").toObject();
    QCOMPARE(record.value("status").toString(), QStringLiteral("cancelled"));
    QCOMPARE(record.value("sign_in_waits").toInt(), 1);
    // Its browser went with the wait: the service holds none for it.
    QCOMPARE(liveBrowsers(), 0);
}

void TestTaskRuns::theKeyIsInNoFileAndOnNoOutput()
{
    // Every program's stdout and stderr (each run's, and the service's log).
    QVERIFY(!m_allOutput.isEmpty());
    QVERIFY(!m_allOutput.contains(kKeyCanary));
    QVERIFY(!serviceLog().isEmpty());
    QVERIFY(!serviceLog().contains(kKeyCanary));
    // Every file of the test's directories, the databases' write-ahead logs included.
    const FileSweep files({m_dir->path()});
    QVERIFY2(files.unreadable().isEmpty(), qPrintable(files.unreadable().join(u' ')));
    QVERIFY2(files.holding(kKeyCanary).isEmpty(), qPrintable(files.holding(kKeyCanary).join(u' ')));
    QVERIFY(files.filesRead() > 3);
    QVERIFY(!files.walFiles().isEmpty());
    QVERIFY(!files.shmFiles().isEmpty());
}

void TestTaskRuns::theTaskIsStoredOnlyAsItsDigest()
{
    // runs.md: a run's record keeps the SHA-256 of its task, never the task. No task given to
    // `veetbot run` is in any file; the digest of each that started a run is, and the last
    // one's in the metadata database's write-ahead log, where the sweep must look too.
    QVERIFY(m_startedTasks.size() > 10);
    const FileSweep files({m_dir->path()});
    QVERIFY2(files.unreadable().isEmpty(), qPrintable(files.unreadable().join(u' ')));
    for (const QString &task : std::as_const(m_tasks))
        QVERIFY2(files.holding(task.toUtf8()).isEmpty(),
                 qPrintable(task + u' ' + files.holding(task.toUtf8()).join(u' ')));
    const auto digestOf = [](const QString &task) {
        return QCryptographicHash::hash(task.toUtf8(), QCryptographicHash::Sha256).toHex();
    };
    for (const QString &task : std::as_const(m_startedTasks))
        QVERIFY2(!files.holding(digestOf(task)).isEmpty(), qPrintable(task));
    const QByteArray last = digestOf(m_startedTasks.last());
    const QStringList holding = files.holding(last);
    QVERIFY2(std::any_of(holding.cbegin(), holding.cend(),
                         [](const QString &path) {
                             return path.endsWith(QStringLiteral("/profiles.sqlite-wal"));
                         }),
             qPrintable(holding.join(u' ')));
}

QTEST_MAIN(TestTaskRuns)
#include "tst_task_runs.moc"

ServiceTestCase::Run TestTaskRuns::schedules(const QStringList &arguments)
{
    const auto saved = m_extraEnvironment;
    m_extraEnvironment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                              m_dir->path() + QStringLiteral("/config"));
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_NO_SERVICE_MANAGER"), QStringLiteral("1"));
    m_extraEnvironment.insert(QStringLiteral("VEETBOT_MODEL_API_KEY"), QString());
    const Run ran =
        run(QStringLiteral("veetbot"), QStringList{QStringLiteral("schedules")} + arguments);
    m_extraEnvironment = saved;
    m_allOutput += ran.out + ran.err;
    return ran;
}

QJsonObject TestTaskRuns::scheduleShown(const QString &id)
{
    const Run shown = schedules({QStringLiteral("show"), id});
    return QJsonDocument::fromJson(shown.out).object();
}

namespace {
// The words of an ExecStart= line, as systemd.service(5) reads the quoting the units use.
QStringList execWords(const QString &line)
{
    QStringList words;
    QString word;
    bool quoted = false;
    bool inWord = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted) {
            if (c == u'\\' && i + 1 < line.size())
                word += line.at(++i);
            else if (c == u'"')
                quoted = false;
            else
                word += c;
        } else if (c == u'"') {
            quoted = inWord = true;
        } else if (c == u' ') {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    for (QString &w : words)
        w.replace(QStringLiteral("%%"), QStringLiteral("%"))
            .replace(QStringLiteral("$$"), QStringLiteral("$"));
    return words;
}
} // namespace

// A schedule, end to end (docs/schedules.md): `schedules create` writes a timer and its oneshot
// service that systemd-analyze verifies, and enables the timer; the service's ExecStart, run as
// the timer runs it, carries out the errands with the scripted model under the scheduler's
// authority: routine controls without a card, "Pay" and "Place order" one card each, no task
// grant offered or made, even inside a task scope where the owner's own run is offered one. The
// workbench's
// Schedules section shows it and pauses and resumes it. Paused, it starts nothing; resumed, it
// runs again; deleted, its units are gone and it starts nothing.
void TestTaskRuns::aScheduleOccursAsItsTimerStartsIt()
{
    m_model.reset();
    m_harness.server().resetCounters();
    m_model.setBrain([this](const QJsonObject &request) { return m_taskModel->next(request); });
    const QString errands =
        QStringLiteral("Find bread, look at more items and the next page, then pay and order.");
    int offers = 0;
    m_onCard = [&offers](const ApprovalBroker::Question &question) {
        offers += question.offer.has_value() ? 1 : 0;
    };
    const auto forgetCards = qScopeGuard([this] { m_onCard = nullptr; });

    const Run created =
        schedules({QStringLiteral("create"), QStringLiteral("--profile"), m_profile,
                   QStringLiteral("--task"), errands, QStringLiteral("--calendar"),
                   QStringLiteral("mon..fri 8:00"), QStringLiteral("--model-url"),
                   m_model.baseUrl(), QStringLiteral("--model"), QStringLiteral("scripted")});
    QVERIFY2(created.exitCode == 0, QByteArray(created.out + created.err).constData());
    const QJsonObject schedule = QJsonDocument::fromJson(created.out).object();
    const QString id = schedule.value(QLatin1String("id")).toString();
    QCOMPARE(schedule.value(QLatin1String("calendar")).toString(),
             QStringLiteral("Mon..Fri *-*-* 08:00:00"));
    QCOMPARE(schedule.value(QLatin1String("state")).toString(), QStringLiteral("active"));
    QVERIFY(!schedule.value(QLatin1String("next")).toString().isEmpty());
    QCOMPARE(m_model.requests(), 0); // creating runs nothing

    // The units, as systemd reads them.
    const QString unit = unitDirectory() + QStringLiteral("/veetbot-schedule-") + id;
    QVERIFY(QFileInfo::exists(unit + QStringLiteral(".timer")));
    QCOMPARE(QFile::permissions(unit + QStringLiteral(".service")),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                 QFileDevice::WriteUser);
    const QString wants = unitDirectory() +
                          QStringLiteral("/timers.target.wants/veetbot-schedule-") + id +
                          QStringLiteral(".timer");
    QCOMPARE(QFileInfo(wants).symLinkTarget(),
             QFileInfo(unit + QStringLiteral(".timer")).absoluteFilePath());
    QProcess verify;
    verify.setProcessChannelMode(QProcess::MergedChannels);
    verify.start(QStringLiteral("systemd-analyze"),
                 {QStringLiteral("verify"), QStringLiteral("--man=no"),
                  unit + QStringLiteral(".timer"), unit + QStringLiteral(".service")});
    QVERIFY(verify.waitForFinished(30000));
    const QByteArray verified = verify.readAll();
    QVERIFY2(verify.exitCode() == 0 && verified.trimmed().isEmpty(), verified.constData());
    QFile timer(unit + QStringLiteral(".timer"));
    QVERIFY(timer.open(QIODevice::ReadOnly));
    const QByteArray timerText = timer.readAll();
    QVERIFY(timerText.contains("\nOnCalendar=Mon..Fri *-*-* 08:00:00\n"));
    QVERIFY(timerText.contains("\nPersistent=true\n"));
    QFile service(unit + QStringLiteral(".service"));
    QVERIFY(service.open(QIODevice::ReadOnly));
    QString execStart;
    for (const QByteArray &line : service.readAll().split('\n')) {
        if (line.startsWith("ExecStart="))
            execStart = QString::fromUtf8(line.mid(10));
    }
    const QStringList words = execWords(execStart);
    QCOMPARE(words.mid(1), (QStringList{QStringLiteral("schedules"), QStringLiteral("occur"), id}));
    QCOMPARE(QFileInfo(words.first()).canonicalFilePath(),
             QFileInfo(binaryPath(QStringLiteral("bin/veetbot"))).canonicalFilePath());

    // One occurrence, started as the timer starts it.
    const auto occur = [&]() {
        const auto saved = m_extraEnvironment;
        m_extraEnvironment.insert(QStringLiteral("VEETBOT_MODEL_API_KEY"), QString());
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(words.first(), words.mid(1));
        Run ran;
        if (runEventsUntil([&process] { return process.state() == QProcess::NotRunning; }, 90000)) {
            ran.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
            ran.out = process.readAllStandardOutput();
            ran.err = process.readAllStandardError();
        }
        m_extraEnvironment = saved;
        m_allOutput += ran.out + ran.err;
        return ran;
    };
    m_cards = 0;
    const Run occurred = occur();
    QVERIFY(m_harness.settle());
    QVERIFY2(occurred.exitCode == 0, occurred.err.constData());
    QCOMPARE(occurred.out.trimmed(), QByteArray("Done."));
    QCOMPARE(m_cards, 2);
    QCOMPARE(offers, 0);
    QCOMPARE(posts(QStringLiteral("/tasks/errands/pay")), 1);
    QCOMPARE(posts(QStringLiteral("/tasks/errands/order")), 1);
    QJsonObject last = scheduleShown(id).value(QLatin1String("last")).toObject();
    QCOMPARE(last.value(QLatin1String("status")).toString(), QStringLiteral("completed"));
    QCOMPARE(last.value(QLatin1String("run")).toString(), startedRunId(occurred.err));
    {
        useServiceEnvironmentHere();
        Result<MetadataStore> metadata = openMetadataStore(QString());
        QVERIFY(metadata.ok());
        const auto grants = metadata->repository->taskGrants().taskGrants(metadata->scope());
        QVERIFY(grants.ok());
        QVERIFY(grants->isEmpty());
    }
    // Never a task grant, where the owner's own turn is offered one: inside a task scope, the
    // wiki's "Thanks" (the write guard stops its POST, then its card asks) offers one to the
    // owner's run (the positive control) and none to a schedule's occurrence.
    {
        const QString scope =
            m_harness.origin(QStringLiteral("shop.test")) + QStringLiteral("/tasks");
        const Run scoped = run(QStringLiteral("veetbot"),
                               {QStringLiteral("scopes"), QStringLiteral("add"), scope});
        QVERIFY2(scoped.exitCode == 0, QByteArray(scoped.out + scoped.err).constData());
        const auto removeScope = qScopeGuard([this, scope] {
            (void)run(QStringLiteral("veetbot"),
                      {QStringLiteral("scopes"), QStringLiteral("remove"), scope});
        });
        m_model.reset();
        offers = 0;
        const RunResult owners =
            runTask(kWikiThanksTask, {QStringLiteral("--approver"), QStringLiteral("workbench")});
        QVERIFY2(owners.exitCode == 0, owners.err.constData());
        QVERIFY(offers > 0);
        const Run thanks =
            schedules({QStringLiteral("create"), QStringLiteral("--profile"), m_profile,
                       QStringLiteral("--task"), kWikiThanksTask, QStringLiteral("--calendar"),
                       QStringLiteral("daily"), QStringLiteral("--model-url"), m_model.baseUrl(),
                       QStringLiteral("--model"), QStringLiteral("scripted")});
        QVERIFY2(thanks.exitCode == 0, QByteArray(thanks.out + thanks.err).constData());
        const QString thanksId =
            QJsonDocument::fromJson(thanks.out).object().value(QLatin1String("id")).toString();
        m_harness.server().resetCounters();
        m_model.reset();
        offers = 0;
        m_cards = 0;
        const Run thanked = schedules({QStringLiteral("occur"), thanksId});
        QVERIFY(m_harness.settle());
        QVERIFY2(thanked.exitCode == 0, thanked.err.constData());
        QVERIFY(m_cards > 0);
        QCOMPARE(offers, 0);
        QCOMPARE(posts(kWikiApi), 1);
        QCOMPARE(schedules({QStringLiteral("delete"), thanksId}).exitCode, 0);
    }

    // Paused: its timer is disabled, and an occurrence started anyway starts nothing.
    const Run paused = schedules({QStringLiteral("pause"), id});
    QVERIFY2(paused.exitCode == 0, paused.err.constData());
    QVERIFY(!QFileInfo::exists(wants) && !QFileInfo(wants).isSymLink());
    QVERIFY(QFileInfo::exists(unit + QStringLiteral(".timer")));
    m_harness.server().resetCounters();
    m_model.reset();
    const Run whilePaused = occur();
    QCOMPARE(whilePaused.exitCode, 0);
    QVERIFY(whilePaused.err.contains("paused; nothing started"));
    QCOMPARE(m_model.requests(), 0);
    QCOMPARE(scheduleShown(id).value(QLatin1String("state")).toString(), QStringLiteral("paused"));
    // Resumed: it runs again (the positive control of the pause), this time with no workbench
    // to ask: its two cards are refused, nothing is paid or ordered, and the occurrence that
    // still ends completed says so, in its record and in one notification.
    const Run resumed = schedules({QStringLiteral("resume"), id});
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QVERIFY(QFileInfo(wants).isSymLink());
    NotificationServer notifications;
    QString error;
    QVERIFY2(notifications.start(&error), qPrintable(error));
    const auto notifying = notifyingTo(notifications);
    const QString workbench = WorkbenchChannel::socketPath(m_runDir);
    QVERIFY(QFile::rename(workbench, workbench + QStringLiteral(".away")));
    m_cards = 0;
    const Run again = occur();
    QVERIFY(QFile::rename(workbench + QStringLiteral(".away"), workbench));
    QVERIFY(m_harness.settle());
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QVERIFY2(again.err.contains("no workbench is running"), again.err.constData());
    QVERIFY(m_model.requests() > 0);
    QCOMPARE(m_cards, 0);
    QCOMPARE(posts(QStringLiteral("/tasks/errands/pay")), 0);
    QCOMPARE(posts(QStringLiteral("/tasks/errands/order")), 0);
    last = scheduleShown(id).value(QLatin1String("last")).toObject();
    QCOMPARE(last.value(QLatin1String("status")).toString(), QStringLiteral("completed"));
    QCOMPARE(last.value(QLatin1String("code")).toString(),
             QStringLiteral("schedule.cards_unanswered"));
    QVERIFY(runEventsUntil([&notifications] { return notifications.displayed() == 1; }, 10000));
    const QByteArray noticed = notifications.keptText();
    QVERIFY2(noticed.contains("shop.test") && noticed.contains("no workbench was open"),
             noticed.constData());
    QVERIFY(!noticed.contains("pay and order"));
    // The positive control of the refusal: with the workbench back, the same occurrence's cards
    // are asked and the order arrives once.
    m_harness.server().resetCounters();
    m_model.reset();
    const Run answered = occur();
    QVERIFY(m_harness.settle());
    QVERIFY2(answered.exitCode == 0, answered.err.constData());
    QCOMPARE(m_cards, 2);
    QCOMPARE(posts(QStringLiteral("/tasks/errands/order")), 1);
    QCOMPARE(notifications.kept(), 1); // a completed occurrence whose cards were answered: none

    // The workbench's Schedules section shows it, and pauses and resumes it as the command does.
    {
        useServiceEnvironmentHere();
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir->path() + QStringLiteral("/config")));
        qputenv("VEETBOT_NO_SERVICE_MANAGER", "1");
        const auto unset = qScopeGuard([] {
            qunsetenv("XDG_CONFIG_HOME");
            qunsetenv("VEETBOT_NO_SERVICE_MANAGER");
        });
        Result<MetadataStore> metadata = openMetadataStore(QString());
        QVERIFY(metadata.ok());
        SchedulesView view(*metadata->repository, metadata->scope(), words.first());
        view.resize(900, 320);
        view.show();
        view.refresh();
        auto *table = view.findChild<QTableWidget *>();
        QVERIFY(table && table->rowCount() == 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("shop.test"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("Mon..Fri *-*-* 08:00:00"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("active"));
        QVERIFY(!table->item(0, 3)->text().isEmpty());
        QVERIFY2(table->item(0, 4)->text().endsWith(QLatin1String(", completed")),
                 qPrintable(table->item(0, 4)->text()));
        const auto button = [&view](const char *name) {
            for (auto *candidate : view.findChildren<QPushButton *>())
                if (candidate->accessibleName() == QLatin1String(name))
                    return candidate;
            return static_cast<QPushButton *>(nullptr);
        };
        QPushButton *pause = button("Pause the selected schedule");
        QPushButton *resume = button("Resume the selected schedule");
        QVERIFY(pause && resume);
        QVERIFY(!pause->isEnabled()); // nothing selected yet
        view.selectSchedule(0);
        QVERIFY(pause->isEnabled() && !resume->isEnabled());
        QTest::mouseClick(pause, Qt::LeftButton);
        QCOMPARE(scheduleShown(id).value(QLatin1String("state")).toString(),
                 QStringLiteral("paused"));
        QVERIFY(!QFileInfo(wants).isSymLink());
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("paused"));
        QVERIFY(resume->isEnabled());
        QTest::mouseClick(resume, Qt::LeftButton);
        QCOMPARE(scheduleShown(id).value(QLatin1String("state")).toString(),
                 QStringLiteral("active"));
        QVERIFY(QFileInfo(wants).isSymLink());
        QVERIFY(view.grab().save(testing::binaryPath(QStringLiteral("screenshots/schedules.png"))));
    }

    // Deleted: the units go, and an occurrence starts nothing.
    const Run deleted = schedules({QStringLiteral("delete"), id});
    QVERIFY2(deleted.exitCode == 0, deleted.err.constData());
    QVERIFY(!QFileInfo::exists(unit + QStringLiteral(".timer")));
    QVERIFY(!QFileInfo::exists(unit + QStringLiteral(".service")));
    QVERIFY(!QFileInfo(wants).isSymLink());
    m_harness.server().resetCounters();
    m_model.reset();
    const Run afterDelete = occur();
    QCOMPARE(afterDelete.exitCode, 0);
    QVERIFY(afterDelete.err.contains("no such schedule; nothing started"));
    QCOMPARE(m_model.requests(), 0);
    // The positive control arrives, and nothing else did.
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().total(), 1);
    const Run listed = schedules({QStringLiteral("list")});
    QCOMPARE(QJsonDocument::fromJson(listed.out)
                 .object()
                 .value(QLatin1String("schedules"))
                 .toArray()
                 .size(),
             0);
}

// A schedule whose website needs the owner to sign in again: the occurrence starts no model
// work and nothing at the site, ends needs_user (its own exit code), records that outcome on the
// schedule and shows exactly one desktop notification, in the workbench's words and the
// website's host, never the task. An invalid calendar is refused with its code and makes nothing.
void TestTaskRuns::aScheduleWhoseWebsiteNeedsYouNotifiesOnce()
{
    m_model.reset();
    m_harness.server().resetCounters();
    const qsizetype timersBefore =
        QDir(unitDirectory()).entryList({QStringLiteral("*.timer")}).size();
    const Run invalid = schedules({QStringLiteral("create"), QStringLiteral("--profile"), m_profile,
                                   QStringLiteral("--task"), QStringLiteral("Check my orders."),
                                   QStringLiteral("--calendar"), QStringLiteral("*:0/15"),
                                   QStringLiteral("--model-url"), m_model.baseUrl(),
                                   QStringLiteral("--model"), QStringLiteral("scripted")});
    QCOMPARE(invalid.exitCode, 3);
    QVERIFY(invalid.out.contains("schedule.invalid_calendar") ||
            invalid.err.contains("schedule.invalid_calendar"));
    QCOMPARE(QDir(unitDirectory()).entryList({QStringLiteral("*.timer")}).size(), timersBefore);

    const QString id = createProfile(true);
    QVERIFY(!id.isEmpty());
    const QString task =
        QStringLiteral("Check my orders SCHEDULE-TASK-CANARY and tell me what shipped.");
    const Run created = schedules(
        {QStringLiteral("create"), QStringLiteral("--profile"), id, QStringLiteral("--task"), task,
         QStringLiteral("--calendar"), QStringLiteral("daily"), QStringLiteral("--model-url"),
         m_model.baseUrl(), QStringLiteral("--model"), QStringLiteral("scripted")});
    QVERIFY2(created.exitCode == 0, QByteArray(created.out + created.err).constData());
    const QString schedule =
        QJsonDocument::fromJson(created.out).object().value(QLatin1String("id")).toString();
    // The website asks for its owner now.
    {
        useServiceEnvironmentHere();
        Result<MetadataStore> metadata = openMetadataStore(QString());
        QVERIFY(metadata.ok());
        const BrowserProfile current = profile(id);
        QVERIFY(metadata->repository->profiles()
                    .transition(metadata->scope(), current.id, current.generation,
                                ProfileStatus::NeedsUser)
                    .ok());
    }
    NotificationServer notifications;
    QString error;
    QVERIFY2(notifications.start(&error), qPrintable(error));
    const auto notifying = notifyingTo(notifications);
    const Run occurred = schedules({QStringLiteral("occur"), schedule});
    QCOMPARE(occurred.exitCode, 6);
    QVERIFY2(occurred.err.contains("schedule.profile_not_ready"), occurred.err.constData());
    QCOMPARE(m_model.requests(), 0);
    const QJsonObject last = scheduleShown(schedule).value(QLatin1String("last")).toObject();
    QCOMPARE(last.value(QLatin1String("status")).toString(), QStringLiteral("needs_user"));
    QCOMPARE(last.value(QLatin1String("code")).toString(),
             QStringLiteral("schedule.profile_not_ready"));
    QVERIFY(!last.contains(QLatin1String("run")));
    QVERIFY(runEventsUntil([&notifications] { return notifications.displayed() == 1; }, 10000));
    const QByteArray kept = notifications.keptText();
    QVERIFY2(kept.contains("shop.test") && kept.contains("sign in again"), kept.constData());
    QVERIFY(!kept.contains("SCHEDULE-TASK-CANARY"));
    // No model call, so no tool call: the positive control arrives, and nothing else did.
    QVERIFY(m_harness.settle());
    QCOMPARE(m_harness.server().total(), 1);
    // Revoked in Website Access: the website is gone, and the occurrence says so (exit 3), not
    // that a sign-in would help.
    const Run revoked =
        run(QStringLiteral("veetbot"), {QStringLiteral("profiles"), QStringLiteral("revoke"), id});
    QVERIFY2(revoked.exitCode == 0, QByteArray(revoked.out + revoked.err).constData());
    const Run gone = schedules({QStringLiteral("occur"), schedule});
    QCOMPARE(gone.exitCode, 3);
    QVERIFY2(gone.err.contains("schedule.profile_gone"), gone.err.constData());
    const QJsonObject goneLast = scheduleShown(schedule).value(QLatin1String("last")).toObject();
    QCOMPARE(goneLast.value(QLatin1String("status")).toString(), QStringLiteral("refused"));
    QCOMPARE(goneLast.value(QLatin1String("code")).toString(),
             QStringLiteral("schedule.profile_gone"));
    // The first one went to the history when its text was read: this one is shown alone.
    QVERIFY(runEventsUntil([&notifications] { return notifications.displayed() == 1; }, 10000));
    QVERIFY2(notifications.keptText().contains("revoked or deleted"),
             notifications.keptText().constData());
    QCOMPARE(m_model.requests(), 0);
    QCOMPARE(schedules({QStringLiteral("delete"), schedule}).exitCode, 0);
    // One notification per occurrence, once everything settled: shown or in the server's
    // history, once each.
    QCOMPARE(notifications.kept(), 2);
}
