// The controlled task manifest, the effect check and the report, without a browser: the
// shipped manifest parses and covers what it must; the parser is strict; an effect is matched
// only by its exact count and payloads; a missing task, budget or repetition, a failed run or
// a mismatched effect makes the report unverified; the report is content-free.

#include "TaskManifest.h"
#include "TaskReport.h"
#include "TestPaths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

using namespace veetbot;
using namespace veetbot::tasks;

namespace {

const char kSmallManifest[] = R"({
  "version": 1, "budgets": [1024, 4096], "repetitions": 2,
  "tasks": [
    {"id": "a", "covers": "x", "summary": "x",
     "steps": [{"navigate": "p"}, {"click": {"role": "button", "name": "Go"}}],
     "effects": [{"method": "POST", "path": "go", "payloads": ["n=1"]},
                 {"method": "GET", "path": "next", "payloads": ["q=kettle"]}]},
    {"id": "b", "covers": "x", "summary": "x",
     "steps": [{"navigate": "p"}],
     "effects": [{"method": "POST", "path": "never", "payloads": []}]}
  ]})";

TaskManifest smallManifest()
{
    return *TaskManifest::fromJson(kSmallManifest);
}

TaskRun passedRun(const QString &id, int budget, int repetition)
{
    TaskRun run;
    run.taskId = id;
    run.budget = budget;
    run.repetition = repetition;
    run.passed = true;
    run.effects = EffectCheck{1, 1, true};
    return run;
}

QList<TaskRun> completeRuns(const TaskManifest &manifest)
{
    QList<TaskRun> runs;
    for (int repetition = 1; repetition <= manifest.repetitions; ++repetition) {
        for (int budget : manifest.budgets) {
            for (const Task &task : manifest.tasks)
                runs.append(passedRun(task.id, budget, repetition));
        }
    }
    return runs;
}

ObservedRequest post(const QString &path, const QByteArray &body)
{
    return ObservedRequest{QStringLiteral("POST"), path, QString(), body};
}

ObservedRequest get(const QString &path, const QString &query = QString())
{
    return ObservedRequest{QStringLiteral("GET"), path, query, QByteArray()};
}

} // namespace

class TestTaskReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shippedManifestCoversTheControlledTasks();
    void parserIsStrict_data();
    void parserIsStrict();
    void effectsMatchOnlyExactly_data();
    void effectsMatchOnlyExactly();
    void completeRunsAreVerified();
    void missingOrFailedRunsAreUnverified_data();
    void missingOrFailedRunsAreUnverified();
    void reportIsContentFree();
};

void TestTaskReport::shippedManifestCoversTheControlledTasks()
{
    QFile file(testing::sourcePath(QStringLiteral("tests/tasks/manifest.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const Result<TaskManifest> manifest = TaskManifest::fromJson(file.readAll());
    QVERIFY2(manifest.ok(), manifest.ok() ? "" : qPrintable(manifest.error().message));
    QVERIFY(manifest->tasks.size() >= 16);
    QCOMPARE(manifest->budgets, (QList<int>{1024, 4096}));
    QCOMPARE(manifest->repetitions, 3);
    QSet<QString> covered;
    for (const Task &task : manifest->tasks) {
        covered.insert(task.covers);
        // Every page a task navigates to exists; every act that expects a refusal expects
        // its effects to stay at zero somewhere in the list.
        const QDir pages(testing::sourcePath(QStringLiteral("tests/tasks/pages/") + task.id));
        for (const TaskStep &step : task.steps) {
            if (step.verb == TaskStep::Verb::Navigate)
                QVERIFY2(pages.exists(step.page + QStringLiteral(".html")),
                         qPrintable(task.id + QLatin1Char('/') + step.page));
        }
    }
    for (const char *required :
         {"lessons", "multilingual names", "mixed-script names",
          "dense controls beyond the first window", "hidden controls", "open shadow roots",
          "a slow SPA with background polling", "multi-step forms", "tables", "search and filter",
          "a beforeunload draft", "a control covered by an overlay",
          "a changed target after approval"})
        QVERIFY2(covered.contains(QString::fromUtf8(required)), required);
}

void TestTaskReport::parserIsStrict_data()
{
    QTest::addColumn<QByteArray>("json");
    const auto wrap = [](const char *task) -> QByteArray {
        return QByteArray(R"({"version":1,"budgets":[1024],"repetitions":1,"tasks":[)") + task +
               "]}";
    };
    QTest::newRow("not json") << QByteArray("{");
    QTest::newRow("unknown top key")
        << QByteArray(R"({"version":1,"budgets":[1024],"repetitions":1,"tasks":[],"x":1})");
    QTest::newRow("no tasks") << QByteArray(
        R"({"version":1,"budgets":[1024],"repetitions":1,"tasks":[]})");
    QTest::newRow("version 2") << QByteArray(
        R"({"version":2,"budgets":[1024],"repetitions":1,"tasks":[{"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]}]})");
    QTest::newRow("unknown task key") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[{"method":"GET","path":"p","payloads":[""]}],"extra":1})");
    QTest::newRow("no effects") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[]})");
    QTest::newRow("first step not navigate") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"see":{"role":"button","name":"Go"}}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
    QTest::newRow("two verbs") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p","click":{"role":"button","name":"Go"}}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
    QTest::newRow("unknown step key") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"},{"click":{"role":"button","name":"Go"},"text":"x"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
    QTest::newRow("path escapes") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"../p"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
    QTest::newRow("expect not a tool code") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p","expect":"anything"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
    QTest::newRow("duplicate effect") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[{"method":"GET","path":"p","payloads":[""]},{"method":"GET","path":"p","payloads":[]}]})");
    QTest::newRow("duplicate id") << wrap(
        R"({"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]},{"id":"a","covers":"x","summary":"x","steps":[{"navigate":"p"}],"effects":[{"method":"GET","path":"p","payloads":[""]}]})");
}

