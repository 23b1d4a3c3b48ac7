#pragma once

#include "SqlMetadataSession.h"
#include "ports/ActivityTimeline.h"

#include <QSqlDatabase>
#include <QString>

namespace veetbot {

// ActivityTimeline on SQL, over the shared tenant-scoped SqlMetadataSession: runs and their
// content-free events, append-only for the application.
class SqlActivityTimeline final : public ActivityTimeline
{
public:
    explicit SqlActivityTimeline(SqlMetadataSession &session);
    SqlActivityTimeline(const SqlActivityTimeline &) = delete;
    SqlActivityTimeline &operator=(const SqlActivityTimeline &) = delete;

    // PostgreSQL, as the owner: the application role's privileges on its tables.
    static bool grantPrivileges(QSqlDatabase &db, const QString &quotedRole);

    Result<Unit> startRun(const ProfileScope &scope, const ActivityRun &record) override;
    Result<Unit> appendEvent(const ProfileScope &scope, const QUuid &run,
                             const ActivityEvent &event) override;
    Result<ActivityRun> endRun(const ProfileScope &scope, const QUuid &run,
                               const QString &reason) override;
    Result<QList<ActivityRun>> runs(const ProfileScope &scope, int limit) const override;
    Result<std::pair<ActivityRun, QList<ActivityEvent>>>
    runWithEvents(const ProfileScope &scope, const QUuid &run) const override;

private:
    // The scope's run, or activity_run.not_found.
    Result<ActivityRun> loadRun(QSqlDatabase &db, const ProfileScope &scope,
                                const QUuid &runId) const;
    SqlMetadataSession &m_session;
};

} // namespace veetbot
