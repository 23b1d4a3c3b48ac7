#pragma once

#include "domain/Result.h"

#include <QByteArray>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace veetbot {

// What a service route receives and answers. Transport-neutral: the HTTP server (HttpService)
// admits a request against the route table before it reads a byte of the body, reads the
// body bounded, and hands this to the route's handler.
struct HttpRequest
{
    QStringList parameters;    // the route pattern's captures, in order
    QByteArray body;           // at most the route's limit; empty for routes without a body
    QByteArray idempotencyKey; // the Idempotency-Key header; empty when absent
    QByteArray capability;     // capability routes: the presented capability (secret)
};

struct HttpResponse
{
    int status = 200;
    QByteArray body; // application/json when not empty
};

// The service's fixed error bodies: {"error":{"code","message"}}. The code and message are
// constants of the service; never a request's bytes, a path or exception text.
namespace HttpError {
enum class Kind
{
    MalformedRequest, // 400
    InvalidRequest,   // 400: a value no request may hold (a control character in an id)
    Unauthorized,     // 401
    NotFound,         // 404
    Conflict,         // 409
    PayloadTooLarge,  // 413
    UnsupportedMedia, // 415
    HeadTooLarge,     // 431: over HttpHead's bounds, answered before anything is parsed
    Internal,         // 500
    NotReady,         // 503
};
int status(Kind kind);
HttpResponse response(Kind kind);
// A 400 or 409 with a route's own fixed code and message (both constants).
HttpResponse response(int status, const char *code, const char *message);
// The same with a service Error's fixed code and message.
HttpResponse response(int status, const Error &error);
} // namespace HttpError

struct HttpRoute
{
    enum class Access
    {
        Public,     // health probes only
        Credential, // the Bearer service credential
        Capability, // a sign-in hand-off's capability (X-Browser-Ceremony-Capability)
    };
    QByteArray method; // GET or POST
    // Matched against the whole path; its captures become HttpRequest::parameters.
    QRegularExpression pattern;
    Access access = Access::Credential;
    qint64 maxBody = 0; // 0: the route takes no body; else application/json up to this
    // Capability routes: whether the presented capability is live for the path's captures,
    // compared in constant time (called before the body is read, on a connection thread).
    std::function<bool(const QStringList &, QByteArrayView)> capabilityMatches;
    std::function<HttpResponse(const HttpRequest &)> handle;
    // Instead of `handle`, for work that ends later (a page loading): `reply` is called
    // exactly once, on the thread the work runs on.
    using Reply = std::function<void(HttpResponse)>;
    std::function<void(const HttpRequest &, Reply)> handleAsync;
};

// The checks every request passes before any byte of its body is read, in this order:
// a route that is not in the table (any other method or path) is 404; a missing or wrong
// credential (or, on a capability route, capability) 401; on a route with a body, any
// Content-Encoding or a Content-Type other than application/json 415, a Content-Length over the
// route's limit 413, neither a length nor a chunked body, both, or a malformed length 400; on a
// route without one, any body 400.
class HttpAdmission
{
public:
    static constexpr char kCapabilityHeader[] = "X-Browser-Ceremony-Capability";
    struct Headers
    {
        std::optional<QByteArray> authorization;
        std::optional<QByteArray> contentType;
        std::optional<QByteArray> contentEncoding;
        std::optional<QByteArray> contentLength;
        std::optional<QByteArray> transferEncoding;
        std::optional<QByteArray> capability; // capability routes
    };
    struct Admitted
    {
        const HttpRoute *route = nullptr;
        QStringList parameters;
        bool chunked = false;
        qint64 contentLength = 0; // when not chunked
    };
    using Decision = std::variant<Admitted, HttpError::Kind>;

    // A Content-Length value: digits only, within qint64; nullopt otherwise.
    static std::optional<qint64> contentLength(QByteArrayView value);

    // `credentialMatches` compares a presented Bearer token in constant time.
    static Decision admit(const QList<HttpRoute> &routes, QByteArrayView method,
                          QByteArrayView path, const Headers &headers,
                          const std::function<bool(QByteArrayView)> &credentialMatches);
};

} // namespace veetbot
