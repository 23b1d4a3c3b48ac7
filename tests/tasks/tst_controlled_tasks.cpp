// Controlled tasks (docs/tasks.md): a scripted driver with no model runs every task of
// tests/tasks/manifest.json through the tool pipeline over WebEngineProvider (real Chromium,
// offscreen, traffic through the egress proxy), reading only the model projection at each of
// the manifest's budgets, the manifest's number of times. The fixture server checks the exact
// number and payload of every effect of every run. The content-free report is written on
// every run, passed or not, and the test fails unless it is verified.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "TaskDriver.h"
#include "TaskManifest.h"
#include "TaskReport.h"
#include "TaskSite.h"
#include "TestPaths.h"
#include "WebEngineProvider.h"
#include "ledger/EffectLedger.h"
#include "tools/Approvers.h"
#include "tools/ToolPipeline.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>
#include <QWebEnginePage>
#include <QWebEngineScript>

#include <algorithm>
#include <memory>
#include <optional>

using namespace veetbot;
using namespace veetbot::tasks;
using namespace veetbot::testing;

namespace {

const QString kHost = QStringLiteral("shop.test");

QString reportPath()
{
    const QString configured = qEnvironmentVariable("VEETBOT_TASK_REPORT");
    return configured.isEmpty()
               ? testing::binaryPath(QStringLiteral("controlled-tasks-report.json"))
               : configured;
}

// Writes the report when it goes out of scope, so a run that stops early still leaves one.
class ReportWriter
{
public:
    ReportWriter(QString path, const TaskManifest &manifest, const QList<TaskRun> &runs)
        : m_path(std::move(path)), m_manifest(manifest), m_runs(runs)
    {
        m_clock.start();
    }
    ~ReportWriter()
    {
        QSaveFile file(m_path);
        const QByteArray bytes =
            QJsonDocument(TaskReport::toJson(m_manifest, m_runs, m_clock.elapsed()))
                .toJson(QJsonDocument::Indented);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
            qWarning("controlled tasks: the report could not be written");
    }

private:
    const QString m_path;
    const TaskManifest &m_manifest;
    const QList<TaskRun> &m_runs;
    QElapsedTimer m_clock;
};

} // namespace

class TestControlledTasks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void manifestPassesAtEveryBudget();
    void reportIsContentFree();

private:
    void servePages();
    void freshBrowser();
    bool runSiteChange(const QString &function);
    QList<ObservedRequest> observedRequests();
    TaskRun runOnce(const Task &task, int budget, int repetition);

    BrowserTestHarness m_harness;
    TaskManifest m_manifest;
    QTemporaryDir m_dir;
    std::unique_ptr<EffectLedger> m_ledger;
    std::unique_ptr<WebEngineProvider> m_provider;
};

