#include "ProfileService.h"

namespace veetbot {

namespace {
constexpr int kRevocationAttempts = 8; // concurrent writers each win at most once
} // namespace

ProfileService::ProfileService(BrowserProfileRepository &repository,
                               BrowserProfileControlPlane *controlPlane, ProfileScope scope)
    : m_repository(repository), m_controlPlane(controlPlane), m_scope(std::move(scope))
{
}

Error ProfileService::fencePending()
{
    return Error{QStringLiteral("vault.fence_pending"),
                 QStringLiteral("The profile is revoked; its material could not be fenced yet. "
                                "Run revoke again when the keys are available.")};
}

Error ProfileService::vaultUnavailable()
{
    return Error{QStringLiteral("vault.unavailable"),
                 QStringLiteral("The encrypted profile store is not available; nothing was "
                                "changed.")};
}

MaterialScope ProfileService::materialScope(const BrowserProfile &profile) const
{
    return MaterialScope{profile.id, profile.tenant, profile.principal, profile.allowedOrigins};
}

Result<BrowserProfile> ProfileService::create(const QList<Origin> &origins)
{
    if (!m_controlPlane)
        return vaultUnavailable();
    Result<BrowserProfile> reservation =
        BrowserProfile::reserve(m_scope, origins, QDateTime::currentDateTimeUtc());
    if (!reservation)
        return reservation.error();
    Result<BrowserProfile> reserved = m_repository.create(m_scope, *reservation);
    if (!reserved)
        return reserved.error();

    const Result<ProvisionedMaterial> material =
        m_controlPlane->provision(materialScope(*reserved));
    if (!material) {
        // Best effort: a reservation left behind is never bound to material, so never usable;
        // the caller hears the failure that matters.
        (void)m_repository.transition(m_scope, reserved->id, reserved->generation,
                                      ProfileStatus::Revoked);
        return material.error();
    }
    Result<BrowserProfile> bound =
        m_repository.bind(m_scope, reserved->id, reserved->generation, material->providerName,
                          material->providerReference, material->keyVersion);
    if (!bound) {
        // The new material must not outlive a reservation that could not bind it.
        // Best effort, as above: material that cannot be removed now has no profile bound to
        // it and is never handed out.
        (void)m_controlPlane->remove(materialScope(*reserved), material->providerReference);
        (void)m_repository.transition(m_scope, reserved->id, reserved->generation,
                                      ProfileStatus::Revoked);
        return bound.error();
    }
    return bound;
}

Result<QList<BrowserProfile>> ProfileService::list() const
{
    return m_repository.list(m_scope);
}

Result<BrowserProfile> ProfileService::get(const QUuid &id) const
{
    return m_repository.get(m_scope, id);
}

Result<BrowserProfile> ProfileService::commitRevocation(const QUuid &id)
{
    for (int attempt = 0; attempt < kRevocationAttempts; ++attempt) {
        Result<BrowserProfile> current = m_repository.get(m_scope, id);
        if (!current || current->status == ProfileStatus::Revoked)
            return current;
        Result<BrowserProfile> revoked =
            m_repository.transition(m_scope, id, current->generation, ProfileStatus::Revoked);
        if (revoked || !isProfileFailure(revoked.error(), ProfileFailure::StaleGeneration))
            return revoked;
        // Someone else won this generation; read again and revoke the newer one.
    }
    return profileError(ProfileFailure::StaleGeneration);
}

Result<BrowserProfile> ProfileService::revoke(const QUuid &id)
{
    // The metadata commit comes first: from here on nothing can use the profile, even if the
    // fence below has to be retried.
    Result<BrowserProfile> revoked = commitRevocation(id);
    if (!revoked)
        return revoked;
    if (!m_controlPlane)
        return fencePending();
    const Result<Unit> fenced =
        m_controlPlane->revoke(materialScope(*revoked), revoked->providerReference);
    if (!fenced)
        return fencePending();
    return revoked;
}

Result<Unit> ProfileService::remove(const QUuid &id)
{
    const Result<BrowserProfile> profile = m_repository.get(m_scope, id);
    // Deleting is idempotent: a profile already gone (or never visible to this principal,
    // which looks the same) is absent, as asked. Nothing changes.
    if (!profile && isProfileFailure(profile.error(), ProfileFailure::NotFound))
        return Unit{};
    if (!profile)
        return profile.error();
    if (!m_controlPlane)
        return vaultUnavailable();
    const Result<Unit> removable = ProfileLifecycle::checkRemovable(*profile, profile->generation);
    if (!removable)
        return removable.error();
    // Material first: a metadata failure must never leave usable material behind an
    // apparently deleted profile.
    const Result<Unit> material =
        m_controlPlane->remove(materialScope(*profile), profile->providerReference);
    if (!material)
        return material.error();
    return m_repository.remove(m_scope, id, profile->generation);
}

} // namespace veetbot
