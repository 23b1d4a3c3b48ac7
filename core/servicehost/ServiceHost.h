#pragma once

#include "domain/Result.h"
#include "domain/web/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "service/api/ServiceCredential.h"
#include "service/api/ServiceLocation.h"
#include "storage/FileDescriptor.h"
#include "vault/VaultControlPlane.h"

#include <QObject>

#include <functional>
#include <memory>

namespace veetbot {

class HttpService;
class SessionHost;

// veetbot-profile-service's composition: the one process of a data directory that opens the
// keys and the vault. It takes the service lock, creates or reads the credential, listens on
// the socket at once (live), then opens the keyring and validates the whole store (ready).
// State lives on the Qt thread; the HTTP workers reach it through runOnThread().
class ServiceHost : public QObject
{
    Q_OBJECT
public:
    // The fixed reasons /health/ready and /v1/service give while not ready.
    enum class NotReady
    {
        Starting,           // the vault is still opening
        KeyringUnavailable, // the keyring is locked, missing or unsafe
        StoreInvalid,       // the encrypted store did not validate
    };
    static QString notReadyCode(NotReady reason);
    // The exit status after POST /v1/service:restart (EX_TEMPFAIL): the systemd user unit
    // restarts the service on it (Restart=on-failure), and only a restart was asked for.
    static constexpr int kRestartExitCode = 75;

    // Which keyring the vault opens for a configuration (the program's composition: a key
    // directory or the desktop keyring).
    using KeyringChoice =
        std::function<VaultControlPlane::KeyringLoader(const LocalConfiguration &)>;

    explicit ServiceHost(KeyringChoice keyringFor, QObject *parent = nullptr);
    ~ServiceHost() override;

    // Everything up to listening; the vault opens afterwards. Errors are the stable ones of
    // the configuration, the location, the lock and the credential.
    Result<Unit> start();
    // Stops listening and waits for requests in progress (their work keeps running here).
    void stop();

    bool isReady() const { return m_vault != nullptr; }

private:
    QList<struct HttpRoute> routes();
    void openVault();

    KeyringChoice m_keyringFor;
    std::optional<LocalConfiguration> m_configuration;
    TestOverrides m_overrides;
    std::optional<ServiceLocation> m_location;
    std::optional<ServiceCredential> m_credential;
    FileDescriptor m_lock;
    std::unique_ptr<HttpService> m_http;
    std::unique_ptr<VaultControlPlane> m_vault;
    SessionHost *m_sessions = nullptr;
    class CeremonyHost *m_ceremonies = nullptr;
    NotReady m_notReady = NotReady::Starting;
};

} // namespace veetbot
