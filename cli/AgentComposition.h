#pragma once

#include "ProfileBinding.h"
#include "ledger/EffectLedger.h"
#include "tools/AgentSession.h"

#include <QUuid>

#include <memory>

namespace veetbot {

// How the CLI's agent commands (`veetbot mcp`, `veetbot run`) compose a session: one place, so
// both get the same policy, authority, records and ledger.

// A bound READY profile's session (bindProfile): its origins are the policy, its owner the
// owner, and this session (`session`, also the timeline run) pins task grants to the profile
// and its generation. A page that asks to sign in moves the profile to NEEDS_USER
// (profileNeedsOwner). The store stays with `bound`, which must outlive the session.
void bindProfileSession(AgentSession &session, BoundProfile &bound, const QUuid &sessionId);

// A page of the profile asked to sign in: the profile needs its owner. READY -> NEEDS_USER at
// the generation the session bound, so no agent uses it until the owner signs in again and the
// workbench shows the owner its notice. A profile that moved on meanwhile (signed in again,
// revoked) is left as it is.
void profileNeedsOwner(SqlStores &store, const ProfileScope &owner, const QUuid &profile,
                       qint64 generation);

// The standing grant `grant` (its id as given) serves the session, with this session's
// `purpose` (may be empty). Refused now when it names no grant of this owner; whether it holds
// is decided again, from the store, at every act. `store` must outlive the session.
Result<Unit> useStandingGrant(AgentSession &session, SqlStores &store, const QString &grant,
                              const QString &purpose);

// The session `session` is over: its task grant, if any, ends with it.
void endSessionTaskGrant(SqlStores &store, const ProfileScope &owner, const QUuid &session);

// Starts the session's run on the owner's activity timeline and points the session's events
// at it. A store that cannot be written costs the record, never the session: false, and a
// notice on stderr naming `command`.
bool recordOnTimeline(AgentSession &session, SqlStores &timeline, const ActivityRun &run,
                      const QString &command);

// The effect ledger of this data directory. Opening it ends the calls an earlier process left
// mid-way (a write that may have been sent becomes outcome_unknown and is never resent), which
// is said on stderr. Null when it cannot be opened (also said): every act is then refused.
std::unique_ptr<EffectLedger> openAgentLedger(const QString &command);

} // namespace veetbot
