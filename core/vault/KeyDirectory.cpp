#include "KeyDirectory.h"

#include "KeyVersion.h"
#include "KeyringError.h"
#include "storage/FileDescriptor.h"
#include "storage/PrivateDirectory.h"

#include <QFile>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

const QString kCurrentName = QStringLiteral("current");

Error fail(KeyringError error)
{
    return keyringError(error);
}

void wipeEntries(QList<KeyDirectoryEntry> &entries)
{
    for (KeyDirectoryEntry &entry : entries) {
        if (!entry.bytes.isEmpty())
            OPENSSL_cleanse(entry.bytes.data(), size_t(entry.bytes.size()));
        entry.bytes.clear();
    }
}

KeyDirectoryEntry::Type typeOf(mode_t mode)
{
    if (S_ISREG(mode))
        return KeyDirectoryEntry::Type::Regular;
    if (S_ISDIR(mode))
        return KeyDirectoryEntry::Type::Directory;
    if (S_ISLNK(mode))
        return KeyDirectoryEntry::Type::Symlink;
    return KeyDirectoryEntry::Type::Other;
}

KeyringError keyringErrorFor(PrivateDirectory::Failure failure)
{
    switch (failure) {
    case PrivateDirectory::Failure::BadPath:
    case PrivateDirectory::Failure::Unsafe:
        return KeyringError::UnsafeDirectory;
    case PrivateDirectory::Failure::Missing:
        return KeyringError::MissingDirectory;
    case PrivateDirectory::Failure::Exists:
        return KeyringError::AlreadyExists;
    case PrivateDirectory::Failure::IoError:
        return KeyringError::IoError;
    }
    return KeyringError::IoError;
}

// The key directory, private to this user (the loader checks that again on its entries).
Result<FileDescriptor> openDirectory(const QString &path)
{
    PrivateDirectory directory = PrivateDirectory::open(path);
    if (!directory.isOpen())
        return fail(keyringErrorFor(directory.failure()));
    return directory.takeDescriptor();
}

// Reads at most `limit` bytes; a longer file yields limit bytes and fails validation later.
bool readBounded(int fd, QByteArray &out, qsizetype limit)
{
    out = QByteArray(limit, Qt::Uninitialized);
    qsizetype total = 0;
    while (total < limit) {
        const ssize_t n = ::read(fd, out.data() + total, size_t(limit - total));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            OPENSSL_cleanse(out.data(), size_t(total));
            out.clear();
            return false;
        }
        if (n == 0)
            break;
        total += n;
    }
    out.resize(total);
    return true;
}

Result<QList<KeyDirectoryEntry>> readEntries(int dirFd)
{
    QList<KeyDirectoryEntry> entries;
    struct stat dirStat
    {
    };
    if (::fstat(dirFd, &dirStat) != 0)
        return fail(KeyringError::IoError);
    entries.append(KeyDirectoryEntry{QStringLiteral("."), mode_t(dirStat.st_mode & 07777),
                                     dirStat.st_uid, typeOf(dirStat.st_mode), QByteArray()});

    const std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(dirFd);
    if (!names)
        return fail(KeyringError::IoError);
    for (const QByteArray &name : *names) {
        // One more than the loader accepts is enough to make it refuse the directory.
        if (entries.size() > KeyDirectoryLoader::kMaxEntries)
            break;

        KeyDirectoryEntry entry;
        entry.name = QFile::decodeName(name);
        struct stat st
        {
        };
        if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            wipeEntries(entries);
            return fail(KeyringError::IoError);
        }
        entry.type = typeOf(st.st_mode);
        entry.mode = mode_t(st.st_mode & 07777);
        entry.uid = st.st_uid;
        if (entry.type == KeyDirectoryEntry::Type::Regular) {
            // The file may have been swapped since fstatat: what the open descriptor shows
            // is what counts.
            FileDescriptor file(
                ::openat(dirFd, name.constData(),
                         O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
            if (!file.isValid()) {
                if (errno != ELOOP) {
                    wipeEntries(entries);
                    return fail(KeyringError::IoError);
                }
                entry.type = KeyDirectoryEntry::Type::Symlink;
            } else {
                struct stat fileStat
                {
                };
                if (::fstat(file.get(), &fileStat) != 0) {
                    wipeEntries(entries);
                    return fail(KeyringError::IoError);
                }
                entry.type = typeOf(fileStat.st_mode);
                entry.mode = mode_t(fileStat.st_mode & 07777);
                entry.uid = fileStat.st_uid;
                if (entry.type == KeyDirectoryEntry::Type::Regular &&
                    !readBounded(file.get(), entry.bytes, KeyDirectoryLoader::kMaxFileBytes + 1)) {
                    wipeEntries(entries);
                    return fail(KeyringError::IoError);
                }
            }
        }
        entries.append(std::move(entry));
    }
    return entries;
}

Result<KeyMaterial> loadAt(int dirFd)
{
    Result<QList<KeyDirectoryEntry>> entries = readEntries(dirFd);
    if (!entries)
        return entries.error();
    Result<KeyMaterial> material = KeyDirectoryLoader::load(*entries, ::geteuid());
    wipeEntries(entries.value());
    return material;
}

QByteArray randomHex(int bytes)
{
    QByteArray random(bytes, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(random.data()), bytes) != 1)
        return QByteArray();
    return random.toHex();
}

