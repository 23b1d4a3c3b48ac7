#pragma once

#include "SqlMetadataSession.h"
#include "SqlProfileRepository.h"
#include "ports/StandingGrantStore.h"

#include <QSqlDatabase>
#include <QString>

namespace veetbot {

// StandingGrantStore on SQL, over the shared tenant-scoped SqlMetadataSession, in the same
// units of work as the profile and sign-in records a grant is checked against.
class SqlStandingGrantStore final : public StandingGrantStore
{
public:
    explicit SqlStandingGrantStore(SqlMetadataSession &session,
                                   const SqlProfileRepository &profiles);
    SqlStandingGrantStore(const SqlStandingGrantStore &) = delete;
    SqlStandingGrantStore &operator=(const SqlStandingGrantStore &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on its tables.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    Result<StandingGrant> createStandingGrant(const ProfileScope &scope,
                                              const StandingGrantRequest &request) override;
    Result<StandingGrant> standingGrant(const ProfileScope &scope,
                                        const QUuid &grantId) const override;
    Result<QList<StandingGrant>>
    standingGrants(const ProfileScope &scope, const std::optional<QUuid> &profileId) const override;
    Result<StandingGrant> revokeStandingGrant(const ProfileScope &scope,
                                              const QUuid &grantId) override;
    Result<QList<StandingGrantAuditRecord>>
    standingGrantAudit(const ProfileScope &scope) const override;
    StandingGrantDecision authorize(const ProfileScope &scope, const QUuid &grantId,
                                    const StandingGrantUse &use) const override;

private:
    // The scoped grant, or nothing (also for another scope's id); PostgreSQL locks its row
    // when forUpdate. A row that breaks the grant's invariants fails closed.
    Result<std::optional<StandingGrant>> loadStandingGrant(QSqlDatabase &db,
                                                           const ProfileScope &scope,
                                                           const QUuid &grantId,
                                                           bool forUpdate) const;
    // Whether the profile's newest sign-in record has an outcome at time: one exists and it
    // is not open and unexpired.
    Result<bool> newestCeremonyFinished(QSqlDatabase &db, const ProfileScope &scope,
                                        const QUuid &profileId, const QDateTime &time) const;
    Result<Unit> appendStandingGrantAudit(QSqlDatabase &db, const StandingGrant &grant,
                                          const QString &kind, const QDateTime &time) const;

    SqlMetadataSession &m_session;
    const SqlProfileRepository &m_profiles;
};

} // namespace veetbot
