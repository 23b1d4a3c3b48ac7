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
    Result<BrowserProfile> checked = storable(scope, profile);
    if (!checked)
        return checked.error();
    BrowserProfile stored = std::move(checked).value();

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
    // The sign-in records go with their profile.
    for (auto it = m_ceremonies.begin(); it != m_ceremonies.end();) {
        if (it->profileId == id)
            it = m_ceremonies.erase(it);
        else
            ++it;
    }
    return Unit{};
}

AuthenticationCeremony *InMemoryProfileRepository::findCeremonyInScope(const ProfileScope &scope,
                                                                       const QString &id)
{
    const auto it = m_ceremonies.find(id);
    if (it == m_ceremonies.end() || it->scope() != scope)
        return nullptr;
    return &*it;
}

const AuthenticationCeremony *
InMemoryProfileRepository::findCeremonyInScope(const ProfileScope &scope, const QString &id) const
{
    const auto it = m_ceremonies.constFind(id);
    if (it == m_ceremonies.cend() || it->scope() != scope)
        return nullptr;
    return &*it;
}

std::optional<AuthenticationCeremony>
InMemoryProfileRepository::newestOpen(const QUuid &profileId, const QDateTime &time) const
{
    std::optional<AuthenticationCeremony> newest;
    for (const AuthenticationCeremony &ceremony : m_ceremonies) {
        if (ceremony.profileId != profileId || !ceremony.isOpenAt(time))
            continue;
        if (!newest ||
            std::pair(ceremony.createdAt, ceremony.id) > std::pair(newest->createdAt, newest->id))
            newest = ceremony;
    }
    return newest;
}

Result<AuthenticationCeremony> InMemoryProfileRepository::ceremony(const ProfileScope &scope,
                                                                   const QString &ceremonyId) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    const AuthenticationCeremony *stored = findCeremonyInScope(scope, ceremonyId);
    if (!stored)
        return profileError(ProfileFailure::CeremonyNotFound);
    return stored->asOf(time);
}

Result<std::optional<AuthenticationCeremony>>
InMemoryProfileRepository::newestOpenCeremony(const ProfileScope &scope,
                                              const QUuid &profileId) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    if (!findInScope(scope, profileId))
        return profileError(ProfileFailure::NotFound);
    return newestOpen(profileId, time);
}

Result<CeremonyBegun> InMemoryProfileRepository::admit(const ProfileScope &scope,
                                                       const QUuid &profileId,
                                                       const Admission &admission)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    // Held through the launch the admission makes: the whole store is the admission lock.
    const QMutexLocker locker(&m_mutex);
    BrowserProfile *stored = findInScope(scope, profileId);
    if (!stored)
        return profileError(ProfileFailure::NotFound);
    Result<CeremonyBegun> begun = admission(*stored, newestOpen(profileId, time), time);
    if (!begun)
        return begun.error();
    if (const Result<Unit> valid = begun->profile.validate(); !valid)
        return valid.error();
    if (const Result<Unit> valid = begun->ceremony.validate(); !valid)
        return valid.error();
    if (m_ceremonies.contains(begun->ceremony.id))
        return profileError(ProfileFailure::Conflict);
    *stored = begun->profile;
    m_ceremonies.insert(begun->ceremony.id, begun->ceremony);
    return begun;
}

Result<CeremonySettlement> InMemoryProfileRepository::settle(const ProfileScope &scope,
                                                             const QString &ceremonyId,
                                                             const Settlement &settlement)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    AuthenticationCeremony *ceremony = findCeremonyInScope(scope, ceremonyId);
    // Records go with their profile, so it is always there; were it not, the record would
    // read as unknown.
    BrowserProfile *profile = ceremony ? findInScope(scope, ceremony->profileId) : nullptr;
    if (!ceremony || !profile)
        return profileError(ProfileFailure::CeremonyNotFound);
    Result<CeremonySettlement> settled = settlement(*ceremony, *profile, time);
    if (!settled)
        return settled.error();
    if (const Result<Unit> valid = settled->profile.validate(); !valid)
        return valid.error();
    if (const Result<Unit> valid = settled->ceremony.validate(); !valid)
        return valid.error();
    *profile = settled->profile;
    *ceremony = settled->ceremony;
    return settled;
}