Result<SecretBytes> randomKey()
{
    SecretBytes key(QByteArray(KeyDirectoryLoader::kKeyBytes, Qt::Uninitialized));
    if (RAND_bytes(const_cast<unsigned char *>(key.data()), int(key.size())) != 1)
        return fail(KeyringError::RandomFailed);
    return key;
}

bool writeAll(int fd, QByteArrayView bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

enum class Replace
{
    Allowed,
    Refused
};

// Writes `name` in the directory atomically: a 0600 temporary file, fsync, rename, fsync of
// the directory. With Replace::Refused an existing `name` is an error (RENAME_NOREPLACE).
Result<Unit> writeFileAtomically(int dirFd, const QString &name, QByteArrayView content,
                                 Replace replace)
{
    const QByteArray suffix = randomHex(8);
    if (suffix.isEmpty())
        return fail(KeyringError::RandomFailed);
    const QByteArray temporary = QFile::encodeName(KeyDirectory::temporaryPrefix()) + suffix;
    const QByteArray target = QFile::encodeName(name);
    FileDescriptor file(::openat(dirFd, temporary.constData(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.isValid())
        return fail(KeyringError::IoError);
    const bool written = ::fchmod(file.get(), 0600) == 0 && writeAll(file.get(), content) &&
                         ::fsync(file.get()) == 0;
    file.reset();
    if (!written) {
        ::unlinkat(dirFd, temporary.constData(), 0);
        return fail(KeyringError::IoError);
    }
    const int renamed = replace == Replace::Allowed
                            ? ::renameat(dirFd, temporary.constData(), dirFd, target.constData())
                            : ::renameat2(dirFd, temporary.constData(), dirFd, target.constData(),
                                          RENAME_NOREPLACE);
    if (renamed != 0) {
        const bool exists = errno == EEXIST;
        ::unlinkat(dirFd, temporary.constData(), 0);
        return fail(exists ? KeyringError::DuplicateFile : KeyringError::IoError);
    }
    if (::fsync(dirFd) != 0)
        return fail(KeyringError::IoError);
    return Unit{};
}

Result<Unit> writeKeyFile(int dirFd, const QString &version, const SecretBytes &key)
{
    const SecretBytes text = KeyDirectoryLoader::encodeKeyFile(key);
    if (text.isEmpty())
        return fail(KeyringError::BadKeyFile);
    return writeFileAtomically(dirFd, KeyDirectoryLoader::keyFileName(version), text.bytes(),
                               Replace::Refused);
}

Result<Unit> writeCurrent(int dirFd, const QString &version)
{
    QByteArray content = version.toLatin1();
    content.append('\n');
    return writeFileAtomically(dirFd, kCurrentName, content, Replace::Allowed);
}

// Deletes leftover temporary files of an interrupted write (never directories).
Result<Unit> removeStaleTemporaries(int dirFd)
{
    const QByteArray prefix = QFile::encodeName(KeyDirectory::temporaryPrefix());
    const std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(dirFd);
    if (!names)
        return fail(KeyringError::IoError);
    QList<QByteArray> stale;
    for (const QByteArray &name : *names) {
        if (name.startsWith(prefix))
            stale.append(name);
    }
    for (const QByteArray &name : stale) {
        struct stat st
        {
        };
        if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            S_ISDIR(st.st_mode)) {
            continue;
        }
        if (::unlinkat(dirFd, name.constData(), 0) != 0)
            return fail(KeyringError::IoError);
    }
    if (!stale.isEmpty() && ::fsync(dirFd) != 0)
        return fail(KeyringError::IoError);
    return Unit{};
}

// Opens an existing key directory for a change: exclusive lock, leftovers removed, and the
// whole directory validated before anything is written.
struct OpenedDirectory
{
    FileDescriptor fd;
    KeyMaterial material;
};

Result<OpenedDirectory> openForChange(const QString &path)
{
    Result<FileDescriptor> fd = openDirectory(path);
    if (!fd)
        return fd.error();
    if (::flock(fd->get(), LOCK_EX) != 0)
        return fail(KeyringError::IoError);
    if (Result<Unit> cleaned = removeStaleTemporaries(fd->get()); !cleaned)
        return cleaned.error();
    Result<KeyMaterial> material = loadAt(fd->get());
    if (!material)
        return material.error();
    return OpenedDirectory{std::move(fd).value(), std::move(material).value()};
}

// openForChange() for a change to the key `version`, which must be there
// (keyring.unknown_version otherwise).
Result<OpenedDirectory> openHolding(const QString &path, const QString &version)
{
    Result<OpenedDirectory> directory = openForChange(path);
    if (!directory)
        return directory.error();
    if (!KeyVersion::isValid(version) ||
        directory->material.keys.find(version) == directory->material.keys.end())
        return fail(KeyringError::UnknownVersion);
    return directory;
}

Result<QString> newVersion(const KeyMaterial &material)
{
    // Four random bytes a day: a clash is unlikely, and never silently accepted.
    for (int attempt = 0; attempt < 4; ++attempt) {
        Result<QString> version = KeyVersion::generate();
        if (!version)
            return version.error();
        if (material.keys.find(*version) == material.keys.end())
            return version;
    }
    return fail(KeyringError::RandomFailed);
}

} // namespace

QString KeyDirectory::temporaryPrefix()
{
    return QStringLiteral(".veetbot-tmp-");
}

Result<KeyMaterial> KeyDirectory::load(const QString &path)
{
    Result<FileDescriptor> fd = openDirectory(path);
    if (!fd)
        return fd.error();
    return loadAt(fd->get());
}

Result<QString> KeyDirectory::init(const QString &path)
{
    PrivateDirectory directory = PrivateDirectory::create(path);
    if (!directory.isOpen())
        return fail(keyringErrorFor(directory.failure()));

    const int fd = directory.fd();
    Result<QString> created = [fd]() -> Result<QString> {
        if (::flock(fd, LOCK_EX) != 0)
            return fail(KeyringError::IoError);
        Result<QString> version = KeyVersion::generate();
        if (!version)
            return version.error();
        Result<SecretBytes> key = randomKey();
        if (!key)
            return key.error();
        if (Result<Unit> w = writeKeyFile(fd, *version, *key); !w)
            return w.error();
        if (Result<Unit> w = writeCurrent(fd, *version); !w)
            return w.error();
        // What init wrote must load, or nothing is left behind.
        Result<KeyMaterial> material = loadAt(fd);
        if (!material)
            return material.error();
        return version;
    }();
    if (created)
        return created;

    // Undo: the directory is ours and new, so everything in it was written above.
    if (const std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(fd)) {
        for (const QByteArray &name : *names)
            ::unlinkat(fd, name.constData(), 0);
    }
    if (const std::optional<QByteArray> native = PrivateDirectory::nativePath(path))
        ::rmdir(native->constData());
    return created;
}

Result<QString> KeyDirectory::addKey(const QString &path)
{
    Result<OpenedDirectory> directory = openForChange(path);
    if (!directory)
        return directory.error();
    const KeyMaterial &material = directory->material;
    Result<QString> version = newVersion(material);
    if (!version)
        return version.error();
    Result<SecretBytes> key = randomKey();
    if (!key)
        return key.error();
    for (const auto &[existing, bytes] : material.keys) {
        if (CRYPTO_memcmp(bytes.data(), key->data(), size_t(KeyDirectoryLoader::kKeyBytes)) == 0)
            return fail(KeyringError::DuplicateKey);
    }
    if (Result<Unit> w = writeKeyFile(directory->fd.get(), *version, *key); !w)
        return w.error();
    return version;
}

Result<Unit> KeyDirectory::useKey(const QString &path, const QString &version)
{
    Result<OpenedDirectory> directory = openHolding(path, version);
    if (!directory)
        return directory.error();
    if (directory->material.current == version)
        return Unit{};
    return writeCurrent(directory->fd.get(), version);
}

Result<Unit> KeyDirectory::removeKey(const QString &path, const QString &version)
{
    Result<OpenedDirectory> directory = openHolding(path, version);
    if (!directory)
        return directory.error();
    if (directory->material.current == version)
        return fail(KeyringError::RemoveCurrent);
    const int fd = directory->fd.get();
    if (::unlinkat(fd, QFile::encodeName(KeyDirectoryLoader::keyFileName(version)).constData(),
                   0) != 0 ||
        ::fsync(fd) != 0) {
        return fail(KeyringError::IoError);
    }
    return Unit{};
}

} // namespace veetbot
