#include "CeremonyApi.h"

#include "domain/ReasonCode.h"
#include "domain/ToolJson.h"
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

namespace {

const char *viewName(ViewOperation operation)
{
    switch (operation) {
    case ViewOperation::Frame:
        return "frame";
    case ViewOperation::Input:
        return "input";
    case ViewOperation::Finish:
        return "finish";
    }
    return "finish";
}

// The launch path of a ceremony of `mode`, without its capability.
QString launchBase(const QString &ceremonyId, ServiceCeremony::Mode mode)
{
    return mode == ServiceCeremony::Mode::Device
               ? QString::fromLatin1(handoffPath(ceremonyId))
               : QStringLiteral("/authentication/") + ceremonyId + QStringLiteral("/view");
}

} // namespace

QRegularExpression viewPattern(ViewOperation operation)
{
    return QRegularExpression(
        QStringLiteral("/authentication/"
                       "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/") +
        QLatin1String(viewName(operation)));
}

QByteArray viewPath(const QString &ceremonyId, ViewOperation operation)
{
    return "/authentication/" + ceremonyId.toLatin1() + '/' + viewName(operation);
}

QByteArray Launch::capability() const
{
    const qsizetype hash = launchPath.indexOf(QLatin1Char('#'));
    return hash < 0 ? QByteArray() : launchPath.mid(hash + 1).toLatin1();
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
        // The mode is optional: remote unless it says device.
        if (const StrictJson::Value *mode = object->member("mode")) {
            const auto named = ApiBody::text(mode, 16);
            const auto known = named ? ServiceCeremony::modeNamed(*named) : std::nullopt;
            if (!known)
                return malformed();
            call.mode = *known;
        }
        const auto login = ApiBody::text(object->member("login_url"), PublicUrl::kMaxUrlBytes);
        if (!login)
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
        body.insert(QStringLiteral("mode"), ServiceCeremony::modeName(call.mode));
    } else if (!call.ceremonyId.isEmpty()) {
        body.insert(QStringLiteral("ceremony_id"), call.ceremonyId);
    }
    return compact(body);
}

