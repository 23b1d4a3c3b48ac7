// browser.observe's tool layer over a scripted provider: window modes are one provider call;
// {wait_for} polls the first window under its bounds (at most twenty further reads at least
// 250 ms apart, none started when less time remains than the previous read took), reports
// satisfied / ambiguous / not_observed, and never hides a provider failure.

#include "domain/observation/ObserveRequest.h"
#include "tools/ObserveTool.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace veetbot;

namespace {

ElementRecord element(const QString &role, const QString &name, bool disabled = false,
                      CheckedState checked = CheckedState::None)
{
    ElementRecord record;
    record.ref = QStringLiteral("r.%1").arg(qHash(role + name + QString::number(disabled)));
    record.role = role;
    record.name = name;
    record.state.disabled = disabled;
    record.state.checked = checked;
    return record;
}

// Answers each observe after `delayMs` with the next scripted window (the last one repeats),
// or fails the call numbered `failAt` (1-based).
class ScriptedProvider : public BrowserProvider
{
public:
    QList<QList<ElementRecord>> windows;
    int delayMs = 0;
    int failAt = 0;
    QList<ObserveRequest> requests;
    QList<qint64> startedMs;
    QElapsedTimer clock;

    ScriptedProvider() { clock.start(); }

    ProviderCapabilities capabilities() const override
    {
        ProviderCapabilities capabilities;
        capabilities.observe = true;
        return capabilities;
    }
    void navigate(const NavigateRequest &, ObservationCallback done) override
    {
        done(ReasonCode::ProviderUnavailable);
    }
    void observe(const ObserveRequest &request, ObservationCallback done) override
    {
        requests.append(request);
        startedMs.append(clock.elapsed());
        const int call = int(requests.size());
        QTimer::singleShot(delayMs, this, [this, call, done = std::move(done)] {
            if (call == failAt) {
                done(ReasonCode::ProviderUnavailable);
                return;
            }
            BrowserObservation observation;
            observation.url = QUrl(QStringLiteral("https://shop.example.com/"));
            observation.revision = newRevision();
            observation.elements = windows.isEmpty()
                                       ? QList<ElementRecord>()
                                       : windows.at(qMin(call, int(windows.size())) - 1);
            done(observation);
        });
    }
    void act(const ActionRequest &, ObservationCallback done) override
    {
        done(ReasonCode::ProviderUnavailable);
    }
    void close() override {}
};

ObserveRequest waitFor(const char *json)
{
    const auto request = ObserveRequest::fromJson(
        QJsonDocument::fromJson(QByteArray(R"({"wait_for":)") + json + "}").object());
    if (!request)
        qFatal("bad test request");
    return request.value();
}

Result<BrowserObservation> runTool(ScriptedProvider &provider, const ObserveRequest &request)
{
    std::optional<Result<BrowserObservation>> out;
    ObserveTool::run(provider, request, [&out](Result<BrowserObservation> result) {
        if (out)
            qFatal("callback ran twice");
        out = std::move(result);
    });
    if (!QTest::qWaitFor([&out] { return out.has_value(); }, 20000))
        return ReasonCode::ProviderUnavailable;
    return *out;
}

} // namespace

class TestObserveTool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void windowModesAreOneProviderCall();
    void predicateEvaluation();
    void satisfiedAtOnce();
    void satisfiedAfterPolling();
    void notObservedWithinTheTimeout();
    void ambiguousMatchesNeverSatisfy();
    void zeroTimeoutReadsOnce();
    void slowCapturesAreNotStartedPastTheDeadline();
    void neverMoreThanTwentyFurtherReads();
    void providerFailureIsReturned();
};

