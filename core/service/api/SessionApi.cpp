#include "SessionApi.h"

#include "service/api/ApiBody.h"

#include "domain/profile/BrowserProfile.h"
#include "domain/web/Origin.h"
#include "json/StrictJson.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace veetbot::SessionApi {

namespace {

using ApiBody::document;
using ApiBody::onlyMembers;
using ApiBody::text;

HttpResponse malformed()
{
    return HttpError::response(HttpError::Kind::MalformedRequest);
}

std::optional<LeaseHolder> holderOf(const StrictJson::Value *value)
{
    if (!value || !value->isObject() ||
        !onlyMembers(*value, {"profile_id", "tenant_id", "principal_id", "provider_reference",
                              "run_id", "attempt"}))
        return std::nullopt;
    LeaseHolder holder;
    const auto id = text(value->member("profile_id"), 36);
    const auto tenant = text(value->member("tenant_id"), BrowserProfile::kMaxScopeLength);
    const auto principal = text(value->member("principal_id"), BrowserProfile::kMaxScopeLength);
    const auto reference =
        text(value->member("provider_reference"), BrowserProfile::kMaxProviderReferenceLength);
    const auto run = text(value->member("run_id"), kMaxRunIdLength);
    const StrictJson::Value *attempt = value->member("attempt");
    if (!id || !tenant || !principal || !reference || !run || !attempt ||
        attempt->type != StrictJson::Value::Type::Integer || attempt->integer < 1 ||
        attempt->integer > kMaxAttempt)
        return std::nullopt;
    static const QRegularExpression runPattern(QStringLiteral("^[A-Za-z0-9._-]+$"));
    if (!runPattern.match(*run).hasMatch())
        return std::nullopt;
    holder.profileId = QUuid::fromString(*id);
    if (holder.profileId.isNull() || holder.profileId.toString(QUuid::WithoutBraces) != *id)
        return std::nullopt; // not canonical
    holder.tenant = *tenant;
    holder.principal = *principal;
    holder.providerReference = *reference;
    holder.runId = *run;
    holder.attempt = int(attempt->integer);
    return holder;
}

QJsonObject holderJson(const LeaseHolder &holder)
{
    return {{QStringLiteral("profile_id"), holder.profileId.toString(QUuid::WithoutBraces)},
            {QStringLiteral("tenant_id"), holder.tenant},
            {QStringLiteral("principal_id"), holder.principal},
            {QStringLiteral("provider_reference"), holder.providerReference},
            {QStringLiteral("run_id"), holder.runId},
            {QStringLiteral("attempt"), holder.attempt}};
}

std::optional<QDateTime> milliseconds(const StrictJson::Value *value)
{
    if (!value || value->type != StrictJson::Value::Type::Integer || value->integer <= 0)
        return std::nullopt;
    return QDateTime::fromMSecsSinceEpoch(value->integer, Qt::UTC);
}

} // namespace

QString operationName(Operation operation)
{
    switch (operation) {
    case Operation::Acquire:
        return QStringLiteral("acquire");
    case Operation::Renew:
        return QStringLiteral("renew");
    case Operation::Navigate:
        return QStringLiteral("navigate");
    case Operation::Observe:
        return QStringLiteral("observe");
    case Operation::Act:
        return QStringLiteral("act");
    case Operation::Dispatch:
        return QStringLiteral("dispatch");
    case Operation::Close:
        return QStringLiteral("close");
    }
    return {};
}

QByteArray path(Operation operation)
{
    return "/v1/browser-sessions:" + operationName(operation).toLatin1();
}

std::variant<Call, HttpResponse> parse(Operation operation, const QByteArray &body,
                                       const TestOverrides &overrides)
{
    const std::optional<StrictJson::Value> object = document(body, kMaxBody);
    if (!object)
        return malformed();
    const bool acquire = operation == Operation::Acquire;
    const bool timed = acquire || operation == Operation::Renew;
    for (const StrictJson::Member &member : object->members) {
        const bool known =
            member.name == "holder" || (!acquire && member.name == "lease_reference") ||
            (timed && member.name == "deadline_ms") ||
            (operation == Operation::Navigate &&
             (member.name == "url" || member.name == "approved" ||
              member.name == "discard_unsaved")) ||
            (operation == Operation::Observe && member.name == "observe") ||
            (operation == Operation::Act &&
             (member.name == "act" || member.name == "sequence" || member.name == "constraint")) ||
            (operation == Operation::Dispatch && (member.name == "gate" || member.name == "open"));
        if (!known)
            return malformed();
    }
    Call call;
    call.operation = operation;
    const auto holder = holderOf(object->member("holder"));
    if (!holder)
        return malformed();
    call.holder = *holder;
    if (!acquire) {
        const auto reference = text(object->member("lease_reference"), kMaxLeaseReferenceLength);
        if (!reference)
            return malformed();
        call.leaseReference = reference->toLatin1();
    }
    if (const StrictJson::Value *deadline = object->member("deadline_ms")) {
        call.deadline = milliseconds(deadline);
        if (!call.deadline)
            return malformed();
    }
    if (operation == Operation::Navigate) {
        const auto url = text(object->member("url"), PublicUrl::kMaxUrlBytes);
        if (!url)
            return malformed();
        const Result<QUrl> parsed = PublicUrl::parse(*url, overrides);
        if (!parsed)
            return malformed();
        call.url = *parsed;
        // Each flag is present only when true.
        for (const char *flag : {"approved", "discard_unsaved"}) {
            const StrictJson::Value *value = object->member(flag);
            if (value && (value->type != StrictJson::Value::Type::Bool || !value->boolean))
                return malformed();
        }
        call.approved = object->member("approved") != nullptr;
        call.discardUnsaved = object->member("discard_unsaved") != nullptr;
    }
    if (operation == Operation::Observe) {
        const StrictJson::Value *observe = object->member("observe");
        if (!observe || !observe->isObject())
            return malformed();
        const Result<ObserveRequest> request =
            ObserveRequest::fromJson(observe->toJsonValue().toObject());
        if (!request)
            return malformed();
        call.observe = *request;
    }
    if (operation == Operation::Act) {
        const StrictJson::Value *act = object->member("act");
        const StrictJson::Value *sequence = object->member("sequence");
        if (!act || !act->isObject() || !sequence ||
            sequence->type != StrictJson::Value::Type::Integer || sequence->integer < 0)
            return malformed();
        const Result<ActRequest> request = ActRequest::fromJson(act->toJsonValue().toObject());
        if (!request)
            return malformed();
        call.act = *request;
        call.sequence = sequence->integer;
        if (const StrictJson::Value *constraint = object->member("constraint")) {
            call.constraint = DispatchConstraint::fromJson(constraint->toJsonValue());
            if (!call.constraint)
                return malformed();
        }
    }
    if (operation == Operation::Dispatch) {
        const auto gate = text(object->member("gate"), 64);
        const StrictJson::Value *open = object->member("open");
        if (!gate || !open || open->type != StrictJson::Value::Type::Bool)
            return malformed();
        call.gate = gate->toLatin1();
        call.open = open->boolean;
    }
    return call;
}

