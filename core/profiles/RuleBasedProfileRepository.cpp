#include "RuleBasedProfileRepository.h"

namespace veetbot {

Result<BrowserProfile> RuleBasedProfileRepository::storable(const ProfileScope &scope,
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
    return stored;
}

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

Result<CeremonyBegun> RuleBasedProfileRepository::beginCeremony(const ProfileScope &scope,
                                                                const QUuid &profileId,
                                                                qint64 expectedGeneration,
                                                                const QString &mode,
                                                                const CeremonyLaunch &launch)
{
    // Malformed arguments are refused before anything is locked or launched.
    if (!scope.validate() || !isCeremonyMode(mode) || expectedGeneration < 0 || !launch)
        return profileError(ProfileFailure::Invalid);
    return admit(scope, profileId,
                 [&](const BrowserProfile &locked,
                     const std::optional<AuthenticationCeremony> &newestOpen,
                     const QDateTime &time) -> Result<CeremonyBegun> {
                     Result<BrowserProfile> advanced =
                         CeremonyLifecycle::admit(locked, expectedGeneration, newestOpen, time);
                     if (!advanced)
                         return advanced.error();
                     const Result<CeremonyLaunchRecord> launched = launch(locked);
                     if (!launched)
                         return launched.error();
                     Result<AuthenticationCeremony> ceremony =
                         CeremonyLifecycle::begin(locked, mode, *launched, time);
                     if (!ceremony)
                         return ceremony.error();
                     return CeremonyBegun{std::move(advanced).value(), std::move(ceremony).value()};
                 });
}

Result<CeremonyFinished>
RuleBasedProfileRepository::finishCeremony(const ProfileScope &scope, const QString &ceremonyId,
                                           CeremonyStatus outcome, const QString &failureCode,
                                           const std::optional<QString> &account)
{
    Result<CeremonySettlement> settled =
        settle(scope, ceremonyId,
               [&](const AuthenticationCeremony &ceremony, const BrowserProfile &profile,
                   const QDateTime &time) {
                   return CeremonyLifecycle::finish(ceremony, profile, outcome, failureCode,
                                                    account, time);
               });
    if (!settled)
        return settled.error();
    if (settled->refusal)
        return *settled->refusal;
    CeremonySettlement done = std::move(settled).value();
    return CeremonyFinished{std::move(done.ceremony), std::move(done.profile)};
}

Result<TaskScopeChange>
RuleBasedProfileRepository::replaceTaskScopes(const ProfileScope &scope, qint64 expectedRevision,
                                              const QList<TaskScope> &entries)
{
    return changeTaskScopes(scope, [&](const TaskScopeState &current) {
        return TaskScopeRules::replace(current, expectedRevision, entries);
    });
}

Result<TaskScopeChange> RuleBasedProfileRepository::seedTaskScopes(const ProfileScope &scope,
                                                                   const QList<TaskScope> &entries)
{
    Result<TaskScopeChange> seeded = changeTaskScopes(scope, [&](const TaskScopeState &current) {
        return TaskScopeRules::seed(current, entries);
    });
    if (seeded || !isTaskScopeFailure(seeded.error(), TaskScopeFailure::Conflict))
        return seeded;
    // A first save won the race: a list now exists, so the seed no longer applies.
    Result<TaskScopePolicy> saved = taskScopes(scope);
    if (!saved)
        return saved.error();
    return TaskScopeChange{.kind = TaskScopeChange::Kind::Unchanged,
                           .policy = std::move(saved).value(),
                           .source = TaskScopeSource::Seed};
}

} // namespace veetbot
