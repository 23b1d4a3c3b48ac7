#pragma once

#include "domain/Result.h"
#include "ports/ActivityTimeline.h"

#include <QString>
#include <QUuid>

namespace veetbot {

// Whether a run's process is still there (docs/timeline.md "Runs that died"): the process
// holds an exclusive lock on <data directory>/runs/<run id>.lock for its life. The kernel
// releases the lock however the process ends, so a run whose lock file is left behind and
// free died without ending its run. A run from another machine (a shared PostgreSQL store) has
// no lock file here and is never judged.
class RunPresence
{
public:
    RunPresence() = default;
    RunPresence(const RunPresence &) = delete;
    RunPresence &operator=(const RunPresence &) = delete;
    RunPresence(RunPresence &&other) noexcept;
    RunPresence &operator=(RunPresence &&other) noexcept;
    // Still held: the lock goes with the process, the file stays (a later look ends the run).
    ~RunPresence();

    // Creates the run's lock file (0600, in a 0700 directory) and locks it; before the run is
    // recorded. run.unavailable when the file cannot be made or locked.
    static Result<RunPresence> hold(const QString &dataDirectory, const QUuid &run);
    // The run ended as it says: the file is removed, then the lock released.
    void release();
    bool isHeld() const { return m_fd >= 0; }

    // Whether `run` died: its lock file is here and nobody holds it.
    static bool isAbandoned(const QString &dataDirectory, const QUuid &run);
    // Ends every running run of `owner` that died as "interrupted" and removes its lock file.
    // The number it ended; failures to end one leave it for the next look.
    static int endAbandonedRuns(ActivityTimeline &timeline, const ProfileScope &owner,
                                const QString &dataDirectory);

private:
    static QString pathOf(const QString &dataDirectory, const QUuid &run);
    int m_fd = -1;
    QString m_path;
};

} // namespace veetbot
