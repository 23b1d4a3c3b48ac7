// The model loop of `veetbot run` without a browser: the model endpoint rule, the
// chat-completions answer parser, and TaskRunner over a scripted provider and a scripted
// chat-completions server on loopback: the final answer, automatic re-observation of a stale
// ref (three per run), acts suspended after an uncertain one, cancellation during a dispatch
// reported uncertain, a success claim without progress reported unverified, the functions
// offered being the MCP tools and veetbot_expect, and the completion predicate: parsed
// strictly, read on the page, and only when seen after the last act evidence of the task.

#include "EventWait.h"
#include "ScriptedModelServer.h"
#include "domain/action/ActRequest.h"
#include "ledger/EffectLedger.h"
#include "runs/ChatClient.h"
#include "runs/ModelEndpoint.h"
#include "runs/TaskRunner.h"
#include "tools/AgentTools.h"
#include "tools/Approvers.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

class ScriptedProvider : public BrowserProvider
{
public:
    int inputsSent = 0;
    bool failAfterGate = false;     // the next acts lose their answer after the gate
    bool holdAfterGate = false;     // the next act's answer never comes
    bool staleActs = false;         // the page moves on before every act reaches it
    bool unchangedAfterAct = false; // the page looks the same after an act
    int actsDone = 0;
    bool signInWall = false;       // reads find the site asking for a sign-in
    bool passwordPage = false;     // the page shows a password field (a sign-in form)
    bool passwordAfterAct = false; // ... once an act reached it
    int navigations = 0;
    int reads = 0;
    // The page shows the act's effect only from this many captures after it (a late
    // confirmation), and the regions and address it shows then.
    int lateBy = 0;
    int capturesSinceAct = 0;
    QList<RegionRecord> regionsAfterAct;
    QUrl urlAfterAct;
    QString revision;
    int serial = 0;

    ProviderCapabilities capabilities() const override
    {
        ProviderCapabilities capabilities;
        capabilities.navigate = capabilities.observe = capabilities.act = true;
        return capabilities;
    }
    BrowserObservation fresh()
    {
        BrowserObservation observation;
        observation.url = QUrl(QStringLiteral("https://shop.example.com/cart"));
        const bool paid = actsDone > 0 && !unchangedAfterAct && ++capturesSinceAct > lateBy;
        observation.title = paid ? QStringLiteral("Paid") : QStringLiteral("Cart");
        observation.text = observation.title + QStringLiteral("\nSKU\tKettle\t1\t€20");
        if (paid) {
            observation.regions = regionsAfterAct;
            if (urlAfterAct.isValid())
                observation.url = urlAfterAct;
        }
        observation.revision = newRevision();
        observation.elements = {ElementRecord{QStringLiteral("p.%1").arg(++serial),
                                              QStringLiteral("button"),
                                              QStringLiteral("Pay"),
                                              {}}};
        if (passwordPage)
            observation.elements << ElementRecord{QStringLiteral("pw.%1").arg(++serial),
                                                  QStringLiteral("textbox"),
                                                  QStringLiteral("Password"),
                                                  {}};
        revision = observation.revision;
        return observation;
    }
    void later(ObservationCallback done, Result<BrowserObservation> result)
    {
        QTimer::singleShot(0, this, [done = std::move(done), result]() { done(result); });
    }
    void navigate(const NavigateRequest &, ObservationCallback done) override
    {
        ++navigations;
        observe(ObserveRequest(), std::move(done));
    }
    void observe(const ObserveRequest &, ObservationCallback done) override
    {
        ++reads;
        if (signInWall) {
            later(std::move(done), Error::fromReason(ReasonCode::AuthenticationRequired));
            return;
        }
        later(std::move(done), fresh());
    }
    void act(const ActRequest &request, ObservationCallback done) override
    {
        if (staleActs)
            revision = newRevision();
        if (request.expectedRevision() != revision) {
            later(std::move(done), Error::fromReason(ReasonCode::PageChanged));
            return;
        }
        askDispatchGate(request, [this, done = std::move(done)](bool open) mutable {
            if (!open) {
                later(std::move(done), Error::fromReason(ReasonCode::ProviderUnavailable));
                return;
            }
            ++inputsSent;
            if (holdAfterGate)
                return;
            if (failAfterGate) {
                later(std::move(done), Error::fromReason(ReasonCode::OutcomeUnknown));
                return;
            }
            ++actsDone;
            capturesSinceAct = 0;
            passwordPage = passwordPage || passwordAfterAct;
            later(std::move(done), fresh());
        });
    }
    void close() override {}
    std::optional<ElementFacts> elementFacts(const QString &, const QString &ref) const override
    {
        if (ref.startsWith(QLatin1String("pw."))) {
            ElementFacts password;
            password.role = QStringLiteral("textbox");
            password.accessibleName = QStringLiteral("Password");
            password.inputType = QStringLiteral("password");
            password.fieldKind = FieldKind::Credential;
            password.native = true;
            return password;
        }
        return ElementFacts{QStringLiteral("button"),
                            QStringLiteral("Pay"),
                            QString(),
                            QString(),
                            QString(),
                            QString()};
    }
};

