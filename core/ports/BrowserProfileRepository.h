#pragma once

#include "domain/BrowserProfile.h"
#include "domain/Result.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QUuid>

#include <functional>

namespace veetbot {

// The time source of a repository (update and last-use times). A null clock means the
// system clock in UTC.
using ProfileClock = std::function<QDateTime()>;

// Stores browser-profile metadata only: never cookies, tokens, storage state or keys, and
// no method accepts or returns any. Every method is confined to one tenant and principal;
// a profile of another scope is reported exactly like an unknown one (profile.not_found).
// Writes name the expected generation and the owning scope in the write itself, so a
// concurrent winner makes the loser fail with profile.stale_generation. Failures are
// Result errors with the stable codes of ProfileFailure. Implementations are used from the
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
    // Deletes the metadata (and its origins) of a REVOKED profile.
    virtual Result<Unit> remove(const ProfileScope &scope, const QUuid &id,
                                qint64 expectedGeneration) = 0;
    virtual Result<BrowserProfile> updateKeyVersion(const ProfileScope &scope, const QUuid &id,
                                                    qint64 expectedGeneration,
                                                    const QString &keyVersion) = 0;
};

} // namespace veetbot
