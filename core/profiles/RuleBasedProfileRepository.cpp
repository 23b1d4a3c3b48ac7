#include "RuleBasedProfileRepository.h"

namespace veetbot {

Result<BrowserProfile> RuleBasedProfileRepository::bind(const ProfileScope &scope, const QUuid &id,
                                                        qint64 expectedGeneration,
                                                        const QString &providerName,
                                                        const QString &providerReference,
                                                        const QString &keyVersion)
{
    return update(scope, id, [&](const BrowserProfile &current, const QDateTime &time) {
        return ProfileLifecycle::bind(current, expectedGeneration, providerName, providerReference,
                                      keyVersion, time);
    });
}

Result<BrowserProfile> RuleBasedProfileRepository::transition(const ProfileScope &scope,
                                                              const QUuid &id,
                                                              qint64 expectedGeneration,
                                                              ProfileStatus newStatus)
{
    return update(scope, id, [&](const BrowserProfile &current, const QDateTime &time) {
        return ProfileLifecycle::transition(current, expectedGeneration, newStatus, time);
    });
}

Result<BrowserProfile> RuleBasedProfileRepository::advanceGeneration(const ProfileScope &scope,
                                                                     const QUuid &id,
                                                                     qint64 expectedGeneration)
{
    return update(scope, id, [&](const BrowserProfile &current, const QDateTime &time) {
        return ProfileLifecycle::advanceGeneration(current, expectedGeneration, time);
    });
}

Result<BrowserProfile> RuleBasedProfileRepository::touchLastUsed(const ProfileScope &scope,
                                                                 const QUuid &id)
{
    return update(scope, id, [](const BrowserProfile &current, const QDateTime &time) {
        return ProfileLifecycle::touchLastUsed(current, time);
    });
}

Result<BrowserProfile> RuleBasedProfileRepository::updateKeyVersion(const ProfileScope &scope,
                                                                    const QUuid &id,
                                                                    qint64 expectedGeneration,
                                                                    const QString &keyVersion)
{
    return update(scope, id, [&](const BrowserProfile &current, const QDateTime &time) {
        return ProfileLifecycle::updateKeyVersion(current, expectedGeneration, keyVersion, time);
    });
}

} // namespace veetbot
