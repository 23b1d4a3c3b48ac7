#pragma once

#include "KeychainStore.h"

namespace veetbot {

// KeychainStore over QtKeychain jobs (the freedesktop secret service on Linux, Keychain on
// macOS, Credential Manager on Windows). The insecure QSettings fallback is always off: with
// no secret service every request ends Unavailable, and nothing is written to disk by us.
class QtKeychainStore final : public KeychainStore
{
    Q_OBJECT
public:
    explicit QtKeychainStore(QString service, QObject *parent = nullptr);

    void read(const QString &key, ReadDone done) override;
    void write(const QString &key, const SecretBytes &data, Done done) override;
    void remove(const QString &key, Done done) override;

private:
    QString m_service;
};

} // namespace veetbot
