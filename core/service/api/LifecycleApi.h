#pragma once

#include "domain/web/TestOverrides.h"
#include "ports/BrowserProfileControlPlane.h"
#include "service/api/HttpApi.h"

#include <functional>
#include <variant>

namespace veetbot {

// The lifecycle route family of the profile service: exactly three authenticated mutations
// over the vault (docs/service.md "Lifecycle routes").
//
//   POST /v1/browser-profiles/{id}:provision  201 {"provider_name","provider_reference",
//                                                   "key_version"}
//   POST /v1/browser-profiles/{id}:revoke     204
//   POST /v1/browser-profiles/{id}:delete     204
//
// Bodies are closed JSON objects {"profile_id","tenant_id","principal_id","allowed_origins"}
// plus "provider_reference" (revoke and delete, optional), at most 64 KiB, read by the strict
// parser; the route's id and the body's must match and Idempotency-Key must be exactly
// browser-profile:{id}:{operation}. A changed scope for a profile is 409. Failures are the
// fixed bodies of HttpError; nothing a response holds comes from the request.
class LifecycleApi
{
public:
    static constexpr qint64 kMaxBody = 64 * 1024;

    enum class Operation
    {
        Provision,
        Revoke,
        Delete
    };
    struct Call
    {
        Operation operation = Operation::Provision;
        MaterialScope scope;
        std::optional<QString> providerReference;
    };

    // The routes; `controlPlane` answers the vault, or nullptr while the service is not
    // ready (503).
    static QList<HttpRoute> routes(std::function<BrowserProfileControlPlane *()> controlPlane,
                                   TestOverrides overrides);

    // A request into a call, or the fixed refusal. Pure; the fuzz target drives it.
    static std::variant<Call, HttpResponse> parse(Operation operation, const QString &routeId,
                                                  const QByteArray &idempotencyKey,
                                                  const QByteArray &body,
                                                  const TestOverrides &overrides);
    // Runs a parsed call against the vault.
    static HttpResponse run(BrowserProfileControlPlane &controlPlane, const Call &call);

    static QString operationName(Operation operation);
    static QString idempotencyKey(const QUuid &profileId, Operation operation);
    // The canonical request body a client sends.
    static QByteArray requestBody(const MaterialScope &scope,
                                  const std::optional<QString> &providerReference);
};

} // namespace veetbot
