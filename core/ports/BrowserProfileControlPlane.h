#pragma once

#include "domain/Result.h"
#include "domain/web/Origin.h"

#include <QList>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// Who a profile's material belongs to and what it may be used for; sealed into the
// material's authenticated data.
struct MaterialScope
{
    QUuid profileId;
    QString tenant;
    QString principal;
    QList<Origin> allowedOrigins; // sorted, unique
};

// What provisioning returns: names, never material.
struct ProvisionedMaterial
{
    QString providerName;
    QString providerReference;
    QString keyVersion;
};

// The profile control plane: the vault. Provision, revoke and delete only. It returns the
// provider name, the opaque reference and the key version — never material, cookies,
// storage or keys. Its implementation is the only code that constructs a keyring and the
// encrypted store.
class BrowserProfileControlPlane
{
public:
    virtual ~BrowserProfileControlPlane() = default;

    // Creates empty sealed material for the scope. Idempotent: provisioning the same profile
    // with the same scope again (after a restart, say) returns the original reference; a
    // changed scope is profile.conflict.
    virtual Result<ProvisionedMaterial> provision(const MaterialScope &scope) = 0;
    // Fences the material so it can no longer be used. Safe to repeat. Without a reference
    // (a reservation that never bound, say after a crash between provisioning and binding)
    // any material provisioned for the profile id is fenced.
    virtual Result<Unit> revoke(const MaterialScope &scope,
                                const std::optional<QString> &providerReference) = 0;
    // Removes the material of exactly this profile, reference and scope; without a reference,
    // any material provisioned for the profile id. Removing material that is already gone
    // succeeds; material of another profile or scope under that reference is profile.conflict
    // and stays.
    virtual Result<Unit> remove(const MaterialScope &scope,
                                const std::optional<QString> &providerReference) = 0;
};

} // namespace veetbot