Result<TaskScopePolicy> InMemoryProfileRepository::taskScopes(const ProfileScope &scope) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    return m_taskScopes.value(ScopeKey{scope.tenant, scope.principal}).policy;
}

Result<QList<TaskScopeAuditRecord>>
InMemoryProfileRepository::taskScopeAudit(const ProfileScope &scope) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    QList<TaskScopeAuditRecord> records;
    for (const TaskScopeAuditRecord &record : m_taskScopeAudit) {
        if (record.tenant == scope.tenant && record.principal == scope.principal)
            records << record;
    }
    return records;
}

Result<TaskScopeChange> InMemoryProfileRepository::changeTaskScopes(const ProfileScope &scope,
                                                                    const TaskScopeEdit &edit)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    const ScopeKey key{scope.tenant, scope.principal};
    const TaskScopeState current = m_taskScopes.value(key);
    Result<TaskScopeChange> change = edit(current);
    if (!change || change->kind != TaskScopeChange::Kind::Changed)
        return change;
    if (const Result<Unit> ended = endTaskGrantsOutside(scope, *change); !ended)
        return ended.error();
    m_taskScopes.insert(key,
                        TaskScopeState{.policy = change->policy, .lastSource = change->source});
    m_taskScopeAudit << TaskScopeAuditRecord::of(scope.tenant, scope.principal, *change, time);
    return change;
}

Result<Unit> InMemoryProfileRepository::endTaskGrantsOutside(const ProfileScope &scope,
                                                             const TaskScopeChange &change)
{
    const QDateTime time = now();
    for (TaskGrant &grant : m_grants) {
        if (grant.tenant == scope.tenant && grant.principal == scope.principal &&
            !grant.isEnded() && !change.policy.entries.contains(grant.scope))
            endGrant(grant, TaskGrantEnd::ScopeRemoved, time);
    }
    return Unit{};
}

TaskGrant *InMemoryProfileRepository::findGrantInScope(const ProfileScope &scope, const QUuid &id)
{
    const auto it = m_grants.find(id);
    if (it == m_grants.end() || it->tenant != scope.tenant || it->principal != scope.principal)
        return nullptr;
    return &*it;
}

void InMemoryProfileRepository::endGrant(TaskGrant &grant, TaskGrantEnd reason,
                                         const QDateTime &time)
{
    grant.endedAt = time;
    grant.endReason = reason;
    m_grantAudit << TaskGrantAuditRecord::ended(grant.id, time, reason);
}

std::optional<BrowserProfile> InMemoryProfileRepository::profileOf(const TaskGrant &grant) const
{
    const BrowserProfile *profile =
        findInScope(ProfileScope{grant.tenant, grant.principal}, grant.pins.profileId);
    return profile ? std::optional<BrowserProfile>(*profile) : std::nullopt;
}

Result<TaskGrant> InMemoryProfileRepository::createTaskGrant(const ProfileScope &scope,
                                                             const TaskGrantPins &pins,
                                                             const TaskScope &offered,
                                                             const QUuid &approval,
                                                             const QJsonObject &approvalView)
{
    if (!scope.validate() || !pins.isComplete() || approval.isNull())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    const BrowserProfile *profile = findInScope(scope, pins.profileId);
    if (const Result<Unit> admitted = TaskGrantRules::admit(
            m_taskScopes.value(ScopeKey{scope.tenant, scope.principal}).policy.entries, offered,
            profile ? std::optional<BrowserProfile>(*profile) : std::nullopt,
            newestOpen(pins.profileId, time).has_value(), pins);
        !admitted)
        return admitted.error();
    for (TaskGrant &grant : m_grants) {
        if (grant.tenant == scope.tenant && grant.principal == scope.principal &&
            grant.pins.session == pins.session && !grant.isEnded())
            endGrant(grant, TaskGrantEnd::Superseded, time);
    }
    const TaskGrant grant = TaskGrantRules::make(scope, pins, offered, approval, time);
    m_grants.insert(grant.id, grant);
    m_grantAudit << TaskGrantAuditRecord::created(grant.id, time, approvalView);
    return grant;
}

