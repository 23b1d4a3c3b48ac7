#include "EncryptedProfileStore.h"

#include "ports/Keyring.h"
#include "storage/FileDescriptor.h"
#include "storage/PrivateDirectory.h"
#include "vault/VaultError.h"
#include "json/StrictJson.h"

#include <QCryptographicHash>
#include <QSet>

#include <openssl/rand.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

std::atomic<EncryptedProfileStore::CrashHook> g_crashHook{nullptr};

void crashPoint(EncryptedProfileStore::CrashPoint point)
{
    if (const EncryptedProfileStore::CrashHook hook = g_crashHook.load())
        hook(point);
}

constexpr qsizetype kDigestHexChars = 64;
const QByteArray kEnvelopeSuffix = QByteArrayLiteral(".env");
const QByteArray kStagedInfix = QByteArrayLiteral(".staged-");
constexpr qsizetype kStagedTagHexChars = 16;

bool isLowerHex(QByteArrayView text)
{
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// "<64 hex>.env"
bool isEnvelopeName(const QByteArray &name)
{
    return name.size() == kDigestHexChars + kEnvelopeSuffix.size() &&
           isLowerHex(QByteArrayView(name).first(kDigestHexChars)) &&
           name.endsWith(kEnvelopeSuffix);
}

// "<64 hex>.env.staged-<16 hex>"
bool isStagedName(const QByteArray &name)
{
    const qsizetype base = kDigestHexChars + kEnvelopeSuffix.size();
    return name.size() == base + kStagedInfix.size() + kStagedTagHexChars &&
           isEnvelopeName(name.first(base)) &&
           QByteArrayView(name).sliced(base, kStagedInfix.size()) == kStagedInfix &&
           isLowerHex(QByteArrayView(name).last(kStagedTagHexChars));
}

QByteArray sha256(QByteArrayView bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

bool writeAll(int fd, const char *data, qsizetype size)
{
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size_t(size));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += written;
        size -= written;
    }
    return true;
}

// The record's bytes: plaintext sealed under the keyring's current key for metadata.
Result<QByteArray> sealedBytes(const ProfileMetadata &metadata, const SecretBytes &plaintext,
                               const Keyring &keyring)
{
    Result<Envelope> envelope = Envelope::seal(metadata, plaintext, keyring);
    if (!envelope)
        return envelope.error();
    return envelope->serialize();
}

} // namespace

EncryptedProfileStore::EncryptedProfileStore(QString directory, const Keyring &keyring)
    : m_directory(std::move(directory)), m_keyring(keyring)
{
}

EncryptedProfileStore::~EncryptedProfileStore()
{
    const std::lock_guard lock(m_mutex);
    closeLocked();
}

void EncryptedProfileStore::setCrashHookForTesting(CrashHook hook)
{
    g_crashHook.store(hook);
}

QString EncryptedProfileStore::fileNameFor(const QString &providerReference)
{
    return QString::fromLatin1(sha256(providerReference.toUtf8()).toHex() + kEnvelopeSuffix);
}

Result<Unit> EncryptedProfileStore::open()
{
    const std::lock_guard lock(m_mutex);
    closeLocked();
    Result<Unit> opened = openLocked();
    if (!opened) {
        closeLocked();
        return opened;
    }
    m_open = true;
    return Unit{};
}

bool EncryptedProfileStore::isOpen() const
{
    const std::lock_guard lock(m_mutex);
    return m_open;
}

void EncryptedProfileStore::closeLocked()
{
    m_open = false;
    m_records.clear();
    if (m_lockFd >= 0)
        ::close(m_lockFd); // releases the flock
    if (m_dirFd >= 0)
        ::close(m_dirFd);
    m_lockFd = -1;
    m_dirFd = -1;
}

