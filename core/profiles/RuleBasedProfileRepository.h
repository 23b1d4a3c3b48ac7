#pragma once

#include "ports/BrowserProfileRepository.h"

#include <QDateTime>

#include <functional>
#include <optional>

namespace veetbot {

// The generation-guarded writes of BrowserProfileRepository expressed once, as the pure
// lifecycle rules of ProfileLifecycle applied by an adapter's single atomic
// read-apply-write step (update()), and the sign-in writes as the rules of CeremonyLifecycle
// applied by two more such steps (admit() and settle()). Adapters differ only in storage:
// how they create, read, list, remove and update a scoped profile, and how they lock, read
// and write its sign-in records.
class RuleBasedProfileRepository : public BrowserProfileRepository
{
public:
    Result<BrowserProfile> bind(const ProfileScope &scope, const QUuid &id,
                                qint64 expectedGeneration, const QString &providerName,
                                const QString &providerReference, const QString &keyVersion) final;
    Result<BrowserProfile> transition(const ProfileScope &scope, const QUuid &id,
                                      qint64 expectedGeneration, ProfileStatus newStatus) final;
    Result<BrowserProfile> advanceGeneration(const ProfileScope &scope, const QUuid &id,
                                             qint64 expectedGeneration) final;
    Result<BrowserProfile> touchLastUsed(const ProfileScope &scope, const QUuid &id) final;
    Result<BrowserProfile> updateKeyVersion(const ProfileScope &scope, const QUuid &id,
                                            qint64 expectedGeneration,
                                            const QString &keyVersion) final;
    Result<CeremonyBegun> beginCeremony(const ProfileScope &scope, const QUuid &profileId,
                                        qint64 expectedGeneration, const QString &mode,
                                        const CeremonyLaunch &launch) final;
    Result<CeremonyFinished> finishCeremony(const ProfileScope &scope, const QString &ceremonyId,
                                            CeremonyStatus outcome, const QString &failureCode,
                                            const std::optional<QString> &account) final;
    Result<TaskScopeChange> replaceTaskScopes(const ProfileScope &scope, qint64 expectedRevision,
                                              const QList<TaskScope> &entries) final;
    Result<TaskScopeChange> seedTaskScopes(const ProfileScope &scope,
                                           const QList<TaskScope> &entries) final;

protected:
    // A new profile as an adapter stores it: in `scope` (profile.invalid otherwise), its
    // origins normalized, every invariant held.
    static Result<BrowserProfile> storable(const ProfileScope &scope,
                                           const BrowserProfile &profile);

    // A lifecycle rule: the successor of the current metadata at `now`, or a failure.
    using Rule = std::function<Result<BrowserProfile>(const BrowserProfile &, const QDateTime &)>;
    // Atomically: read the scoped profile (profile.not_found for another scope's id), apply
    // the rule, and store its result with the expected generation and owner in the write
    // predicate (profile.stale_generation when a concurrent writer won).
    virtual Result<BrowserProfile> update(const ProfileScope &scope, const QUuid &id,
                                          const Rule &rule) = 0;

    // An admission: from the locked profile and its newest unexpired open ceremony (if any)
    // at `now`, the advanced profile and the new record, or a failure. It may launch.
    using Admission = std::function<Result<CeremonyBegun>(
        const BrowserProfile &, const std::optional<AuthenticationCeremony> &, const QDateTime &)>;
    // Atomically: lock the scoped profile (profile.not_found) so no other admission runs for
    // it, read its newest unexpired open ceremony, apply the admission, and store the
    // profile under the generation it was read at together with the new record
    // (profile.conflict for an id already recorded). Anything failing stores nothing.
    virtual Result<CeremonyBegun> admit(const ProfileScope &scope, const QUuid &profileId,
                                        const Admission &admission) = 0;

    // An outcome rule: from the stored record and its locked profile at `now`, what to store.
    using Settlement = std::function<Result<CeremonySettlement>(
        const AuthenticationCeremony &, const BrowserProfile &, const QDateTime &)>;
    // Atomically: read the scoped record (ceremony.not_found), lock its profile and then the
    // record, apply the rule, and store whichever of the two it changed. A settlement that
    // carries a refusal is stored all the same; the caller answers the refusal.
    virtual Result<CeremonySettlement> settle(const ProfileScope &scope, const QString &ceremonyId,
                                              const Settlement &settlement) = 0;

    // A task-scope edit: from the stored list (revision 0 when none), what to do.
    using TaskScopeEdit = std::function<Result<TaskScopeChange>(const TaskScopeState &)>;
    // Atomically: lock the scope's list (PostgreSQL: its policy row; a first save relies on
    // the row's primary key instead, so a concurrent first save loses with scope.conflict),
    // read it, apply the edit and, when it is Changed, store the list under the revision it
    // was read at, end the task grants outside the new list and append the audit record, all
    // in this unit of work. Replayed and Unchanged store nothing.
    virtual Result<TaskScopeChange> changeTaskScopes(const ProfileScope &scope,
                                                     const TaskScopeEdit &edit) = 0;
};

} // namespace veetbot
