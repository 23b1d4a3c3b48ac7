// The tool pipeline over a scripted provider: arguments, policy, single-use approvals, the
// effect ledger's record of every act (dispatch_started committed through the provider's
// dispatch gate before any input), refusals before the gate leaving nothing sent, failures
// after it ending uncertain and never resent, postconditions, cancellation, diagnostics.

#include "domain/action/ActRequest.h"
#include "ledger/EffectLedger.h"
#include "tools/Approvers.h"
#include "tools/ToolFailure.h"
#include "tools/ToolPipeline.h"

#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace veetbot;

namespace {

// What the scripted provider does with the next act.
enum class ActScript
{
    Succeed,          // gate, then a new observation
    RefuseBeforeGate, // element_not_found without asking the gate
    FailAfterGate,    // gate, then the capture is lost
    HoldBeforeGate,   // kept until resumeHeldAct(), which asks the gate only then
    HoldAfterGate     // gate, input sent, then the answer is kept until answerHeld()
};

class ScriptedProvider : public BrowserProvider
{
public:
    QList<ActScript> acts;
    int actCalls = 0;
    int inputsSent = 0; // acts that passed the gate: what the site would have seen
    QList<ElementRecord> elements{
        ElementRecord{QStringLiteral("p.0"), QStringLiteral("button"), QStringLiteral("Pay"), {}},
        ElementRecord{
            QStringLiteral("p.1"), QStringLiteral("button"), QStringLiteral("Cancel"), {}}};
    QString revision;
    bool holdReads = false; // navigate/observe answers are kept until answerHeld()
    QList<ObservationCallback> held;
    std::optional<std::pair<ActRequest, ObservationCallback>> heldBeforeGate;
    int reads = 0;

    // Answers every kept call now, each with a fresh observation.
    void answerHeld()
    {
        const auto calls = std::exchange(held, {});
        for (const ObservationCallback &done : calls)
            done(fresh());
    }
    // The held act reaches its gate late: it sends only if the gate opens.
    void resumeHeldAct()
    {
        auto [request, done] = std::move(*heldBeforeGate);
        heldBeforeGate.reset();
        askDispatchGate(request, [this, done = std::move(done)](bool open) {
            if (!open) {
                done(Error::fromReason(ReasonCode::ProviderUnavailable));
                return;
            }
            ++inputsSent;
            done(fresh());
        });
    }

    ProviderCapabilities capabilities() const override
    {
        ProviderCapabilities capabilities;
        capabilities.navigate = capabilities.observe = capabilities.expand = true;
        capabilities.act = true;
        return capabilities;
    }
    BrowserObservation fresh()
    {
        BrowserObservation observation;
        observation.url = QUrl(QStringLiteral("https://shop.example.com/cart"));
        observation.title = QStringLiteral("Cart");
        observation.revision = newRevision();
        observation.elements = elements;
        revision = observation.revision;
        return observation;
    }
    void later(ObservationCallback done, Result<BrowserObservation> result)
    {
        QTimer::singleShot(0, this, [done = std::move(done), result]() { done(result); });
    }
    QList<NavigateRequest> navigations;                       // what each navigate asked for
    std::optional<Result<BrowserObservation>> navigateAnswer; // else a fresh observation
    void navigate(const NavigateRequest &request, ObservationCallback done) override
    {
        navigations.append(request);
        if (navigateAnswer) {
            later(std::move(done), *navigateAnswer);
            return;
        }
        observe(ObserveRequest(), std::move(done));
    }
    void observe(const ObserveRequest &, ObservationCallback done) override
    {
        ++reads;
        if (holdReads)
            held.append(std::move(done));
        else
            later(std::move(done), fresh());
    }
    void act(const ActRequest &request, ObservationCallback done) override
    {
        ++actCalls;
        const ActScript script = acts.isEmpty() ? ActScript::Succeed : acts.takeFirst();
        if (request.expectedRevision() != revision) {
            later(std::move(done), Error::fromReason(ReasonCode::PageChanged));
            return;
        }
        if (script == ActScript::RefuseBeforeGate) {
            later(std::move(done), Error::fromReason(ReasonCode::ElementNotFound));
            return;
        }
        if (script == ActScript::HoldBeforeGate) {
            heldBeforeGate.emplace(request, std::move(done));
            return;
        }
        askDispatchGate(request, [this, script, done = std::move(done)](bool open) mutable {
            if (!open) {
                later(std::move(done), Error::fromReason(ReasonCode::ProviderUnavailable));
                return;
            }
            ++inputsSent;
            if (script == ActScript::HoldAfterGate) {
                held.append(std::move(done));
                return;
            }
            if (script == ActScript::FailAfterGate) {
                revision.clear();
                later(std::move(done), Error::fromReason(ReasonCode::OutcomeUnknown));
                return;
            }
            later(std::move(done), fresh());
        });
    }
    void close() override {}
    std::optional<ElementFacts> elementFacts(const QString &, const QString &ref) const override
    {
        return ElementFacts{QStringLiteral("button"),
                            ref == QLatin1String("p.0") ? QStringLiteral("Pay")
                                                        : QStringLiteral("Cancel"),
                            QString(),
                            QString(),
                            QString(),
                            QString()};
    }
};

QJsonObject json(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).object();
}

} // namespace

class TestToolPipeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void noProviderNoTool();
    void readsRunWithoutApproval();
    void invalidArgumentsAreRefusedFirst();
    void deniedActsSendNothing();
    void aWritingAddressAsksLikeAnAct();
    void aReadingAddressIsGuardedAndAsksNobody();
    void approvedActIsRecordedBeforeDispatch();
    void approvalNeverCarriesOver();
    void staleRevisionIsRefusedBeforeAsking();
    void refusalBeforeTheGateIsNotSent();
    void failureAfterTheGateIsUncertain();
    void ledgerFailureBeforeDispatchSendsNothing();
    void ledgerFailureAfterDispatchIsUncertain();
    void boundedScrollNeedsNoApproval();
    void postconditionCompletes();
    void cancelWhileWaitingSendsNothing();
    void deadlineEndsEachCallWithoutASecondSend();
    void cancelAtTheProviderBeforeOrAfterDispatch();

private:
    ToolPipeline::Outcome run(const QString &tool, const QJsonObject &arguments);
    QString navigate();
    QList<EffectState> history() const;
    void failLedgerWritesTo(EffectState state);
    QJsonObject act(const QString &ref, const QString &revision, const QString &kind = "click");

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EffectLedger> m_ledger;
    std::unique_ptr<ScriptedProvider> m_provider;
    std::unique_ptr<ScriptedApprover> m_approver;
    std::unique_ptr<ToolPipeline> m_pipeline;
};

void TestToolPipeline::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    auto ledger = EffectLedger::open(m_dir->filePath(QStringLiteral("effects.sqlite")));
    QVERIFY(ledger.ok());
    m_ledger = std::move(ledger).value();
    m_provider = std::make_unique<ScriptedProvider>();
    m_approver = std::make_unique<ScriptedApprover>();
    ToolPipeline::Options options;
    options.context.isolatedProvider = true;
    options.context.turn = TurnSource::Owner;
    m_pipeline =
        std::make_unique<ToolPipeline>(m_provider.get(), *m_approver, m_ledger.get(), options);
}

void TestToolPipeline::cleanup()
{
    m_pipeline.reset();
    m_approver.reset();
    m_provider.reset();
    m_ledger.reset();
    m_dir.reset();
}

ToolPipeline::Outcome TestToolPipeline::run(const QString &tool, const QJsonObject &arguments)
{
    std::optional<ToolPipeline::Outcome> out;
    m_pipeline->call(tool, arguments, [&out](ToolPipeline::Outcome outcome) {
        if (out)
            qFatal("done ran twice");
        out = std::move(outcome);
    });
    if (!QTest::qWaitFor([&out] { return out.has_value(); }, 10000))
        qFatal("the pipeline did not answer");
    return std::move(*out);
}

