#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/run/Activity.h"

#include <QList>
#include <QUuid>

#include <optional>

namespace veetbot {

// The durable activity timeline (docs/timeline.md), one per tenant and principal. Every
// write refuses a record that is not content-free (isContentFree: profile.invalid); nothing
// else about a page, a value or a URL can be stored. Failures: profile.invalid,
// repository.unavailable, and run.not_found for an unknown run (or another scope's).
class ActivityTimeline
{
public:
    virtual ~ActivityTimeline() = default;

    // Records a new run (its id, kind, profile, website and start) and removes detailed events
    // older than kActivityEventDays (their runs' summaries stay).
    virtual Result<Unit> startRun(const ProfileScope &scope, const ActivityRun &run) = 0;
    // Appends one event to a running run and updates its summary (tool calls, acts, the last
    // act's approval source).
    virtual Result<Unit> appendEvent(const ProfileScope &scope, const QUuid &run,
                                     const ActivityEvent &event) = 0;
    // Ends a run once (a second end answers it unchanged).
    virtual Result<ActivityRun> endRun(const ProfileScope &scope, const QUuid &run,
                                       const QString &reason) = 0;
    // Runs, newest first, at most `limit`.
    virtual Result<QList<ActivityRun>> runs(const ProfileScope &scope, int limit) const = 0;
    // One run and its events, oldest first.
    virtual Result<std::pair<ActivityRun, QList<ActivityEvent>>>
    runWithEvents(const ProfileScope &scope, const QUuid &run) const = 0;
};

} // namespace veetbot