QByteArray begunBody(const ServiceCeremony::Begun &begun)
{
    return compact(QJsonObject{
        {QStringLiteral("ceremony_id"), begun.ceremony.id},
        {QStringLiteral("expires_at_ms"), begun.ceremony.expiresAt.toMSecsSinceEpoch()},
        {QStringLiteral("status"), QStringLiteral("open")},
        {QStringLiteral("launch_path"), QString(launchBase(begun.ceremony.id, begun.ceremony.mode) +
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
    const auto launches = [&launch, &id](ServiceCeremony::Mode mode) {
        return launch->startsWith(launchBase(*id, mode) + QLatin1Char('#'));
    };
    if (!id || !isCeremonyId(*id) || !launch ||
        !(launches(ServiceCeremony::Mode::Device) || launches(ServiceCeremony::Mode::Remote)) ||
        !expires || expires->type != StrictJson::Value::Type::Integer || expires->integer <= 0)
        return std::nullopt;
    return Launch{*id, QDateTime::fromMSecsSinceEpoch(expires->integer, Qt::UTC), *launch};
}

QByteArray statusBody(const ServiceCeremony::Record &ceremony)
{
    QJsonObject body{{QStringLiteral("ceremony_id"), ceremony.id},
                     {QStringLiteral("status"), ServiceCeremony::stateName(ceremony.state)}};
    if (!ceremony.code.isEmpty())
        body.insert(QStringLiteral("code"), ceremony.code);
    if (!ceremony.account.isEmpty())
        body.insert(QStringLiteral("account"), ceremony.account);
    return compact(body);
}

std::optional<Status> parseStatus(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxBody);
    if (!object || !ApiBody::onlyMembers(*object, {"ceremony_id", "status", "code", "account"}))
        return std::nullopt;
    const auto id = ApiBody::text(object->member("ceremony_id"), 36);
    const auto status = ApiBody::text(object->member("status"), 16);
    const auto code = ApiBody::text(object->member("code"), 64);
    const auto account =
        ApiBody::text(object->member("account"), BrowserProfile::kMaxAccountLabelLength);
    if (!id || !status || (object->member("code") && !code) ||
        (object->member("account") && (!account || !BrowserProfile::isAccountLabel(*account) ||
                                       *status != QLatin1String("ready"))))
        return std::nullopt;
    return Status{*id, *status, code.value_or(QString()), account};
}

Error loginUrlMismatch()
{
    return Error{QStringLiteral("malformed_request"),
                 QStringLiteral("The sign-in address must be on one of the profile's exact "
                                "origins (https, and the same host: a bare name and its www "
                                "name are different origins). Give the website's final "
                                "address.")};
}

Error redirectedOffOrigins()
{
    return Error{QStringLiteral("malformed_request"),
                 QStringLiteral("The website sent the sign-in to an address that is not one of "
                                "the profile's origins, most often from a bare name to its www "
                                "name (or back). Give the website's final address, the one it "
                                "stays on, and sign in again.")};
}

std::optional<FrameRequest> parseFrameRequest(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = ApiBody::document(body, kMaxFrameRequest);
    if (!object || !ApiBody::onlyMembers(*object, {"after", "max_width", "max_height"}))
        return std::nullopt;
    const auto integer = [&object](const char *name, qint64 min,
                                   qint64 max) -> std::optional<qint64> {
        const StrictJson::Value *value = object->member(name);
        if (!value || value->type != StrictJson::Value::Type::Integer || value->integer < min ||
            value->integer > max)
            return std::nullopt;
        return value->integer;
    };
    const auto after = integer("after", 0, (qint64(1) << 53) - 1);
    const auto width = integer("max_width", 64, OwnerViewFrame::kMaxSide);
    const auto height = integer("max_height", 64, OwnerViewFrame::kMaxSide);
    if (!after || !width || !height)
        return std::nullopt;
    return FrameRequest{quint64(*after), QSize(int(*width), int(*height))};
}

QByteArray frameRequestBody(const FrameRequest &request)
{
    return compact(QJsonObject{{QStringLiteral("after"), double(request.after)},
                               {QStringLiteral("max_width"), request.max.width()},
                               {QStringLiteral("max_height"), request.max.height()}});
}

QByteArray viewFrameBody(const ViewFrame &frame)
{
    QJsonObject body = frame.frame.toJson();
    body.insert(QStringLiteral("seq"), double(frame.seq));
    return compact(body);
}

std::optional<ViewFrame> parseViewFrame(const QByteArray &body)
{
    StrictJson::Limits limits;
    limits.maxBytes = OwnerViewFrame::kMaxJsonBytes + 64;
    limits.maxDepth = 2;
    limits.maxMembers = 8;
    const std::optional<QJsonValue> parsed = StrictJson::parse(body, limits);
    if (!parsed || !parsed->isObject())
        return std::nullopt;
    QJsonObject object = parsed->toObject();
    const auto seq =
        ToolJson::integer(object.take(QStringLiteral("seq")), 1, (qint64(1) << 53) - 1);
    std::optional<OwnerViewFrame> frame = OwnerViewFrame::fromJson(object);
    if (!seq || !frame)
        return std::nullopt;
    return ViewFrame{quint64(*seq), std::move(*frame)};
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
    if (code == QLatin1String(kWrongAccount))
        return HttpError::response(422, kWrongAccount,
                                   "The website shows another account than the one this "
                                   "profile is for; sign in with that account.");
    if (code == QLatin1String(kPublicPage))
        return HttpError::response(422, kPublicPage,
                                   "The page that should prove the sign-in shows the same "
                                   "without a session; the site's verification definition "
                                   "needs a page only a signed-in account sees.");
    if (code == reasonCodeString(ReasonCode::ProfileUnavailable))
        return HttpError::response(409, "tool.browser.profile_unavailable",
                                   "The profile was revoked or deleted meanwhile.");
    return HttpError::response(409, "tool.browser.provider_unavailable",
                               "The sign-in could not be verified now; try again.");
}

} // namespace veetbot::CeremonyApi