void TestTaskReport::parserIsStrict()
{
    QFETCH(QByteArray, json);
    const Result<TaskManifest> manifest = TaskManifest::fromJson(json);
    QVERIFY(!manifest.ok());
    QCOMPARE(manifest.error().code, QStringLiteral("tasks.manifest_invalid"));
}

void TestTaskReport::effectsMatchOnlyExactly_data()
{
    QTest::addColumn<QList<ObservedRequest>>("requests");
    QTest::addColumn<int>("observed");
    QTest::addColumn<bool>("matched");
    const QString go = QStringLiteral("/tasks/a/go");
    const QString next = QStringLiteral("/tasks/a/next");
    const ObservedRequest search = get(next, QStringLiteral("q=kettle"));
    QTest::newRow("exact") << QList<ObservedRequest>{get(QStringLiteral("/tasks/a/p")),
                                                     post(go, "n=1"), search}
                           << 2 << true;
    QTest::newRow("reads elsewhere are not effects")
        << QList<ObservedRequest>{post(go, "n=1"), search, get(QStringLiteral("/tasks/a/poll")),
                                  get(QStringLiteral("/elsewhere"))}
        << 2 << true;
    QTest::newRow("missing") << QList<ObservedRequest>{search} << 1 << false;
    QTest::newRow("sent twice") << QList<ObservedRequest>{post(go, "n=1"), post(go, "n=1"), search}
                                << 3 << false;
    QTest::newRow("other payload") << QList<ObservedRequest>{post(go, "n=2"), search} << 2 << false;
    QTest::newRow("other query") << QList<ObservedRequest>{post(go, "n=1"),
                                                           get(next, QStringLiteral("q=kettles"))}
                                 << 2 << false;
    QTest::newRow("navigated twice")
        << QList<ObservedRequest>{post(go, "n=1"), search, search} << 3 << false;
    QTest::newRow("unlisted write")
        << QList<ObservedRequest>{post(go, "n=1"), search, post(QStringLiteral("/tasks/a/x"), "")}
        << 3 << false;
    QTest::newRow("write to another task")
        << QList<ObservedRequest>{post(go, "n=1"), search,
                                  post(QStringLiteral("/tasks/b/go"), "n=1")}
        << 3 << false;
    QTest::newRow("listed path, other method")
        << QList<ObservedRequest>{post(go, "n=1"), search,
                                  ObservedRequest{QStringLiteral("PUT"), go, QString(), "n=1"}}
        << 3 << false;
}

void TestTaskReport::effectsMatchOnlyExactly()
{
    QFETCH(QList<ObservedRequest>, requests);
    QFETCH(int, observed);
    QFETCH(bool, matched);
    const Task task = smallManifest().tasks.first();
    const EffectCheck check = checkEffects(task, requests);
    QCOMPARE(check.expected, 2);
    QCOMPARE(check.observed, observed);
    QCOMPARE(check.matched, matched);

    // Zero expected: a single request is a mismatch.
    const Task never = smallManifest().tasks.last();
    QVERIFY(checkEffects(never, {}).matched);
    QVERIFY(!checkEffects(never, {post(QStringLiteral("/tasks/b/never"), "")}).matched);
}

