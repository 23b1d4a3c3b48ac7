#pragma once

#include "domain/Result.h"
#include "domain/web/TestOverrides.h"
#include "service/api/ServiceIdentity.h"
#include "service/api/ServiceLocation.h"
#include "service/client/ServiceClient.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <memory>

namespace veetbot {

// How an orchestration program finds the profile service of its data directory: it reads
// the credential, asks the service who it is (GET /v1/service) and refuses one that serves
// another data directory or runs with other test settings. With Start::OnDemand a service
// that does not answer is started — detached, in its own session and process group, its
// output in <data directory>/logs/service.log (content-free) — and waited for, up to 10 s.
//
// With Start::OnDemand and a version given, a running service of another version (a package
// upgraded under it) with no browser open is asked to restart: one under its systemd user
// unit is started again by the unit, any other by this client. One with a browser open is
// used as it is, and the notice says so; it is restarted by the first client that finds it
// idle.
class ServiceConnection
{
public:
    enum class Start
    {
        Never,
        OnDemand
    };
    struct Options
    {
        QString dataDirectory;
        TestOverrides overrides;
        QString programPath; // veetbot-profile-service
        int readyTimeoutMs = 10000;
        // This program's version; empty: any running service is used.
        QString version;
        // Told once when a service is started (the CLI says so on stderr).
        std::function<void(const QString &)> notice;
    };

    static Result<ServiceConnection> connect(const Options &options, Start start);

    std::shared_ptr<ServiceClient> client() const { return m_client; }
    const ServiceLocation &location() const { return m_location; }
    // The service's own description (ready, pid, version, reason, test_resolve).
    QJsonObject description() const { return m_description; }
    bool isReady() const;

    static Error otherDataDirectory();
    static Error otherTestSettings();
    static Error startFailed();

private:
    ServiceConnection(ServiceLocation location, std::shared_ptr<ServiceClient> client,
                      QJsonObject description)
        : m_location(std::move(location)), m_client(std::move(client)),
          m_description(std::move(description))
    {
    }

    ServiceLocation m_location;
    std::shared_ptr<ServiceClient> m_client;
    QJsonObject m_description;
};

} // namespace veetbot
