#pragma once

#include "domain/Result.h"

#include <QString>

namespace veetbot {

// The stable failure family of every keyring ("keyring.*"). Each code has one fixed wire
// string and one fixed message; neither ever carries key bytes, version names or paths.
enum class KeyringError
{
    UnsafeDirectory,
    MissingDirectory,
    UnsafeFile,
    UnknownFile,
    DuplicateFile,
    TooManyFiles,
    BadVersion,
    BadKeyFile,
    BadCurrent,
    MissingCurrent,
    DuplicateKey,
    UnknownVersion,
    RemoveCurrent,
    AlreadyExists,
    IoError,
    RandomFailed,
    Unavailable,
    Denied,
    Timeout,
    BadIndex,
    BadStoredKey,
    Busy,
    NotLoaded,
};

inline constexpr KeyringError kAllKeyringErrors[] = {
    KeyringError::UnsafeDirectory, KeyringError::MissingDirectory,
    KeyringError::UnsafeFile,      KeyringError::UnknownFile,
    KeyringError::DuplicateFile,   KeyringError::TooManyFiles,
    KeyringError::BadVersion,      KeyringError::BadKeyFile,
    KeyringError::BadCurrent,      KeyringError::MissingCurrent,
    KeyringError::DuplicateKey,    KeyringError::UnknownVersion,
    KeyringError::RemoveCurrent,   KeyringError::AlreadyExists,
    KeyringError::IoError,         KeyringError::RandomFailed,
    KeyringError::Unavailable,     KeyringError::Denied,
    KeyringError::Timeout,         KeyringError::BadIndex,
    KeyringError::BadStoredKey,    KeyringError::Busy,
    KeyringError::NotLoaded,
};

// "keyring.unsafe_directory" and so on.
QString keyringErrorCode(KeyringError error);
// The fixed, content-free message shown with the code.
QString keyringErrorMessage(KeyringError error);
Error keyringError(KeyringError error);

} // namespace veetbot