Result<Unit> EncryptedProfileStore::openLocked()
{
    // Every later file operation is relative to this descriptor, so a swapped path cannot
    // redirect it.
    PrivateDirectory directory = PrivateDirectory::open(m_directory);
    if (!directory.isOpen())
        return vaultError(VaultFailure::StoreUnsafe);
    m_dirFd = directory.takeDescriptor().release();
    struct stat st;

    m_lockFd = openat(m_dirFd, kLockFileName,
                      O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, S_IRUSR | S_IWUSR);
    if (m_lockFd < 0)
        return vaultError(VaultFailure::StoreUnsafe);
    if (fstat(m_lockFd, &st) != 0 || !S_ISREG(st.st_mode) || !PrivateDirectory::isOwnerOnly(st))
        return vaultError(VaultFailure::StoreUnsafe);
    if (flock(m_lockFd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return vaultError(VaultFailure::StoreLocked);
        return vaultError(VaultFailure::IoFailure);
    }

    // The key source must be usable before any record is trusted.
    Result<QString> current = currentKeyVersion();
    if (!current)
        return current.error();
    return scanRecords();
}

Result<QString> EncryptedProfileStore::currentKeyVersion() const
{
    Result<QString> current = m_keyring.currentVersion();
    if (!current)
        return vaultError(VaultFailure::KeyUnavailable);
    Result<SecretBytes> key = m_keyring.key(*current);
    if (!key || key->size() != AesGcm::kKeyBytes)
        return vaultError(VaultFailure::KeyUnavailable);
    return current;
}

Result<Unit> EncryptedProfileStore::scanRecords()
{
    const std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(m_dirFd);
    if (!names)
        return vaultError(VaultFailure::IoFailure);
    QList<QByteArray> envelopes;
    QList<QByteArray> staged;
    bool unknown = false;
    for (const QByteArray &name : *names) {
        if (name == kLockFileName)
            continue;
        if (isEnvelopeName(name))
            envelopes.append(name);
        else if (isStagedName(name))
            staged.append(name);
        else
            unknown = true;
    }
    // Anything the store did not write means someone else uses the directory.
    if (unknown)
        return vaultError(VaultFailure::StoreUnsafe);

    // Leftovers of an interrupted write: the published name (if any) is authoritative.
    for (const QByteArray &name : std::as_const(staged)) {
        struct stat st;
        if (fstatat(m_dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            return vaultError(VaultFailure::StoreUnsafe);
        if (unlinkat(m_dirFd, name.constData(), 0) != 0)
            return vaultError(VaultFailure::IoFailure);
    }
    if (!staged.isEmpty()) {
        if (Result<Unit> synced = syncDirectory(); !synced)
            return synced;
    }

    std::sort(envelopes.begin(), envelopes.end());
    QSet<QString> profileIds;
    for (const QByteArray &name : std::as_const(envelopes)) {
        Result<QByteArray> bytes = readRecordFile(name);
        if (!bytes)
            return bytes.error();
        Result<Envelope> envelope = Envelope::parse(*bytes);
        if (!envelope)
            return envelope.error();
        const ProfileMetadata &metadata = envelope->metadata;
        if (fileNameFor(metadata.identity.providerReference).toLatin1() != name)
            return vaultError(VaultFailure::CorruptRecord);
        if (profileIds.contains(metadata.identity.profileId))
            return vaultError(VaultFailure::CorruptRecord);
        {
            // Authenticate now; the plaintext is cleansed at the end of this scope.
            Result<SecretBytes> plaintext = envelope->open(m_keyring);
            if (!plaintext)
                return plaintext.error();
        }
        profileIds.insert(metadata.identity.profileId);
        m_records.insert(metadata.identity.providerReference,
                         Record{metadata, name, sha256(*bytes)});
    }
    return Unit{};
}

Result<QByteArray> EncryptedProfileStore::readRecordFile(const QByteArray &fileName) const
{
    FileDescriptor fd(openat(m_dirFd, fileName.constData(),
                             O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.get() < 0) {
        if (errno == ENOENT)
            return vaultError(VaultFailure::CorruptRecord);
        if (errno == ELOOP)
            return vaultError(VaultFailure::StoreUnsafe);
        return vaultError(VaultFailure::IoFailure);
    }
    struct stat st;
    if (fstat(fd.get(), &st) != 0)
        return vaultError(VaultFailure::IoFailure);
    if (!S_ISREG(st.st_mode) || !PrivateDirectory::isOwnerOnly(st))
        return vaultError(VaultFailure::StoreUnsafe);
    if (st.st_size > Envelope::kMaxEnvelopeBytes)
        return vaultError(VaultFailure::TooLarge);
    QByteArray bytes(qsizetype(st.st_size), Qt::Uninitialized);
    qsizetype filled = 0;
    while (filled < bytes.size()) {
        const ssize_t got = ::read(fd.get(), bytes.data() + filled, size_t(bytes.size() - filled));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return vaultError(VaultFailure::IoFailure);
        }
        if (got == 0)
            return vaultError(VaultFailure::CorruptRecord); // shrank while reading
        filled += got;
    }
    char extra;
    if (::read(fd.get(), &extra, 1) != 0)
        return vaultError(VaultFailure::CorruptRecord); // grew while reading
    return bytes;
}

Result<Envelope> EncryptedProfileStore::loadVerified(const Record &record) const
{
    Result<QByteArray> bytes = readRecordFile(record.fileName);
    if (!bytes)
        return bytes.error();
    // Only the exact bytes this store wrote or validated are accepted, so an older copy put
    // back behind the store's back (a pre-fence envelope, say) is refused.
    if (sha256(*bytes) != record.digest)
        return vaultError(VaultFailure::CorruptRecord);
    return Envelope::parse(*bytes);
}

Result<Unit> EncryptedProfileStore::syncDirectory() const
{
    if (fsync(m_dirFd) != 0)
        return vaultError(VaultFailure::IoFailure);
    return Unit{};
}

Result<QByteArray> EncryptedProfileStore::writeRecord(const QByteArray &fileName,
                                                      const QByteArray &bytes, bool exclusive)
{
    QByteArray random(kStagedTagHexChars / 2, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(random.data()), int(random.size())) != 1)
        return vaultError(VaultFailure::CryptoFailure);
    const QByteArray stagedName = fileName + kStagedInfix + random.toHex();

    {
        FileDescriptor fd(openat(m_dirFd, stagedName.constData(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                 S_IRUSR | S_IWUSR));
        if (fd.get() < 0)
            return vaultError(VaultFailure::IoFailure);
        const qsizetype half = bytes.size() / 2;
        bool written = writeAll(fd.get(), bytes.constData(), half);
        if (written)
            crashPoint(CrashPoint::StagedPartiallyWritten);
        written = written && writeAll(fd.get(), bytes.constData() + half, bytes.size() - half);
        const bool synced = written && fsync(fd.get()) == 0;
        const bool closed = ::close(fd.release()) == 0;
        if (!synced || !closed) {
            unlinkat(m_dirFd, stagedName.constData(), 0);
            return vaultError(VaultFailure::IoFailure);
        }
    }
    crashPoint(CrashPoint::StagedSynced);

    if (exclusive) {
        // link() fails with EEXIST instead of replacing: the exclusive create.
        if (linkat(m_dirFd, stagedName.constData(), m_dirFd, fileName.constData(), 0) != 0) {
            const int error = errno;
            unlinkat(m_dirFd, stagedName.constData(), 0);
            return vaultError(error == EEXIST ? VaultFailure::Exists : VaultFailure::IoFailure);
        }
        crashPoint(CrashPoint::Published);
        // Published already; a failure from here on leaves a staged leftover that the next
        // open() removes.
        unlinkat(m_dirFd, stagedName.constData(), 0);
    } else {
        if (renameat(m_dirFd, stagedName.constData(), m_dirFd, fileName.constData()) != 0) {
            unlinkat(m_dirFd, stagedName.constData(), 0);
            return vaultError(VaultFailure::IoFailure);
        }
        crashPoint(CrashPoint::Published);
    }
    // Makes the new name (and the staged name's removal) durable. A failure is reported,
    // but the record is already published.
    if (Result<Unit> synced = syncDirectory(); !synced)
        return synced.error();
    return sha256(bytes);
}

Result<ProfileMetadata> EncryptedProfileStore::reseal(Record &record,
                                                      const ProfileMetadata &metadata,
                                                      const SecretBytes &plaintext)
{
    Result<QByteArray> bytes = sealedBytes(metadata, plaintext, m_keyring);
    if (!bytes)
        return bytes.error();
    Result<QByteArray> digest = writeRecord(record.fileName, *bytes, false);
    if (!digest) {
        // A failed directory sync after the rename still leaves the new bytes in place;
        // follow whatever is on disk now so the index never disagrees with a good file.
        Result<QByteArray> onDisk = readRecordFile(record.fileName);
        if (onDisk && sha256(*onDisk) == sha256(*bytes)) {
            record.metadata = metadata;
            record.digest = sha256(*bytes);
        }
        return digest.error();
    }
    record.metadata = metadata;
    record.digest = *digest;
    return metadata;
}

Result<EncryptedProfileStore::Record *>
EncryptedProfileStore::findScoped(const ProfileIdentity &expected)
{
    const auto it = m_records.find(expected.providerReference);
    if (it == m_records.end())
        return vaultError(VaultFailure::NotFound);
    if (it->metadata.identity != expected)
        return vaultError(VaultFailure::TagMismatch);
    return &it.value();
}

Result<ProfileMetadata> EncryptedProfileStore::create(const ProfileIdentity &identity,
                                                      const SecretBytes &plaintext)
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    if (!identity.isValid())
        return vaultError(VaultFailure::InvalidMetadata);
    if (plaintext.size() > Envelope::kMaxPlaintextBytes)
        return vaultError(VaultFailure::TooLarge);
    if (m_records.contains(identity.providerReference))
        return vaultError(VaultFailure::Exists);
    for (const Record &record : std::as_const(m_records)) {
        if (record.metadata.identity.profileId == identity.profileId)
            return vaultError(VaultFailure::Exists);
    }
    Result<QString> current = currentKeyVersion();
    if (!current)
        return current.error();

    ProfileMetadata metadata;
    metadata.identity = identity;
    metadata.keyVersion = *current;
    metadata.revocationFence = 0;
    Result<QByteArray> bytes = sealedBytes(metadata, plaintext, m_keyring);
    if (!bytes)
        return bytes.error();
    const QByteArray fileName = fileNameFor(identity.providerReference).toLatin1();
    Result<QByteArray> digest = writeRecord(fileName, *bytes, true);
    if (!digest) {
        if (digest.error().code != vaultFailureCode(VaultFailure::Exists)) {
            // Published but not synced: the record exists; keep the index truthful.
            Result<QByteArray> onDisk = readRecordFile(fileName);
            if (onDisk && sha256(*onDisk) == sha256(*bytes))
                m_records.insert(identity.providerReference,
                                 Record{metadata, fileName, sha256(*bytes)});
        }
        return digest.error();
    }
    m_records.insert(identity.providerReference, Record{metadata, fileName, *digest});
    return metadata;
}

Result<SecretBytes> EncryptedProfileStore::read(const ProfileIdentity &expected) const
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    const auto it = m_records.constFind(expected.providerReference);
    if (it == m_records.constEnd())
        return vaultError(VaultFailure::NotFound);
    Result<Envelope> envelope = loadVerified(*it);
    if (!envelope)
        return envelope.error();
    // Authenticate over what the caller expects, not over what the file says.
    ProfileMetadata expectedMetadata = it->metadata;
    expectedMetadata.identity = expected;
    Result<SecretBytes> plaintext = envelope->openAs(expectedMetadata, m_keyring);
    if (!plaintext)
        return plaintext.error();
    if (it->metadata.isFenced())
        return vaultError(VaultFailure::Fenced); // plaintext is cleansed on return
    return plaintext;
}

Result<ProfileMetadata> EncryptedProfileStore::update(const ProfileIdentity &expected,
                                                      const SecretBytes &plaintext)
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    if (plaintext.size() > Envelope::kMaxPlaintextBytes)
        return vaultError(VaultFailure::TooLarge);
    Result<Record *> record = findScoped(expected);
    if (!record)
        return record.error();
    if ((*record)->metadata.isFenced())
        return vaultError(VaultFailure::Fenced);
    if (Result<Envelope> current = loadVerified(**record); !current)
        return current.error();
    Result<QString> version = currentKeyVersion();
    if (!version)
        return version.error();
    ProfileMetadata metadata = (*record)->metadata;
    metadata.keyVersion = *version;
    return reseal(**record, metadata, plaintext);
}

