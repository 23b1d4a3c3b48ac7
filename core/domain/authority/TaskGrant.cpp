#include "TaskGrant.h"

#include <QJsonArray>

#include <array>
#include <utility>

namespace veetbot {

namespace {

struct FailureText
{
    TaskGrantFailure failure;
    const char16_t *code;
    const char16_t *message;
};

constexpr std::array kFailures{
    FailureText{TaskGrantFailure::Unavailable, u"task_grant_unavailable",
                u"A task grant cannot be made while the profile's newest sign-in has no "
                u"recorded outcome; the approval is still pending."},
    FailureText{TaskGrantFailure::NotOffered, u"task_grant.not_offered",
                u"The offered task scope is no longer configured."},
    FailureText{TaskGrantFailure::NotFound, u"task_grant.not_found", u"No such task grant."},
    FailureText{TaskGrantFailure::Ended, u"task_grant.ended", u"The task grant has ended."},
    FailureText{TaskGrantFailure::TextLimit, u"task_grant.text_limit",
                u"The task grant's typed-character limit would be passed."},
    FailureText{TaskGrantFailure::NotReady, u"task_grant.profile_not_ready",
                u"The browser profile is not ready."},
};

constexpr std::array<std::pair<TaskGrantEnd, const char16_t *>, 10> kEnds{{
    {TaskGrantEnd::Expired, u"expired"},
    {TaskGrantEnd::Exhausted, u"exhausted"},
    {TaskGrantEnd::Revoked, u"revoked"},
    {TaskGrantEnd::Superseded, u"superseded"},
    {TaskGrantEnd::ProfileRevoked, u"profile_revoked"},
    {TaskGrantEnd::SignedInAgain, u"signed_in_again"},
    {TaskGrantEnd::AgentVersion, u"agent_version"},
    {TaskGrantEnd::PolicyVersion, u"policy_version"},
    {TaskGrantEnd::ScopeRemoved, u"scope_removed"},
    {TaskGrantEnd::SessionEnded, u"session_ended"},
}};

QString timeString(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

} // namespace

QString taskGrantFailureString(TaskGrantFailure failure)
{
    for (const FailureText &text : kFailures) {
        if (text.failure == failure)
            return QString::fromUtf16(text.code);
    }
    return QStringLiteral("task_grant.ended");
}

Error taskGrantError(TaskGrantFailure failure)
{
    for (const FailureText &text : kFailures) {
        if (text.failure == failure)
            return Error{QString::fromUtf16(text.code), QString::fromUtf16(text.message)};
    }
    return taskGrantError(TaskGrantFailure::Ended);
}

bool isTaskGrantFailure(const Error &error, TaskGrantFailure failure)
{
    return error.code == taskGrantFailureString(failure);
}

QString taskGrantEndString(TaskGrantEnd end)
{
    for (const auto &[value, text] : kEnds) {
        if (value == end)
            return QString::fromUtf16(text);
    }
    return QStringLiteral("revoked");
}

std::optional<TaskGrantEnd> taskGrantEndFromString(const QString &text)
{
    for (const auto &[value, name] : kEnds) {
        if (text == QStringView(name))
            return value;
    }
    return std::nullopt;
}

bool TaskGrantPins::isComplete() const
{
    return !session.isNull() && !profileId.isNull() && profileGeneration >= 1 &&
           !agentVersion.isEmpty() && agentVersion.size() <= 128 && policyVersion.size() == 64;
}

QJsonObject TaskGrant::toJson() const
{
    QJsonObject json{
        {QStringLiteral("id"), id.toString(QUuid::WithoutBraces)},
        {QStringLiteral("profile_id"), pins.profileId.toString(QUuid::WithoutBraces)},
        {QStringLiteral("scope"), scope.toString()},
        {QStringLiteral("created_at"), timeString(createdAt)},
        {QStringLiteral("expires_at"), timeString(expiresAt)},
        {QStringLiteral("actions_used"), uses},
        {QStringLiteral("actions_left"), actionsLeft()},
        {QStringLiteral("typed_characters"), typedCharacters},
        {QStringLiteral("status"), isEnded() ? QStringLiteral("ended") : QStringLiteral("active")},
    };
    if (endedAt)
        json.insert(QStringLiteral("ended_at"), timeString(*endedAt));
    if (endReason)
        json.insert(QStringLiteral("end_reason"), taskGrantEndString(*endReason));
    return json;
}

QJsonObject TaskGrantOffer::toJson() const
{
    return {{QStringLiteral("scope"), scope.toString()},
            {QStringLiteral("minutes"), minutes},
            {QStringLiteral("actions"), actions}};
}

QString TaskGrantOffer::toText() const
{
    return QStringLiteral("Approve for this task: this action, and for %1 minutes at most %2 "
                          "later actions like it under %3, without asking. Named consequences "
                          "(payments, deletions, account changes, ...) still ask.")
        .arg(minutes)
        .arg(actions)
        .arg(scope.toString());
}

namespace {

TaskGrantAuditRecord auditRecord(const QUuid &grant, const QDateTime &at, const char16_t *kind,
                                 std::optional<int> ordinal, std::optional<TaskGrantEnd> reason,
                                 const QJsonObject &approvalView)
{
    return {BrowserProfile::newId(),
            grant,
            QString::fromUtf16(kind),
            at,
            ordinal,
            reason,
            approvalView};
}

} // namespace

TaskGrantAuditRecord TaskGrantAuditRecord::created(const QUuid &grant, const QDateTime &at,
                                                   const QJsonObject &approvalView)
{
    return auditRecord(grant, at, kTaskGrantCreatedKind, std::nullopt, std::nullopt, approvalView);
}

TaskGrantAuditRecord TaskGrantAuditRecord::authorized(const QUuid &grant, const QDateTime &at,
                                                      int ordinal, const QJsonObject &approvalView)
{
    return auditRecord(grant, at, kToolCallAuthorizedKind, ordinal, std::nullopt, approvalView);
}

TaskGrantAuditRecord TaskGrantAuditRecord::ended(const QUuid &grant, const QDateTime &at,
                                                 TaskGrantEnd reason)
{
    return auditRecord(grant, at, kTaskGrantEndedKind, std::nullopt, reason, {});
}

namespace TaskGrantRules {

TaskGrant make(const ProfileScope &scope, const TaskGrantPins &pins, const TaskScope &offered,
               const QUuid &approval, const QDateTime &now)
{
    TaskGrant grant{.id = BrowserProfile::newId(),
                    .tenant = scope.tenant,
                    .principal = scope.principal,
                    .pins = pins,
                    .scope = offered};
    grant.approval = approval;
    grant.createdAt = now;
    grant.expiresAt = now.addSecs(qint64(TaskGrant::kMinutes) * 60);
    return grant;
}

std::optional<TaskGrantEnd> endWithoutSession(const TaskGrant &grant,
                                              const std::optional<BrowserProfile> &profile,
                                              const QDateTime &now)
{
    if (!profile || profile->id != grant.pins.profileId ||
        profile->status == ProfileStatus::Revoked)
        return TaskGrantEnd::ProfileRevoked;
    if (profile->generation != grant.pins.profileGeneration)
        return TaskGrantEnd::SignedInAgain;
    if (now >= grant.expiresAt)
        return TaskGrantEnd::Expired;
    if (grant.uses >= TaskGrant::kMaxActions)
        return TaskGrantEnd::Exhausted;
    return std::nullopt;
}

std::optional<TaskGrantEnd> endFor(const TaskGrant &grant, const TaskGrantPins &pins,
                                   const std::optional<BrowserProfile> &profile,
                                   const QDateTime &now)
{
    if (const std::optional<TaskGrantEnd> end = endWithoutSession(grant, profile, now))
        return end;
    if (pins.agentVersion != grant.pins.agentVersion)
        return TaskGrantEnd::AgentVersion;
    if (pins.policyVersion != grant.pins.policyVersion)
        return TaskGrantEnd::PolicyVersion;
    return std::nullopt;
}

Result<Unit> admit(const QList<TaskScope> &configured, const TaskScope &offered,
                   const std::optional<BrowserProfile> &profile, bool signInOpen,
                   const TaskGrantPins &pins)
{
    if (!configured.contains(offered))
        return taskGrantError(TaskGrantFailure::NotOffered);
    if (!profile || profile->id != pins.profileId || profile->status != ProfileStatus::Ready ||
        profile->generation != pins.profileGeneration || signInOpen)
        return taskGrantError(TaskGrantFailure::Unavailable);
    return Unit{};
}

UseDecision use(const TaskGrant &grant, const TaskGrantPins &pins,
                const std::optional<BrowserProfile> &profile, const QList<TaskScope> &configured,
                int typedCharacters, const QDateTime &now)
{
    std::optional<TaskGrantEnd> end = endFor(grant, pins, profile, now);
    if (!end && !configured.contains(grant.scope))
        end = TaskGrantEnd::ScopeRemoved;
    if (end)
        return {UseDecision::Kind::End, end, taskGrantError(TaskGrantFailure::Ended)};
    if (profile->status != ProfileStatus::Ready)
        return {UseDecision::Kind::Refuse, std::nullopt,
                taskGrantError(TaskGrantFailure::NotReady)};
    if (typedCharacters < 0 ||
        typedCharacters > TaskGrant::kMaxTypedCharacters - grant.typedCharacters)
        return {UseDecision::Kind::Refuse, std::nullopt,
                taskGrantError(TaskGrantFailure::TextLimit)};
    return {UseDecision::Kind::Consume, std::nullopt, Error{}};
}

} // namespace TaskGrantRules

} // namespace veetbot