QString TestToolPipeline::navigate()
{
    const auto out =
        run(QStringLiteral("browser.navigate"), json(R"({"url":"https://shop.example.com/cart"})"));
    return out.result ? out.result->revision : QString();
}

QJsonObject TestToolPipeline::act(const QString &ref, const QString &revision, const QString &kind)
{
    QJsonObject arguments{{QStringLiteral("kind"), kind},
                          {QStringLiteral("expected_revision"), revision},
                          {QStringLiteral("ref"), ref}};
    if (kind == QLatin1String("scroll"))
        arguments.insert(QStringLiteral("delta"), 400);
    return arguments;
}

QList<EffectState> TestToolPipeline::history() const
{
    const auto states = m_ledger->history(m_pipeline->lastEffectId());
    return states ? *states : QList<EffectState>();
}

void TestToolPipeline::noProviderNoTool()
{
    ToolPipeline bare(nullptr, *m_approver, m_ledger.get(), {});
    QVERIFY(bare.registry().tools().isEmpty());
    std::optional<ToolPipeline::Outcome> out;
    bare.call(QStringLiteral("browser.navigate"), json(R"({"url":"https://a.example/"})"),
              [&out](ToolPipeline::Outcome o) { out = std::move(o); });
    QTRY_VERIFY(out.has_value());
    QCOMPARE(out->result.error(), ToolFailure::policyDenied());
}

void TestToolPipeline::readsRunWithoutApproval()
{
    QVERIFY(!navigate().isEmpty());
    const auto observed = run(QStringLiteral("browser.observe"), QJsonObject());
    QVERIFY(observed.result.ok());
    QVERIFY(observed.diagnostics);
    QVERIFY(observed.diagnostics->isValid());
    const auto waited = run(QStringLiteral("browser.observe"),
                            json(R"({"wait_for":{"role":"button","name":"Pay"}})"));
    QVERIFY(waited.result.ok());
    QCOMPARE(waited.result->waitFor->status, WaitOutcome::Status::Satisfied);
    QCOMPARE(m_approver->requests().size(), 0);
    QCOMPARE(m_provider->actCalls, 0);
}

void TestToolPipeline::invalidArgumentsAreRefusedFirst()
{
    const QString revision = navigate();
    for (const QJsonObject &arguments :
         {json(R"({"kind":"click"})"),
          json(R"({"kind":"hover","expected_revision":"r","ref":"p.0"})"),
          QJsonObject{{QStringLiteral("kind"), QStringLiteral("scroll")},
                      {QStringLiteral("expected_revision"), revision},
                      {QStringLiteral("ref"), QStringLiteral("p.0")},
                      {QStringLiteral("delta"), 0}}}) {
        const auto out = run(QStringLiteral("browser.act"), arguments);
        QCOMPARE(out.result.error(), ToolArguments::invalidArguments());
    }
    QCOMPARE(run(QStringLiteral("browser.observe"), json(R"({"selector":"#a"})")).result.error(),
             ToolArguments::invalidArguments());
    QCOMPARE(run(QStringLiteral("browser.navigate"), json(R"({"url":3})")).result.error(),
             ToolArguments::invalidArguments());
    QCOMPARE(m_approver->requests().size(), 0);
    QCOMPARE(m_provider->actCalls, 0);
}

void TestToolPipeline::deniedActsSendNothing()
{
    const QString revision = navigate();
    for (ApprovalAnswer answer : {ApprovalAnswer::Declined, ApprovalAnswer::Cancelled,
                                  ApprovalAnswer::Failed, ApprovalAnswer::TimedOut}) {
        m_approver->enqueue(answer);
        const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
        QCOMPARE(out.result.error(), ToolFailure::approvalDenied());
        QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::NotSent}));
    }
    QCOMPARE(m_provider->actCalls, 0);
    QCOMPARE(m_provider->inputsSent, 0);
    // The owner saw the element described from the private facts, never the ref.
    QCOMPARE(m_approver->requests().size(), 4);
}

// A navigation to an address that writes (a nonce link) asks the owner: denied, nothing reaches
// the provider and the ledger says not_sent; approved, it is sent once, unguarded, recorded
// like an act; a navigation the page cancelled is closed observed_not_complete.
void TestToolPipeline::aWritingAddressAsksLikeAnAct()
{
    const QJsonObject trash = json(
        R"({"url":"https://shop.acme-store.com/wp-admin/post.php?post=12&action=trash&_wpnonce=a1b2c3d4e5"})");
    for (ApprovalAnswer answer : {ApprovalAnswer::Declined, ApprovalAnswer::TimedOut}) {
        m_approver->enqueue(answer);
        QCOMPARE(run(QStringLiteral("browser.navigate"), trash).result.error(),
                 ToolFailure::approvalDenied());
        QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::NotSent}));
    }
    QCOMPARE(m_provider->navigations.size(), 0);
    QCOMPARE(m_approver->requests().size(), 2);
    const ApprovalView &view = m_approver->requests().first().view;
    QCOMPARE(view.kind, QStringLiteral("navigate"));
    QCOMPARE(view.consequence, QStringLiteral("destructive"));
    QVERIFY2(!view.toText().contains(QLatin1String("a1b2c3d4e5")), qPrintable(view.toText()));
    // The card names the address's operation, never its token.
    QVERIFY2(view.toText().contains(QString::fromUtf8("post.php \xC2\xB7 trash")),
             qPrintable(view.toText()));

    m_approver->enqueue(ApprovalAnswer::Approved);
    const auto approved = run(QStringLiteral("browser.navigate"), trash);
    QVERIFY(approved.result.ok());
    QCOMPARE(m_provider->navigations.size(), 1);
    QVERIFY(!m_provider->navigations.first().guarded);
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::Dispatched}));
    const auto record = m_ledger->record(m_pipeline->lastEffectId());
    QVERIFY(record.ok());
    QCOMPARE(record->call.tool, QStringLiteral("browser.navigate"));

    // The page's beforeunload answered "stay": nothing left, and it is never sent again.
    m_provider->navigateAnswer = Error::fromReason(ReasonCode::NavigationCancelled);
    m_approver->enqueue(ApprovalAnswer::Approved);
    QCOMPARE(run(QStringLiteral("browser.navigate"), trash).result.error().code,
             QStringLiteral("tool.browser.navigation_cancelled"));
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                            EffectState::DispatchStarted, EffectState::Dispatched,
                                            EffectState::ObservedNotComplete}));
    // Anything else after its dispatch began may have reached the site.
    m_provider->navigateAnswer = Error::fromReason(ReasonCode::ProviderUnavailable);
    m_approver->enqueue(ApprovalAnswer::Approved);
    QCOMPARE(run(QStringLiteral("browser.navigate"), trash).result.error().code,
             QStringLiteral("tool.browser.outcome_unknown"));
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::OutcomeUnknown}));
}

