#include "TaskRun.h"

#include <QRegularExpression>

namespace veetbot {

namespace {

struct StatusName
{
    RunStatus status;
    const char *name;
};
constexpr StatusName kStatuses[] = {
    {RunStatus::Running, "running"},
    {RunStatus::Completed, "completed"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Refused, "refused"},
    {RunStatus::BudgetExhausted, "budget_exhausted"},
    {RunStatus::Cancelled, "cancelled"},
    {RunStatus::NeedsUser, "needs_user"},
};

struct OutcomeName
{
    RunOutcome outcome;
    const char *name;
};
constexpr OutcomeName kOutcomes[] = {
    {RunOutcome::None, "none"},
    {RunOutcome::ReadOnly, "read_only"},
    {RunOutcome::Verified, "verified"},
    {RunOutcome::Unverified, "unverified"},
    {RunOutcome::OutcomeUnknown, "outcome_unknown"},
};

} // namespace

QString runStatusString(RunStatus status)
{
    for (const StatusName &entry : kStatuses) {
        if (entry.status == status)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

std::optional<RunStatus> runStatusFromString(const QString &text)
{
    for (const StatusName &entry : kStatuses) {
        if (text == QLatin1String(entry.name))
            return entry.status;
    }
    return std::nullopt;
}

QString runOutcomeString(RunOutcome outcome)
{
    for (const OutcomeName &entry : kOutcomes) {
        if (entry.outcome == outcome)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

std::optional<RunOutcome> runOutcomeFromString(const QString &text)
{
    for (const OutcomeName &entry : kOutcomes) {
        if (text == QLatin1String(entry.name))
            return entry.outcome;
    }
    return std::nullopt;
}

bool isStorable(const TaskRunRecord &record)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    static const QRegularExpression code(QStringLiteral("^[a-z_]+(\\.[a-z_]+)*$"));
    const RunUsage &u = record.usage;
    return !record.id.isNull() && !record.profileId.isNull() &&
           hex.match(record.taskDigest).hasMatch() && !record.model.isEmpty() &&
           record.model.size() <= 128 && record.stopCode.size() <= 64 &&
           (record.stopCode.isEmpty() || code.match(record.stopCode).hasMatch()) && u.steps >= 0 &&
           u.steps <= RunCeilings::kSteps && u.modelCalls >= 0 &&
           u.modelCalls <= RunCeilings::kModelCalls && u.toolCalls >= 0 &&
           u.toolCalls <= RunCeilings::kToolCalls && u.staleRecoveries >= 0 &&
           u.staleRecoveries <= RunCeilings::kStaleRecoveries && u.acts >= 0 &&
           u.acts <= RunCeilings::kToolCalls && u.promptTokens >= 0 && u.completionTokens >= 0 &&
           u.costMicroUsd >= 0 && record.signInSuspensions >= 0 &&
           record.signInSuspensions <= RunCeilings::kSignInSuspensions;
}

Error taskRunError(TaskRunFailure failure)
{
    switch (failure) {
    case TaskRunFailure::NotFound:
        return Error{QStringLiteral("run.not_found"), QStringLiteral("No such run.")};
    case TaskRunFailure::NotResumable:
        return Error{QStringLiteral("run.not_resumable"),
                     QStringLiteral("This run cannot be resumed: it ended, or the task given "
                                    "is not its task.")};
    case TaskRunFailure::InProgress:
        return Error{QStringLiteral("run.in_progress"),
                     QStringLiteral("Another process is still working on this run.")};
    case TaskRunFailure::TooManyAttempts:
        return Error{QStringLiteral("run.too_many_attempts"),
                     QStringLiteral("This run was started too many times.")};
    }
    return Error{QStringLiteral("run.not_found"), QStringLiteral("No such run.")};
}

} // namespace veetbot
