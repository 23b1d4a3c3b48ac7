#pragma once

#include "storage/FileDescriptor.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

#include <sys/stat.h>

namespace veetbot {

// A directory only this user can use, as the vault store and the key directory need it:
// owned by the effective uid, no permission bit for group or others, and reached without
// following a symbolic link as its last component. It is held as an open descriptor, so
// later file operations are relative to it (openat) and a path swapped afterwards cannot
// redirect them. Paths must be absolute and clean. Creates nothing but the directory itself
// and reports fixed failures only: callers map them to their own stable errors.
class PrivateDirectory
{
public:
    enum class Failure
    {
        BadPath, // not absolute and clean, or the root directory
        Missing, // it (for create: its parent) does not exist
        Exists,  // create: the name is already taken
        Unsafe,  // a symbolic link, not a directory, another owner, or group/other bits
        IoError, // anything else the system refused
    };

    // `path` as the system names it when it is absolute and clean (no "." or ".." component,
    // no repeated slash; one trailing slash is allowed) and not the root directory.
    static std::optional<QByteArray> nativePath(const QString &path);
    // Owned by this process's effective uid, with no group or other permission bits.
    static bool isOwnerOnly(const struct stat &status);

    // Opens an existing private directory.
    static PrivateDirectory open(const QString &path);
    // Creates `path` with mode 0700 exactly, whatever the umask, and opens it; the parent
    // must exist. A directory it made but could not open as private is removed again.
    static PrivateDirectory create(const QString &path);

    // The names in the directory behind `directoryFd` other than "." and "..", read through
    // a duplicate of the descriptor; nothing when it cannot be read.
    static std::optional<QList<QByteArray>> entryNames(int directoryFd);

    bool isOpen() const { return m_fd.isValid(); }
    // Why open() or create() failed; meaningful only when !isOpen().
    Failure failure() const { return m_failure; }
    int fd() const { return m_fd.get(); }
    FileDescriptor takeDescriptor() { return std::move(m_fd); }

private:
    explicit PrivateDirectory(Failure failure) : m_failure(failure) {}
    explicit PrivateDirectory(FileDescriptor fd) : m_fd(std::move(fd)) {}
    static PrivateDirectory openNative(const QByteArray &nativePath);
    static PrivateDirectory checked(PrivateDirectory directory);

    FileDescriptor m_fd;
    Failure m_failure = Failure::IoError;
};

} // namespace veetbot
