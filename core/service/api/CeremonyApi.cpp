#include "CeremonyApi.h"

#include "domain/ReasonCode.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/Origin.h"
#include "service/api/ApiBody.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace veetbot::CeremonyApi {

namespace {

HttpResponse malformed()
{
    return HttpError::response(HttpError::Kind::MalformedRequest);
}

std::optional<ServiceCeremony::Owner> ownerOf(const StrictJson::Value *value)
{
    if (!value || !value->isObject() ||
        !ApiBody::onlyMembers(*value,
                              {"profile_id", "tenant_id", "principal_id", "provider_reference"}))
        return std::nullopt;
    const auto id = ApiBody::profileId(value->member("profile_id"));
    const auto tenant = ApiBody::text(value->member("tenant_id"), BrowserProfile::kMaxScopeLength);
    const auto principal =
        ApiBody::text(value->member("principal_id"), BrowserProfile::kMaxScopeLength);
    const auto reference = ApiBody::text(value->member("provider_reference"),
                                         BrowserProfile::kMaxProviderReferenceLength);
    if (!id || !tenant || !principal || !reference)
        return std::nullopt;
    return ServiceCeremony::Owner{*id, *tenant, *principal, *reference};
}

QJsonObject ownerJson(const ServiceCeremony::Owner &owner)
{
    return {{QStringLiteral("profile_id"), owner.profileId.toString(QUuid::WithoutBraces)},
            {QStringLiteral("tenant_id"), owner.tenant},
            {QStringLiteral("principal_id"), owner.principal},
            {QStringLiteral("provider_reference"), owner.providerReference}};
}

bool isCeremonyId(const QString &text)
{
    static const QRegularExpression pattern(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    return pattern.match(text).hasMatch();
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

QByteArray path(Operation operation)
{
    switch (operation) {
    case Operation::Begin:
        return "/v1/authentication-ceremonies:begin";
    case Operation::Status:
        return "/v1/authentication-ceremonies:status";
    case Operation::Cancel:
        return "/v1/authentication-ceremonies:cancel";
    }
    return {};
}

QRegularExpression handoffPattern()
{
    return QRegularExpression(QStringLiteral(
        "/authentication/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/handoff"));
}

QByteArray handoffPath(const QString &ceremonyId)
{
    return "/authentication/" + ceremonyId.toLatin1() + "/handoff";
}

std::variant<Call, HttpResponse> parse(Operation operation, const QByteArray &body,
                                       const TestOverrides &overrides)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxBody);
    if (!object)
        return malformed();
    Call call;
    call.operation = operation;
    const std::optional<ServiceCeremony::Owner> owner = ownerOf(object->member("owner"));
    if (!owner)
        return malformed();
    call.owner = *owner;
    if (operation == Operation::Begin) {
        if (!ApiBody::onlyMembers(*object, {"owner", "login_url", "mode"}))
            return malformed();
        const auto mode = ApiBody::text(object->member("mode"), 16);
        const auto login = ApiBody::text(object->member("login_url"), PublicUrl::kMaxUrlBytes);
        if (!mode || *mode != QLatin1String("device") || !login)
            return malformed();
        const Result<QUrl> url = PublicUrl::parse(*login, overrides);
        if (!url)
            return HttpError::response(400, loginUrlMismatch());
        call.loginUrl = *url;
        return call;
    }
    if (!ApiBody::onlyMembers(*object, {"owner", "ceremony_id"}))
        return malformed();
    // Cancel without an id: every ceremony of the owner still in progress (a begin whose
    // answer was lost left one the orchestration record never saw).
    if (operation == Operation::Cancel && !object->member("ceremony_id"))
        return call;
    const auto id = ApiBody::text(object->member("ceremony_id"), 36);
    if (!id || !isCeremonyId(*id))
        return malformed();
    call.ceremonyId = *id;
    return call;
}

QByteArray requestBody(const Call &call)
{
    QJsonObject body{{QStringLiteral("owner"), ownerJson(call.owner)}};
    if (call.operation == Operation::Begin) {
        body.insert(QStringLiteral("login_url"), call.loginUrl.toString(QUrl::FullyEncoded));
        body.insert(QStringLiteral("mode"), QStringLiteral("device"));
    } else if (!call.ceremonyId.isEmpty()) {
        body.insert(QStringLiteral("ceremony_id"), call.ceremonyId);
    }
    return compact(body);
}

QByteArray begunBody(const ServiceCeremony::Begun &begun)
{
    return compact(
        QJsonObject{{QStringLiteral("ceremony_id"), begun.ceremony.id},
                    {QStringLiteral("expires_at_ms"), begun.ceremony.expiresAt.toMSecsSinceEpoch()},
                    {QStringLiteral("status"), QStringLiteral("open")},
                    {QStringLiteral("launch_path"),
                     QString(QString::fromLatin1(handoffPath(begun.ceremony.id)) +
                             QLatin1Char('#') + begun.capability)}});
}

std::optional<Launch> parseBegun(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxBody);
    if (!object ||
        !ApiBody::onlyMembers(*object, {"ceremony_id", "expires_at_ms", "status", "launch_path"}))
        return std::nullopt;
    const auto id = ApiBody::text(object->member("ceremony_id"), 36);
    const auto launch = ApiBody::text(object->member("launch_path"), 256);
    const StrictJson::Value *expires = object->member("expires_at_ms");
    if (!id || !isCeremonyId(*id) || !launch ||
        !launch->startsWith(QString::fromLatin1(handoffPath(*id)) + QLatin1Char('#')) || !expires ||
        expires->type != StrictJson::Value::Type::Integer || expires->integer <= 0)
        return std::nullopt;
    return Launch{*id, QDateTime::fromMSecsSinceEpoch(expires->integer, Qt::UTC), *launch};
}