void TestTaskReport::completeRunsAreVerified()
{
    const TaskManifest manifest = smallManifest();
    QVERIFY(TaskReport::verified(manifest, completeRuns(manifest)));
    const QJsonObject json = TaskReport::toJson(manifest, completeRuns(manifest), 1234);
    QVERIFY(json.value(QStringLiteral("verified")).toBool());
    QCOMPARE(json.value(QStringLiteral("runs")).toArray().size(), 8);
}

void TestTaskReport::missingOrFailedRunsAreUnverified_data()
{
    QTest::addColumn<QString>("change");
    for (const char *change :
         {"missing task", "missing budget", "missing repetition", "duplicate run", "failed run",
          "mismatched effect", "unknown task", "unknown budget", "no runs"})
        QTest::newRow(change) << QString::fromUtf8(change);
}

void TestTaskReport::missingOrFailedRunsAreUnverified()
{
    QFETCH(QString, change);
    const TaskManifest manifest = smallManifest();
    QList<TaskRun> runs = completeRuns(manifest);
    const auto removeIf = [&runs](auto predicate) {
        runs.erase(std::remove_if(runs.begin(), runs.end(), predicate), runs.end());
    };
    if (change == QLatin1String("missing task")) {
        removeIf([](const TaskRun &r) { return r.taskId == QLatin1String("b"); });
    } else if (change == QLatin1String("missing budget")) {
        removeIf([](const TaskRun &r) { return r.budget == 4096; });
    } else if (change == QLatin1String("missing repetition")) {
        removeIf(
            [](const TaskRun &r) { return r.repetition == 2 && r.taskId == QLatin1String("a"); });
    } else if (change == QLatin1String("duplicate run")) {
        runs.append(runs.first());
    } else if (change == QLatin1String("failed run")) {
        runs[3].passed = false;
        runs[3].failure = TaskRun::Failure::ControlNotFound;
    } else if (change == QLatin1String("mismatched effect")) {
        runs[5].effects.matched = false;
        runs[5].effects.observed = 2;
    } else if (change == QLatin1String("unknown task")) {
        runs.append(passedRun(QStringLiteral("c"), 1024, 1));
    } else if (change == QLatin1String("unknown budget")) {
        runs.append(passedRun(QStringLiteral("a"), 2048, 1));
    } else {
        runs.clear();
    }
    QVERIFY(!TaskReport::verified(manifest, runs));
    QVERIFY(!TaskReport::toJson(manifest, runs, 0).value(QStringLiteral("verified")).toBool());
}

void TestTaskReport::reportIsContentFree()
{
    const TaskManifest manifest = smallManifest();
    QList<TaskRun> runs = completeRuns(manifest);
    runs[0].passed = false;
    runs[0].failure = TaskRun::Failure::UnexpectedResult;
    runs[0].failedStep = 1;
    runs[0].code = QStringLiteral("tool.browser.page_changed");
    runs[1].passed = false;
    runs[1].failure = TaskRun::Failure::UnexpectedResult;
    runs[1].code = QStringLiteral("https://shop.test/?q=secret canary"); // never a wire code
    const QJsonObject json = TaskReport::toJson(manifest, runs, 99);
    QCOMPARE(json.keys(), (QStringList{"budgets", "manifest_version", "model_calls", "repetitions",
                                       "runs", "summary", "tasks", "verified", "version"}));
    QCOMPARE(json.value(QStringLiteral("version")).toInt(), TaskReport::kVersion);
    const QJsonArray records = json.value(QStringLiteral("runs")).toArray();
    const QStringList passedKeys{"budget",     "duration_ms", "effects",    "model_calls",
                                 "operations", "outcome",     "repetition", "task"};
    QCOMPARE(records.at(2).toObject().keys(), passedKeys);
    QCOMPARE(records.at(0).toObject().value(QStringLiteral("code")).toString(),
             QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(records.at(0).toObject().value(QStringLiteral("failure")).toString(),
             QStringLiteral("unexpected_result"));
    QVERIFY(!records.at(1).toObject().contains(QStringLiteral("code")));
    const QByteArray bytes = QJsonDocument(json).toJson();
    for (const char *canary : {"canary", "shop.test", "kettle", "n=1"})
        QVERIFY2(!bytes.contains(canary), canary);
    QVERIFY(!json.value(QStringLiteral("verified")).toBool());
}

QTEST_GUILESS_MAIN(TestTaskReport)
#include "tst_taskreport.moc"
