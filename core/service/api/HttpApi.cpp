#include "HttpApi.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <variant>

namespace veetbot {

namespace HttpError {

int status(Kind kind)
{
    switch (kind) {
    case Kind::MalformedRequest:
    case Kind::InvalidRequest:
        return 400;
    case Kind::Unauthorized:
        return 401;
    case Kind::NotFound:
        return 404;
    case Kind::Conflict:
        return 409;
    case Kind::PayloadTooLarge:
        return 413;
    case Kind::UnsupportedMedia:
        return 415;
    case Kind::HeadTooLarge:
        return 431;
    case Kind::Internal:
        return 500;
    case Kind::NotReady:
        return 503;
    }
    return 500;
}

HttpResponse response(int status, const char *code, const char *message)
{
    return response(status, Error{QString::fromLatin1(code), QString::fromLatin1(message)});
}

HttpResponse response(int status, const Error &error)
{
    const QJsonObject body{{QStringLiteral("code"), error.code},
                           {QStringLiteral("message"), error.message}};
    return {
        status,
        QJsonDocument(QJsonObject{{QStringLiteral("error"), body}}).toJson(QJsonDocument::Compact)};
}

HttpResponse response(Kind kind)
{
    switch (kind) {
    case Kind::MalformedRequest:
        return response(400, "malformed_request", "The request is not one this route accepts.");
    case Kind::InvalidRequest:
        return response(400, "invalid_request",
                        "An identifier in the request holds a control character.");
    case Kind::Unauthorized:
        return response(401, "unauthorized", "The service credential is missing or wrong.");
    case Kind::NotFound:
        return response(404, "not_found", "There is no such route.");
    case Kind::Conflict:
        return response(409, "conflict", "The request conflicts with an earlier one.");
    case Kind::PayloadTooLarge:
        return response(413, "payload_too_large", "The request body is over this route's limit.");
    case Kind::UnsupportedMedia:
        return response(415, "unsupported_media_type",
                        "The body must be application/json, not encoded.");
    case Kind::HeadTooLarge:
        return response(431, "header_fields_too_large",
                        "The request head is over 100 header lines or 16 KiB.");
    case Kind::Internal:
        return response(500, "internal_error", "The service could not complete the request.");
    case Kind::NotReady:
        return response(503, "not_ready", "The service is not ready.");
    }
    return response(500, "internal_error", "The service could not complete the request.");
}

} // namespace HttpError

namespace {

bool isJsonMediaType(QByteArrayView value)
{
    // application/json, optionally with charset=utf-8 (any case, optional spaces).
    const QByteArray lower =
        value.toByteArray().toLower().replace(' ', QByteArray()).replace('\t', QByteArray());
    return lower == "application/json" || lower == "application/json;charset=utf-8";
}

} // namespace

std::optional<qint64> HttpAdmission::contentLength(QByteArrayView value)
{
    if (value.isEmpty() || value.size() > 18)
        return std::nullopt;
    qint64 length = 0;
    for (const char c : value) {
        if (c < '0' || c > '9')
            return std::nullopt;
        length = length * 10 + (c - '0');
    }
    return length;
}

HttpAdmission::Decision
HttpAdmission::admit(const QList<HttpRoute> &routes, QByteArrayView method, QByteArrayView path,
                     const Headers &headers,
                     const std::function<bool(QByteArrayView)> &credentialMatches)
{
    const QString pathText = QString::fromLatin1(path);
    const HttpRoute *route = nullptr;
    QStringList parameters;
    for (const HttpRoute &candidate : routes) {
        if (candidate.method != method)
            continue;
        const QRegularExpressionMatch match = candidate.pattern.match(pathText);
        if (!match.hasMatch() || match.capturedStart() != 0 ||
            match.capturedLength() != pathText.size())
            continue;
        route = &candidate;
        parameters = match.capturedTexts().mid(1);
        break;
    }
    if (!route)
        return HttpError::Kind::NotFound;

    if (route->access == HttpRoute::Access::Credential) {
        static constexpr QByteArrayView kBearer = "Bearer ";
        const bool presented = headers.authorization &&
                               headers.authorization->startsWith(kBearer.toByteArray()) &&
                               headers.authorization->size() > kBearer.size();
        if (!presented ||
            !credentialMatches(QByteArrayView(*headers.authorization).sliced(kBearer.size())))
            return HttpError::Kind::Unauthorized;
    }
    if (route->access == HttpRoute::Access::Capability &&
        (!headers.capability || !route->capabilityMatches ||
         !route->capabilityMatches(parameters, *headers.capability)))
        return HttpError::Kind::Unauthorized;

    const bool chunked = headers.transferEncoding.has_value();
    if (chunked && headers.transferEncoding->trimmed().toLower() != "chunked")
        return HttpError::Kind::MalformedRequest;
    std::optional<qint64> length;
    if (headers.contentLength) {
        length = contentLength(*headers.contentLength);
        if (!length)
            return HttpError::Kind::MalformedRequest;
    }
    if (route->maxBody == 0) {
        if (chunked || (length && *length > 0))
            return HttpError::Kind::MalformedRequest;
        return Admitted{route, parameters, false, 0};
    }
    if (headers.contentEncoding)
        return HttpError::Kind::UnsupportedMedia;
    if (!headers.contentType || !isJsonMediaType(*headers.contentType))
        return HttpError::Kind::UnsupportedMedia;
    if (chunked && length)
        return HttpError::Kind::MalformedRequest; // both framings: refused, never guessed
    if (length && *length > route->maxBody)
        return HttpError::Kind::PayloadTooLarge;
    if (!chunked && !length)
        return HttpError::Kind::MalformedRequest;
    return Admitted{route, parameters, chunked, length.value_or(0)};
}

} // namespace veetbot
