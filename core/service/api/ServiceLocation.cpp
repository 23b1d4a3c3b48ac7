#include "ServiceLocation.h"

#include "storage/PrivateDirectory.h"

#include <QDir>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

Error runtimeUnavailable()
{
    return Error{QStringLiteral("service.runtime_unavailable"),
                 QStringLiteral("The profile service's runtime directory is not private to this "
                                "user or its socket path is too long; set VEETBOT_RUNTIME_DIR "
                                "to a short private directory.")};
}

} // namespace

Result<ServiceLocation> ServiceLocation::resolve(const QString &dataDirectory,
                                                 const QProcessEnvironment &environment)
{
    ServiceLocation location;
    const QString explicitDirectory = environment.value(QStringLiteral("VEETBOT_RUNTIME_DIR"));
    const QString xdg = environment.value(QStringLiteral("XDG_RUNTIME_DIR"));
    if (!explicitDirectory.isEmpty())
        location.m_runtimeDirectory = explicitDirectory;
    else if (!xdg.isEmpty())
        location.m_runtimeDirectory = xdg + QStringLiteral("/veetbot");
    else
        location.m_runtimeDirectory = dataDirectory + QStringLiteral("/run");
    location.m_runtimeDirectory = QDir::cleanPath(location.m_runtimeDirectory);
    if (!QDir::isAbsolutePath(location.m_runtimeDirectory) ||
        location.socketPath().toLocal8Bit().size() > kMaxSocketPathBytes)
        return runtimeUnavailable();
    return location;
}

Result<Unit> ServiceLocation::ensureRuntimeDirectory() const
{
    PrivateDirectory directory = PrivateDirectory::open(m_runtimeDirectory);
    if (!directory.isOpen() && directory.failure() == PrivateDirectory::Failure::Missing)
        directory = PrivateDirectory::create(m_runtimeDirectory);
    if (!directory.isOpen() && directory.failure() == PrivateDirectory::Failure::Exists)
        directory = PrivateDirectory::open(m_runtimeDirectory); // another process made it
    if (!directory.isOpen())
        return runtimeUnavailable();
    return Unit{};
}

Result<Unit> ServiceLocation::checkRuntimeDirectory() const
{
    const PrivateDirectory directory = PrivateDirectory::open(m_runtimeDirectory);
    if (directory.isOpen() || directory.failure() == PrivateDirectory::Failure::Missing)
        return Unit{};
    return runtimeUnavailable();
}

bool ServiceLocation::isLockHeld() const
{
    const QByteArray path = lockPath().toLocal8Bit();
    FileDescriptor fd(::open(path.constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
    if (!fd.isValid())
        return false; // no lock file: no service ever ran here
    // Taken and at once released: nobody held it.
    if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) {
        ::flock(fd.get(), LOCK_UN);
        return false;
    }
    return errno == EWOULDBLOCK;
}

Result<FileDescriptor> ServiceLocation::acquireServiceLock() const
{
    const QByteArray path = lockPath().toLocal8Bit();
    FileDescriptor fd(
        ::open(path.constData(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
    if (!fd.isValid())
        return runtimeUnavailable();
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return Error{QStringLiteral("service.already_running"),
                         QStringLiteral("A profile service already runs for this runtime "
                                        "directory.")};
        return runtimeUnavailable();
    }
    // Holding the lock, no live service owns the socket: one left behind is stale.
    const QByteArray socket = socketPath().toLocal8Bit();
    struct stat status = {};
    if (::lstat(socket.constData(), &status) == 0) {
        if (!S_ISSOCK(status.st_mode) || ::unlink(socket.constData()) != 0)
            return runtimeUnavailable();
    }
    return fd;
}

} // namespace veetbot