// A reading address asks nobody and is sent guarded: the browser judges every document it
// loads. discard_unsaved travels; anything else in the arguments is refused first.
void TestToolPipeline::aReadingAddressIsGuardedAndAsksNobody()
{
    const auto list = run(
        QStringLiteral("browser.navigate"),
        json(
            R"({"url":"https://shop.example.com/wp-admin/edit.php?s=a&action=-1&paged=2","discard_unsaved":true})"));
    QVERIFY(list.result.ok());
    QCOMPARE(m_approver->requests().size(), 0);
    QCOMPARE(m_provider->navigations.size(), 1);
    QVERIFY(m_provider->navigations.first().guarded);
    QVERIFY(m_provider->navigations.first().discardUnsaved);
    for (const char *arguments : {R"({"url":"https://shop.example.com/","discard_unsaved":1})",
                                  R"({"url":"https://shop.example.com/","approved":true})"})
        QCOMPARE(run(QStringLiteral("browser.navigate"), json(arguments)).result.error(),
                 ToolArguments::invalidArguments());
    QCOMPARE(m_provider->navigations.size(), 1);
}

void TestToolPipeline::approvedActIsRecordedBeforeDispatch()
{
    const QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(out.result.ok());
    QVERIFY(out.result->revision != revision);
    QCOMPARE(m_provider->inputsSent, 1);
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::Dispatched}));
    QVERIFY(out.diagnostics && out.diagnostics->isValid());
    QVERIFY(out.diagnostics->phases.size() >= 2);
}

void TestToolPipeline::approvalNeverCarriesOver()
{
    QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    QVERIFY(run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision)).result.ok());
    revision = m_provider->revision;
    // The next act, even on the same element, asks again; a declined one sends nothing.
    m_approver->enqueue(ApprovalAnswer::Declined);
    const auto second = run(QStringLiteral("browser.act"), act(QStringLiteral("p.1"), revision));
    QCOMPARE(second.result.error(), ToolFailure::approvalDenied());
    QCOMPARE(m_approver->requests().size(), 2);
    QCOMPARE(m_provider->inputsSent, 1);
}

