#include "InMemoryProfileRepository.h"

#include <QMutexLocker>

#include <algorithm>

namespace veetbot {

InMemoryProfileRepository::InMemoryProfileRepository(ProfileClock clock) : m_clock(std::move(clock))
{
}

QDateTime InMemoryProfileRepository::now() const
{
    return (m_clock ? m_clock() : QDateTime::currentDateTimeUtc()).toUTC();
}

BrowserProfile *InMemoryProfileRepository::findInScope(const ProfileScope &scope, const QUuid &id)
{
    const auto it = m_profiles.find(id);
    if (it == m_profiles.end() || it->tenant != scope.tenant || it->principal != scope.principal)
        return nullptr;
    return &*it;
}

const BrowserProfile *InMemoryProfileRepository::findInScope(const ProfileScope &scope,
                                                             const QUuid &id) const
{
    const auto it = m_profiles.constFind(id);
    if (it == m_profiles.cend() || it->tenant != scope.tenant || it->principal != scope.principal)
        return nullptr;
    return &*it;
}

bool InMemoryProfileRepository::referenceInUse(const QString &reference, const QUuid &except) const
{
    return std::any_of(m_profiles.cbegin(), m_profiles.cend(), [&](const BrowserProfile &p) {
        return p.id != except && p.providerReference == reference;
    });
}

Result<BrowserProfile> InMemoryProfileRepository::create(const ProfileScope &scope,
                                                         const BrowserProfile &profile)
{
    if (!scope.validate() || profile.scope() != scope)
        return profileError(ProfileFailure::Invalid);
    BrowserProfile stored = profile;
    Result<QList<Origin>> origins = BrowserProfile::normalizeOrigins(profile.allowedOrigins);
    if (!origins)
        return origins.error();
    stored.allowedOrigins = std::move(origins).value();
    if (const Result<Unit> valid = stored.validate(); !valid)
        return valid.error();

    const QMutexLocker locker(&m_mutex);
    if (m_profiles.contains(stored.id))
        return profileError(ProfileFailure::Conflict);
    if (stored.providerReference && referenceInUse(*stored.providerReference, stored.id))
        return profileError(ProfileFailure::Conflict);
    m_profiles.insert(stored.id, stored);
    return stored;
}

Result<BrowserProfile> InMemoryProfileRepository::get(const ProfileScope &scope,
                                                      const QUuid &id) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    const BrowserProfile *profile = findInScope(scope, id);
    if (!profile)
        return profileError(ProfileFailure::NotFound);
    return *profile;
}

Result<QList<BrowserProfile>> InMemoryProfileRepository::list(const ProfileScope &scope) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    QList<BrowserProfile> result;
    {
        const QMutexLocker locker(&m_mutex);
        for (const BrowserProfile &profile : m_profiles) {
            if (profile.tenant == scope.tenant && profile.principal == scope.principal)
                result.append(profile);
        }
    }
    std::sort(result.begin(), result.end(), [](const BrowserProfile &a, const BrowserProfile &b) {
        if (a.createdAt != b.createdAt)
            return a.createdAt < b.createdAt;
        return a.id < b.id;
    });
    return result;
}

Result<BrowserProfile> InMemoryProfileRepository::update(const ProfileScope &scope, const QUuid &id,
                                                         const Rule &rule)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    BrowserProfile *stored = findInScope(scope, id);
    if (!stored)
        return profileError(ProfileFailure::NotFound);
    Result<BrowserProfile> next = rule(*stored, time);
    if (!next)
        return next.error();
    if (next->providerReference && next->providerReference != stored->providerReference &&
        referenceInUse(*next->providerReference, id))
        return profileError(ProfileFailure::Conflict);
    if (const Result<Unit> valid = next->validate(); !valid)
        return valid.error();
    *stored = *next;
    return next;
}

Result<Unit> InMemoryProfileRepository::remove(const ProfileScope &scope, const QUuid &id,
                                               qint64 expectedGeneration)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    const BrowserProfile *stored = findInScope(scope, id);
    if (!stored)
        return profileError(ProfileFailure::NotFound);
    if (const Result<Unit> removable =
            ProfileLifecycle::checkRemovable(*stored, expectedGeneration);
        !removable)
        return removable.error();
    m_profiles.remove(id);
    return Unit{};
}

} // namespace veetbot