Result<ProfileMetadata> EncryptedProfileStore::fence(const ProfileIdentity &expected)
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    Result<Record *> record = findScoped(expected);
    if (!record)
        return record.error();
    Result<Envelope> envelope = loadVerified(**record);
    if (!envelope)
        return envelope.error();
    Result<SecretBytes> plaintext = envelope->open(m_keyring);
    if (!plaintext)
        return plaintext.error();
    if ((*record)->metadata.revocationFence >= StrictJson::kMaxSafeInteger)
        return vaultError(VaultFailure::CorruptRecord);
    Result<QString> version = currentKeyVersion();
    if (!version)
        return version.error();
    ProfileMetadata metadata = (*record)->metadata;
    metadata.keyVersion = *version;
    metadata.revocationFence += 1;
    return reseal(**record, metadata, *plaintext);
}

Result<Unit> EncryptedProfileStore::remove(const ProfileIdentity &expected)
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    const auto it = m_records.find(expected.providerReference);
    if (it == m_records.end()) {
        // Idempotent only when nothing occupies either identity.
        for (const Record &record : std::as_const(m_records)) {
            if (record.metadata.identity.profileId == expected.profileId)
                return vaultError(VaultFailure::TagMismatch);
        }
        return Unit{};
    }
    if (it->metadata.identity != expected)
        return vaultError(VaultFailure::TagMismatch);
    if (!it->metadata.isFenced())
        return vaultError(VaultFailure::NotFenced);
    if (unlinkat(m_dirFd, it->fileName.constData(), 0) != 0 && errno != ENOENT)
        return vaultError(VaultFailure::IoFailure);
    m_records.erase(it);
    return syncDirectory();
}

