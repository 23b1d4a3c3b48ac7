#pragma once

#include "ChatClient.h"
#include "CompletionPredicate.h"
#include "RunDriver.h"
#include "domain/run/Activity.h"
#include "domain/run/TaskRun.h"
#include "tools/ToolPipeline.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QObject>
#include <QUrl>

#include <functional>
#include <optional>

namespace veetbot {

class EffectLedger;

// The model loop of a task run (docs/runs.md): the owner's task to an OpenAI-compatible
// model with the browser tools as functions, each tool call through the session's
// ToolPipeline (arguments, policy, approval, the effect ledger), each result back to the
// model as the model projection inside its EXTERNAL_UNTRUSTED envelope, until the model gives
// its final answer (an assistant message without tool calls), a run ceiling is reached, the
// owner cancels, or the model endpoint fails.
//
//  - Ceilings (RunCeilings) are checked before every model and tool call and carried over
//    from earlier attempts; one model call and the money or token reserve are kept for a
//    final answer without tools when a ceiling stops the work.
//  - An act refused as tool.browser.page_changed (its ref's revision is stale) is followed by
//    one automatic browser.observe, at most three per run; its projection goes back with the
//    refusal.
//  - After an act whose outcome is unknown (here, or in an earlier attempt) no act is sent
//    again in the run: the model may observe and must answer (read-only reconciliation).
//  - A page that asks to sign in (the pipeline's sign-in wall, or a profile that needs the
//    owner) suspends the run. With waitForSignIn the run waits (signInNeeded()), nothing
//    in flight, the call that met the wall unanswered; resumeAfterSignIn() gives it the
//    fresh pipeline of a verified sign-in, and the run goes on from a fresh look at the page
//    it was on: that call is answered with its failure and the new observation, never
//    repeated, and no message is asked of the owner. A run waits at most twice
//    (RunCeilings::kSignInSuspensions); otherwise, or without waitForSignIn, it ends
//    needs_user (resumable with `veetbot run --resume`). An act that was sent before the page
//    asked is uncertain: no act is sent again in the run.
//  - Cancellation drops the model request in flight and cancels the tool call in flight; an
//    act whose dispatch may have started is reported outcome_unknown, never "not done".
//  - Completion evidence: besides the browser tools the model is offered veetbot_expect until
//    its first act, to state what the page will show when the task is done
//    (CompletionPredicate). Every observation after the last act that succeeded is read for
//    it, and, when none showed it by the final answer, the page a few more times (one step).
//    Only the predicate seen there, and not before any act, makes the outcome verified; a
//    failure text seen makes it unverified with run.failure_seen; a page that merely changed
//    is no evidence.
// It never logs, stores or puts in an error the task, a model message, page text or a key.
class TaskRunner : public RunDriver
{
    Q_OBJECT
public:
    static constexpr int kCompletionReads = 8;
    static constexpr int kCompletionReadIntervalMs = 250;

    // Prices in USD per million tokens.
    struct Price
    {
        double input = 0;
        double output = 0;
    };
    struct Options
    {
        QString task;
        QString model;
        QJsonArray tools; // the function definitions (name, description, parameters)
        int projectionBudget = 16 * 1024;
        std::optional<Price> price; // none: the token cap instead
        RunUsage usage;             // what earlier attempts used
        // A resumed run: the earlier attempts' acts whose outcome is unknown, described
        // content-free ("click on https://host"); acts stay suspended when there are any.
        QStringList uncertainActs;
        // ... and the ones that reached it and settled (the model is told not to repeat them).
        QStringList sentActs;
        bool resumed = false;
        int modelTimeoutMs = ChatClient::kDefaultTimeoutMs;
        // Wait for the owner's sign-in at a wall instead of ending (the composition resumes),
        // how often earlier attempts waited, and where to look again when the run knows no
        // page yet (the website's first origin).
        bool waitForSignIn = false;
        int signInSuspensions = 0;
        QUrl homePage;
        EffectLedger *ledger = nullptr; // to read an act's state after cancellation
        // The run's timeline (model.call events) and its store (progress after every call).
        std::function<void(const ActivityEvent &)> activity;
        std::function<void(const RunUsage &, RunOutcome)> progress;
        // A one-line state for a terminal ("model", "navigate", "act", "approval"...).
        std::function<void(const RunUsage &, const QString &phase)> status;
    };
    TaskRunner(ToolPipeline &pipeline, ChatClient &model, Options options,
               QObject *parent = nullptr);

