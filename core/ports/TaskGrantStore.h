#pragma once

#include "domain/Result.h"
#include "domain/authority/TaskGrant.h"
#include "domain/authority/TaskScope.h"
#include "domain/profile/BrowserProfile.h"

#include <QJsonObject>
#include <QList>
#include <QUuid>

#include <optional>

namespace veetbot {

// Stores task grants (docs/authority.md) beside the owner's task scopes and the profiles
// they are bound to, so every write below is one unit of work with the reads it depends on.
// Every method is confined to one tenant and principal; a grant of another scope or another
// session is reported exactly like an unknown one. Nothing here is cached: each call reads the
// store. Failures: the TaskGrantFailure codes, profile.invalid for malformed input,
// repository.unavailable.
class TaskGrantStore
{
public:
    virtual ~TaskGrantStore() = default;

    // The owner's task scopes as stored now (BrowserProfileRepository::taskScopes()): where
    // an offer may be made.
    virtual Result<TaskScopePolicy> taskScopes(const ProfileScope &scope) const = 0;

    // The owner's approve_for_task on a card that offered `offered`: in one unit of work,
    // under the task-scope list's lock, checks that the entry is still configured
    // (task_grant.not_offered), that the profile is READY at the pinned generation and its
    // newest sign-in has a recorded outcome (task_grant_unavailable otherwise: nothing is
    // stored and the approval stays pending), ends the session's active grant as superseded,
    // stores the new grant (30 minutes from now, 200 actions, 4,096 typed characters) and
    // its created record with the approval view's audit form.
    virtual Result<TaskGrant> createTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                              const TaskScope &offered, const QUuid &approval,
                                              const QJsonObject &approvalView) = 0;
    // The session's unended grant, if any (it may still be past its end: useTaskGrant()
    // decides).
    virtual Result<std::optional<TaskGrant>> activeTaskGrant(const ProfileScope &scope,
                                                             const QUuid &session) const = 0;
    // One authorization, before dispatch, atomically under the task-scope list's lock and the
    // grant's: ends the grant when TaskGrantRules::endFor() or a removed scope says so
    // (task_grant.ended, the end stored); refuses typed text that would pass the 4,096 cap
    // (task_grant.text_limit, nothing stored) and a profile that is not READY
    // (task_grant.profile_not_ready); otherwise consumes one use and `typedCharacters`,
    // appends tool.call.authorized with the ordinal and the view, and ends the grant as
    // exhausted with its two hundredth use. A use is never refunded. A concurrent use that
    // won first makes this one task_grant.ended or a fresh ordinal, never a 201st.
    virtual Result<TaskGrantUse> useTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                              const QUuid &grant, int typedCharacters,
                                              const QJsonObject &approvalView) = 0;
    // Ends a grant of this scope (the owner's revocation, or its session's end) with its one
    // ended record; an ended grant is answered unchanged.
    virtual Result<TaskGrant> endTaskGrant(const ProfileScope &scope, const QUuid &grant,
                                           TaskGrantEnd reason) = 0;
    // This scope's grants, newest first, after ending those whose profile, expiry or uses
    // end them (so a listing never shows a dead grant as active).
    virtual Result<QList<TaskGrant>> taskGrants(const ProfileScope &scope) = 0;
    // One grant's audit records, oldest first (task_grant.not_found for another scope's).
    virtual Result<QList<TaskGrantAuditRecord>> taskGrantAudit(const ProfileScope &scope,
                                                               const QUuid &grant) const = 0;
};

} // namespace veetbot
