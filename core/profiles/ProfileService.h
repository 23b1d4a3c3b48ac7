#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "ports/BrowserProfileControlPlane.h"
#include "ports/BrowserProfileRepository.h"

#include <QList>
#include <QUuid>

namespace veetbot {

// The profile lifecycle over the two ports, for one tenant and principal.
//
// create: reserve PROVISIONING metadata, provision sealed material, bind the returned reference
// under the reservation's generation. A provision failure revokes the reservation; a bind
// failure removes the new material, then revokes.
// revoke: always commits REVOKED with a new generation first — even when the vault is not
// available — and only then fences the material; repeating it retries the fence.
// remove: only from REVOKED, exact profile/reference/scope, material first, metadata after;
// removing a profile that is already absent (or another principal's) succeeds and changes
// nothing.
//
// The control plane may be absent (no keys): then create and remove fail without changing
// anything, and revoke commits the revocation and reports the fence as pending.
class ProfileService
{
public:
    ProfileService(BrowserProfileRepository &repository, BrowserProfileControlPlane *controlPlane,
                   ProfileScope scope);

    Result<BrowserProfile> create(const QList<Origin> &origins);
    Result<QList<BrowserProfile>> list() const;
    Result<BrowserProfile> get(const QUuid &id) const;
    // On success the profile is REVOKED and its material fenced. When the metadata committed
    // but the fence could not be applied, the error is vault.fence_pending (run it again).
    Result<BrowserProfile> revoke(const QUuid &id);
    Result<Unit> remove(const QUuid &id);

    static Error fencePending();
    static Error vaultUnavailable();

private:
    MaterialScope materialScope(const BrowserProfile &profile) const;
    Result<BrowserProfile> commitRevocation(const QUuid &id);

    BrowserProfileRepository &m_repository;
    BrowserProfileControlPlane *m_controlPlane;
    ProfileScope m_scope;
};

} // namespace veetbot
