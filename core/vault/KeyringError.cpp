#include "KeyringError.h"

namespace veetbot {

QString keyringErrorCode(KeyringError error)
{
    switch (error) {
    case KeyringError::UnsafeDirectory:
        return QStringLiteral("keyring.unsafe_directory");
    case KeyringError::MissingDirectory:
        return QStringLiteral("keyring.missing_directory");
    case KeyringError::UnsafeFile:
        return QStringLiteral("keyring.unsafe_file");
    case KeyringError::UnknownFile:
        return QStringLiteral("keyring.unknown_file");
    case KeyringError::DuplicateFile:
        return QStringLiteral("keyring.duplicate_file");
    case KeyringError::TooManyFiles:
        return QStringLiteral("keyring.too_many_files");
    case KeyringError::BadVersion:
        return QStringLiteral("keyring.bad_version");
    case KeyringError::BadKeyFile:
        return QStringLiteral("keyring.bad_key_file");
    case KeyringError::BadCurrent:
        return QStringLiteral("keyring.bad_current");
    case KeyringError::MissingCurrent:
        return QStringLiteral("keyring.missing_current");
    case KeyringError::DuplicateKey:
        return QStringLiteral("keyring.duplicate_key");
    case KeyringError::UnknownVersion:
        return QStringLiteral("keyring.unknown_version");
    case KeyringError::RemoveCurrent:
        return QStringLiteral("keyring.remove_current");
    case KeyringError::AlreadyExists:
        return QStringLiteral("keyring.already_exists");
    case KeyringError::IoError:
        return QStringLiteral("keyring.io_error");
    case KeyringError::RandomFailed:
        return QStringLiteral("keyring.random_failed");
    case KeyringError::Unavailable:
        return QStringLiteral("keyring.unavailable");
    case KeyringError::Denied:
        return QStringLiteral("keyring.denied");
    case KeyringError::Timeout:
        return QStringLiteral("keyring.timeout");
    case KeyringError::BadIndex:
        return QStringLiteral("keyring.bad_index");
    case KeyringError::BadStoredKey:
        return QStringLiteral("keyring.bad_stored_key");
    case KeyringError::Busy:
        return QStringLiteral("keyring.busy");
    case KeyringError::NotLoaded:
        return QStringLiteral("keyring.not_loaded");
    }
    Q_UNREACHABLE();
    return QString();
}

QString keyringErrorMessage(KeyringError error)
{
    switch (error) {
    case KeyringError::UnsafeDirectory:
        return QStringLiteral("The key directory must be an absolute, private directory owned "
                              "by this user and reached without a symbolic link.");
    case KeyringError::MissingDirectory:
        return QStringLiteral("The key directory does not exist.");
    case KeyringError::UnsafeFile:
        return QStringLiteral("Every file in the key directory must be a private regular file "
                              "owned by this user.");
    case KeyringError::UnknownFile:
        return QStringLiteral("The key directory holds a file that is not a key or the current "
                              "version file.");
    case KeyringError::DuplicateFile:
        return QStringLiteral("The key directory lists the same file twice.");
    case KeyringError::TooManyFiles:
        return QStringLiteral("The key directory holds too many files.");
    case KeyringError::BadVersion:
        return QStringLiteral("A key version name is not valid.");
    case KeyringError::BadKeyFile:
        return QStringLiteral("A key file does not hold base64 of exactly 32 bytes.");
    case KeyringError::BadCurrent:
        return QStringLiteral("The current version file does not name a valid version.");
    case KeyringError::MissingCurrent:
        return QStringLiteral("The current key is missing.");
    case KeyringError::DuplicateKey:
        return QStringLiteral("Two key versions hold the same key.");
    case KeyringError::UnknownVersion:
        return QStringLiteral("The keyring holds no key of that version.");
    case KeyringError::RemoveCurrent:
        return QStringLiteral("The current key cannot be removed.");
    case KeyringError::AlreadyExists:
        return QStringLiteral("The key directory already exists.");
    case KeyringError::IoError:
        return QStringLiteral("The key directory could not be read or written.");
    case KeyringError::RandomFailed:
        return QStringLiteral("The random number generator failed.");
    case KeyringError::Unavailable:
        return QStringLiteral("The secret service is not available.");
    case KeyringError::Denied:
        return QStringLiteral("The secret service refused access.");
    case KeyringError::Timeout:
        return QStringLiteral("The secret service did not answer in time.");
    case KeyringError::BadIndex:
        return QStringLiteral("The stored keyring index is not valid.");
    case KeyringError::BadStoredKey:
        return QStringLiteral("A stored key is not exactly 32 bytes.");
    case KeyringError::Busy:
        return QStringLiteral("Another keyring operation is still running.");
    case KeyringError::NotLoaded:
        return QStringLiteral("The keyring has not been loaded.");
    }
    Q_UNREACHABLE();
    return QString();
}

Error keyringError(KeyringError error)
{
    return Error{keyringErrorCode(error), keyringErrorMessage(error)};
}

} // namespace veetbot
