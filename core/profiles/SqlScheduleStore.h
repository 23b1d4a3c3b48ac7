#pragma once

#include "SqlMetadataSession.h"
#include "ports/ScheduleStore.h"

#include <QSqlDatabase>
#include <QString>

namespace veetbot {

// ScheduleStore on SQL, on the table of schema version 9, in the same tenant-scoped
// transactions (SqlMetadataSession) as the profiles.
class SqlScheduleStore final : public ScheduleStore
{
public:
    explicit SqlScheduleStore(SqlMetadataSession &session);
    SqlScheduleStore(const SqlScheduleStore &) = delete;
    SqlScheduleStore &operator=(const SqlScheduleStore &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on its table.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    Result<Schedule> createSchedule(const ProfileScope &scope, const Schedule &schedule) override;
    Result<Schedule> schedule(const ProfileScope &scope, const QUuid &id) const override;
    Result<QList<Schedule>> schedules(const ProfileScope &scope) const override;
    Result<Schedule> setScheduleState(const ProfileScope &scope, const QUuid &id,
                                      ScheduleState state, qint64 profileGeneration,
                                      const QString &policyVersion) override;
    Result<Schedule> recordOccurrence(const ProfileScope &scope, const QUuid &id,
                                      const QDateTime &at, const std::optional<QUuid> &run,
                                      const QString &status, const QString &code) override;
    Result<Unit> deleteSchedule(const ProfileScope &scope, const QUuid &id) override;

private:
    Result<Schedule> load(QSqlDatabase &db, const ProfileScope &scope, const QUuid &id,
                          bool forUpdate) const;

    SqlMetadataSession &m_session;
};

} // namespace veetbot
