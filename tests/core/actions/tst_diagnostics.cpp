// Content-free diagnostics, version 1: closed phases and words, at most 64 records in
// completion order with a truncation flag, strict validation that drops a summary whole.

#include "tools/Diagnostics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <functional>

using namespace veetbot;
using namespace veetbot::Diagnostics;

namespace {

Summary sample()
{
    Collector collector;
    collector.record(Phase::Authorization, Placement::Pipeline, Outcome::Succeeded,
                     FailureCategory::None, 1200);
    collector.record(Phase::Dispatch, Placement::IsolatedHost, Outcome::Uncertain,
                     FailureCategory::OutcomeUnknown, 5000);
    collector.record(Phase::Cleanup, Placement::IsolatedHost, Outcome::Succeeded,
                     FailureCategory::None, 3);
    return *collector.finish(6400);
}

QJsonObject mutated(const std::function<void(QJsonObject &, QJsonObject &)> &change)
{
    QJsonObject json = sample().toJson();
    QJsonArray phases = json.value(QLatin1String("phases")).toArray();
    QJsonObject first = phases.at(0).toObject();
    change(json, first);
    phases[0] = first;
    // Write the changed first record back unless the change replaced the array itself.
    if (json.value(QLatin1String("phases")).isArray())
        json.insert(QStringLiteral("phases"), phases);
    return json;
}

} // namespace

class TestDiagnostics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wordsAreClosed();
    void roundTrips();
    void keepsSixtyFourAndMarksTruncation();
    void dropsInvalidSummariesWhole_data();
    void dropsInvalidSummariesWhole();
    void collectorRefusesInconsistentRecords();
    void namesTheEngineWhenKnown();
    void countsStrangerRefusalsNeverTheirAddresses();
    void engineIdentityIsOnlyAClosedNameAndDigits_data();
    void engineIdentityIsOnlyAClosedNameAndDigits();
};

void TestDiagnostics::wordsAreClosed()
{
    const QStringList phases{"session_acquisition",
                             "browser_launch",
                             "navigation",
                             "readiness",
                             "observation_projection",
                             "authorization",
                             "dispatch",
                             "postcondition",
                             "cleanup"};
    for (int i = 0; i < phases.size(); ++i)
        QCOMPARE(phaseString(Phase(i)), phases.at(i));
    QCOMPARE(failureCategoryString(FailureCategory::OutcomeUnknown),
             QStringLiteral("outcome_unknown"));
    QCOMPARE(placementString(Placement::IsolatedHost), QStringLiteral("isolated_host"));
    QCOMPARE(outcomeString(Outcome::Uncertain), QStringLiteral("uncertain"));
}

void TestDiagnostics::roundTrips()
{
    const Summary summary = sample();
    const QJsonObject json = summary.toJson();
    QCOMPARE(json.keys(), QStringList({"phases", "total_elapsed_ms", "truncated", "version"}));
    QCOMPARE(json.value(QLatin1String("version")).toInt(), 1);
    const QJsonObject second = json.value(QLatin1String("phases")).toArray().at(1).toObject();
    QCOMPARE(second.value(QLatin1String("phase")).toString(), QStringLiteral("dispatch"));
    QCOMPARE(second.value(QLatin1String("completion_order")).toInt(), 1);
    QCOMPARE(second.value(QLatin1String("failure_category")).toString(),
             QStringLiteral("outcome_unknown"));
    const std::optional<Summary> back = Summary::fromJson(json);
    QVERIFY(back);
    QCOMPARE(*back, summary);
}

void TestDiagnostics::keepsSixtyFourAndMarksTruncation()
{
    Collector collector;
    for (int i = 0; i < 64; ++i)
        collector.record(Phase::Readiness, Placement::InProcess, Outcome::Succeeded,
                         FailureCategory::None, 1);
    QVERIFY(!collector.finish(100)->truncated);
    collector.record(Phase::Cleanup, Placement::InProcess, Outcome::Succeeded,
                     FailureCategory::None, 1);
    const Summary summary = *collector.finish(100);
    QCOMPARE(summary.phases.size(), 64);
    QVERIFY(summary.truncated);
    QCOMPARE(summary.phases.last().completionOrder, 63);
    QVERIFY(Summary::fromJson(summary.toJson()));
    // 65 records never validate.
    QJsonObject json = summary.toJson();
    QJsonArray phases = json.value(QLatin1String("phases")).toArray();
    QJsonObject extra = phases.last().toObject();
    extra.insert(QStringLiteral("completion_order"), 64);
    phases.append(extra);
    json.insert(QStringLiteral("phases"), phases);
    QVERIFY(!Summary::fromJson(json));
}

