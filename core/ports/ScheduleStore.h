#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/schedule/Schedule.h"

#include <QList>
#include <QUuid>

namespace veetbot {

// The schedules of one tenant and principal (docs/schedules.md), in the profile metadata store.
// Failures: schedule.invalid (not storable), schedule.not_found (unknown, or another scope's),
// schedule.too_many, repository.unavailable.
class ScheduleStore
{
public:
    virtual ~ScheduleStore() = default;

    // A new schedule: its id, pins and definition as given; created and updated now, no
    // occurrence yet.
    virtual Result<Schedule> createSchedule(const ProfileScope &scope,
                                            const Schedule &schedule) = 0;
    virtual Result<Schedule> schedule(const ProfileScope &scope, const QUuid &id) const = 0;
    // Oldest first.
    virtual Result<QList<Schedule>> schedules(const ProfileScope &scope) const = 0;
    // Paused or active again. Resuming pins the profile's generation given (the owner signed
    // in again meanwhile) and the policy version in force.
    virtual Result<Schedule> setScheduleState(const ProfileScope &scope, const QUuid &id,
                                              ScheduleState state, qint64 profileGeneration,
                                              const QString &policyVersion) = 0;
    // The occurrence that began at `at`: its run (if one was recorded), status and code.
    virtual Result<Schedule> recordOccurrence(const ProfileScope &scope, const QUuid &id,
                                              const QDateTime &at, const std::optional<QUuid> &run,
                                              const QString &status, const QString &code) = 0;
    virtual Result<Unit> deleteSchedule(const ProfileScope &scope, const QUuid &id) = 0;
};

} // namespace veetbot