    // What the run has used so far, and its outcome as the evidence stands.
    const RunUsage &usage() const override { return m_usage; }
    RunOutcome currentOutcome() const override { return outcome(); }

    void start() override;
    void cancel() override;
    // The profile's session needs the owner (a sign-in wall). Called for a tool result that
    // met the wall (tool.browser.needs_user, tool.browser.authentication_required, or an act
    // sent before the page asked): the run waits when it may (above), else it ends needs_user
    // with its progress kept. Called by anyone else, the run ends needs_user.
    void suspendForUser(const QString &code);
    // The owner signed in again and the profile service verified it: the waiting run goes on
    // with `pipeline` (a fresh lease of the profile), which must outlive the run. Ignored
    // unless the run waits.
    void resumeAfterSignIn(ToolPipeline &pipeline) override;
    // The wait is over without a sign-in (its bound passed, or the run could not be held):
    // the run ends needs_user.
    void stopWaitingForSignIn() override;
    bool waitingForSignIn() const override { return m_waiting; }

    static QString systemPrompt();

private:
    void nextModelCall();
    void finalReport(const QString &stopCode);
    void onModelReply(veetbot::Result<ChatClient::Reply> reply, bool final);
    void runNextToolCall();
    void onToolOutcome(const ChatClient::ToolCall &call, const QString &tool,
                       const QJsonObject &arguments, ToolPipeline::Outcome outcome);
    void recover(const ChatClient::ToolCall &call, const QByteArray &refusal);
    void answerToolCall(const ChatClient::ToolCall &call, const QByteArray &content);
    void finish(RunStatus status, const QString &stopCode, const QString &answer = QString());
    // Whether money or tokens allow another working call (false: only the final answer).
    bool budgetAllowsWork() const;
    bool budgetAllowsFinal() const;
    void account(const ChatClient::Reply &reply);
    RunOutcome outcome() const;
    void saveProgress();
    void setPhase(const QString &phase);
    void recordModelCall(const veetbot::Result<ChatClient::Reply> &reply, qint64 elapsedMs);
    static QByteArray errorBytes(const Error &error);
    // veetbot_expect: the completion predicate, before the first act only.
    QByteArray expect(const QJsonObject &arguments);
    // Reads an observation for the completion predicate.
    void readEvidence(const BrowserObservation &observation);
    Evidence evidence() const;
    // The final answer came and no observation after the last act showed the predicate: the
    // run looks again (kCompletionReads reads, kCompletionReadIntervalMs apart, until it shows
    // the predicate or a failure text), then completes with `answer`.
    bool lookForCompletion(const QString &answer);
    void readForCompletion(const QString &answer, int readsLeft);

    ToolPipeline *m_pipeline = nullptr;
    ChatClient &m_model;
    Options m_options;
    RunUsage m_usage;
    QJsonArray m_messages;
    QList<ChatClient::ToolCall> m_pendingCalls;
    std::optional<QString> m_stopAfterCalls; // a ceiling was reached inside a reply's calls
    quint64 m_inflightCall = 0;
    bool m_inflightAct = false;
    QUuid m_effectBefore;
    bool m_started = false;
    bool m_done = false;
    bool m_cancelled = false;
    bool m_actsSuspended = false;
    QElapsedTimer m_modelClock;
    // Evidence for the outcome.
    int m_actsTried = 0;
    int m_actsSucceeded = 0;
    int m_uncertain = 0;
    int m_observations = 0;
    // The completion predicate and what the observations showed of it.
    std::optional<CompletionPredicate> m_predicate;
    bool m_predicateBeforeActs = false;
    bool m_predicateSeen = false; // after the last act that succeeded
    bool m_failureSeen = false;   // ditto
    std::optional<BrowserObservation> m_lastSeenBeforeActs;
    // The last page seen without a wall, and the sign-in wait.
    QUrl m_lastPage;
    bool m_waiting = false;
    int m_signInSuspensions = 0;
    std::optional<ChatClient::ToolCall> m_heldCall; // met the wall, answered on resumption
    QByteArray m_heldAnswer;
    QUrl m_resumePage;
};

} // namespace veetbot