Result<std::optional<TaskGrant>>
InMemoryProfileRepository::activeTaskGrant(const ProfileScope &scope, const QUuid &session) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    for (const TaskGrant &grant : m_grants) {
        if (grant.tenant == scope.tenant && grant.principal == scope.principal &&
            grant.pins.session == session && !grant.isEnded())
            return std::optional<TaskGrant>(grant);
    }
    return std::optional<TaskGrant>();
}

Result<TaskGrantUse> InMemoryProfileRepository::useTaskGrant(const ProfileScope &scope,
                                                             const TaskGrantPins &pins,
                                                             const QUuid &grantId,
                                                             int typedCharacters,
                                                             const QJsonObject &approvalView)
{
    if (!scope.validate() || !pins.isComplete() || typedCharacters < 0)
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    TaskGrant *grant = findGrantInScope(scope, grantId);
    if (!grant || grant->pins.session != pins.session)
        return taskGrantError(TaskGrantFailure::NotFound);
    if (grant->isEnded())
        return taskGrantError(TaskGrantFailure::Ended);
    const TaskGrantRules::UseDecision decision = TaskGrantRules::use(
        *grant, pins, profileOf(*grant),
        m_taskScopes.value(ScopeKey{scope.tenant, scope.principal}).policy.entries, typedCharacters,
        time);
    if (decision.kind == TaskGrantRules::UseDecision::Kind::End)
        endGrant(*grant, *decision.end, time);
    if (decision.kind != TaskGrantRules::UseDecision::Kind::Consume)
        return decision.refusal;
    grant->uses += 1;
    grant->typedCharacters += typedCharacters;
    const TaskGrantUse use{*grant, grant->uses};
    m_grantAudit << TaskGrantAuditRecord::authorized(grant->id, time, use.ordinal, approvalView);
    if (grant->uses >= TaskGrant::kMaxActions)
        endGrant(*grant, TaskGrantEnd::Exhausted, time);
    return TaskGrantUse{*grant, use.ordinal};
}

Result<TaskGrant> InMemoryProfileRepository::endTaskGrant(const ProfileScope &scope,
                                                          const QUuid &grantId, TaskGrantEnd reason)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    TaskGrant *grant = findGrantInScope(scope, grantId);
    if (!grant)
        return taskGrantError(TaskGrantFailure::NotFound);
    if (!grant->isEnded())
        endGrant(*grant, reason, time);
    return *grant;
}

Result<QList<TaskGrant>> InMemoryProfileRepository::taskGrants(const ProfileScope &scope)
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QDateTime time = now();
    const QMutexLocker locker(&m_mutex);
    QList<TaskGrant> grants;
    for (TaskGrant &grant : m_grants) {
        if (grant.tenant != scope.tenant || grant.principal != scope.principal)
            continue;
        if (!grant.isEnded()) {
            if (const std::optional<TaskGrantEnd> end =
                    TaskGrantRules::endWithoutSession(grant, profileOf(grant), time))
                endGrant(grant, *end, time);
        }
        grants << grant;
    }
    std::sort(grants.begin(), grants.end(), [](const TaskGrant &a, const TaskGrant &b) {
        return a.createdAt != b.createdAt ? a.createdAt > b.createdAt : a.id < b.id;
    });
    return grants;
}

Result<QList<TaskGrantAuditRecord>>
InMemoryProfileRepository::taskGrantAudit(const ProfileScope &scope, const QUuid &grantId) const
{
    if (!scope.validate())
        return profileError(ProfileFailure::Invalid);
    const QMutexLocker locker(&m_mutex);
    const auto it = m_grants.constFind(grantId);
    if (it == m_grants.cend() || it->tenant != scope.tenant || it->principal != scope.principal)
        return taskGrantError(TaskGrantFailure::NotFound);
    QList<TaskGrantAuditRecord> records;
    for (const TaskGrantAuditRecord &record : m_grantAudit) {
        if (record.grant == grantId)
            records << record;
    }
    return records;
}

} // namespace veetbot
