#pragma once

#include "ports/Keyring.h"
#include "vault/KeyDirectoryLoader.h"

namespace veetbot {

// The service keyring: every key of a private key directory (see KeyDirectory), read and
// validated once at start-up and then served from memory. It never re-reads the directory,
// never falls back to a default key and never derives one.
class DirectoryKeyring final : public Keyring
{
public:
    // Reads, validates and holds the directory's keys; any invalid state fails the whole load.
    static Result<DirectoryKeyring> open(const QString &path);

    explicit DirectoryKeyring(KeyMaterial material);

    Result<QString> currentVersion() const override;
    Result<SecretBytes> key(const QString &version) const override;
    QStringList versions() const override;

private:
    KeyMaterial m_material;
};

} // namespace veetbot