void TestObserveTool::windowModesAreOneProviderCall()
{
    ScriptedProvider provider;
    provider.windows = {{element(QStringLiteral("button"), QStringLiteral("Go"))}};
    const QList<ObserveRequest> requests = {
        ObserveRequest(), ObserveRequest::after(QStringLiteral("r.1")).value(),
        ObserveRequest::cursor(QString(32, u'c')).value(),
        ObserveRequest::focus(QStringLiteral("r.g0"), newRevision()).value()};
    for (const ObserveRequest &request : requests) {
        const auto result = runTool(provider, request);
        QVERIFY(result.ok());
        QVERIFY(!result->waitFor);
        QCOMPARE(provider.requests.last(), request);
    }
    QCOMPARE(provider.requests.size(), requests.size());
}

void TestObserveTool::predicateEvaluation()
{
    const auto predicate = [](const char *json) {
        return VisiblePredicate::fromJson(QJsonDocument::fromJson(json).object()).value();
    };
    const QList<ElementRecord> page = {
        element(QStringLiteral("button"), QStringLiteral("Save")),
        element(QStringLiteral("button"), QStringLiteral("Delete"), true),
        element(QStringLiteral("checkbox"), QStringLiteral("Terms"), false, CheckedState::True),
        element(QStringLiteral("checkbox"), QStringLiteral("Mixed"), false, CheckedState::Mixed),
        element(QStringLiteral("link"), QStringLiteral("Twice")),
        element(QStringLiteral("link"), QStringLiteral("Twice"), true),
    };
    using S = WaitOutcome::Status;
    const auto eval = [&](const char *json) {
        return ObserveTool::evaluate(predicate(json), page);
    };
    QCOMPARE(eval(R"({"role":"button","name":"Save"})"), S::Satisfied);
    QCOMPARE(eval(R"({"role":"button","name":"Save","disabled":false})"), S::Satisfied);
    QCOMPARE(eval(R"({"role":"button","name":"Save","disabled":true})"), S::NotObserved);
    QCOMPARE(eval(R"({"role":"button","name":"Delete","disabled":true})"), S::Satisfied);
    QCOMPARE(eval(R"({"role":"button","name":"save"})"), S::NotObserved); // exact name
    QCOMPARE(eval(R"({"role":"link","name":"Save"})"), S::NotObserved);   // exact role
    QCOMPARE(eval(R"({"role":"button","name":"Sav"})"), S::NotObserved);  // no prefix match
    QCOMPARE(eval(R"({"role":"checkbox","name":"Terms","checked":true})"), S::Satisfied);
    QCOMPARE(eval(R"({"role":"checkbox","name":"Terms","checked":false})"), S::NotObserved);
    QCOMPARE(eval(R"({"role":"checkbox","name":"Mixed","checked":true})"), S::NotObserved);
    QCOMPARE(eval(R"({"role":"checkbox","name":"Mixed","checked":false})"), S::NotObserved);
    QCOMPARE(eval(R"({"role":"button","name":"Save","checked":false})"), S::NotObserved);
    // Two role/name matches are conflicting evidence, whatever their states.
    QCOMPARE(eval(R"({"role":"link","name":"Twice"})"), S::Ambiguous);
    QCOMPARE(eval(R"({"role":"link","name":"Twice","disabled":true})"), S::Ambiguous);
}

void TestObserveTool::satisfiedAtOnce()
{
    ScriptedProvider provider;
    provider.windows = {{element(QStringLiteral("button"), QStringLiteral("Done"))}};
    const auto result = runTool(provider, waitFor(R"({"role":"button","name":"Done"})"));
    QVERIFY(result.ok());
    QVERIFY(result->waitFor);
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::Satisfied);
    QCOMPARE(result->waitFor->observations, 1);
    QCOMPARE(result->waitFor->scope, QStringLiteral("first_window"));
    QCOMPARE(provider.requests.size(), 1);
    QVERIFY(provider.requests.first().isFirst()); // the provider reads the first window
}