QByteArray gateBody(const QByteArray &token)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("gate"), QString::fromLatin1(token)}})
        .toJson(QJsonDocument::Compact);
}

std::optional<QByteArray> parseGate(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = document(body, 4096);
    if (!object || object->members.size() != 1)
        return std::nullopt;
    const auto gate = text(object->member("gate"), 64);
    if (!gate)
        return std::nullopt;
    return gate->toLatin1();
}

QByteArray requestBody(const Call &call)
{
    QJsonObject body{{QStringLiteral("holder"), holderJson(call.holder)}};
    if (call.operation != Operation::Acquire)
        body.insert(QStringLiteral("lease_reference"), QString::fromLatin1(call.leaseReference));
    if (call.deadline)
        body.insert(QStringLiteral("deadline_ms"), call.deadline->toMSecsSinceEpoch());
    if (call.operation == Operation::Navigate) {
        body.insert(QStringLiteral("url"), QString::fromUtf8(call.url.toEncoded()));
        if (call.approved)
            body.insert(QStringLiteral("approved"), true);
        if (call.discardUnsaved)
            body.insert(QStringLiteral("discard_unsaved"), true);
    }
    if (call.operation == Operation::Observe && call.observe)
        body.insert(QStringLiteral("observe"), call.observe->toJson());
    if (call.operation == Operation::Act && call.act) {
        body.insert(QStringLiteral("act"), call.act->toJson());
        body.insert(QStringLiteral("sequence"), call.sequence);
        if (call.constraint)
            body.insert(QStringLiteral("constraint"), call.constraint->toJson());
    }
    if (call.operation == Operation::Dispatch) {
        body.insert(QStringLiteral("gate"), QString::fromLatin1(call.gate));
        body.insert(QStringLiteral("open"), call.open);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray acquiredBody(const QString &reference, const ServiceLease &lease, bool reattached)
{
    return QJsonDocument(
               QJsonObject{{QStringLiteral("lease_reference"), reference},
                           {QStringLiteral("expires_at_ms"), lease.expiresAt.toMSecsSinceEpoch()},
                           {QStringLiteral("sequence"), lease.sequence},
                           {QStringLiteral("reattached"), reattached}})
        .toJson(QJsonDocument::Compact);
}

std::optional<Acquired> parseAcquired(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = document(body, 4096);
    if (!object || object->members.size() != 4)
        return std::nullopt;
    const auto reference = text(object->member("lease_reference"), kMaxLeaseReferenceLength);
    const auto expires = milliseconds(object->member("expires_at_ms"));
    const StrictJson::Value *sequence = object->member("sequence");
    const StrictJson::Value *reattached = object->member("reattached");
    if (!reference || !expires || !sequence || sequence->type != StrictJson::Value::Type::Integer ||
        sequence->integer < 0 || !reattached || reattached->type != StrictJson::Value::Type::Bool)
        return std::nullopt;
    return Acquired{reference->toLatin1(), *expires, sequence->integer, reattached->boolean};
}

QByteArray renewedBody(const ServiceLease &lease)
{
    return QJsonDocument(
               QJsonObject{{QStringLiteral("expires_at_ms"), lease.expiresAt.toMSecsSinceEpoch()}})
        .toJson(QJsonDocument::Compact);
}

std::optional<QDateTime> parseRenewed(const QByteArray &body)
{
    const std::optional<StrictJson::Value> object = document(body, 4096);
    if (!object || object->members.size() != 1)
        return std::nullopt;
    return milliseconds(object->member("expires_at_ms"));
}

} // namespace veetbot::SessionApi
