#pragma once

#include "ports/ActivityTimeline.h"
#include "ports/TaskRunStore.h"

// The task-run store's contract, shared by the SQLite and PostgreSQL repository tests: a run
// is created running, its progress and end are kept with the ceilings as bounds, an attempt
// is numbered and a new one ends the open one "interrupted", an ended run is not resumable
// (needs_user is), runs are scoped to their owner, and the timeline accepts a task run with
// its model calls and a task run's end reason.
namespace TaskRunChecks {
void verifyTaskRuns(veetbot::TaskRunStore &store, veetbot::ActivityTimeline &timeline,
                    const veetbot::ProfileScope &scope, const veetbot::ProfileScope &outsider);
} // namespace TaskRunChecks