void TestToolPipeline::staleRevisionIsRefusedBeforeAsking()
{
    const QString old = navigate();
    navigate();
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), old));
    QVERIFY(out.result.error().is(ReasonCode::PageChanged));
    QCOMPARE(m_approver->requests().size(), 0);
    QCOMPARE(m_provider->actCalls, 0);
}

void TestToolPipeline::refusalBeforeTheGateIsNotSent()
{
    const QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::RefuseBeforeGate};
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(out.result.error().is(ReasonCode::ElementNotFound));
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                            EffectState::NotSent}));
    QCOMPARE(m_provider->inputsSent, 0);
}

// Fault injection: through a second connection to the ledger's file, a trigger makes every
// update of a call to `state` fail, as a full disk or a vanished file would.
void TestToolPipeline::failLedgerWritesTo(EffectState state)
{
    const QString connection = QStringLiteral("fault-injection");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(m_dir->filePath(QStringLiteral("effects.sqlite")));
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(QStringLiteral("CREATE TRIGGER fault BEFORE UPDATE OF state ON "
                                          "effect_calls WHEN NEW.state = '%1' BEGIN "
                                          "SELECT RAISE(ABORT, 'injected fault'); END")
                               .arg(effectStateString(state))));
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
}

// A ledger that cannot commit dispatch_started stops the act at its gate: nothing is sent.
void TestToolPipeline::ledgerFailureBeforeDispatchSendsNothing()
{
    const QString revision = navigate();
    failLedgerWritesTo(EffectState::DispatchStarted);
    m_approver->enqueue(ApprovalAnswer::Approved);
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(!out.result.ok());
    QVERIFY(!out.result.error().is(ReasonCode::OutcomeUnknown));
    QCOMPARE(m_provider->actCalls, 1);
    QCOMPARE(m_provider->inputsSent, 0);
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                            EffectState::NotSent}));
}

// A settled act the ledger cannot record as dispatched answers outcome_unknown, which is what
// the ledger says of it once reopened (its row stayed at dispatch_started).
void TestToolPipeline::ledgerFailureAfterDispatchIsUncertain()
{
    const QString revision = navigate();
    failLedgerWritesTo(EffectState::Dispatched);
    m_approver->enqueue(ApprovalAnswer::Approved);
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(!out.result.ok());
    QVERIFY(out.result.error().is(ReasonCode::OutcomeUnknown));
    QCOMPARE(m_provider->inputsSent, 1);
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::OutcomeUnknown}));
}

void TestToolPipeline::failureAfterTheGateIsUncertain()
{
    const QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::FailAfterGate};
    const auto out = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(out.result.error().is(ReasonCode::OutcomeUnknown));
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::OutcomeUnknown}));
    QCOMPARE(m_provider->inputsSent, 1);
    // Never resent: the same arguments name a revision that is gone.
    m_approver->enqueue(ApprovalAnswer::Approved);
    const auto again = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(!again.result.ok());
    QCOMPARE(m_provider->inputsSent, 1);
    QCOMPARE(out.diagnostics->phases.last().outcome, Diagnostics::Outcome::Uncertain);
}