QByteArray statusBody(const ServiceCeremony::Record &ceremony)
{
    QJsonObject body{{QStringLiteral("ceremony_id"), ceremony.id},
                     {QStringLiteral("status"), ServiceCeremony::stateName(ceremony.state)}};
    if (!ceremony.code.isEmpty())
        body.insert(QStringLiteral("code"), ceremony.code);
    return compact(body);
}

std::optional<Status> parseStatus(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxBody);
    if (!object || !ApiBody::onlyMembers(*object, {"ceremony_id", "status", "code"}))
        return std::nullopt;
    const auto id = ApiBody::text(object->member("ceremony_id"), 36);
    const auto status = ApiBody::text(object->member("status"), 16);
    const auto code = ApiBody::text(object->member("code"), 64);
    if (!id || !status || (object->member("code") && !code))
        return std::nullopt;
    return Status{*id, *status, code.value_or(QString())};
}

Error loginUrlMismatch()
{
    return Error{QStringLiteral("malformed_request"),
                 QStringLiteral("The sign-in address must be on one of the profile's exact "
                                "origins (https, and the same host: a bare name and its www "
                                "name are different origins). Give the website's final "
                                "address.")};
}

std::variant<Handoff, HttpResponse> parseHandoff(const QByteArray &body,
                                                 const TestOverrides &overrides)
{
    StrictJson::Limits limits;
    limits.maxBytes = kMaxHandoffBody;
    limits.maxDepth = 6;
    limits.maxMembers = SessionState::kMaxItems + 8;
    limits.numbers = StrictJson::Numbers::Finite; // expires may have a fraction
    const std::optional<QJsonValue> parsed = StrictJson::parse(body, limits);
    if (!parsed || !parsed->isObject())
        return invalidHandoff();
    const QJsonObject object = parsed->toObject();
    if (object.size() != 3 || !object.value(QStringLiteral("confirmed_url")).isString() ||
        !object.contains(QStringLiteral("cookies")) || !object.contains(QStringLiteral("origins")))
        return invalidHandoff();
    const Result<QUrl> confirmed =
        PublicUrl::parse(object.value(QStringLiteral("confirmed_url")).toString(), overrides);
    if (!confirmed)
        return invalidHandoff();
    const Result<SessionState> state = SessionState::fromJson(
        {{QStringLiteral("format"), SessionState::kFormat},
         {QStringLiteral("cookies"), object.value(QStringLiteral("cookies"))},
         {QStringLiteral("origins"), object.value(QStringLiteral("origins"))}},
        overrides);
    if (!state)
        return invalidHandoff();
    return Handoff{*confirmed, *state};
}

QByteArray handoffBody(const QUrl &confirmedUrl, const SessionState &state)
{
    QJsonObject body = state.toJson();
    body.remove(QStringLiteral("format"));
    body.insert(QStringLiteral("confirmed_url"), confirmedUrl.toString(QUrl::FullyEncoded));
    return compact(body);
}

HttpResponse invalidHandoff()
{
    return HttpError::response(400, "invalid_request",
                               "The sign-in hand-off is not in the form the service accepts; "
                               "nothing was kept.");
}

HttpResponse handoffAnswer(const QString &code)
{
    if (code == QLatin1String(kReady))
        return {200, compact(QJsonObject{{QStringLiteral("status"), QStringLiteral("ready")}})};
    if (code == QLatin1String(kSessionEmpty))
        return HttpError::response(422, kSessionEmpty,
                                   "Nothing of the session belonged to the profile's websites.");
    if (code == QLatin1String(kSignedOut))
        return HttpError::response(422, kSignedOut,
                                   "With the session the website still asked to sign in, or "
                                   "left the page; sign in again.");
    if (code == QLatin1String(kUnconfirmed))
        return HttpError::response(422, kUnconfirmed,
                                   "The website showed the same page without the session, so "
                                   "the sign-in could not be confirmed; confirm on a page only "
                                   "a signed-in account sees.");
    if (code == reasonCodeString(ReasonCode::ProfileUnavailable))
        return HttpError::response(409, "tool.browser.profile_unavailable",
                                   "The profile was revoked or deleted meanwhile.");
    return HttpError::response(409, "tool.browser.provider_unavailable",
                               "The sign-in could not be verified now; try again.");
}

} // namespace veetbot::CeremonyApi
