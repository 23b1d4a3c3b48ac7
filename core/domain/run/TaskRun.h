#pragma once

#include "domain/Result.h"

#include <QDateTime>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// A task run (`veetbot run`, docs/runs.md): the owner's task carried out by a model loop over
// the browser tools of one READY profile. Its durable record holds closed words, counts and a
// digest of the task: never the task, a model message, page text or a key.

// Why a run stopped, or that it has not.
enum class RunStatus
{
    Running,         // an attempt is (or was, until it died) working on it
    Completed,       // the model gave its final answer
    Failed,          // the model endpoint or the browser failed the run
    Refused,         // a check before any model work refused it
    BudgetExhausted, // a run ceiling was reached
    Cancelled,       // the owner stopped it
    NeedsUser        // only the owner can go on (a sign-in wall): resumable
};
QString runStatusString(RunStatus status);
std::optional<RunStatus> runStatusFromString(const QString &text);

// What the run's evidence says about its work, whatever the status.
enum class RunOutcome
{
    None,          // nothing was done that the run could report on
    ReadOnly,      // no act ran: the answer rests on observations only
    Verified,      // the last act succeeded and the page was seen changed after it
    Unverified,    // acts ran but no sign of progress was observed after the last one
    OutcomeUnknown // an act may have reached the site and nobody knows how it ended
};
QString runOutcomeString(RunOutcome outcome);
std::optional<RunOutcome> runOutcomeFromString(const QString &text);

// The run ceilings (the specification's browser-task limits): ceilings, not allowances.
struct RunCeilings
{
    static constexpr int kSteps = 160;
    static constexpr int kModelCalls = 120;
    static constexpr int kToolCalls = 160;
    static constexpr qint64 kCostCapMicroUsd = 30'000'000;     // USD 30
    static constexpr qint64 kFinalReserveMicroUsd = 3'000'000; // USD 3, kept for the answer
    static constexpr int kStaleRecoveries = 3;
    // A run waits for the owner's sign-in at most this often; the next wall ends it needs_user.
    static constexpr int kSignInSuspensions = 2;
    // Without prices: a token cap, and the part of it kept for the final answer.
    static constexpr qint64 kTokenCap = 2'000'000;
    static constexpr qint64 kFinalReserveTokens = 200'000;
};

// What a run has used, carried over from attempt to attempt (a resumed run never starts its
// limits again).
struct RunUsage
{
    int steps = 0;
    int modelCalls = 0;
    int toolCalls = 0;
    int staleRecoveries = 0;
    int acts = 0;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 costMicroUsd = 0;
    friend bool operator==(const RunUsage &, const RunUsage &) = default;
};

struct TaskRunRecord
{
    QUuid id; // also its activity-timeline run
    QUuid profileId;
    QString taskDigest; // SHA-256 of the task's UTF-8, lower-case hex
    QString model;      // the model's name as the owner gave it (1-128 characters)
    RunStatus status = RunStatus::Running;
    RunOutcome outcome = RunOutcome::None;
    QString stopCode; // the stable code of why it stopped, or empty
    RunUsage usage;
    // How often the run waited for the owner to sign in again (RunCeilings::kSignInSuspensions at
    // most).
    int signInSuspensions = 0;
    QDateTime startedAt;
    QDateTime updatedAt;
    std::optional<QDateTime> endedAt;
};

// One process's turn at a run.
struct TaskRunAttempt
{
    int seq = 0;       // 1, 2, ...
    QUuid ledgerOwner; // the effect-ledger instance that wrote this attempt's acts
    qint64 pid = 0;
    QDateTime startedAt;
    std::optional<QDateTime> endedAt;
    QString endStatus; // a RunStatus word, or "interrupted" (found dead by a later attempt)
};

// Whether the record's words and bounds are what a store may hold.
bool isStorable(const TaskRunRecord &record);

// The stable failures of task runs, each with a fixed message.
enum class TaskRunFailure
{
    NotFound,       // run.not_found
    NotResumable,   // run.not_resumable: it ended, or its task is another
    InProgress,     // run.in_progress: an attempt of it is still alive
    TooManyAttempts // run.too_many_attempts: 16 attempts already
};
Error taskRunError(TaskRunFailure failure);

} // namespace veetbot
