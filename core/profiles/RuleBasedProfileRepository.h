#pragma once

#include "ports/BrowserProfileRepository.h"

#include <QDateTime>

#include <functional>

namespace veetbot {

// The generation-guarded writes of BrowserProfileRepository expressed once, as the pure
// lifecycle rules of ProfileLifecycle applied by an adapter's single atomic
// read-apply-write step (update()). Adapters differ only in storage: how they create, read,
// list, remove and update a scoped profile.
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

protected:
    // A lifecycle rule: the successor of the current metadata at `now`, or a failure.
    using Rule = std::function<Result<BrowserProfile>(const BrowserProfile &, const QDateTime &)>;
    // Atomically: read the scoped profile (profile.not_found for another scope's id), apply
    // the rule, and store its result with the expected generation and owner in the write
    // predicate (profile.stale_generation when a concurrent writer won).
    virtual Result<BrowserProfile> update(const ProfileScope &scope, const QUuid &id,
                                          const Rule &rule) = 0;
};

} // namespace veetbot