Result<bool> EncryptedProfileStore::rotate(const QString &providerReference)
{
    const std::lock_guard lock(m_mutex);
    if (!m_open)
        return vaultError(VaultFailure::StoreUnavailable);
    const auto it = m_records.find(providerReference);
    if (it == m_records.end())
        return vaultError(VaultFailure::NotFound);
    Result<QString> version = currentKeyVersion();
    if (!version)
        return version.error();
    if (it->metadata.keyVersion == *version)
        return false;
    Result<Envelope> envelope = loadVerified(*it);
    if (!envelope)
        return envelope.error();
    // Decrypts with the record's own (old) key version.
    Result<SecretBytes> plaintext = envelope->open(m_keyring);
    if (!plaintext)
        return plaintext.error();
    ProfileMetadata metadata = it->metadata;
    metadata.keyVersion = *version;
    Result<ProfileMetadata> resealed = reseal(*it, metadata, *plaintext);
    if (!resealed)
        return resealed.error();
    return true;
}

QStringList EncryptedProfileStore::keyVersionsInUse() const
{
    const std::lock_guard lock(m_mutex);
    QSet<QString> versions;
    for (const Record &record : std::as_const(m_records))
        versions.insert(record.metadata.keyVersion);
    QStringList sorted(versions.begin(), versions.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

bool EncryptedProfileStore::isKeyVersionInUse(const QString &version) const
{
    return keyVersionsInUse().contains(version);
}

std::optional<ProfileMetadata>
EncryptedProfileStore::metadataForReference(const QString &providerReference) const
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_records.constFind(providerReference);
    if (it == m_records.constEnd())
        return std::nullopt;
    return it->metadata;
}

std::optional<ProfileMetadata>
EncryptedProfileStore::metadataForProfile(const QString &profileId) const
{
    const std::lock_guard lock(m_mutex);
    for (const Record &record : std::as_const(m_records)) {
        if (record.metadata.identity.profileId == profileId)
            return record.metadata;
    }
    return std::nullopt;
}

qsizetype EncryptedProfileStore::recordCount() const
{
    const std::lock_guard lock(m_mutex);
    return m_records.size();
}

} // namespace veetbot