void TestDiagnostics::dropsInvalidSummariesWhole_data()
{
    using Change = std::function<void(QJsonObject &, QJsonObject &)>;
    QTest::addColumn<Change>("change");
    QTest::newRow("unchanged is valid") << Change([](QJsonObject &, QJsonObject &) {});
    QTest::newRow("version 2") << Change(
        [](QJsonObject &j, QJsonObject &) { j.insert("version", 2); });
    QTest::newRow("extra top-level field")
        << Change([](QJsonObject &j, QJsonObject &) { j.insert("url", "https://a.example/?q=x"); });
    QTest::newRow("missing truncated")
        << Change([](QJsonObject &j, QJsonObject &) { j.remove("truncated"); });
    QTest::newRow("truncated with 3 phases")
        << Change([](QJsonObject &j, QJsonObject &) { j.insert("truncated", true); });
    QTest::newRow("negative total")
        << Change([](QJsonObject &j, QJsonObject &) { j.insert("total_elapsed_ms", -1); });
    QTest::newRow("huge total") << Change(
        [](QJsonObject &j, QJsonObject &) { j.insert("total_elapsed_ms", 1e12); });
    QTest::newRow("unknown phase")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("phase", "login"); });
    QTest::newRow("unknown placement")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("placement", "cloud"); });
    QTest::newRow("unknown outcome")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("outcome", "ok"); });
    QTest::newRow("free-text category") << Change(
        [](QJsonObject &, QJsonObject &p) { p.insert("failure_category", "net::ERR_FAILED"); });
    QTest::newRow("success with a category") << Change(
        [](QJsonObject &, QJsonObject &p) { p.insert("failure_category", "browser_lost"); });
    QTest::newRow("failure without a category")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("outcome", "failed"); });
    QTest::newRow("phase longer than the total")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("elapsed_ms", 6401); });
    QTest::newRow("fractional elapsed")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("elapsed_ms", 1.5); });
    QTest::newRow("completion order out of sequence")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("completion_order", 2); });
    QTest::newRow("extra record field: message") << Change(
        [](QJsonObject &, QJsonObject &p) { p.insert("message", "Connection reset by peer"); });
    QTest::newRow("phase as number")
        << Change([](QJsonObject &, QJsonObject &p) { p.insert("phase", 6); });
    QTest::newRow("phases not an array")
        << Change([](QJsonObject &j, QJsonObject &) { j.insert("phases", QJsonObject()); });
}

void TestDiagnostics::dropsInvalidSummariesWhole()
{
    QFETCH(std::function<void(QJsonObject &, QJsonObject &)>, change);
    const QJsonObject json = mutated(change);
    const bool unchanged = json == sample().toJson();
    QCOMPARE(Summary::fromJson(json).has_value(), unchanged);
}

void TestDiagnostics::collectorRefusesInconsistentRecords()
{
    Collector collector;
    collector.record(Phase::Dispatch, Placement::IsolatedHost, Outcome::Failed,
                     FailureCategory::None, 10);
    QVERIFY(!collector.finish(10));
    Collector clamped;
    clamped.record(Phase::Navigation, Placement::IsolatedHost, Outcome::Succeeded,
                   FailureCategory::None, 90'000'000);
    const std::optional<Summary> summary = clamped.finish(50);
    QVERIFY(summary);
    QCOMPARE(summary->phases.first().elapsedMs, 50);
}

// The engine the call reached rides beside the phases; a summary without it stays valid (older
// clients and calls that never reached a browser).
void TestDiagnostics::namesTheEngineWhenKnown()
{
    Summary summary = sample();
    summary.engine = EngineIdentity{BrowserEngine::Chromium, QStringLiteral("156.0.8078.114")};
    const QJsonObject json = summary.toJson();
    QCOMPARE(json.value(QLatin1String("engine")).toObject(),
             (QJsonObject{{"name", "chromium"}, {"version", "156.0.8078.114"}}));
    QCOMPARE(Summary::fromJson(json), std::optional<Summary>(summary));
    QVERIFY(!sample().toJson().contains(QLatin1String("engine")));

    Collector collector;
    collector.record(Phase::Navigation, Placement::IsolatedHost, Outcome::Succeeded,
                     FailureCategory::None, 10);
    collector.setEngine(EngineIdentity{BrowserEngine::QtWebEngine, QStringLiteral("102.0.5005")});
    QCOMPARE(collector.finish(20)->engine->engine, BrowserEngine::QtWebEngine);
    // A version that is not digits never validates, so a summary cannot carry text in it.
    collector.setEngine(EngineIdentity{BrowserEngine::Chromium, QStringLiteral("evil text")});
    QVERIFY(!collector.finish(20));
}

