#pragma once

#include "domain/action/ActRequest.h"
#include "domain/authority/GrantCoverage.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/web/TestOverrides.h"
#include "service/api/HttpApi.h"
#include "service/api/ServiceLease.h"

#include <QDateTime>
#include <QUrl>

#include <optional>
#include <variant>

namespace veetbot {

// The session route family of the profile service (docs/service.md "Sessions"):
//
//   POST /v1/browser-sessions:acquire   {"holder",["deadline_ms"]}
//        200 {"lease_reference","expires_at_ms","sequence","reattached"}
//   POST /v1/browser-sessions:renew     {"holder","lease_reference",["deadline_ms"]}
//        200 {"expires_at_ms"}
//   POST /v1/browser-sessions:navigate  {"holder","lease_reference","url"}
//   POST /v1/browser-sessions:observe   {"holder","lease_reference","observe":{...}}
//        200 the browser host's result object: {"id":1,"observation":{...}[,"facts":{...}]}
//            or {"id":1,"error":{"code","message"}} with a tool.browser.* code (also the
//            answer of acquire and renew when they refuse)
//   POST /v1/browser-sessions:act       {"holder","lease_reference","sequence","act":{...},
//                                        "constraint"?:{...}} (DispatchConstraint)
//        200 the result object when the act ended before its dispatch gate (nothing sent),
//            else {"gate":"<token>"}: the act waits at its gate for :dispatch
//   POST /v1/browser-sessions:dispatch  {"holder","lease_reference","gate","open"}
//        200 the act's result object (after the gate opened, any failure is
//            tool.browser.outcome_unknown)
//   POST /v1/browser-sessions:close     {"holder","lease_reference"}   204
//
// "holder" is {"profile_id","tenant_id","principal_id","provider_reference","run_id",
// "attempt"}. Bodies are closed objects read by the strict parser, at most 64 KiB.
namespace SessionApi {

inline constexpr qint64 kMaxBody = 64 * 1024;
inline constexpr int kMaxRunIdLength = 128;
inline constexpr int kMaxAttempt = 1000;

enum class Operation
{
    Acquire,
    Renew,
    Navigate,
    Observe,
    Act,
    Dispatch,
    Close
};
QString operationName(Operation operation);
QByteArray path(Operation operation);

struct Call
{
    Operation operation = Operation::Acquire;
    LeaseHolder holder;
    QByteArray leaseReference;         // every operation but acquire
    std::optional<QDateTime> deadline; // acquire and renew
    QUrl url;                          // navigate
    // navigate: a fresh approval of the owner stands behind it ("approved": true), so its
    // documents may write; absent, the browser judges each one (NavigateRequest::guarded).
    bool approved = false;
    bool discardUnsaved = false; // navigate: "discard_unsaved": true
    std::optional<ObserveRequest> observe;
    std::optional<ActRequest> act; // act
    // act: the dispatch constraint of an act authorized without a fresh approval.
    std::optional<DispatchConstraint> constraint;
    qint64 sequence = 0; // act: the lease's action sequence it expects
    QByteArray gate;     // dispatch: the token :act answered with
    bool open = false;   // dispatch: whether the act may be sent
};

// A request body into a call, or the fixed 400.
std::variant<Call, HttpResponse> parse(Operation operation, const QByteArray &body,
                                       const TestOverrides &overrides);
// The body a client sends for `call`.
QByteArray requestBody(const Call &call);

struct Acquired
{
    QByteArray leaseReference;
    QDateTime expiresAt;
    qint64 sequence = 0;
    bool reattached = false;
};
QByteArray acquiredBody(const QString &reference, const ServiceLease &lease, bool reattached);
std::optional<Acquired> parseAcquired(const QByteArray &body);
QByteArray renewedBody(const ServiceLease &lease);
std::optional<QDateTime> parseRenewed(const QByteArray &body);
// :act's answer when the act waits at its gate.
QByteArray gateBody(const QByteArray &token);
std::optional<QByteArray> parseGate(const QByteArray &body);

} // namespace SessionApi

} // namespace veetbot
