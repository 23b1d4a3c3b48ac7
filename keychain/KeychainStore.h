#pragma once

#include "domain/SecretBytes.h"

#include <QObject>
#include <QString>

#include <functional>

namespace veetbot {

// What a secret store answered for one request.
enum class KeychainStatus
{
    Ok,
    NotFound,
    // No secret service (none running, no session bus, or a D-Bus failure).
    Unavailable,
    // The service refused: a locked collection or a user who declined.
    Denied,
};

// The seam between QtKeychainKeyring and the platform secret store: one asynchronous read,
// write or delete per call, answered exactly once through `done` unless the store is
// destroyed first. Implementations never keep a copy of the data and never fall back to a
// file.
class KeychainStore : public QObject
{
    Q_OBJECT
public:
    using ReadDone = std::function<void(KeychainStatus, SecretBytes)>;
    using Done = std::function<void(KeychainStatus)>;

    using QObject::QObject;
    ~KeychainStore() override = default;

    virtual void read(const QString &key, ReadDone done) = 0;
    virtual void write(const QString &key, const SecretBytes &data, Done done) = 0;
    virtual void remove(const QString &key, Done done) = 0;
};

} // namespace veetbot
