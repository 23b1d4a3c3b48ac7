#include "LiveViewApi.h"

#include "service/api/ApiBody.h"
#include "service/api/SessionApi.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace veetbot::LiveViewApi {

namespace {
constexpr char kNotRunningCode[] = "live_view.not_running";
constexpr char kNotRunningMessage[] = "No agent browser of this run is running.";
constexpr char kTooSoonCode[] = "live_view.too_soon";
constexpr char kTooSoonMessage[] = "A frame of this run was asked for less than a second ago.";

} // namespace

QRegularExpression pattern()
{
    return QRegularExpression(
        QStringLiteral("/v1/runs/([A-Za-z0-9._-]{1,%1}):frame").arg(SessionApi::kMaxRunIdLength));
}

QByteArray path(const QString &runId)
{
    return QStringLiteral("/v1/runs/%1:frame").arg(runId).toLatin1();
}

std::variant<ProfileScope, HttpResponse> parse(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxBody);
    if (!object || !ApiBody::onlyMembers(*object, {"tenant_id", "principal_id"}))
        return HttpError::response(HttpError::Kind::MalformedRequest);
    const auto tenant = ApiBody::text(object->member("tenant_id"), BrowserProfile::kMaxScopeLength);
    const auto principal =
        ApiBody::text(object->member("principal_id"), BrowserProfile::kMaxScopeLength);
    if (!tenant || !principal)
        return HttpError::response(HttpError::Kind::MalformedRequest);
    return ProfileScope{*tenant, *principal};
}

QByteArray requestBody(const ProfileScope &owner)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("tenant_id"), owner.tenant},
                                     {QStringLiteral("principal_id"), owner.principal}})
        .toJson(QJsonDocument::Compact);
}

HttpResponse notRunning()
{
    return HttpError::response(404, kNotRunningCode, kNotRunningMessage);
}

HttpResponse tooSoon()
{
    return HttpError::response(429, kTooSoonCode, kTooSoonMessage);
}

HttpResponse frameBody(const LiveFrame &frame)
{
    return {200, QJsonDocument(frame.toJson()).toJson(QJsonDocument::Compact)};
}

Error notRunningError()
{
    return Error{QString::fromLatin1(kNotRunningCode), QString::fromLatin1(kNotRunningMessage)};
}

Error tooSoonError()
{
    return Error{QString::fromLatin1(kTooSoonCode), QString::fromLatin1(kTooSoonMessage)};
}

std::optional<LiveFrame> parseFrame(const QByteArray &body)
{
    if (body.size() > kMaxAnswerBytes)
        return std::nullopt;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    return error.error == QJsonParseError::NoError ? LiveFrame::fromJson(document.object())
                                                   : std::nullopt;
}

} // namespace veetbot::LiveViewApi
