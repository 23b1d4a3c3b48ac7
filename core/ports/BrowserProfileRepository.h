#pragma once

#include "domain/Result.h"
#include "domain/authority/TaskScope.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/signin/AuthenticationCeremony.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QUuid>

#include <functional>
#include <optional>

namespace veetbot {

// The time source of a repository (update, last-use and sign-in times, and ceremony expiry).
// A null clock means the system clock in UTC.
using ProfileClock = std::function<QDateTime()>;

// Stores browser-profile metadata and sign-in records only: never cookies, tokens, storage
// state, launch capabilities or keys, and no method accepts or returns any. Every method is
// confined to one tenant and principal; a profile of another scope is reported exactly like an
// unknown one (profile.not_found). Writes name the expected generation and the owning scope in the
// write itself, so a concurrent winner makes the loser fail with profile.stale_generation. Failures
// are Result errors with the stable codes of ProfileFailure. Implementations are used from the
// thread that created them.
class BrowserProfileRepository
{
public:
    virtual ~BrowserProfileRepository() = default;

    // Stores a valid profile of this scope as given (origins re-sorted). profile.conflict
    // when the id exists in any scope, or when its non-null provider reference is already
    // used by any profile; profile.invalid when it fails validation or names another scope.
    virtual Result<BrowserProfile> create(const ProfileScope &scope,
                                          const BrowserProfile &profile) = 0;
    virtual Result<BrowserProfile> get(const ProfileScope &scope, const QUuid &id) const = 0;
    // This scope's profiles, oldest first (creation time, then id).
    virtual Result<QList<BrowserProfile>> list(const ProfileScope &scope) const = 0;

    // PROVISIONING -> AUTHENTICATION_REQUIRED with the provider binding. profile.conflict when
    // the reference is already used.
    virtual Result<BrowserProfile> bind(const ProfileScope &scope, const QUuid &id,
                                        qint64 expectedGeneration, const QString &providerName,
                                        const QString &providerReference,
                                        const QString &keyVersion) = 0;
    virtual Result<BrowserProfile> transition(const ProfileScope &scope, const QUuid &id,
                                              qint64 expectedGeneration,
                                              ProfileStatus newStatus) = 0;
    // A sign-in began: the generation advances, the status stays.
    virtual Result<BrowserProfile> advanceGeneration(const ProfileScope &scope, const QUuid &id,
                                                     qint64 expectedGeneration) = 0;
    // Records use now; never changes the generation.
    virtual Result<BrowserProfile> touchLastUsed(const ProfileScope &scope, const QUuid &id) = 0;
    // Deletes the metadata (its origins and sign-in records too) of a REVOKED profile.
    virtual Result<Unit> remove(const ProfileScope &scope, const QUuid &id,
                                qint64 expectedGeneration) = 0;
    virtual Result<BrowserProfile> updateKeyVersion(const ProfileScope &scope, const QUuid &id,
                                                    qint64 expectedGeneration,
                                                    const QString &keyVersion) = 0;

    // Begins a ceremony at the isolated service for the locked profile and answers the id
    // the service minted and the expiry. Called with the repository's lock held: it must not
    // use this repository. Its failure is returned unchanged.
    using CeremonyLaunch =
        std::function<Result<CeremonyLaunchRecord>(const BrowserProfile &locked)>;

    // Begins a sign-in, all in one unit of work: locks the scoped profile (profile.not_found),
    // refuses while an unexpired ceremony of it is open (profile.ceremony_open; launch is not
    // called), checks the expected generation (profile.stale_generation) and that the profile
    // is live (profile.invalid_transition for PROVISIONING or REVOKED), calls launch with the
    // locked profile, advances the generation (the status stays) and records the OPEN
    // ceremony. The lock is held from before the check until the commit, so a concurrent
    // begin waits, then sees this one's record. Its wait is capped at 5 seconds: PostgreSQL
    // then answers profile.ceremony_open (only a begin holds the profile's row that long);
    // SQLite, whose lock covers the whole store, answers repository.unavailable.
    // profile.invalid for a mode other than "device" or a launch answer that is not a
    // lowercase hyphenated UUID with an expiry after now (an expiry beyond five minutes is
    // cut to five); profile.conflict when the launched id is already recorded. On any failure
    // nothing is stored.
    virtual Result<CeremonyBegun> beginCeremony(const ProfileScope &scope, const QUuid &profileId,
                                                qint64 expectedGeneration, const QString &mode,
                                                const CeremonyLaunch &launch) = 0;
    // One sign-in record as of now: an open one past its expiry reads EXPIRED.
    // ceremony.not_found for an unknown or malformed id, and for another scope's.
    virtual Result<AuthenticationCeremony> ceremony(const ProfileScope &scope,
                                                    const QString &ceremonyId) const = 0;
    // The profile's newest ceremony that is open and not expired, or none.
    virtual Result<std::optional<AuthenticationCeremony>>
    newestOpenCeremony(const ProfileScope &scope, const QUuid &profileId) const = 0;
    // Records an outcome (CeremonyLifecycle::finish) and the profile change it implies in one
    // unit of work; failureCode is one of the fixed codes for FAILED and empty otherwise;
    // account is the masked account a site verification definition confirmed, with READY only.
    // READY moves the profile to READY with lastVerifiedAt now and that account; for a profile that
    // cannot become READY (revoked meanwhile) the record is stored as FAILED
    // tool.browser.profile_unavailable and the answer is profile.invalid_transition. The same
    // outcome again answers the record unchanged; another one is ceremony.outcome_conflict.
    // ceremony.not_found as for ceremony().
    virtual Result<CeremonyFinished>
    finishCeremony(const ProfileScope &scope, const QString &ceremonyId, CeremonyStatus outcome,
                   const QString &failureCode, const std::optional<QString> &account) = 0;

    // The owner's task scopes (docs/authority.md): one list per tenant and principal, read
    // from the store on every call (no process cache), so a change applies to the next offer
    // or authorization without a restart. Failures: profile.invalid for a malformed scope,
    // repository.unavailable, and the scope.* codes of TaskScopeFailure.
    //
    // The persisted list; revision 0 and no entries when none was ever saved.
    virtual Result<TaskScopePolicy> taskScopes(const ProfileScope &scope) const = 0;
    // Replaces the list the owner read at expectedRevision (TaskScopeRules::replace), all in
    // one unit of work that locks the list: on Changed it stores the list at the next
    // revision, ends the task grants outside it and appends one browser.task_scopes.updated
    // record; Replayed and Unchanged store nothing. A concurrent change makes the loser
    // scope.conflict.
    virtual Result<TaskScopeChange> replaceTaskScopes(const ProfileScope &scope,
                                                      qint64 expectedRevision,
                                                      const QList<TaskScope> &entries) = 0;
    // The one-time bootstrap seed (TaskScopeRules::seed), stored like a change with source
    // seed: only when no list was ever saved, else Unchanged (also when a concurrent first
    // save wins). Never overwrites an owner's list, an empty one included.
    virtual Result<TaskScopeChange> seedTaskScopes(const ProfileScope &scope,
                                                   const QList<TaskScope> &entries) = 0;
    // The list's audit records, oldest first.
    virtual Result<QList<TaskScopeAuditRecord>> taskScopeAudit(const ProfileScope &scope) const = 0;
};

} // namespace veetbot
