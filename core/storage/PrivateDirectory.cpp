#include "PrivateDirectory.h"

#include <QDir>
#include <QFile>

#include <cerrno>

#include <dirent.h>
#include <fcntl.h>

namespace veetbot {

std::optional<QByteArray> PrivateDirectory::nativePath(const QString &path)
{
    QString trimmed = path;
    if (trimmed.size() > 1 && trimmed.endsWith(u'/'))
        trimmed.chop(1);
    if (!trimmed.startsWith(u'/') || trimmed == QStringLiteral("/") ||
        QDir::cleanPath(trimmed) != trimmed || trimmed.contains(QChar(0))) {
        return std::nullopt;
    }
    return QFile::encodeName(trimmed);
}

bool PrivateDirectory::isOwnerOnly(const struct stat &status)
{
    return status.st_uid == ::geteuid() && (status.st_mode & (S_IRWXG | S_IRWXO)) == 0;
}

PrivateDirectory PrivateDirectory::openNative(const QByteArray &nativePath)
{
    // O_NOFOLLOW refuses a symbolic link as the last component.
    FileDescriptor fd(
        ::open(nativePath.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.isValid()) {
        if (errno == ENOENT)
            return PrivateDirectory(Failure::Missing);
        if (errno == ELOOP || errno == ENOTDIR)
            return PrivateDirectory(Failure::Unsafe);
        return PrivateDirectory(Failure::IoError);
    }
    return PrivateDirectory(std::move(fd));
}

PrivateDirectory PrivateDirectory::checked(PrivateDirectory directory)
{
    if (!directory.isOpen())
        return directory;
    // What the open descriptor shows is what counts, not what the path showed before.
    struct stat status
    {
    };
    if (::fstat(directory.fd(), &status) != 0)
        return PrivateDirectory(Failure::IoError);
    if (!S_ISDIR(status.st_mode) || !isOwnerOnly(status))
        return PrivateDirectory(Failure::Unsafe);
    return directory;
}

PrivateDirectory PrivateDirectory::open(const QString &path)
{
    const std::optional<QByteArray> native = nativePath(path);
    if (!native)
        return PrivateDirectory(Failure::BadPath);
    return checked(openNative(*native));
}

PrivateDirectory PrivateDirectory::create(const QString &path)
{
    const std::optional<QByteArray> native = nativePath(path);
    if (!native)
        return PrivateDirectory(Failure::BadPath);
    if (::mkdir(native->constData(), 0700) != 0) {
        if (errno == EEXIST)
            return PrivateDirectory(Failure::Exists);
        if (errno == ENOENT)
            return PrivateDirectory(Failure::Missing);
        return PrivateDirectory(Failure::IoError);
    }
    PrivateDirectory directory = openNative(*native);
    // The umask may have taken bits from mkdir's mode; the owner needs all three.
    if (directory.isOpen() && ::fchmod(directory.fd(), 0700) != 0)
        directory = PrivateDirectory(Failure::IoError);
    directory = checked(std::move(directory));
    if (!directory.isOpen())
        ::rmdir(native->constData()); // new and empty: nothing is left behind
    return directory;
}

std::optional<QList<QByteArray>> PrivateDirectory::entryNames(int directoryFd)
{
    // fdopendir takes the descriptor over, so it gets a duplicate; the duplicate shares the
    // read position, hence the rewind.
    const int copy = ::fcntl(directoryFd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0)
        return std::nullopt;
    DIR *directory = ::fdopendir(copy);
    if (directory == nullptr) {
        ::close(copy);
        return std::nullopt;
    }
    ::rewinddir(directory);
    QList<QByteArray> names;
    bool complete = true;
    for (;;) {
        errno = 0;
        const dirent *entry = ::readdir(directory);
        if (entry == nullptr) {
            complete = errno == 0;
            break;
        }
        if (qstrcmp(entry->d_name, ".") != 0 && qstrcmp(entry->d_name, "..") != 0)
            names.append(QByteArray(entry->d_name));
    }
    ::closedir(directory);
    if (!complete)
        return std::nullopt;
    return names;
}

} // namespace veetbot