void TestToolPipeline::boundedScrollNeedsNoApproval()
{
    ToolPipeline::Options options;
    options.settings.allowScroll = true;
    options.context.isolatedProvider = true;
    options.context.turn = TurnSource::Owner;
    m_pipeline =
        std::make_unique<ToolPipeline>(m_provider.get(), *m_approver, m_ledger.get(), options);
    QString revision = navigate();
    const auto scrolled =
        run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision, "scroll"));
    QVERIFY(scrolled.result.ok());
    QCOMPARE(m_approver->requests().size(), 0);
    QCOMPARE(m_provider->inputsSent, 1);
    // A click still needs the owner.
    revision = m_provider->revision;
    m_approver->enqueue(ApprovalAnswer::Declined);
    const auto clicked = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QCOMPARE(clicked.result.error(), ToolFailure::approvalDenied());
    QCOMPARE(m_approver->requests().size(), 1);
    QCOMPARE(m_provider->inputsSent, 1);
}

void TestToolPipeline::postconditionCompletes()
{
    const QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    QJsonObject arguments = act(QStringLiteral("p.0"), revision);
    arguments.insert(QStringLiteral("postcondition"),
                     json(R"({"role":"button","name":"Cancel","timeout_ms":0})"));
    const auto out = run(QStringLiteral("browser.act"), arguments);
    QVERIFY(out.result.ok());
    QCOMPARE(out.result->waitFor->status, WaitOutcome::Status::Satisfied);
    QCOMPARE(history().last(), EffectState::ObservedComplete);

    // An unmet postcondition proves nothing: the call stays dispatched.
    m_approver->enqueue(ApprovalAnswer::Approved);
    arguments = act(QStringLiteral("p.0"), m_provider->revision);
    arguments.insert(QStringLiteral("postcondition"),
                     json(R"({"role":"button","name":"Receipt","timeout_ms":0})"));
    const auto unmet = run(QStringLiteral("browser.act"), arguments);
    QVERIFY(unmet.result.ok());
    QCOMPARE(unmet.result->waitFor->status, WaitOutcome::Status::NotObserved);
    QCOMPARE(history().last(), EffectState::Dispatched);
}

void TestToolPipeline::cancelWhileWaitingSendsNothing()
{
    const QString revision = navigate();
    std::optional<ToolPipeline::Outcome> out;
    const quint64 id =
        m_pipeline->call(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision),
                         [&out](ToolPipeline::Outcome o) { out = std::move(o); });
    QTRY_COMPARE(m_approver->pendingCount(), 1); // waiting for the owner
    m_pipeline->cancel(id);
    QTRY_VERIFY(out.has_value());
    QVERIFY(!out->result.ok());
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::NotSent}));
    QCOMPARE(m_provider->actCalls, 0);
    // A later approval for it changes nothing.
    QVERIFY(!m_approver->answerPending(ApprovalAnswer::Approved));
    QCOMPARE(m_provider->inputsSent, 0);
}