void TestObserveTool::satisfiedAfterPolling()
{
    ScriptedProvider provider;
    provider.windows = {{},
                        {element(QStringLiteral("button"), QStringLiteral("Other"))},
                        {element(QStringLiteral("button"), QStringLiteral("Done"))}};
    const auto result = runTool(provider, waitFor(R"({"role":"button","name":"Done"})"));
    QVERIFY(result.ok());
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::Satisfied);
    QCOMPARE(result->waitFor->observations, 3);
    QCOMPARE(result->elements.first().name, QStringLiteral("Done")); // the last read
    QVERIFY(result->waitFor->elapsedMs >= 2 * ObserveTool::kPollIntervalMs);
    for (int i = 1; i < provider.startedMs.size(); ++i)
        QVERIFY(provider.startedMs.at(i) - provider.startedMs.at(i - 1) >=
                ObserveTool::kPollIntervalMs);
}

void TestObserveTool::notObservedWithinTheTimeout()
{
    ScriptedProvider provider;
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":1000})"));
    QVERIFY(result.ok());
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::NotObserved);
    // Reads at about 0, 250, 500, 750 ms: none starts at or after the deadline.
    QVERIFY2(result->waitFor->observations >= 3 && result->waitFor->observations <= 5,
             qPrintable(QString::number(result->waitFor->observations)));
    QCOMPARE(result->waitFor->observations, int(provider.requests.size()));
    for (qint64 started : provider.startedMs)
        QVERIFY(started < 1000);
    QVERIFY(result->waitFor->elapsedMs <= 1000 + 200);
}

void TestObserveTool::ambiguousMatchesNeverSatisfy()
{
    ScriptedProvider provider;
    provider.windows = {{element(QStringLiteral("button"), QStringLiteral("Done")),
                         element(QStringLiteral("button"), QStringLiteral("Done"), true)}};
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":600})"));
    QVERIFY(result.ok());
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::Ambiguous);
    QVERIFY(result->waitFor->observations >= 2); // kept polling: the page may resolve it
}

void TestObserveTool::zeroTimeoutReadsOnce()
{
    ScriptedProvider provider;
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":0})"));
    QVERIFY(result.ok());
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::NotObserved);
    QCOMPARE(result->waitFor->observations, 1);
    QCOMPARE(provider.requests.size(), 1);
}

void TestObserveTool::slowCapturesAreNotStartedPastTheDeadline()
{
    ScriptedProvider provider;
    provider.delayMs = 400;
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":1000})"));
    QVERIFY(result.ok());
    // 0-400 ms, then the interval to ~650 ms: 350 ms remain, less than the 400 ms the read
    // took, so no second read starts.
    QCOMPARE(result->waitFor->observations, 1);
    QCOMPARE(provider.requests.size(), 1);
}

void TestObserveTool::neverMoreThanTwentyFurtherReads()
{
    ScriptedProvider provider;
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":5000})"));
    QVERIFY(result.ok());
    QCOMPARE(result->waitFor->status, WaitOutcome::Status::NotObserved);
    QVERIFY(result->waitFor->observations <= 1 + ObserveTool::kMaxFurtherObservations);
    QVERIFY(result->waitFor->observations >= 15);
    QCOMPARE(result->waitFor->observations, int(provider.requests.size()));
    QVERIFY(result->waitFor->elapsedMs <= 5000 + 300);
}

void TestObserveTool::providerFailureIsReturned()
{
    ScriptedProvider provider;
    provider.failAt = 2;
    const auto result =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":2000})"));
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QCOMPARE(provider.requests.size(), 2); // no read after the failure
    // Positive control: a poll on the same provider, started after the failure, reads at once and
    // again after each interval until its 600 ms bound, past the one interval after which the
    // failed poll would have read again. The provider saw the control's reads alone.
    const auto control =
        runTool(provider, waitFor(R"({"role":"button","name":"Done","timeout_ms":600})"));
    QVERIFY(control.ok());
    QVERIFY(control->waitFor->observations >= 2);
    QCOMPARE(provider.requests.size(), 2 + control->waitFor->observations);
}

QTEST_GUILESS_MAIN(TestObserveTool)
#include "tst_observetool.moc"
