#pragma once

#include "ports/ActivityTimeline.h"

#include <functional>

// The activity timeline's contract, shared by the SQLite and PostgreSQL repository tests: a
// run's summary follows its events, a run ends once, runs list newest first and are scoped to
// their owner, anything that is not content-free is refused and nothing of it stored, and
// events older than seven days go while the summaries stay. `advanceSeconds` moves the
// store's clock.
namespace ActivityTimelineChecks {
void verifyTimeline(veetbot::ActivityTimeline &timeline, const veetbot::ProfileScope &scope,
                    const veetbot::ProfileScope &outsider,
                    const std::function<void(qint64)> &advanceSeconds);
} // namespace ActivityTimelineChecks
