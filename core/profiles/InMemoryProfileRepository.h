#pragma once

#include "ports/BrowserProfileRepository.h"

#include <QHash>
#include <QMutex>

namespace veetbot {

// The reference adapter of BrowserProfileRepository: the same visibility and conflict
// contract as the SQL adapters, held in process memory (tests and ephemeral runs). Ids and
// provider references are unique across every scope, as in the durable schema.
class InMemoryProfileRepository final : public BrowserProfileRepository
{
public:
    explicit InMemoryProfileRepository(ProfileClock clock = {});

    Result<BrowserProfile> create(const ProfileScope &scope,
                                  const BrowserProfile &profile) override;
    Result<BrowserProfile> get(const ProfileScope &scope, const QUuid &id) const override;
    Result<QList<BrowserProfile>> list(const ProfileScope &scope) const override;
    Result<BrowserProfile> bind(const ProfileScope &scope, const QUuid &id,
                                qint64 expectedGeneration, const QString &providerName,
                                const QString &providerReference,
                                const QString &keyVersion) override;
    Result<BrowserProfile> transition(const ProfileScope &scope, const QUuid &id,
                                      qint64 expectedGeneration, ProfileStatus newStatus) override;
    Result<BrowserProfile> advanceGeneration(const ProfileScope &scope, const QUuid &id,
                                             qint64 expectedGeneration) override;
    Result<BrowserProfile> touchLastUsed(const ProfileScope &scope, const QUuid &id) override;
    Result<Unit> remove(const ProfileScope &scope, const QUuid &id,
                        qint64 expectedGeneration) override;
    Result<BrowserProfile> updateKeyVersion(const ProfileScope &scope, const QUuid &id,
                                            qint64 expectedGeneration,
                                            const QString &keyVersion) override;

private:
    using Rule = std::function<Result<BrowserProfile>(const BrowserProfile &, const QDateTime &)>;

    // The stored profile of this scope, or nullptr (also for another scope's id).
    BrowserProfile *findInScope(const ProfileScope &scope, const QUuid &id);
    const BrowserProfile *findInScope(const ProfileScope &scope, const QUuid &id) const;
    bool referenceInUse(const QString &reference, const QUuid &except) const;
    // Applies a lifecycle rule to the scoped profile and stores its result.
    Result<BrowserProfile> update(const ProfileScope &scope, const QUuid &id, const Rule &rule);
    QDateTime now() const;

    mutable QMutex m_mutex;
    ProfileClock m_clock;
    QHash<QUuid, BrowserProfile> m_profiles;
};

} // namespace veetbot