// Each call's deadline starts at its dispatch: a read past it fails and holds the queue until
// the provider answers; an act before its gate is closed out (the late gate refuses, nothing
// sent); an act after its gate is uncertain, and its late answer changes nothing.
void TestToolPipeline::deadlineEndsEachCallWithoutASecondSend()
{
    ToolPipeline::Options options;
    options.context.isolatedProvider = true;
    options.context.turn = TurnSource::Owner;
    options.callDeadlineMs = 300;
    m_pipeline =
        std::make_unique<ToolPipeline>(m_provider.get(), *m_approver, m_ledger.get(), options);

    // A read.
    m_provider->holdReads = true;
    const auto late = run(QStringLiteral("browser.observe"), QJsonObject());
    QVERIFY(late.result.error().is(ReasonCode::ProviderUnavailable));
    m_provider->holdReads = false;
    const int readsBefore = m_provider->reads;
    std::optional<ToolPipeline::Outcome> next;
    m_pipeline->call(QStringLiteral("browser.observe"), QJsonObject(),
                     [&next](ToolPipeline::Outcome o) { next = std::move(o); });
    // Positive control: a second pipeline, called after this one, reaches its own provider. Its
    // call goes the same way (queued, then started from the event loop), each step posted after
    // this call's, so by then this pipeline had its turn to start the queued read.
    ScriptedProvider controlProvider;
    ScriptedApprover controlApprover;
    ToolPipeline control(&controlProvider, controlApprover, nullptr, options);
    std::optional<ToolPipeline::Outcome> controlOut;
    control.call(QStringLiteral("browser.observe"), QJsonObject(),
                 [&controlOut](ToolPipeline::Outcome o) { controlOut = std::move(o); });
    QTRY_COMPARE(controlProvider.reads, 1);
    QCOMPARE(m_provider->reads, readsBefore); // the provider still owes the late answer
    QVERIFY(!next.has_value());
    m_provider->answerHeld();
    QVERIFY(QTest::qWaitFor([&next] { return next.has_value(); }, 5000));
    QVERIFY(next->result.ok());

    // An act whose gate was never reached.
    QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::HoldBeforeGate};
    const auto closedOut = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(closedOut.result.error().is(ReasonCode::ProviderUnavailable));
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                            EffectState::NotSent}));
    m_provider->resumeHeldAct();
    QCOMPARE(m_provider->inputsSent, 0);
    QCOMPARE(history().last(), EffectState::NotSent);
    // The next navigation, queued after the late answer, is the positive control: anything that
    // answer set off has run once it is done, and still nothing was sent.
    revision = navigate();
    QCOMPARE(m_provider->inputsSent, 0);
    QCOMPARE(history().last(), EffectState::NotSent);

    // An act whose input was sent.
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::HoldAfterGate};
    const auto uncertain = run(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision));
    QVERIFY(uncertain.result.error().is(ReasonCode::OutcomeUnknown));
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::OutcomeUnknown}));
    QCOMPARE(m_provider->inputsSent, 1);
    m_provider->answerHeld();
    // The queue moves on; the navigation, queued after the late answer, is also the positive
    // control: anything that answer set off has run once it is done.
    QVERIFY(!navigate().isEmpty());
    QCOMPARE(history().last(), EffectState::OutcomeUnknown);
    QCOMPARE(m_provider->inputsSent, 1);
}

// MCP's rule: a cancel before dispatch is not_sent, after dispatch outcome_unknown.
void TestToolPipeline::cancelAtTheProviderBeforeOrAfterDispatch()
{
    // Before: the act is at the provider, its gate not reached yet.
    QString revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::HoldBeforeGate};
    std::optional<ToolPipeline::Outcome> out;
    quint64 id =
        m_pipeline->call(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision),
                         [&out](ToolPipeline::Outcome o) { out = std::move(o); });
    QTRY_VERIFY(m_provider->heldBeforeGate.has_value());
    m_pipeline->cancel(id);
    m_provider->resumeHeldAct();
    QTRY_VERIFY(out.has_value());
    QVERIFY(!out->result.ok());
    QCOMPARE(m_provider->inputsSent, 0);
    QCOMPARE(history(), (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                            EffectState::NotSent}));

    // After: the input was sent; the answer is dropped and the act is uncertain.
    revision = navigate();
    m_approver->enqueue(ApprovalAnswer::Approved);
    m_provider->acts = {ActScript::HoldAfterGate};
    out.reset();
    id = m_pipeline->call(QStringLiteral("browser.act"), act(QStringLiteral("p.0"), revision),
                          [&out](ToolPipeline::Outcome o) { out = std::move(o); });
    QTRY_COMPARE(m_provider->inputsSent, 1);
    m_pipeline->cancel(id);
    m_provider->answerHeld();
    QTRY_VERIFY(out.has_value());
    QVERIFY(!out->result.ok());
    QCOMPARE(history(),
             (QList<EffectState>{EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::OutcomeUnknown}));
}

QTEST_GUILESS_MAIN(TestToolPipeline)
#include "tst_toolpipeline.moc"
