#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"
#include "vault/Envelope.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

#include <mutex>
#include <optional>

namespace veetbot {

class Keyring;

// The only code that reads or writes encrypted profile material. One private directory
// holds one "<hex SHA-256 of provider_reference>.env" envelope per record plus a lock file;
// references are hashed into names and never used as paths. open() takes an exclusive
// flock for the store's lifetime and validates every envelope (parse, name, key, tag,
// unique profile id) before the store serves anything: it fails closed rather than start
// over partial, foreign or corrupt state. Writes stage a same-directory file, fsync it,
// publish it atomically (link() for exclusive create, rename() for replacement) and fsync
// the directory. Never writes plaintext or keys to disk, never logs, never returns a path,
// key or plaintext byte in an error. Not an orchestration port: callers are the isolated
// profile service only. Member functions are serialized by an internal mutex.
class EncryptedProfileStore
{
public:
    // Named points inside a write, for the crash tests only.
    enum class CrashPoint
    {
        StagedPartiallyWritten, // half of the staged file's bytes are written
        StagedSynced,           // staged file complete and fsynced, not yet published
        Published,              // link()/rename() done, staged name / directory not synced
    };
    using CrashHook = void (*)(CrashPoint);

    static constexpr const char *kLockFileName = "store.lock";

    EncryptedProfileStore(QString directory, const Keyring &keyring);
    ~EncryptedProfileStore();
    EncryptedProfileStore(const EncryptedProfileStore &) = delete;
    EncryptedProfileStore &operator=(const EncryptedProfileStore &) = delete;

    // Must succeed before anything else works. vault.store_unsafe (not an absolute, clean
    // path, missing, a symlink, not a directory, not owned by this uid, group/other permission
    // bits, an unknown or unsafe entry), vault.store_locked (another live store), and every
    // record failure (vault.corrupt_record, vault.unknown_format, vault.key_unavailable,
    // vault.tag_mismatch, vault.too_large; vault.corrupt_record also for a file whose name
    // is not its reference's hash or two records with one profile id). On
    // failure the store stays closed and holds no lock.
    Result<Unit> open();
    bool isOpen() const;

    // Exclusive: vault.exists when the reference or the profile id is already stored;
    // nothing is ever overwritten. Seals under the keyring's current version, fence 0.
    Result<ProfileMetadata> create(const ProfileIdentity &identity, const SecretBytes &plaintext);

    // The plaintext, only after the tag verified over the metadata the caller expects.
    // vault.not_found, vault.tag_mismatch (scope differs), vault.fenced,
    // vault.corrupt_record (the file changed behind the store).
    Result<SecretBytes> read(const ProfileIdentity &expected) const;

    // Replaces the material (sealed under the current key version). vault.fenced for a
    // revoked record.
    Result<ProfileMetadata> update(const ProfileIdentity &expected, const SecretBytes &plaintext);

    // Revocation: re-seals the record with revocation_fence + 1 in its authenticated
    // metadata. A fenced record can no longer be read or updated, and any older copy of its
    // envelope no longer matches what this store holds.
    Result<ProfileMetadata> fence(const ProfileIdentity &expected);

    // Deletes a fenced record (vault.not_fenced otherwise): unlink, then fsync the
    // directory. Succeeds without change only when neither the reference nor the profile id
    // is stored; a profile id held under another reference is vault.tag_mismatch.
    Result<Unit> remove(const ProfileIdentity &expected);

    // Re-encrypts one record under the keyring's current version. true when rewritten,
    // false when it already was current (a restartable sweep calls this per reference).
    Result<bool> rotate(const QString &providerReference);

    // Key versions named by at least one envelope, sorted. An operator may drop a key
    // version from the keyring only once it no longer appears here.
    QStringList keyVersionsInUse() const;
    bool isKeyVersionInUse(const QString &version) const;

    std::optional<ProfileMetadata> metadataForReference(const QString &providerReference) const;
    std::optional<ProfileMetadata> metadataForProfile(const QString &profileId) const;
    qsizetype recordCount() const;

    // "<64 lower-case hex>.env" for a reference.
    static QString fileNameFor(const QString &providerReference);

    // Test-only: called at each CrashPoint during a write (the crash tests raise SIGKILL
    // from it in a forked child). nullptr disables it.
    static void setCrashHookForTesting(CrashHook hook);

private:
    struct Record
    {
        ProfileMetadata metadata;
        QByteArray fileName;
        QByteArray digest; // SHA-256 of the envelope bytes this store wrote or validated
    };

    Result<Unit> openLocked();
    void closeLocked();
    Result<Unit> scanRecords();
    Result<QByteArray> readRecordFile(const QByteArray &fileName) const;
    Result<Envelope> loadVerified(const Record &record) const;
    Result<QByteArray> writeRecord(const QByteArray &fileName, const QByteArray &bytes,
                                   bool exclusive);
    Result<Unit> syncDirectory() const;
    Result<ProfileMetadata> reseal(Record &record, const ProfileMetadata &metadata,
                                   const SecretBytes &plaintext);
    Result<Record *> findScoped(const ProfileIdentity &expected);
    Result<QString> currentKeyVersion() const;

    QString m_directory;
    const Keyring &m_keyring;
    int m_dirFd = -1;
    int m_lockFd = -1;
    bool m_open = false;
    QHash<QString, Record> m_records; // by provider reference
    mutable std::mutex m_mutex;
};

} // namespace veetbot
