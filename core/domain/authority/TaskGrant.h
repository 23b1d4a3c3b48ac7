#pragma once

#include "TaskScope.h"
#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// Stable failures of task grants. The codes are wire strings; the messages are fixed and
// never name a scope, URL, page, element or typed text.
enum class TaskGrantFailure
{
    Unavailable, // task_grant_unavailable: the profile's newest sign-in has no recorded
                 // outcome (or the profile is not READY), so no grant can be made now; the
                 // approval stays pending
    NotOffered,  // task_grant.not_offered: the offered scope is no longer in the owner's list
    NotFound,    // task_grant.not_found: no such grant in this scope
    Ended,       // task_grant.ended: the grant has ended (why is in its record)
    TextLimit,   // task_grant.text_limit: the typed text would pass the 4,096-character cap
    NotReady,    // task_grant.profile_not_ready: the profile is not READY now (not ended)
};

QString taskGrantFailureString(TaskGrantFailure failure);
Error taskGrantError(TaskGrantFailure failure);
bool isTaskGrantFailure(const Error &error, TaskGrantFailure failure);

// Why a task grant ended: exactly one per grant, recorded once.
enum class TaskGrantEnd
{
    Expired,        // thirty minutes passed
    Exhausted,      // its two hundredth action was authorized
    Revoked,        // the owner revoked it
    Superseded,     // the owner made another grant in the same session
    ProfileRevoked, // the profile was revoked or deleted
    SignedInAgain,  // a new sign-in advanced the profile generation
    AgentVersion,   // a session of another agent version touched it
    PolicyVersion,  // a session under other policy settings touched it
    ScopeRemoved,   // the owner removed its scope
    SessionEnded,   // the session that holds it ended
};

// "expired", "exhausted", "revoked", "superseded", "profile_revoked", "signed_in_again",
// "agent_version", "policy_version", "scope_removed", "session_ended".
QString taskGrantEndString(TaskGrantEnd end);
std::optional<TaskGrantEnd> taskGrantEndFromString(const QString &text);

// What a grant is bound to besides its tenant and principal: the session that may use it
// (one `veetbot mcp` process or one task run), the profile and its generation when the
// grant was made, and the agent and policy versions in force. A session presents its own
// pins on every use; any difference ends the grant (or, for another session, finds none).
struct TaskGrantPins
{
    QUuid session;
    QUuid profileId;
    qint64 profileGeneration = 0;
    QString agentVersion;  // "veetbot 0.4.0", plus the model name for task runs
    QString policyVersion; // PolicySettings::version()

    bool isComplete() const;
    friend bool operator==(const TaskGrantPins &, const TaskGrantPins &) = default;
};

// One task grant (docs/authority.md): made only by the owner's approve_for_task on an
// approval card that offered it, inside one of the owner's task scopes. Its limits are fixed,
// never configurable, and the store's constraints hold them too.
struct TaskGrant
{
    static constexpr int kMinutes = 30;
    static constexpr int kMaxActions = 200;
    static constexpr int kMaxTypedCharacters = 4096;

    QUuid id;
    QString tenant;
    QString principal;
    TaskGrantPins pins;
    TaskScope scope; // the configured entry the offer named: its origin and path prefix
    QUuid approval;  // the approval that made it (the approved act's effect id)
    QDateTime createdAt;
    QDateTime expiresAt; // createdAt + 30 minutes
    int uses = 0;        // actions authorized so far
    int typedCharacters = 0;
    std::optional<QDateTime> endedAt;
    std::optional<TaskGrantEnd> endReason;

    bool isEnded() const { return endedAt.has_value(); }
    int actionsLeft() const { return kMaxActions - uses; }
    // The owner's view: no session id beyond its first block, never page content.
    QJsonObject toJson() const;
};

// The offer an approval card may carry: the configured scope containing the observed page,
// thirty minutes and two hundred actions. Its origin and prefix are the owner's entry, never
// values taken from the page.
struct TaskGrantOffer
{
    TaskScope scope;
    int minutes = TaskGrant::kMinutes;
    int actions = TaskGrant::kMaxActions;