// The last tool result the run sent, parsed.
QJsonObject lastToolResult(const QJsonObject &request)
{
    const QJsonArray messages = request.value(QLatin1String("messages")).toArray();
    const QJsonObject last = messages.last().toObject();
    if (last.value(QLatin1String("role")).toString() != QLatin1String("tool"))
        return {};
    return QJsonDocument::fromJson(last.value(QLatin1String("content")).toString().toUtf8())
        .object();
}

// The act on the first element of the observation in a result (or its recovery read).
ScriptedModelServer::Answer actOn(const QJsonObject &result)
{
    const QJsonObject envelope = result.contains(QLatin1String("error"))
                                     ? result.value(QLatin1String("observation")).toObject()
                                     : result;
    const QJsonObject view = envelope.value(QLatin1String("observation")).toObject();
    return ScriptedModelServer::toolCall(
        QStringLiteral("veetbot_act"),
        {{QStringLiteral("kind"), QStringLiteral("click")},
         {QStringLiteral("expected_revision"), view.value(QLatin1String("revision"))},
         {QStringLiteral("ref"),
          view.value(QLatin1String("elements")).toArray().first().toObject().value("ref")}});
}

// The model states its completion predicate.
ScriptedModelServer::Answer expect(const QJsonObject &predicate)
{
    return ScriptedModelServer::toolCall(QStringLiteral("veetbot_expect"), predicate);
}

