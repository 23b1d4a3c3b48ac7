#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"
#include "vault/AesGcm.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace veetbot {

class Keyring;

// The scope a caller names a record by: the values the lifecycle service binds into the
// encrypted record. Holds no secret.
struct ProfileIdentity
{
    QString profileId;          // canonical lower-case UUID, 8-4-4-4-12
    QString tenant;             // 1..256 characters, no control characters
    QString principal;          // 1..256 characters, no control characters
    QString providerReference;  // 1..128 printable ASCII characters; never a path
    QStringList allowedOrigins; // 1..64 "https://host[:port]", strictly ascending

    static constexpr qsizetype kMaxScopeChars = 256;
    static constexpr qsizetype kMaxReferenceChars = 128;
    static constexpr qsizetype kMaxOrigins = 64;
    static constexpr qsizetype kMaxOriginChars = 300;

    bool isValid() const;
    friend bool operator==(const ProfileIdentity &, const ProfileIdentity &) = default;
};

// Everything an envelope authenticates: the identity plus format version, key version and
// revocation fence. Its RFC 8785 canonical JSON is the AES-GCM additional data.
struct ProfileMetadata
{
    static constexpr int kFormatVersion = 1;
    static constexpr qsizetype kMaxKeyVersionChars = 64;

    ProfileIdentity identity;
    int formatVersion = kFormatVersion;
    QString keyVersion;         // 1..64 of [A-Za-z0-9._-]
    qint64 revocationFence = 0; // 0 = live; every fence() adds one; never decreases

    bool isFenced() const { return revocationFence > 0; }
    bool isValid() const;
    QJsonObject toJson() const;
    // Strict shape: exactly the eight members with their types and bounds.
    // vault.unknown_format for a format_version other than 1, vault.corrupt_record otherwise.
    static Result<ProfileMetadata> fromJson(const QJsonValue &value);
    // The canonical JSON bytes used as additional authenticated data.
    Result<QByteArray> additionalData() const;

    friend bool operator==(const ProfileMetadata &, const ProfileMetadata &) = default;
};

// Versioned JSON envelope of one record:
//   {"ciphertext":"<base64 ct||tag>","format":1,"metadata":{...},"nonce":"<base64 12 bytes>"}
// parse() bounds the input before reading it and accepts nothing but this exact shape;
// open() releases plaintext only after the tag verified over the canonical metadata.
// An Envelope never holds plaintext or key bytes.
class Envelope
{
public:
    static constexpr int kFormat = 1;
    static constexpr qsizetype kMaxPlaintextBytes = qsizetype(64) * 1024 * 1024;
    static constexpr qsizetype kMaxCiphertextBytes = kMaxPlaintextBytes + AesGcm::kTagBytes;
    static constexpr qsizetype kMaxCiphertextBase64Chars = (kMaxCiphertextBytes + 2) / 3 * 4;
    // 90 MiB: the largest ciphertext's base64 (~85.3 MiB) plus ample room for metadata.
    static constexpr qsizetype kMaxEnvelopeBytes = qsizetype(90) * 1024 * 1024;
    static_assert(kMaxCiphertextBase64Chars + 1024 * 1024 < kMaxEnvelopeBytes);

    ProfileMetadata metadata;
    QByteArray nonce;            // 12 bytes
    QByteArray ciphertextAndTag; // ciphertext || 16-byte tag

    // Seals under the key named by metadata.keyVersion with a fresh nonce.
    // vault.invalid_metadata, vault.too_large, vault.key_unavailable, vault.crypto_failure.
    static Result<Envelope> seal(const ProfileMetadata &metadata, const SecretBytes &plaintext,
                                 const Keyring &keyring);

    // vault.too_large (input above kMaxEnvelopeBytes, refused before parsing, or a
    // ciphertext above its bound), vault.unknown_format, vault.corrupt_record.
    static Result<Envelope> parse(QByteArrayView bytes);

    // Canonical (RFC 8785) bytes of the whole envelope.
    Result<QByteArray> serialize() const;

    // Authenticates over this envelope's own metadata.
    Result<SecretBytes> open(const Keyring &keyring) const;
    // Authenticates over the metadata the caller expects instead of the stored copy, so a
    // record that differs in any bound field fails with vault.tag_mismatch.
    Result<SecretBytes> openAs(const ProfileMetadata &expected, const Keyring &keyring) const;
};

} // namespace veetbot
