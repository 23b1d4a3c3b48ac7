#pragma once

#include "ports/ScheduleStore.h"

// The schedule store's contract, shared by the SQLite and PostgreSQL repository tests: a
// schedule is created active with its pins as given and no occurrence; a schedule that is not
// storable (an unnormalized calendar, a task too long, a model endpoint with a query, a policy
// version that is not 64 hex digits) is refused; pausing and resuming re-pin; occurrences are
// recorded with their run and code; schedules are scoped to their owner; at most 64 are kept;
// deleting is final.
namespace ScheduleChecks {
void verifySchedules(veetbot::ScheduleStore &store, const veetbot::ProfileScope &scope,
                     const veetbot::ProfileScope &outsider);
} // namespace ScheduleChecks
