#include "OwnerLocks.h"

#include "storage/PrivateDirectory.h"

#include <QFileInfo>

#include <cerrno>
#include <optional>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

// A new instance whose file a sweep removed before it held the lock starts again under a
// fresh id; a sweep can only do that in the moment between creating a file and locking it.
constexpr int kRegisterAttempts = 4;

QByteArray fileName(const QUuid &instance)
{
    return instance.toByteArray(QUuid::WithoutBraces) + QByteArrayLiteral(".lock");
}

// The owner a file in the directory belongs to: exactly "<lower-case uuid>.lock".
std::optional<QUuid> ownerOf(const QByteArray &name)
{
    const QUuid owner = QUuid::fromString(QLatin1String(name.left(36)));
    if (owner.isNull() || fileName(owner) != name)
        return std::nullopt;
    return owner;
}

bool isPrivateFile(int fd)
{
    struct stat status
    {
    };
    return ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) &&
           PrivateDirectory::isOwnerOnly(status);
}

} // namespace

OwnerLocks::OwnerLocks(FileDescriptor directory, FileDescriptor lock, QUuid instance)
    : m_directory(std::move(directory)), m_lock(std::move(lock)), m_instance(instance),
      m_pid(::getpid())
{
}

OwnerLocks::~OwnerLocks()
{
    // A child forked without exec shares the lock, never the right to remove the file.
    if (m_lock.isValid() && ::getpid() == m_pid)
        ::unlinkat(m_directory.get(), fileName(m_instance).constData(), 0);
    m_lock.reset();
}

QString OwnerLocks::directoryFor(const QString &canonicalLedgerPath)
{
    return canonicalLedgerPath + QStringLiteral(".owners");
}

std::unique_ptr<OwnerLocks> OwnerLocks::open(const QString &ledgerPath)
{
    // Every process must find the same directory however it names the ledger.
    const QString canonical = QFileInfo(ledgerPath).canonicalFilePath();
    if (canonical.isEmpty())
        return nullptr;
    const QString path = directoryFor(canonical);
    PrivateDirectory directory = PrivateDirectory::create(path);
    if (!directory.isOpen() && directory.failure() == PrivateDirectory::Failure::Exists)
        directory = PrivateDirectory::open(path);
    if (!directory.isOpen())
        return nullptr;

    for (int attempt = 0; attempt < kRegisterAttempts; ++attempt) {
        const QUuid instance = QUuid::createUuid();
        const QByteArray name = fileName(instance);
        FileDescriptor lock(::openat(
            directory.fd(), name.constData(),
            O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, S_IRUSR | S_IWUSR));
        if (!lock.isValid())
            return nullptr;
        if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK)
                continue; // a sweep took it first and removes it
            return nullptr;
        }
        // Held now, so nobody else removes it; it must still be the file under its name.
        struct stat held
        {
        };
        struct stat named
        {
        };
        if (::fstat(lock.get(), &held) != 0)
            return nullptr;
        if (::fstatat(directory.fd(), name.constData(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
            held.st_dev != named.st_dev || held.st_ino != named.st_ino)
            continue;
        return std::unique_ptr<OwnerLocks>(
            new OwnerLocks(directory.takeDescriptor(), std::move(lock), instance));
    }
    return nullptr;
}

bool OwnerLocks::isGone(const QUuid &owner)
{
    if (owner.isNull() || owner == m_instance)
        return false;
    const QByteArray name = fileName(owner);
    for (const auto &[goneName, goneLock] : m_gone) {
        if (goneName == name)
            return true;
    }
    const int fd =
        ::openat(m_directory.get(), name.constData(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT; // only a holder of its lock removes a file
    FileDescriptor lock(fd);
    // EWOULDBLOCK: its owner holds it. Any other failure is doubt, and doubt is alive.
    if (!isPrivateFile(lock.get()) || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        return false;
    m_gone.emplace_back(name, std::move(lock));
    return true;
}

void OwnerLocks::removeGone()
{
    for (auto &[name, lock] : m_gone) {
        ::unlinkat(m_directory.get(), name.constData(), 0);
        lock.reset();
    }
    m_gone.clear();
}

void OwnerLocks::sweep()
{
    const std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(m_directory.get());
    if (!names)
        return;
    for (const QByteArray &name : *names) {
        // Files that are not an owner's are not ours to judge.
        if (const std::optional<QUuid> owner = ownerOf(name))
            static_cast<void>(isGone(*owner));
    }
    removeGone();
}

} // namespace veetbot
