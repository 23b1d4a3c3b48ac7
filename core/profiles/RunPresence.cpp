#include "RunPresence.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {
const Error kUnavailable{QStringLiteral("run.unavailable"),
                         QStringLiteral("The run's presence file cannot be made in the data "
                                        "directory.")};
constexpr int kMaxRunsLooked = 1000;
} // namespace

RunPresence::RunPresence(RunPresence &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path))
{
}

RunPresence &RunPresence::operator=(RunPresence &&other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

RunPresence::~RunPresence()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

QString RunPresence::pathOf(const QString &dataDirectory, const QUuid &run)
{
    return dataDirectory + QStringLiteral("/runs/") + run.toString(QUuid::WithoutBraces) +
           QStringLiteral(".lock");
}

Result<RunPresence> RunPresence::hold(const QString &dataDirectory, const QUuid &run)
{
    const QString directory = dataDirectory + QStringLiteral("/runs");
    if (run.isNull() || !QDir().mkpath(directory) ||
        ::chmod(QFile::encodeName(directory).constData(), 0700) != 0)
        return kUnavailable;
    RunPresence presence;
    presence.m_path = pathOf(dataDirectory, run);
    presence.m_fd = ::open(QFile::encodeName(presence.m_path).constData(),
                           O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (presence.m_fd < 0 || ::flock(presence.m_fd, LOCK_EX | LOCK_NB) != 0)
        return kUnavailable;
    return presence;
}

void RunPresence::release()
{
    if (m_fd < 0)
        return;
    ::unlink(QFile::encodeName(m_path).constData());
    ::close(std::exchange(m_fd, -1));
}

bool RunPresence::isAbandoned(const QString &dataDirectory, const QUuid &run)
{
    const int fd = ::open(QFile::encodeName(pathOf(dataDirectory, run)).constData(),
                          O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false; // no file: ended as it said, or not this machine's
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return free;
}

int RunPresence::endAbandonedRuns(ActivityTimeline &timeline, const ProfileScope &owner,
                                  const QString &dataDirectory)
{
    const Result<QList<ActivityRun>> runs = timeline.runs(owner, kMaxRunsLooked);
    if (!runs)
        return 0;
    int ended = 0;
    for (const ActivityRun &run : *runs) {
        if (!run.isRunning() || !isAbandoned(dataDirectory, run.id))
            continue;
        if (timeline.endRun(owner, run.id, QStringLiteral("interrupted"))) {
            QFile::remove(pathOf(dataDirectory, run.id));
            ++ended;
        }
    }
    return ended;
}

} // namespace veetbot
