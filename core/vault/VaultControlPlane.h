#pragma once

#include "ports/BrowserProfileControlPlane.h"
#include "ports/Keyring.h"

#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace veetbot {

class EncryptedProfileStore;
struct ProfileMetadata;

// The profile control plane over the encrypted store: the vault. It is the only code that
// constructs a keyring (through the loader it is given) and the encrypted store, and it
// returns names only — provider name, opaque reference, key version — never material or
// keys. Provisioning seals an empty storage state for the profile; revocation fences it;
// removal deletes it.
class VaultControlPlane final : public BrowserProfileControlPlane
{
public:
    using KeyringResult = Result<std::unique_ptr<Keyring>>;
    // Constructs and loads the keyring; may answer asynchronously (the desktop keyring).
    using KeyringLoader = std::function<void(std::function<void(KeyringResult)>)>;
    using Opened = std::function<void(Result<std::unique_ptr<VaultControlPlane>>)>;

    static constexpr const char *kProviderName = "webengine";

    // Loads the keyring, opens the store in `directory` (created 0700 when missing) and
    // validates every record. The process now holds keys: its main() disables core dumps
    // first (ProcessHardening); this never changes process-wide state itself.
    static void open(const QString &directory, KeyringLoader loadKeyring, Opened done);
    // How many vaults this process opened (compositions that must never hold keys check 0).
    static int openedCount();

    ~VaultControlPlane() override;

    Result<ProvisionedMaterial> provision(const MaterialScope &scope) override;
    Result<Unit> revoke(const MaterialScope &scope,
                        const std::optional<QString> &providerReference) override;
    Result<Unit> remove(const MaterialScope &scope,
                        const std::optional<QString> &providerReference) override;

    // Seals new material for a provisioned, unfenced profile (the sign-in hand-off writes the
    // owner's session here). The bytes are never returned to the caller's side again.
    Result<Unit> replaceMaterial(const MaterialScope &scope, const QString &providerReference,
                                 const SecretBytes &material);

    // A session's check before every browser operation: the allowed origins sealed with the
    // material of exactly this profile, tenant, principal and reference, which must not be
    // fenced. tool.browser.profile_unavailable otherwise (unknown, another scope, revoked).
    Result<QStringList> sessionOrigins(const QString &profileId, const QString &tenant,
                                       const QString &principal,
                                       const QString &providerReference) const;

    // A session's sealed state, read when its lease's browser starts, and sealed back on a
    // healthy close: the record of exactly this profile, tenant, principal and reference,
    // unfenced (tool.browser.profile_unavailable otherwise). Inside the service only.
    Result<SecretBytes> sessionMaterial(const QString &profileId, const QString &tenant,
                                        const QString &principal,
                                        const QString &providerReference) const;
    Result<Unit> sealSession(const QString &profileId, const QString &tenant,
                             const QString &principal, const QString &providerReference,
                             const SecretBytes &material);

    // Maintenance, not part of the port: re-seal one record under the current key version
    // and return the version it is sealed under now.
    Result<QString> rotate(const QString &providerReference);
    // Key versions still named by an envelope; such a key cannot be removed.
    QStringList keyVersionsInUse() const;
    bool isEmpty() const;

private:
    // The unfenced record under providerReference when it is this profile's, in this tenant
    // and for this principal; nothing otherwise.
    std::optional<ProfileMetadata> ownedRecord(const QString &profileId, const QString &tenant,
                                               const QString &principal,
                                               const QString &providerReference) const;
    VaultControlPlane(std::unique_ptr<Keyring> keyring,
                      std::unique_ptr<EncryptedProfileStore> store);

    std::unique_ptr<Keyring> m_keyring;
    std::unique_ptr<EncryptedProfileStore> m_store;
};

} // namespace veetbot