    QJsonObject toJson() const;
    // The offer in server-authored words, for a card, a terminal or an elicitation.
    QString toText() const;
    friend bool operator==(const TaskGrantOffer &, const TaskGrantOffer &) = default;
};

// One authorization under a grant: the grant as the use left it and the use's ordinal
// (1-200).
struct TaskGrantUse
{
    TaskGrant grant;
    int ordinal = 0;
};

// The audit record kinds of a grant: one created, one authorized per use, exactly one ended.
inline constexpr char16_t kTaskGrantCreatedKind[] = u"browser.task_grant.created";
inline constexpr char16_t kToolCallAuthorizedKind[] = u"tool.call.authorized";
inline constexpr char16_t kTaskGrantEndedKind[] = u"browser.task_grant.ended";

// One appended audit record. The approval view is the audit form of the view the owner saw
// or the grant authorized (ApprovalView::toAuditJson(): no typed text, no digest of it).
struct TaskGrantAuditRecord
{
    QUuid id;
    QUuid grant;
    QString kind;
    QDateTime at;
    std::optional<int> ordinal;            // tool.call.authorized
    std::optional<TaskGrantEnd> endReason; // browser.task_grant.ended
    QJsonObject approvalView;              // created and authorized; empty for ended

    // The grant's one created record, one record per use, and its one ended record, at `at`.
    static TaskGrantAuditRecord created(const QUuid &grant, const QDateTime &at,
                                        const QJsonObject &approvalView);
    static TaskGrantAuditRecord authorized(const QUuid &grant, const QDateTime &at, int ordinal,
                                           const QJsonObject &approvalView);
    static TaskGrantAuditRecord ended(const QUuid &grant, const QDateTime &at, TaskGrantEnd reason);
};

// The pure rules of a grant's life, applied by a store inside one unit of work.
namespace TaskGrantRules {

// The grant approve_for_task makes at `now` for the owner's `scope` and the session's pins:
// a new id, the offered scope, and its one expiry (TaskGrant::kMinutes after `now`).
TaskGrant make(const ProfileScope &scope, const TaskGrantPins &pins, const TaskScope &offered,
               const QUuid &approval, const QDateTime &now);

// Why a stored grant that is not yet ended must end now, for a session presenting `pins`
// with the profile as stored (nullopt when the profile is gone) at `now`; nullopt when it
// may still be used. Checked in the order: profile gone or revoked, new sign-in, expiry,
// exhaustion, agent version, policy version.
std::optional<TaskGrantEnd> endFor(const TaskGrant &grant, const TaskGrantPins &pins,
                                   const std::optional<BrowserProfile> &profile,
                                   const QDateTime &now);
// The same without a session: what a sweep or a listing ends (profile, expiry, exhaustion).
std::optional<TaskGrantEnd> endWithoutSession(const TaskGrant &grant,
                                              const std::optional<BrowserProfile> &profile,
                                              const QDateTime &now);

// Whether the owner's approve_for_task may make a grant now: the offered entry is still in the
// stored list (task_grant.not_offered), and the profile as stored is READY at the pinned
// generation with no open sign-in (task_grant_unavailable).
Result<Unit> admit(const QList<TaskScope> &configured, const TaskScope &offered,
                   const std::optional<BrowserProfile> &profile, bool signInOpen,
                   const TaskGrantPins &pins);

// What one use of a stored, unended grant does.
struct UseDecision
{
    enum class Kind
    {
        Consume, // take one use and the typed characters
        End,     // end the grant (end), refuse with task_grant.ended
        Refuse   // refuse (refusal), store nothing
    };
    Kind kind = Kind::Refuse;
    std::optional<TaskGrantEnd> end;
    Error refusal;
};
// endFor(), then a removed scope (scope_removed); a profile not READY is refused without an
// end (task_grant.profile_not_ready); typed text past the 4,096 cap is refused
// (task_grant.text_limit); otherwise Consume.
UseDecision use(const TaskGrant &grant, const TaskGrantPins &pins,
                const std::optional<BrowserProfile> &profile, const QList<TaskScope> &configured,
                int typedCharacters, const QDateTime &now);

} // namespace TaskGrantRules

} // namespace veetbot
