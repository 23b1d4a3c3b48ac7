#pragma once

#include "domain/Result.h"
#include "ports/BrowserProfileControlPlane.h"
#include "service/api/HttpApi.h"
#include "service/api/LifecycleApi.h"
#include "service/api/ServiceCredential.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>

namespace veetbot {

// An orchestration program's side of the profile service: one request per connection over
// the service's Unix socket (cpp-httplib), with the Bearer credential, bounded answers and
// timeouts. Blocking: call it where waiting is expected (a CLI command) or from a worker
// thread (Qt 6.4's network access manager has no Unix sockets). The first client of a
// process sets SIGPIPE to be ignored where it had its default action (the library writes
// without MSG_NOSIGNAL): a connection the service closed is a failed request, never a death.
class ServiceClient
{
public:
    // The largest answer is a remote sign-in view's frame: 2 MiB of JPEG as base64.
    static constexpr qsizetype kMaxAnswerBytes = 3 * 1024 * 1024;
    struct Timeouts
    {
        int connectMs = 2000;
        int readMs = 30000;
        int writeMs = 5000;
    };

    ServiceClient(QString socketPath, ServiceCredential credential, Timeouts timeouts);
    ServiceClient(QString socketPath, ServiceCredential credential)
        : ServiceClient(std::move(socketPath), std::move(credential), Timeouts())
    {
    }

    // service.unavailable when nothing answers on the socket (or the answer is over the
    // bound); otherwise the service's status and body.
    Result<HttpResponse> get(const QByteArray &path) const;
    // `readMs`: this call's wait for the answer, instead of the client's.
    Result<HttpResponse> post(const QByteArray &path, const QByteArray &body,
                              const QByteArray &idempotencyKey,
                              std::optional<int> readMs = std::nullopt) const;
    // GET /health/ready answered 200.
    bool isReady() const;
    QString socketPath() const { return m_socketPath; }
    // A sign-in hand-off to the launch path a ceremony's begin returned
    // ("/authentication/<id>/handoff#<capability>"): the capability travels in its own
    // header, and never with the service credential. Waits for the verification (up to its
    // 30 s and a margin).
    static Result<HttpResponse> handOff(const QString &socketPath, const QString &launchPath,
                                        const QByteArray &body);
    // A POST to a ceremony's owner route with its capability (never the service credential):
    // the remote view's frames, input and finish. An empty body is sent as none.
    static Result<HttpResponse> withCapability(const QString &socketPath, const QByteArray &path,
                                               const QByteArray &capability, const QByteArray &body,
                                               int readMs);

    // The service's fixed error body ({"error":{"code","message"}}, its code and message the
    // service's constants) as an Error; failed() for any other body.
    static Error errorOf(const HttpResponse &answer);
    static Error unavailable();
    static Error notReady();
    // Any other answer the caller did not expect (the service's fixed bodies stay with it).
    static Error failed();

private:
    QString m_socketPath;
    ServiceCredential m_credential;
    Timeouts m_timeouts;
};

// The lifecycle control plane as orchestration reaches it: the service's three routes. It
// holds no key and no material; only names cross.
class ServiceControlPlane final : public BrowserProfileControlPlane
{
public:
    explicit ServiceControlPlane(std::shared_ptr<const ServiceClient> client)
        : m_client(std::move(client))
    {
    }
    Result<ProvisionedMaterial> provision(const MaterialScope &scope) override;
    Result<Unit> revoke(const MaterialScope &scope,
                        const std::optional<QString> &providerReference) override;
    Result<Unit> remove(const MaterialScope &scope,
                        const std::optional<QString> &providerReference) override;

private:
    Result<HttpResponse> post(const MaterialScope &scope,
                              const std::optional<QString> &providerReference,
                              LifecycleApi::Operation operation) const;
    // Revoke and delete: 204, or the error the service's answer means.
    Result<Unit> postWithoutAnswer(const MaterialScope &scope,
                                   const std::optional<QString> &providerReference,
                                   LifecycleApi::Operation operation) const;

    std::shared_ptr<const ServiceClient> m_client;
};

} // namespace veetbot
