#pragma once

#include "domain/Result.h"

#include <QString>

namespace veetbot {

// The stable failures of the encrypted profile-material store. Each has one wire code and
// one fixed message; neither ever carries a path, a provider reference, key bytes or
// plaintext.
enum class VaultFailure
{
    CorruptRecord,    // malformed envelope, strict-JSON violation, file changed behind the store
    TagMismatch,      // authentication failed, or the caller's scope does not match the record
    UnknownFormat,    // envelope format or format_version other than 1
    KeyUnavailable,   // the named key version is missing or not 256 bits
    Exists,           // exclusive create found the reference or the profile id occupied
    NotFound,         // no record under that reference
    StoreUnsafe,      // directory missing, symlinked, foreign-owned, group/other accessible, ...
    StoreLocked,      // another live store holds the directory's lock
    StoreUnavailable, // the store is not open (open() failed or was never called)
    TooLarge,         // plaintext above 64 MiB or envelope above its bound
    Fenced,           // the record carries a revocation fence and cannot be used
    NotFenced,        // removal needs the revocation fence first
    InvalidMetadata,  // caller-supplied identity outside its bounds
    IoFailure,        // the file system refused an operation
    CryptoFailure,    // OpenSSL or the random source failed
};

inline QString vaultFailureCode(VaultFailure failure)
{
    switch (failure) {
    case VaultFailure::CorruptRecord:
        return QStringLiteral("vault.corrupt_record");
    case VaultFailure::TagMismatch:
        return QStringLiteral("vault.tag_mismatch");
    case VaultFailure::UnknownFormat:
        return QStringLiteral("vault.unknown_format");
    case VaultFailure::KeyUnavailable:
        return QStringLiteral("vault.key_unavailable");
    case VaultFailure::Exists:
        return QStringLiteral("vault.exists");
    case VaultFailure::NotFound:
        return QStringLiteral("vault.not_found");
    case VaultFailure::StoreUnsafe:
        return QStringLiteral("vault.store_unsafe");
    case VaultFailure::StoreLocked:
        return QStringLiteral("vault.store_locked");
    case VaultFailure::StoreUnavailable:
        return QStringLiteral("vault.store_unavailable");
    case VaultFailure::TooLarge:
        return QStringLiteral("vault.too_large");
    case VaultFailure::Fenced:
        return QStringLiteral("vault.fenced");
    case VaultFailure::NotFenced:
        return QStringLiteral("vault.not_fenced");
    case VaultFailure::InvalidMetadata:
        return QStringLiteral("vault.invalid_metadata");
    case VaultFailure::IoFailure:
        return QStringLiteral("vault.io_failure");
    case VaultFailure::CryptoFailure:
        return QStringLiteral("vault.crypto_failure");
    }
    Q_UNREACHABLE();
    return QString();
}

inline QString vaultFailureMessage(VaultFailure failure)
{
    switch (failure) {
    case VaultFailure::CorruptRecord:
        return QStringLiteral("The stored record is malformed.");
    case VaultFailure::TagMismatch:
        return QStringLiteral("The record does not authenticate for the expected profile.");
    case VaultFailure::UnknownFormat:
        return QStringLiteral("The stored record has an unsupported format version.");
    case VaultFailure::KeyUnavailable:
        return QStringLiteral("The encryption key version is not available.");
    case VaultFailure::Exists:
        return QStringLiteral("A record with that identity already exists.");
    case VaultFailure::NotFound:
        return QStringLiteral("No record exists for that reference.");
    case VaultFailure::StoreUnsafe:
        return QStringLiteral("The profile store directory is not private to this service.");
    case VaultFailure::StoreLocked:
        return QStringLiteral("Another process holds the profile store.");
    case VaultFailure::StoreUnavailable:
        return QStringLiteral("The profile store is not open.");
    case VaultFailure::TooLarge:
        return QStringLiteral("The profile material exceeds its bound.");
    case VaultFailure::Fenced:
        return QStringLiteral("The profile material has been revoked.");
    case VaultFailure::NotFenced:
        return QStringLiteral("The profile material must be revoked before it is deleted.");
    case VaultFailure::InvalidMetadata:
        return QStringLiteral("The profile metadata is outside its bounds.");
    case VaultFailure::IoFailure:
        return QStringLiteral("The profile store could not complete a file operation.");
    case VaultFailure::CryptoFailure:
        return QStringLiteral("The cryptographic operation could not be completed.");
    }
    Q_UNREACHABLE();
    return QString();
}

inline Error vaultError(VaultFailure failure)
{
    return Error{vaultFailureCode(failure), vaultFailureMessage(failure)};
}

} // namespace veetbot
