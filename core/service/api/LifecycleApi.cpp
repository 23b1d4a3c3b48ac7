#include "LifecycleApi.h"

#include "domain/profile/BrowserProfile.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace veetbot {

namespace {

const QString kUuidPattern =
    QStringLiteral("([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");

HttpResponse malformed()
{
    return HttpError::response(HttpError::Kind::MalformedRequest);
}

std::optional<QString> boundedText(const StrictJson::Value *value, int maxLength)
{
    if (!value || !value->isString())
        return std::nullopt;
    const QString text = QString::fromUtf8(value->string);
    if (text.isEmpty() || text.size() > maxLength || text.trimmed() != text)
        return std::nullopt;
    return text;
}

} // namespace

QString LifecycleApi::operationName(Operation operation)
{
    switch (operation) {
    case Operation::Provision:
        return QStringLiteral("provision");
    case Operation::Revoke:
        return QStringLiteral("revoke");
    case Operation::Delete:
        return QStringLiteral("delete");
    }
    return {};
}

QString LifecycleApi::idempotencyKey(const QUuid &profileId, Operation operation)
{
    return QStringLiteral("browser-profile:%1:%2")
        .arg(profileId.toString(QUuid::WithoutBraces), operationName(operation));
}

QByteArray LifecycleApi::requestBody(const MaterialScope &scope,
                                     const std::optional<QString> &providerReference)
{
    QJsonArray origins;
    for (const Origin &origin : scope.allowedOrigins)
        origins.append(origin.toString());
    QJsonObject body{{QStringLiteral("profile_id"), scope.profileId.toString(QUuid::WithoutBraces)},
                     {QStringLiteral("tenant_id"), scope.tenant},
                     {QStringLiteral("principal_id"), scope.principal},
                     {QStringLiteral("allowed_origins"), origins}};
    if (providerReference)
        body.insert(QStringLiteral("provider_reference"), *providerReference);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::variant<LifecycleApi::Call, HttpResponse>
LifecycleApi::parse(Operation operation, const QString &routeId, const QByteArray &idempotencyKey,
                    const QByteArray &body, const TestOverrides &overrides)
{
    const QUuid id = QUuid::fromString(routeId);
    if (id.isNull() || id.toString(QUuid::WithoutBraces) != routeId)
        return malformed();
    if (idempotencyKey != LifecycleApi::idempotencyKey(id, operation).toLatin1())
        return malformed();
    StrictJson::Limits limits;
    limits.maxBytes = kMaxBody;
    limits.maxDepth = 4;
    limits.maxMembers = BrowserProfile::kMaxOrigins + 8;
    const std::optional<StrictJson::Value> document = StrictJson::parseDocument(body, limits);
    if (!document || !document->isObject())
        return malformed();
    const bool referenceAllowed = operation != Operation::Provision;
    for (const StrictJson::Member &member : document->members) {
        const bool known = member.name == "profile_id" || member.name == "tenant_id" ||
                           member.name == "principal_id" || member.name == "allowed_origins" ||
                           (referenceAllowed && member.name == "provider_reference");
        if (!known)
            return malformed(); // a closed body
    }
    Call call;
    call.operation = operation;
    const StrictJson::Value *profileId = document->member("profile_id");
    if (!profileId || !profileId->isString() || QString::fromUtf8(profileId->string) != routeId)
        return malformed();
    call.scope.profileId = id;
    const auto tenant = boundedText(document->member("tenant_id"), BrowserProfile::kMaxScopeLength);
    const auto principal =
        boundedText(document->member("principal_id"), BrowserProfile::kMaxScopeLength);
    if (!tenant || !principal)
        return malformed();
    call.scope.tenant = *tenant;
    call.scope.principal = *principal;
    const StrictJson::Value *origins = document->member("allowed_origins");
    if (!origins || origins->type != StrictJson::Value::Type::Array || origins->items.empty() ||
        origins->items.size() > size_t(BrowserProfile::kMaxOrigins))
        return malformed();
    QList<Origin> parsed;
    for (const StrictJson::Value &item : origins->items) {
        if (!item.isString())
            return malformed();
        const QString text = QString::fromUtf8(item.string);
        Result<Origin> origin = Origin::parse(text, overrides);
        // Exactly normalized, as the profile's metadata holds them.
        if (!origin || origin->toString() != text)
            return malformed();
        parsed.append(*origin);
    }
    Result<QList<Origin>> normalized = BrowserProfile::normalizeOrigins(parsed);
    if (!normalized || normalized->size() != parsed.size())
        return malformed(); // duplicates
    call.scope.allowedOrigins = std::move(normalized).value();
    if (const StrictJson::Value *reference = document->member("provider_reference")) {
        const auto text = boundedText(reference, BrowserProfile::kMaxProviderReferenceLength);
        if (!text)
            return malformed();
        call.providerReference = *text;
    }
    return call;
}

HttpResponse LifecycleApi::run(BrowserProfileControlPlane &controlPlane, const Call &call)
{
    const auto failed = [](const Error &error) {
        if (isProfileFailure(error, ProfileFailure::Conflict))
            return HttpError::response(HttpError::Kind::Conflict);
        return HttpError::response(HttpError::Kind::Internal);
    };
    switch (call.operation) {
    case Operation::Provision: {
        const Result<ProvisionedMaterial> provisioned = controlPlane.provision(call.scope);
        if (!provisioned)
            return failed(provisioned.error());
        const QJsonObject answer{
            {QStringLiteral("provider_name"), provisioned->providerName},
            {QStringLiteral("provider_reference"), provisioned->providerReference},
            {QStringLiteral("key_version"), provisioned->keyVersion}};
        return {201, QJsonDocument(answer).toJson(QJsonDocument::Compact)};
    }
    case Operation::Revoke: {
        const Result<Unit> revoked = controlPlane.revoke(call.scope, call.providerReference);
        return revoked ? HttpResponse{204, {}} : failed(revoked.error());
    }
    case Operation::Delete: {
        const Result<Unit> removed = controlPlane.remove(call.scope, call.providerReference);
        return removed ? HttpResponse{204, {}} : failed(removed.error());
    }
    }
    return HttpError::response(HttpError::Kind::Internal);
}

QList<HttpRoute> LifecycleApi::routes(std::function<BrowserProfileControlPlane *()> controlPlane,
                                      TestOverrides overrides)
{
    QList<HttpRoute> routes;
    for (const Operation operation : {Operation::Provision, Operation::Revoke, Operation::Delete}) {
        HttpRoute route;
        route.method = "POST";
        route.pattern = QRegularExpression(QStringLiteral("/v1/browser-profiles/") + kUuidPattern +
                                           QLatin1Char(':') + operationName(operation));
        route.access = HttpRoute::Access::Credential;
        route.maxBody = kMaxBody;
        route.handle = [operation, controlPlane, overrides](const HttpRequest &request) {
            const auto parsed = parse(operation, request.parameters.value(0),
                                      request.idempotencyKey, request.body, overrides);
            if (const auto *refused = std::get_if<HttpResponse>(&parsed))
                return *refused;
            BrowserProfileControlPlane *vault = controlPlane();
            if (!vault)
                return HttpError::response(HttpError::Kind::NotReady);
            return run(*vault, std::get<Call>(parsed));
        };
        routes.append(route);
    }
    return routes;
}

} // namespace veetbot