// The requests to strangers the browser refused ride beside the phases as a bounded count, and
// only when there were some.
void TestDiagnostics::countsStrangerRefusalsNeverTheirAddresses()
{
    Collector collector;
    collector.record(Phase::Dispatch, Placement::IsolatedHost, Outcome::Succeeded,
                     FailureCategory::None, 10);
    QVERIFY(!collector.finish(20)->toJson().contains(QLatin1String("stranger_requests_refused")));
    collector.addStrangerRefusals(3);
    collector.addStrangerRefusals(2);
    const Summary summary = *collector.finish(20);
    QCOMPARE(summary.strangerRequestsRefused, 5);
    const QJsonObject json = summary.toJson();
    QCOMPARE(json.value(QLatin1String("stranger_requests_refused")).toInt(), 5);
    QCOMPARE(Summary::fromJson(json), std::optional<Summary>(summary));
    collector.addStrangerRefusals(1 << 20);
    QCOMPARE(collector.finish(20)->strangerRequestsRefused, kMaxStrangerRefusals);
    for (const QJsonValue &bad :
         {QJsonValue(0), QJsonValue(-1), QJsonValue(kMaxStrangerRefusals + 1),
          QJsonValue(QStringLiteral("https://evil.test/"))}) {
        QJsonObject copy = json;
        copy.insert(QStringLiteral("stranger_requests_refused"), bad);
        QVERIFY(!Summary::fromJson(copy));
    }
}

void TestDiagnostics::engineIdentityIsOnlyAClosedNameAndDigits_data()
{
    QTest::addColumn<QJsonValue>("engine");
    QTest::addColumn<bool>("valid");
    QTest::newRow("chromium") << QJsonValue(QJsonObject{{"name", "chromium"},
                                                        {"version", "156.0.8078.114"}})
                              << true;
    QTest::newRow("qtwebengine") << QJsonValue(QJsonObject{{"name", "qtwebengine"},
                                                           {"version", "102.0.5005.177"}})
                                 << true;
    QTest::newRow("major only") << QJsonValue(QJsonObject{{"name", "chromium"}, {"version", "156"}})
                                << true;
    QTest::newRow("unknown name") << QJsonValue(
                                         QJsonObject{{"name", "firefox"}, {"version", "128.0"}})
                                  << false;
    QTest::newRow("product, not a version")
        << QJsonValue(QJsonObject{{"name", "chromium"}, {"version", "HeadlessChrome/156.0"}})
        << false;
    QTest::newRow("five parts") << QJsonValue(
                                       QJsonObject{{"name", "chromium"}, {"version", "1.2.3.4.5"}})
                                << false;
    QTest::newRow("seven digits") << QJsonValue(
                                         QJsonObject{{"name", "chromium"}, {"version", "1234567"}})
                                  << false;
    QTest::newRow("empty part") << QJsonValue(
                                       QJsonObject{{"name", "chromium"}, {"version", "156..1"}})
                                << false;
    QTest::newRow("empty") << QJsonValue(QJsonObject{{"name", "chromium"}, {"version", ""}})
                           << false;
    QTest::newRow("non-ASCII digit")
        << QJsonValue(QJsonObject{{"name", "chromium"}, {"version", QStringLiteral("15\u0666")}})
        << false;
    QTest::newRow("number") << QJsonValue(QJsonObject{{"name", "chromium"}, {"version", 156}})
                            << false;
    QTest::newRow("extra key") << QJsonValue(QJsonObject{{"name", "chromium"},
                                                         {"version", "156"},
                                                         {"url", "https://a.example/"}})
                               << false;
    QTest::newRow("not an object") << QJsonValue(QStringLiteral("chromium 156")) << false;
}

void TestDiagnostics::engineIdentityIsOnlyAClosedNameAndDigits()
{
    QFETCH(QJsonValue, engine);
    QFETCH(bool, valid);
    QCOMPARE(EngineIdentity::fromJson(engine).has_value(), valid);
    QJsonObject json = sample().toJson();
    json.insert(QStringLiteral("engine"), engine);
    QCOMPARE(Summary::fromJson(json).has_value(), valid);
    QCOMPARE(EngineIdentity::fromProduct(BrowserEngine::Chromium,
                                         QStringLiteral("HeadlessChrome/156.0.8078.114")),
             std::optional<EngineIdentity>(
                 EngineIdentity{BrowserEngine::Chromium, QStringLiteral("156.0.8078.114")}));
    QVERIFY(!EngineIdentity::fromProduct(BrowserEngine::Chromium, QString()));
}

QTEST_GUILESS_MAIN(TestDiagnostics)
#include "tst_diagnostics.moc"