QJsonObject textPredicate(const QString &text)
{
    return {{QStringLiteral("kind"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

// The functions a task run offers: the agent tools of a policy, as MCP lists them.
QJsonArray functionTools()
{
    const OriginPolicy policy = *OriginPolicy::create(
        {*Origin::parse(QStringLiteral("https://www.shop.de"), TestOverrides())});
    return AgentTools::chatFunctions(policy);
}

} // namespace

class TestTaskRunner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void endpointRule();
    void answersAreParsedStrictly();
    void theFunctionsAreTheAgentTools();
    void aFinalAnswerCompletesTheRun();
    void aStaleRefIsObservedAgainThreeTimesAtMost();
    void afterAnUncertainActNoActIsSent();
    void cancellingADispatchedActIsUncertain();
    void aClaimWithoutProgressIsUnverified();
    void completionPredicatesAreParsedStrictly();
    void completionPredicatesReadThePage();
    void onlyThePredicateSeenAfterTheLastActVerifies_data();
    void onlyThePredicateSeenAfterTheLastActVerifies();
    void aSignInWallNeedsTheOwner();
    void aSignInWallWaitsForTheOwnerAndGoesOnOnce();
    void aThirdWallOrACancelEndsTheWait();
    void aWallFoundByARecoveryReadWaitsToo();

private:
    TaskRunner::Result runTask(const TaskRunner::Options &options = {},
                               const std::function<void(TaskRunner &)> &during = {});

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EffectLedger> m_ledger;
    std::unique_ptr<ScriptedProvider> m_provider;
    std::unique_ptr<ScriptedApprover> m_approver;
    std::unique_ptr<ToolPipeline> m_pipeline;
    std::unique_ptr<ScriptedModelServer> m_model;
    QList<QJsonObject> m_requests;
};

void TestTaskRunner::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    auto ledger = EffectLedger::open(m_dir->filePath(QStringLiteral("effects.sqlite")));
    QVERIFY(ledger.ok());
    m_ledger = std::move(ledger).value();
    m_provider = std::make_unique<ScriptedProvider>();
    m_approver = std::make_unique<ScriptedApprover>();
    for (int i = 0; i < 20; ++i)
        m_approver->enqueue(ApprovalAnswer::Approved);
    ToolPipeline::Options options;
    options.context.turn = TurnSource::Owner;
    m_pipeline =
        std::make_unique<ToolPipeline>(m_provider.get(), *m_approver, m_ledger.get(), options);
    m_model = std::make_unique<ScriptedModelServer>();
    QVERIFY(m_model->listen());
    m_requests.clear();
}

void TestTaskRunner::cleanup()
{
    m_pipeline.reset();
    m_model.reset();
    m_provider.reset();
    m_ledger.reset();
}

TaskRunner::Result TestTaskRunner::runTask(const TaskRunner::Options &given,
                                           const std::function<void(TaskRunner &)> &during)
{
    TaskRunner::Options options = given;
    options.task = QStringLiteral("Pay the cart.");
    options.model = QStringLiteral("scripted");
    options.ledger = m_ledger.get();
    if (options.tools.isEmpty())
        options.tools = functionTools();
    const Result<QUrl> endpoint = ModelEndpoint::parse(m_model->baseUrl());
    ChatClient chat(*endpoint, SecretBytes());
    TaskRunner runner(*m_pipeline, chat, options);
    QSignalSpy finished(&runner, &TaskRunner::finished);
    runner.start();
    if (during)
        during(runner);
    if (!runEventsUntil([&finished] { return !finished.isEmpty(); }, 20000))
        return {};
    return finished.first().first().value<TaskRunner::Result>();
}

void TestTaskRunner::endpointRule()
{
    QCOMPARE(ModelEndpoint::parse(QStringLiteral("https://api.example.com/v1"))->toString(),
             QStringLiteral("https://api.example.com/v1/chat/completions"));
    QCOMPARE(ModelEndpoint::parse(QStringLiteral("http://127.0.0.1:8080/v1/"))->toString(),
             QStringLiteral("http://127.0.0.1:8080/v1/chat/completions"));
    QCOMPARE(ModelEndpoint::parse(QStringLiteral("http://localhost:11434/v1/chat/completions"))
                 ->toString(),
             QStringLiteral("http://localhost:11434/v1/chat/completions"));
    QVERIFY(ModelEndpoint::parse(QStringLiteral("http://[::1]:8080/v1")).ok());
    QVERIFY(ModelEndpoint::parse(QStringLiteral("http://127.5.6.7/v1")).ok());
    for (const QString &refused :
         {QStringLiteral("http://api.example.com/v1"), QStringLiteral("http://10.0.0.2/v1"),
          QStringLiteral("http://localhost.example.com/v1"), QStringLiteral("ftp://127.0.0.1/"),
          QStringLiteral("https://user:secret@api.example.com/v1"),
          QStringLiteral("https://api.example.com/v1#x"), QStringLiteral("not a url")}) {
        const Result<QUrl> parsed = ModelEndpoint::parse(refused);
        QVERIFY2(!parsed, qPrintable(refused));
        QCOMPARE(parsed.error().code, QStringLiteral("model.url_refused"));
        QVERIFY(!parsed.error().message.contains(QLatin1String("example")));
    }
}

void TestTaskRunner::answersAreParsedStrictly()
{
    const auto text = ChatClient::parseResponse(
        R"({"choices":[{"message":{"role":"assistant","content":"Done."}}],)"
        R"("usage":{"prompt_tokens":12,"completion_tokens":3}})");
    QVERIFY(text.ok());
    QCOMPARE(text->content, QStringLiteral("Done."));
    QVERIFY(text->toolCalls.isEmpty());
    QCOMPARE(text->promptTokens, 12);
    QCOMPARE(text->completionTokens, 3);
    const auto calls = ChatClient::parseResponse(
        R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[)"
        R"({"id":"c1","type":"function","function":{"name":"veetbot_observe","arguments":"{}"}},)"
        R"({"id":"c2","type":"function","function":{"name":"veetbot_act","arguments":{"ref":"x"}}}]}}]})");
    QVERIFY(calls.ok());
    QCOMPARE(calls->toolCalls.size(), 2);
    QCOMPARE(calls->toolCalls.at(1).arguments, QStringLiteral(R"({"ref":"x"})"));
    QCOMPARE(calls->promptTokens, -1);
    for (const QByteArray &bad :
         {QByteArray("not json"), QByteArray(R"({"choices":[]})"),
          QByteArray(R"({"choices":[{"message":{"content":7}}]})"),
          QByteArray(R"({"choices":[{"message":{"tool_calls":[{"function":{"name":"x"}}]}}]})")})
        QCOMPARE(ChatClient::parseResponse(bad).error().code,
                 QStringLiteral("model.invalid_response"));
}

void TestTaskRunner::theFunctionsAreTheAgentTools()
{
    m_model->setBrain([this](const QJsonObject &request) {
        m_requests << request;
        return ScriptedModelServer::text(QStringLiteral("Nothing to do."));
    });
    TaskRunner::Options options;
    const TaskRunner::Result result = runTask(options);
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(m_requests.size(), 1);
    const QJsonObject request = m_requests.first();
    QCOMPARE(request.value("tools").toArray().size(), 4);
    QCOMPARE(request.value("tools").toArray().at(3).toObject(), CompletionPredicate::function());
    QCOMPARE(request.value("tools")
                 .toArray()
                 .at(2)
                 .toObject()
                 .value("function")
                 .toObject()
                 .value("parameters")
                 .toObject(),
             AgentTools::actInputSchema());
    const QJsonObject act = request.value("tools").toArray().at(2).toObject();
    QCOMPARE(act.value("type").toString(), QStringLiteral("function"));
    QCOMPARE(act.value("function").toObject().value("name").toString(), QString(AgentTools::kAct));
    // The system prompt, then the owner's task as the only user message.
    const QJsonArray messages = request.value("messages").toArray();
    QCOMPARE(messages.size(), 2);
    QCOMPARE(messages.at(0).toObject().value("role").toString(), QStringLiteral("system"));
    QCOMPARE(messages.at(1).toObject().value("content").toString(),
             QStringLiteral("Pay the cart."));
    QCOMPARE(result.outcome, RunOutcome::None);
}

void TestTaskRunner::aFinalAnswerCompletesTheRun()
{
    int turn = 0;
    m_model->setBrain([&turn](const QJsonObject &request) {
        switch (++turn) {
        case 1:
            return expect(textPredicate(QStringLiteral("Paid")));
        case 2:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 3:
            return actOn(lastToolResult(request));
        default:
            return ScriptedModelServer::text(QStringLiteral("Paid."));
        }
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(result.answer, QStringLiteral("Paid."));
    QCOMPARE(result.outcome, RunOutcome::Verified);
    QCOMPARE(result.evidence, TaskRunner::Evidence::PredicateSeen);
    QCOMPARE(result.usage.modelCalls, 4);
    QCOMPARE(result.usage.toolCalls, 3);
    QCOMPARE(result.usage.steps, 4);
    QCOMPARE(result.usage.acts, 1);
    QCOMPARE(result.usage.promptTokens, 400);
    QCOMPARE(m_provider->inputsSent, 1);
}

void TestTaskRunner::aStaleRefIsObservedAgainThreeTimesAtMost()
{
    m_provider->staleActs = true;
    int turn = 0;
    QList<QJsonObject> results;
    m_model->setBrain([&turn, &results](const QJsonObject &request) {
        if (++turn == 1)
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        const QJsonObject result = lastToolResult(request);
        results << result;
        if (turn <= 5)
            return actOn(result);
        return ScriptedModelServer::text(QStringLiteral("The page keeps changing."));
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(result.usage.staleRecoveries, RunCeilings::kStaleRecoveries);
    QCOMPARE(m_provider->inputsSent, 0);
    // Three refusals came back with a fresh observation, the fourth without.
    QCOMPARE(results.size(), 5);
    for (int i = 1; i <= 3; ++i) {
        QCOMPARE(results.at(i).value("error").toObject().value("code").toString(),
                 QStringLiteral("tool.browser.page_changed"));
        QCOMPARE(results.at(i).value("recovery").toString(), QStringLiteral("observed_again"));
        QCOMPARE(results.at(i).value("observation").toObject().value("trust").toString(),
                 QStringLiteral("EXTERNAL_UNTRUSTED"));
    }
    QVERIFY(!results.at(4).contains(QLatin1String("recovery")));
    QCOMPARE(result.outcome, RunOutcome::Unverified); // acts tried, none succeeded
}

void TestTaskRunner::afterAnUncertainActNoActIsSent()
{
    m_provider->failAfterGate = true;
    int turn = 0;
    QJsonObject lastView;
    QList<bool> offeredAct;
    m_model->setBrain([&](const QJsonObject &request) {
        offeredAct << ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_act"));
        const QJsonObject result = lastToolResult(request);
        if (result.value("trust").toString() == QLatin1String("EXTERNAL_UNTRUSTED"))
            lastView = result;
        switch (++turn) {
        case 1:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 2:
            return actOn(result);
        case 3:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 4:
            return actOn(result); // the model tries anyway
        default:
            return ScriptedModelServer::text(QStringLiteral("It may have been paid."));
        }
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(result.outcome, RunOutcome::OutcomeUnknown);
    QCOMPARE(result.uncertainActs, 1);
    QCOMPARE(m_provider->inputsSent, 1); // never a second time
    QCOMPARE(offeredAct, (QList<bool>{true, true, false, false, false}));
}

void TestTaskRunner::cancellingADispatchedActIsUncertain()
{
    m_provider->holdAfterGate = true;
    int turn = 0;
    m_model->setBrain([&turn](const QJsonObject &request) {
        if (++turn == 1)
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        return actOn(lastToolResult(request));
    });
    const TaskRunner::Result result = runTask({}, [this](TaskRunner &runner) {
        QVERIFY(runEventsUntil([this] { return m_provider->inputsSent == 1; }, 10000));
        runner.cancel();
    });
    QCOMPARE(result.status, RunStatus::Cancelled);
    QCOMPARE(result.stopCode, QStringLiteral("run.cancelled"));
    QCOMPARE(result.uncertainActs, 1);
    QCOMPARE(result.outcome, RunOutcome::OutcomeUnknown);
}

void TestTaskRunner::aClaimWithoutProgressIsUnverified()
{
    m_provider->unchangedAfterAct = true;
    int turn = 0;
    m_model->setBrain([&turn](const QJsonObject &request) {
        switch (++turn) {
        case 1:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 2:
            return actOn(lastToolResult(request));
        default:
            return ScriptedModelServer::text(QStringLiteral("Paid, surely."));
        }
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(m_provider->inputsSent, 1);
    QCOMPARE(result.outcome, RunOutcome::Unverified);
}

void TestTaskRunner::aSignInWallNeedsTheOwner()
{
    int turn = 0;
    m_model->setBrain([this, &turn](const QJsonObject &request) {
        switch (++turn) {
        case 1:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 2:
            m_provider->signInWall = true;
            return actOn(lastToolResult(request));
        default:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        }
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::NeedsUser);
    QCOMPARE(result.stopCode, QStringLiteral("tool.browser.authentication_required"));
    QCOMPARE(turn, 3); // no model call after the wall
    QCOMPARE(result.usage.acts, 1);
    // The act before the wall changed the page, and no predicate was stated: no evidence.
    QCOMPARE(result.outcome, RunOutcome::Unverified);
}

// The page asks to sign in: the run waits with nothing in flight and no model call, the
// owner's verified sign-in hands it a fresh pipeline, and it goes on from a fresh look at the
// page, the call that met the wall answered (never repeated). An act sent before the page asked
// is uncertain (the ledger's sign-in marker) and no act follows it.
void TestTaskRunner::aSignInWallWaitsForTheOwnerAndGoesOnOnce()
{
    int walls = 0;
    const auto pipelineOver = [this, &walls](BrowserProvider *provider) {
        ToolPipeline::Options options;
        options.context.turn = TurnSource::Owner;
        options.signInWall = [&walls] { ++walls; };
        return std::make_unique<ToolPipeline>(provider, *m_approver, m_ledger.get(), options);
    };
    m_provider->passwordPage = true; // the session expired before the run
    m_pipeline = pipelineOver(m_provider.get());
    ScriptedProvider signedIn; // the first fresh lease: the act's page asks again
    signedIn.passwordAfterAct = true;
    ScriptedProvider signedInAgain; // the second
    std::unique_ptr<ToolPipeline> first = pipelineOver(&signedIn);
    std::unique_ptr<ToolPipeline> second = pipelineOver(&signedInAgain);

    int turn = 0;
    QList<QJsonObject> results;
    QList<bool> offeredAct;
    m_model->setBrain([&](const QJsonObject &request) {
        offeredAct << ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_act"));
        results << lastToolResult(request);
        switch (++turn) {
        case 1:
            return ScriptedModelServer::toolCall(
                QStringLiteral("veetbot_navigate"),
                {{QStringLiteral("url"), QStringLiteral("https://shop.example.com/cart")}});
        case 2:
            return actOn(results.last());
        default:
            return ScriptedModelServer::text(QStringLiteral("It may have been paid."));
        }
    });
    int waits = 0;
    QList<int> modelCallsWhenWaiting;
    TaskRunner::Options options;
    options.waitForSignIn = true;
    const TaskRunner::Result result = runTask(options, [&](TaskRunner &runner) {
        connect(&runner, &TaskRunner::signInNeeded, this, [&, runnerPtr = &runner] {
            ++waits;
            QVERIFY(runnerPtr->waitingForSignIn());
            // Some time passes: nothing is asked of the model meanwhile.
            QTimer::singleShot(200, this, [&, runnerPtr] {
                modelCallsWhenWaiting << m_model->requests();
                runnerPtr->resumeAfterSignIn(waits == 1 ? *first : *second);
                // A second report of the same sign-in changes nothing.
                runnerPtr->resumeAfterSignIn(waits == 1 ? *first : *second);
            });
        });
    });
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(waits, 2);
    QCOMPARE(walls, 2);
    QCOMPARE(modelCallsWhenWaiting, (QList<int>{1, 2}));
    QCOMPARE(turn, 3);
    QCOMPARE(signedIn.navigations, 1); // one fresh look per sign-in
    QCOMPARE(signedInAgain.navigations, 1);
    QCOMPARE(signedIn.inputsSent, 1);
    QCOMPARE(signedInAgain.inputsSent, 0);
    QCOMPARE(m_provider->inputsSent, 0);
    // The call that met the wall, answered after the sign-in with the page as it is now.
    QCOMPARE(results.at(1).value("error").toObject().value("code").toString(),
             QStringLiteral("tool.browser.needs_user"));
    QVERIFY(results.at(1).value("resumed").toString().contains(QLatin1String("signed in again")));
    QVERIFY(results.at(1).contains(QLatin1String("observation")));
    QCOMPARE(results.at(2).value("error").toObject().value("code").toString(),
             QStringLiteral("tool.browser.outcome_unknown"));
    QVERIFY(results.at(2).contains(QLatin1String("resumed")));
    QCOMPARE(offeredAct, (QList<bool>{true, true, false}));
    QCOMPARE(result.outcome, RunOutcome::OutcomeUnknown);
    QCOMPARE(result.uncertainActs, 1);
    const Result<EffectRecord> act = m_ledger->record(first->lastEffectId());
    QVERIFY(act.ok());
    QCOMPARE(act->state, EffectState::OutcomeUnknown);
    QCOMPARE(act->reasonCode, QStringLiteral("interruption.sign_in"));
}

void TestTaskRunner::aThirdWallOrACancelEndsTheWait()
{
    m_provider->passwordPage = true;
    m_model->setBrain([](const QJsonObject &) {
        return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
    });
    // Twice waited already (an earlier attempt): the run ends needs_user at once.
    TaskRunner::Options options;
    options.waitForSignIn = true;
    options.signInSuspensions = 2;
    int waits = 0;
    const auto count = [this, &waits](TaskRunner &runner) {
        connect(&runner, &TaskRunner::signInNeeded, this, [&waits] { ++waits; });
    };
    TaskRunner::Result result = runTask(options, count);
    QCOMPARE(result.status, RunStatus::NeedsUser);
    QCOMPARE(result.stopCode, QStringLiteral("tool.browser.needs_user"));
    QCOMPARE(waits, 0);
    // Waiting, the owner stops the run: cancelled.
    options.signInSuspensions = 0;
    result = runTask(options, [this](TaskRunner &runner) {
        connect(&runner, &TaskRunner::signInNeeded, &runner, &TaskRunner::cancel);
    });
    QCOMPARE(result.status, RunStatus::Cancelled);
    // ... or its wait ends without a sign-in: needs_user.
    result = runTask(options, [this](TaskRunner &runner) {
        connect(&runner, &TaskRunner::signInNeeded, &runner, &TaskRunner::stopWaitingForSignIn);
    });
    QCOMPARE(result.status, RunStatus::NeedsUser);
}

// A stale act's automatic fresh look lands on a sign-in page: the act's call waits like any
// other, and is answered after the sign-in with its refusal and the page as it is then.
void TestTaskRunner::aWallFoundByARecoveryReadWaitsToo()
{
    int turn = 0;
    QList<QJsonObject> results;
    m_model->setBrain([&](const QJsonObject &request) {
        results << lastToolResult(request);
        switch (++turn) {
        case 1:
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        case 2:
            m_provider->staleActs = true;    // the page moves on...
            m_provider->passwordPage = true; // ... to a sign-in form
            return actOn(results.last());
        default:
            return ScriptedModelServer::text(QStringLiteral("Signed in again; not paid yet."));
        }
    });
    ScriptedProvider signedIn;
    ToolPipeline::Options pipelineOptions;
    pipelineOptions.context.turn = TurnSource::Owner;
    ToolPipeline fresh(&signedIn, *m_approver, m_ledger.get(), pipelineOptions);
    TaskRunner::Options options;
    options.waitForSignIn = true;
    int waits = 0;
    const TaskRunner::Result result = runTask(options, [&](TaskRunner &runner) {
        connect(&runner, &TaskRunner::signInNeeded, this, [&, runnerPtr = &runner] {
            ++waits;
            runnerPtr->resumeAfterSignIn(fresh);
        });
    });
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(waits, 1);
    QCOMPARE(turn, 3);
    QCOMPARE(m_provider->inputsSent, 0);
    QCOMPARE(signedIn.navigations, 1);
    QCOMPARE(results.at(2).value("error").toObject().value("code").toString(),
             QStringLiteral("tool.browser.page_changed"));
    QVERIFY(results.at(2).contains(QLatin1String("resumed")));
    QVERIFY(results.at(2).contains(QLatin1String("observation")));
    QCOMPARE(result.usage.staleRecoveries, 1);
}

void TestTaskRunner::completionPredicatesAreParsedStrictly()
{
    const auto parsed = [](const QByteArray &json) {
        return CompletionPredicate::fromJson(QJsonDocument::fromJson(json).object());
    };
    const auto text =
        parsed(R"({"kind":"text","text":"  Order\n placed ","failure_texts":["Declined"]})");
    QVERIFY(text.ok());
    QCOMPARE(text->kind, CompletionPredicate::Kind::Text);
    QCOMPARE(text->text, QStringLiteral("Order placed"));
    QCOMPARE(text->failureTexts, QStringList{QStringLiteral("Declined")});
    const auto region = parsed(R"({"kind":"region","name":"Receipt","region_kind":"status"})");
    QVERIFY(region.ok());
    QCOMPARE(region->regionKind, QStringLiteral("status"));
    const QByteArray anyRegion = R"({"kind":"region","name":"Receipt"})";
    QVERIFY(parsed(anyRegion).ok());
    const auto url = parsed(R"({"kind":"url","url":"https://shop.example.com/orders?placed=1"})");
    QVERIFY(url.ok());
    QCOMPARE(url->url.path(), QStringLiteral("/orders"));
    const QByteArray row = R"({"kind":"row","cells":["Kettle","1"]})";
    QVERIFY(parsed(row).ok());
    const QString long257(257, u'x');
    for (const QByteArray &refused :
         {QByteArray(R"({})"), QByteArray(R"({"kind":"page_changed"})"),
          QByteArray(R"({"kind":"text"})"), QByteArray(R"({"kind":"text","text":"  "})"),
          QByteArray(R"({"kind":"text","text":7})"),
          QByteArray(R"({"kind":"text","text":"x","name":"y"})"),
          QByteArray(R"({"kind":"text","text":"x","wait":true})"),
          QByteArray(QByteArray(R"({"kind":"text","text":")") + long257.toUtf8() + "\"}"),
          QByteArray(R"({"kind":"region","name":"x","region_kind":"button"})"),
          QByteArray(R"({"kind":"url","url":"http://shop.example.com/"})"),
          QByteArray(R"({"kind":"url","url":"https://shop.example.com/#done"})"),
          QByteArray(R"({"kind":"url","url":"https://u:p@shop.example.com/"})"),
          QByteArray(R"({"kind":"url","url":"/orders"})"),
          QByteArray(R"({"kind":"row","cells":[]})"),
          QByteArray(R"({"kind":"row","cells":["1","2","3","4","5","6","7","8","9"]})"),
          QByteArray(R"({"kind":"row","cells":["a",""]})"),
          QByteArray(R"({"kind":"text","text":"x","failure_texts":["a","b","c","d","e"]})"),
          QByteArray(R"({"kind":"text","text":"x","failure_texts":"Declined"})")}) {
        const auto result = parsed(refused);
        QVERIFY2(!result, refused.constData());
        QCOMPARE(result.error().code, QStringLiteral("tool.invalid_arguments"));
    }
}

void TestTaskRunner::completionPredicatesReadThePage()
{
    BrowserObservation page;
    page.url = QUrl(QStringLiteral("https://shop.example.com/orders?id=7&placed=1"));
    page.text = QStringLiteral("Your orders\nOrder   placed\nItem\tQty\tPrice\nKettle\t1\t€20\n");
    page.regions = {RegionRecord{QStringLiteral("g1"), QStringLiteral("status"),
                                 QStringLiteral("Receipt"), 0, QString(), false}};
    const auto read = [&page](const QByteArray &json) {
        return CompletionPredicate::fromJson(QJsonDocument::fromJson(json).object())->read(page);
    };
    using Reading = CompletionPredicate::Reading;
    const QList<std::pair<QByteArray, Reading>> rows{
        {R"({"kind":"text","text":"Order placed"})", Reading::Satisfied},
        {R"({"kind":"text","text":"order placed"})", Reading::NotSeen},
        {R"({"kind":"region","name":"Receipt"})", Reading::Satisfied},
        {R"({"kind":"region","name":"Receipt","region_kind":"status"})", Reading::Satisfied},
        {R"({"kind":"region","name":"Receipt","region_kind":"dialog"})", Reading::NotSeen},
        {R"({"kind":"url","url":"https://shop.example.com/orders?placed=1"})", Reading::Satisfied},
        {R"({"kind":"url","url":"https://shop.example.com/orders?placed=0"})", Reading::NotSeen},
        {R"({"kind":"url","url":"https://shop.example.com/orders/7"})", Reading::NotSeen},
        {R"({"kind":"url","url":"https://other.example.com/orders"})", Reading::NotSeen},
        {R"({"kind":"row","cells":["Kettle","€20"]})", Reading::Satisfied},
        {R"({"kind":"row","cells":["€20","Kettle"]})", Reading::NotSeen},
        {R"({"kind":"row","cells":["Kettle","Qty"]})", Reading::NotSeen},
        // A failure text outweighs the predicate on the same page.
        {R"({"kind":"text","text":"Order placed","failure_texts":["Kettle"]})",
         Reading::FailureSeen}};
    for (const auto &[json, expected] : rows)
        QVERIFY2(read(json) == expected, json.constData());
}

void TestTaskRunner::onlyThePredicateSeenAfterTheLastActVerifies_data()
{
    QTest::addColumn<QByteArray>("predicate"); // empty: none stated
    QTest::addColumn<bool>("statedAfterAct");
    QTest::addColumn<int>("lateBy");
    QTest::addColumn<int>("outcome");
    QTest::addColumn<int>("evidence");
    QTest::addColumn<QString>("stopCode");
    QTest::addColumn<int>("ownReads"); // the runner's reads after the answer (one step)
    using E = TaskRunner::Evidence;
    const int verified = int(RunOutcome::Verified);
    const int unverified = int(RunOutcome::Unverified);
    QTest::newRow("page changed, nothing stated")
        << QByteArray() << false << 0 << unverified << int(E::NoPredicate) << QString() << 0;
    QTest::newRow("text seen") << QByteArray(R"({"kind":"text","text":"Paid"})") << false << 0
                               << verified << int(E::PredicateSeen) << QString() << 0;
    QTest::newRow("region seen")
        << QByteArray(R"({"kind":"region","name":"Receipt","region_kind":"status"})") << false << 0
        << verified << int(E::PredicateSeen) << QString() << 0;
    QTest::newRow("url seen")
        << QByteArray(R"({"kind":"url","url":"https://shop.example.com/done?order=7"})") << false
        << 0 << verified << int(E::PredicateSeen) << QString() << 0;
    QTest::newRow("row seen before the act") // the cart's row was there all along
        << QByteArray(R"({"kind":"row","cells":["Kettle","€20"]})") << false << 0 << unverified
        << int(E::PredicateBeforeActs) << QString() << 0;
    QTest::newRow("text never seen")
        << QByteArray(R"({"kind":"text","text":"Refunded"})") << false << 0 << unverified
        << int(E::PredicateNotSeen) << QString() << TaskRunner::kCompletionReads;
    QTest::newRow("failure seen")
        << QByteArray(R"({"kind":"text","text":"Receipt","failure_texts":["Paid"]})") << false << 0
        << unverified << int(E::FailureSeen) << QStringLiteral("run.failure_seen") << 0;
    QTest::newRow("stated after the act")
        << QByteArray(R"({"kind":"text","text":"Paid"})") << true << 0 << unverified
        << int(E::NoPredicate) << QString() << 0;
    QTest::newRow("a late confirmation, seen by the run's own look")
        << QByteArray(R"({"kind":"text","text":"Paid"})") << false << 1 << verified
        << int(E::PredicateSeen) << QString() << 1;
}

// The model states (or not) what the page shows when the task is done, observes, acts once,
// and claims success. The page changes after the act every time; only the predicate seen
// after the act, and not before it, makes the run verified.
void TestTaskRunner::onlyThePredicateSeenAfterTheLastActVerifies()
{
    QFETCH(QByteArray, predicate);
    QFETCH(bool, statedAfterAct);
    QFETCH(int, lateBy);
    m_provider->lateBy = lateBy;
    m_provider->regionsAfterAct = {RegionRecord{QStringLiteral("g1"), QStringLiteral("status"),
                                                QStringLiteral("Receipt"), 0, QString(), false}};
    m_provider->urlAfterAct = QUrl(QStringLiteral("https://shop.example.com/done?order=7&x=1"));
    const QJsonObject stated = QJsonDocument::fromJson(predicate).object();
    QList<QJsonObject> script;
    if (!predicate.isEmpty() && !statedAfterAct)
        script << stated;
    script << QJsonObject{{QStringLiteral("observe"), true}} << QJsonObject{{"act", true}};
    if (!predicate.isEmpty() && statedAfterAct)
        script << stated;
    int turn = 0;
    QJsonObject view;
    QList<QJsonObject> results;
    QList<bool> offeredExpect;
    m_model->setBrain([&](const QJsonObject &request) {
        const QJsonObject result = lastToolResult(request);
        results << result;
        offeredExpect << ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_expect"));
        if (result.value("trust").toString() == QLatin1String("EXTERNAL_UNTRUSTED"))
            view = result;
        if (turn >= script.size())
            return ScriptedModelServer::text(QStringLiteral("Paid."));
        const QJsonObject step = script.at(turn++);
        if (step.contains(QLatin1String("observe")))
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        if (step.contains(QLatin1String("act")))
            return actOn(view);
        return expect(step);
    });
    const TaskRunner::Result result = runTask();
    QCOMPARE(result.status, RunStatus::Completed);
    QCOMPARE(result.answer, QStringLiteral("Paid."));
    QCOMPARE(m_provider->inputsSent, 1);
    QTEST(int(result.outcome), "outcome");
    QTEST(int(result.evidence), "evidence");
    QTEST(result.stopCode, "stopCode");
    QFETCH(int, ownReads);
    QCOMPARE(m_provider->reads, 1 + ownReads);
    // The model's calls, and the run's own look as a step.
    QCOMPARE(result.usage.toolCalls, script.size());
    QCOMPARE(result.usage.steps, script.size() + 1 + (ownReads > 0 ? 1 : 0));
    if (statedAfterAct) {
        QCOMPARE(results.last().value("error").toObject().value("code").toString(),
                 QStringLiteral("run.expectation_too_late"));
        QCOMPARE(offeredExpect.last(), false); // no longer offered once an act was tried
    }
    if (!predicate.isEmpty() && !statedAfterAct)
        QCOMPARE(results.at(1).value("expected").toString(), QStringLiteral("stated"));
}

QTEST_MAIN(TestTaskRunner)
#include "tst_taskrunner.moc"
