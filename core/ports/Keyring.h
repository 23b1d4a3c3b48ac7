#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QString>
#include <QStringList>

namespace veetbot {

// Resolves opaque key versions to exactly 256-bit keys. There is no default and no derived
// key: a version that is not present is an error. Implementations live in core/vault (the
// only code that touches keys).
class Keyring
{
public:
    virtual ~Keyring() = default;

    // The version new envelopes are sealed with.
    virtual Result<QString> currentVersion() const = 0;
    // Exactly 32 bytes for a known version; an error otherwise.
    virtual Result<SecretBytes> key(const QString &version) const = 0;
    // Every version the keyring holds.
    virtual QStringList versions() const = 0;
};

} // namespace veetbot
