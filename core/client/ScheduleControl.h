#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/schedule/Schedule.h"

#include <QString>
#include <QUuid>

namespace veetbot {

class SqlStores;

// The schedule use cases every program that offers them shares (`veetbot schedules` and the
// workbench's Schedules section): the record in the metadata store and its systemd user units
// kept together (docs/schedules.md).
namespace ScheduleControl {

// The directory of the user's own units: $XDG_CONFIG_HOME/systemd/user.
QString unitDirectory();
// The policy an occurrence runs under (PolicySettings' defaults): a standing grant made under
// them is usable; the scheduler's turns keep task grants out.
QString occurrencePolicyVersion();

// The profile a schedule may pin: the owner's, READY (schedule.profile_not_ready otherwise).
Result<BrowserProfile> readyProfile(SqlStores &store, const ProfileScope &owner, const QUuid &id);
// The standing grant a schedule pins: the profile's, neither revoked nor expired
// (schedule.grant_unusable otherwise).
Result<Unit> usableGrant(SqlStores &store, const ProfileScope &owner, const QUuid &grant,
                         const QUuid &profile);

// Records a new schedule (its pins checked) and writes its units, enabled; nothing is kept when
// the units cannot be written. `program` runs the occurrences (an absolute path).
Result<Schedule> create(SqlStores &store, const ProfileScope &owner, Schedule schedule,
                        const QString &program);
// Paused (its timer disabled and stopped) or active again (the profile's current sign-in, the
// grant and the policy in force pinned anew; the timer enabled).
Result<Schedule> setState(SqlStores &store, const ProfileScope &owner, const QUuid &id,
                          ScheduleState state, const QString &program);
// The record first (an occurrence starting meanwhile finds nothing), then the units.
Result<Unit> remove(SqlStores &store, const ProfileScope &owner, const QUuid &id);

} // namespace ScheduleControl

} // namespace veetbot