void TestControlledTasks::initTestCase()
{
    QFile file(testing::sourcePath(QStringLiteral("tests/tasks/manifest.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    Result<TaskManifest> manifest = TaskManifest::fromJson(file.readAll());
    QVERIFY2(manifest.ok(), manifest.ok() ? "" : qPrintable(manifest.error().message));
    m_manifest = *manifest;
    // The default run takes each task once at every budget; the full set (label `full`,
    // VEETBOT_TEST_FULL=1) takes the manifest's repetitions.
    if (!qEnvironmentVariableIsSet("VEETBOT_TEST_FULL"))
        m_manifest.repetitions = 1;

    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    servePages();
    auto ledger = EffectLedger::open(m_dir.filePath(QStringLiteral("effects.sqlite")));
    QVERIFY(ledger.ok());
    m_ledger = std::move(ledger.value());
    freshBrowser();
}

void TestControlledTasks::cleanupTestCase()
{
    m_provider.reset();
}

// Every tests/tasks/pages/<id>/<name>.html is served at /tasks/<id>/<name> for any method
// (form posts land on pages too); endpoints and effect paths are fixed answers below the same
// prefix.
void TestControlledTasks::servePages()
{
    for (const Task &task : m_manifest.tasks) {
        QVERIFY2(serveTaskSite(m_harness.server(), task), qPrintable(task.id));
    }
}

void TestControlledTasks::freshBrowser()
{
    m_provider.reset();
    m_provider =
        std::make_unique<WebEngineProvider>(m_harness.policy({kHost}), m_harness.overrides());
}

// The site runs one of its own page functions (in the page's world), as if the site changed
// the page on its own while the owner decided.
bool TestControlledTasks::runSiteChange(const QString &function)
{
    auto ran = std::make_shared<std::optional<bool>>();
    m_provider->view()->page()->runJavaScript(
        QStringLiteral("typeof window.%1 === 'function' ? (window.%1(), true) : false")
            .arg(function),
        QWebEngineScript::MainWorld, [ran](const QVariant &value) { *ran = value.toBool(); });
    return runEventsUntil([ran] { return ran->has_value(); }, 5000) && ran->value_or(false);
}

QList<ObservedRequest> TestControlledTasks::observedRequests()
{
    QList<ObservedRequest> out;
    for (const auto &request : m_harness.server().requests())
        out.append(ObservedRequest{request.method, request.path, request.query, request.body});
    return out;
}

// One run of one task at one budget in the current browser, its effects checked.
TaskRun TestControlledTasks::runOnce(const Task &task, int budget, int repetition)
{
    m_harness.server().resetCounters();
    // A task may shorten the actionability bound; every other bound keeps its default.
    const int actTrialMs =
        task.actTrialMs > 0 ? task.actTrialMs : WebEngineProvider::Timeouts{}.actTrialMs;
    m_provider->setTimeouts({.actTrialMs = actTrialMs});
    ScriptedApprover owner;
    ToolPipeline::Options options;
    options.context.turn = TurnSource::Owner;
    ToolPipeline pipeline(m_provider.get(), owner, m_ledger.get(), options);
    TaskDriver::Environment environment;
    environment.pipeline = &pipeline;
    environment.approver = &owner;
    environment.url = [this](const QString &path) { return m_harness.url(kHost, path); };
    environment.siteChange = [this](const QString &function) { return runSiteChange(function); };
    TaskRun run = TaskDriver(environment, budget).run(task, repetition);
    // Nothing more may arrive: let a late request reach the server.
    QElapsedTimer drain;
    drain.start();
    runEventsUntil([&drain] { return drain.elapsed() >= 100; }, 1000);
    run.effects = checkEffects(task, observedRequests());
    if (run.passed && !run.effects.matched) {
        run.passed = false;
        run.failure = TaskRun::Failure::EffectMismatch;
    }
    return run;
}

void TestControlledTasks::manifestPassesAtEveryBudget()
{
    // Debugging one task: VEETBOT_TASKS_ONLY=id[,id...] runs only those, and the report is
    // then (rightly) unverified.
    const QStringList only =
        qEnvironmentVariable("VEETBOT_TASKS_ONLY").split(QLatin1Char(','), Qt::SkipEmptyParts);
    QList<TaskRun> runs;
    {
        ReportWriter report(reportPath(), m_manifest, runs);
        QElapsedTimer total;
        total.start();
        for (int repetition = 1; repetition <= m_manifest.repetitions; ++repetition) {
            for (int budget : m_manifest.budgets) {
                for (const Task &task : m_manifest.tasks) {
                    if (!only.isEmpty() && !only.contains(task.id))
                        continue;
                    const TaskRun run = runOnce(task, budget, repetition);
                    runs.append(run);
                    qInfo("task %s at %d bytes, repetition %d: %s in %lld ms (%d navigate, %d "
                          "observe, %d act)",
                          qPrintable(task.id), budget, repetition, run.passed ? "passed" : "failed",
                          run.durationMs, run.navigateCalls, run.observeCalls, run.actCalls);
                    if (run.passed)
                        continue;
                    qWarning("task %s at %d bytes, repetition %d: %s at step %d %s (effects %d "
                             "of %d)",
                             qPrintable(task.id), budget, repetition,
                             qPrintable(failureName(run.failure)), run.failedStep,
                             qPrintable(run.code), run.effects.observed, run.effects.expected);
                    // A failed run may leave a page that holds on (a prompt, a pending call):
                    // the next task starts in a new browser.
                    freshBrowser();
                }
            }
        }
        qInfo("controlled tasks: %d runs in %lld ms", int(runs.size()), total.elapsed());
    }
    QVERIFY2(TaskReport::verified(m_manifest, runs), "the controlled task report is unverified");
}

// The report on disk holds counts, durations, ids and closed words only: none of the text the
// tasks typed, chose or sent, and no URL. This function writes a report of its own, the way
// every manifest run writes one, from real runs of each task that types or chooses text (at
// the smallest budget, once), and reads it back.
void TestControlledTasks::reportIsContentFree()
{
    QList<Task> carryingText;
    for (const Task &task : std::as_const(m_manifest.tasks)) {
        for (const TaskStep &step : task.steps) {
            if ((step.verb == TaskStep::Verb::Type || step.verb == TaskStep::Verb::Select) &&
                !step.text.isEmpty()) {
                carryingText.append(task);
                break;
            }
        }
    }
    QVERIFY(carryingText.size() >= 3);
    const int budget = *std::min_element(m_manifest.budgets.begin(), m_manifest.budgets.end());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("report.json"));
    QList<TaskRun> runs;
    {
        ReportWriter report(path, m_manifest, runs);
        for (const Task &task : std::as_const(carryingText)) {
            runs.append(runOnce(task, budget, 1));
            if (!runs.last().passed)
                freshBrowser();
        }
    }
    // The text really went through: every run passed, so the fixture server received each
    // effect with its exact payload.
    for (const TaskRun &run : std::as_const(runs))
        QVERIFY2(run.passed && run.effects.matched, qPrintable(run.taskId));

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray report = file.readAll();
    const QJsonObject json = QJsonDocument::fromJson(report).object();
    QCOMPARE(json.value(QStringLiteral("version")).toInt(), TaskReport::kVersion);
    QCOMPARE(json.value(QStringLiteral("model_calls")).toInt(-1), 0);
    QCOMPARE(json.value(QStringLiteral("runs")).toArray().size(), carryingText.size());
    QStringList canaries{QStringLiteral("https:"), QStringLiteral("shop.test"),
                         QStringLiteral("/tasks/")};
    for (const Task &task : std::as_const(carryingText)) {
        for (const TaskStep &step : task.steps)
            canaries << step.control.name << step.text;
        for (const ExpectedEffect &effect : task.effects) {
            for (const QByteArray &payload : effect.payloads)
                canaries << QString::fromUtf8(payload);
        }
    }
    int checked = 0;
    for (const QString &canary : std::as_const(canaries)) {
        // Short words ("Pay", "Next") also occur in key names; long ones never should.
        if (canary.size() < 6)
            continue;
        QVERIFY2(!report.contains(canary.toUtf8()), qPrintable(canary));
        ++checked;
    }
    QVERIFY(checked >= 10);
}

int main(int argc, char **argv)
{
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestControlledTasks test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_controlled_tasks.moc"
