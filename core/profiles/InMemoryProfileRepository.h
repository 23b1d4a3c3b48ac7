#pragma once

#include "ports/TaskGrantStore.h"
#include "profiles/RuleBasedProfileRepository.h"

#include <QHash>
#include <QMutex>

namespace veetbot {

// The reference adapter of BrowserProfileRepository: the same visibility and conflict
// contract as the SQL adapters, held in process memory (tests and ephemeral runs). Ids and
// provider references are unique across every scope, as in the durable schema, and so are
// ceremony ids. Its one mutex is the admission lock: a ceremony begin holds it through the
// launch, so every other call waits for that launch.
class InMemoryProfileRepository final : public RuleBasedProfileRepository, public TaskGrantStore
{
public:
    explicit InMemoryProfileRepository(ProfileClock clock = {});

    Result<BrowserProfile> create(const ProfileScope &scope,
                                  const BrowserProfile &profile) override;
    Result<BrowserProfile> get(const ProfileScope &scope, const QUuid &id) const override;
    Result<QList<BrowserProfile>> list(const ProfileScope &scope) const override;
    Result<Unit> remove(const ProfileScope &scope, const QUuid &id,
                        qint64 expectedGeneration) override;
    Result<AuthenticationCeremony> ceremony(const ProfileScope &scope,
                                            const QString &ceremonyId) const override;
    Result<std::optional<AuthenticationCeremony>>
    newestOpenCeremony(const ProfileScope &scope, const QUuid &profileId) const override;
    Result<TaskScopePolicy> taskScopes(const ProfileScope &scope) const override;
    Result<QList<TaskScopeAuditRecord>> taskScopeAudit(const ProfileScope &scope) const override;

    Result<TaskGrant> createTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                      const TaskScope &offered, const QUuid &approval,
                                      const QJsonObject &approvalView) override;
    Result<std::optional<TaskGrant>> activeTaskGrant(const ProfileScope &scope,
                                                     const QUuid &session) const override;
    Result<TaskGrantUse> useTaskGrant(const ProfileScope &scope, const TaskGrantPins &pins,
                                      const QUuid &grant, int typedCharacters,
                                      const QJsonObject &approvalView) override;
    Result<TaskGrant> endTaskGrant(const ProfileScope &scope, const QUuid &grant,
                                   TaskGrantEnd reason) override;
    Result<QList<TaskGrant>> taskGrants(const ProfileScope &scope) override;
    Result<QList<TaskGrantAuditRecord>> taskGrantAudit(const ProfileScope &scope,
                                                       const QUuid &grant) const override;

private:
    using ScopeKey = std::pair<QString, QString>;

    Result<TaskScopeChange> changeTaskScopes(const ProfileScope &scope,
                                             const TaskScopeEdit &edit) override;
    // Where a removal ends the task grants outside the new list: every unended grant of the
    // scope whose origin and prefix are not in change.policy ends with scope_removed and its
    // browser.task_grant.ended record, under the same lock as the list change. Re-adding an
    // entry never revives one. The caller holds the mutex.
    Result<Unit> endTaskGrantsOutside(const ProfileScope &scope, const TaskScopeChange &change);
    // The stored grant of this scope, or nullptr; the caller holds the mutex.
    TaskGrant *findGrantInScope(const ProfileScope &scope, const QUuid &id);
    // Ends a stored unended grant at time and appends its ended record; the caller holds the
    // mutex.
    void endGrant(TaskGrant &grant, TaskGrantEnd reason, const QDateTime &time);
    std::optional<BrowserProfile> profileOf(const TaskGrant &grant) const;
    // The stored profile of this scope, or nullptr (also for another scope's id).
    BrowserProfile *findInScope(const ProfileScope &scope, const QUuid &id);
    const BrowserProfile *findInScope(const ProfileScope &scope, const QUuid &id) const;
    bool referenceInUse(const QString &reference, const QUuid &except) const;
    // Applies a lifecycle rule to the scoped profile and stores its result.
    Result<BrowserProfile> update(const ProfileScope &scope, const QUuid &id,
                                  const Rule &rule) override;
    Result<CeremonyBegun> admit(const ProfileScope &scope, const QUuid &profileId,
                                const Admission &admission) override;
    Result<CeremonySettlement> settle(const ProfileScope &scope, const QString &ceremonyId,
                                      const Settlement &settlement) override;
    // The stored record of this scope, or nullptr (also for another scope's id).
    AuthenticationCeremony *findCeremonyInScope(const ProfileScope &scope, const QString &id);
    const AuthenticationCeremony *findCeremonyInScope(const ProfileScope &scope,
                                                      const QString &id) const;
    // The profile's newest record that is open and unexpired at time; the caller holds the
    // mutex.
    std::optional<AuthenticationCeremony> newestOpen(const QUuid &profileId,
                                                     const QDateTime &time) const;
    QDateTime now() const;

    mutable QMutex m_mutex;
    ProfileClock m_clock;
    QHash<QUuid, BrowserProfile> m_profiles;
    QHash<QString, AuthenticationCeremony> m_ceremonies;
    QHash<ScopeKey, TaskScopeState> m_taskScopes;
    QList<TaskScopeAuditRecord> m_taskScopeAudit;
    QHash<QUuid, TaskGrant> m_grants;
    QList<TaskGrantAuditRecord> m_grantAudit;
};

} // namespace veetbot
