#include "VaultControlPlane.h"

#include "domain/profile/BrowserProfile.h"
#include "storage/PrivateDirectory.h"
#include "vault/EncryptedProfileStore.h"
#include "vault/VaultError.h"

#include <QDir>
#include <QFileInfo>

#include <atomic>

namespace veetbot {

namespace {
std::atomic<int> g_opened{0};

QStringList originStrings(const QList<Origin> &origins)
{
    QStringList strings;
    for (const Origin &origin : origins)
        strings.append(origin.toString());
    strings.sort();
    return strings;
}

ProfileIdentity identityOf(const MaterialScope &scope, const QString &reference)
{
    return ProfileIdentity{scope.profileId.toString(QUuid::WithoutBraces), scope.tenant,
                           scope.principal, reference, originStrings(scope.allowedOrigins)};
}

bool sameScope(const ProfileIdentity &stored, const MaterialScope &scope)
{
    const ProfileIdentity wanted = identityOf(scope, stored.providerReference);
    return stored == wanted;
}
} // namespace

void VaultControlPlane::open(const QString &directory, KeyringLoader loadKeyring, Opened done)
{
    ++g_opened;
    loadKeyring([directory, done = std::move(done)](KeyringResult keyring) {
        if (!keyring) {
            done(keyring.error());
            return;
        }
        if (!QFileInfo::exists(directory)) {
            // Another process may create it at the same moment: the store's own checks decide.
            const bool parentExists = QDir().mkpath(QFileInfo(directory).absolutePath());
            const PrivateDirectory created = PrivateDirectory::create(directory);
            if (!parentExists ||
                (!created.isOpen() && created.failure() != PrivateDirectory::Failure::Exists)) {
                done(vaultError(VaultFailure::StoreUnsafe));
                return;
            }
        }
        std::unique_ptr<Keyring> loaded = std::move(keyring).value();
        auto store = std::make_unique<EncryptedProfileStore>(directory, *loaded);
        const Result<Unit> opened = store->open();
        if (!opened) {
            done(opened.error());
            return;
        }
        done(std::unique_ptr<VaultControlPlane>(
            new VaultControlPlane(std::move(loaded), std::move(store))));
    });
}

int VaultControlPlane::openedCount()
{
    return g_opened.load();
}

VaultControlPlane::VaultControlPlane(std::unique_ptr<Keyring> keyring,
                                     std::unique_ptr<EncryptedProfileStore> store)
    : m_keyring(std::move(keyring)), m_store(std::move(store))
{
}

VaultControlPlane::~VaultControlPlane()
{
    m_store.reset(); // the store refers to the keyring
}

std::optional<ProfileMetadata>
VaultControlPlane::ownedRecord(const QString &profileId, const QString &tenant,
                               const QString &principal, const QString &providerReference) const
{
    std::optional<ProfileMetadata> stored = m_store->metadataForReference(providerReference);
    if (!stored || stored->isFenced() || stored->identity.profileId != profileId ||
        stored->identity.tenant != tenant || stored->identity.principal != principal)
        return std::nullopt;
    return stored;
}

Result<QStringList> VaultControlPlane::sessionOrigins(const QString &profileId,
                                                      const QString &tenant,
                                                      const QString &principal,
                                                      const QString &providerReference) const
{
    const std::optional<ProfileMetadata> stored =
        ownedRecord(profileId, tenant, principal, providerReference);
    if (!stored)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    return stored->identity.allowedOrigins;
}

Result<SecretBytes> VaultControlPlane::sessionMaterial(const QString &profileId,
                                                       const QString &tenant,
                                                       const QString &principal,
                                                       const QString &providerReference) const
{
    const std::optional<ProfileMetadata> stored =
        ownedRecord(profileId, tenant, principal, providerReference);
    if (!stored)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    Result<SecretBytes> material = m_store->read(stored->identity);
    if (!material)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    return material;
}

Result<Unit> VaultControlPlane::sealSession(const QString &profileId, const QString &tenant,
                                            const QString &principal,
                                            const QString &providerReference,
                                            const SecretBytes &material)
{
    const std::optional<ProfileMetadata> stored =
        ownedRecord(profileId, tenant, principal, providerReference);
    if (!stored)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    const Result<ProfileMetadata> updated = m_store->update(stored->identity, material);
    if (!updated)
        return updated.error();
    return Unit{};
}

Result<ProvisionedMaterial> VaultControlPlane::provision(const MaterialScope &scope)
{
    const QString profileId = scope.profileId.toString(QUuid::WithoutBraces);
    if (const auto existing = m_store->metadataForProfile(profileId)) {
        // Provisioning again (say after a restart) returns the original reference; a changed
        // scope is a conflict and changes nothing.
        if (!sameScope(existing->identity, scope) || existing->isFenced())
            return profileError(ProfileFailure::Conflict);
        return ProvisionedMaterial{QLatin1String(kProviderName),
                                   existing->identity.providerReference, existing->keyVersion};
    }
    const QString reference = BrowserProfile::newProviderReference();
    // An empty storage state: the owner's sign-in fills it later.
    const Result<ProfileMetadata> created =
        m_store->create(identityOf(scope, reference), SecretBytes(QByteArrayLiteral("{}")));
    if (!created)
        return created.error();
    return ProvisionedMaterial{QLatin1String(kProviderName), reference, created->keyVersion};
}

Result<Unit> VaultControlPlane::revoke(const MaterialScope &scope,
                                       const std::optional<QString> &providerReference)
{
    const auto metadata =
        providerReference
            ? m_store->metadataForReference(*providerReference)
            : m_store->metadataForProfile(scope.profileId.toString(QUuid::WithoutBraces));
    if (!metadata || metadata->isFenced())
        return Unit{}; // nothing (left) to fence
    if (!sameScope(metadata->identity, scope))
        return profileError(ProfileFailure::Conflict);
    const Result<ProfileMetadata> fenced = m_store->fence(metadata->identity);
    if (!fenced)
        return fenced.error();
    return Unit{};
}

Result<Unit> VaultControlPlane::remove(const MaterialScope &scope,
                                       const std::optional<QString> &providerReference)
{
    const auto metadata =
        providerReference
            ? m_store->metadataForReference(*providerReference)
            : m_store->metadataForProfile(scope.profileId.toString(QUuid::WithoutBraces));
    if (!metadata)
        return Unit{};
    if (!sameScope(metadata->identity, scope))
        return profileError(ProfileFailure::Conflict);
    if (!metadata->isFenced()) {
        const Result<ProfileMetadata> fenced = m_store->fence(metadata->identity);
        if (!fenced)
            return fenced.error();
    }
    return m_store->remove(metadata->identity);
}

Result<Unit> VaultControlPlane::replaceMaterial(const MaterialScope &scope,
                                                const QString &providerReference,
                                                const SecretBytes &material)
{
    const Result<ProfileMetadata> updated =
        m_store->update(identityOf(scope, providerReference), material);
    if (!updated)
        return updated.error();
    return Unit{};
}

Result<QString> VaultControlPlane::rotate(const QString &providerReference)
{
    const Result<bool> rotated = m_store->rotate(providerReference);
    if (!rotated)
        return rotated.error();
    const auto metadata = m_store->metadataForReference(providerReference);
    if (!metadata)
        return profileError(ProfileFailure::NotFound);
    return metadata->keyVersion;
}

QStringList VaultControlPlane::keyVersionsInUse() const
{
    return m_store->keyVersionsInUse();
}

bool VaultControlPlane::isEmpty() const
{
    return m_store->recordCount() == 0;
}

} // namespace veetbot
