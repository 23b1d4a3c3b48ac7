// libFuzzer target for the profile service's request rules (core/service): the admission
// every request passes before its body is read, and the lifecycle and key-rotation bodies.
// Besides never crashing: a request is admitted only with the right credential and within
// its route's limit; a lifecycle body that parses is written back by the client's own writer
// to one that parses to the same call; every refusal is the fixed body.

#include "service/HttpApi.h"
#include "service/KeysApi.h"
#include "service/LifecycleApi.h"

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

const QList<HttpRoute> &routes()
{
    static const QList<HttpRoute> table = [] {
        QList<HttpRoute> list = LifecycleApi::routes([] { return nullptr; }, TestOverrides());
        HttpRoute live;
        live.method = "GET";
        live.pattern = QRegularExpression(QStringLiteral("/health/live"));
        live.access = HttpRoute::Access::Public;
        list.append(live);
        return list;
    }();
    return table;
}

std::optional<QByteArray> field(const QList<QByteArray> &lines, int i)
{
    if (i >= lines.size() || lines.at(i) == "-")
        return std::nullopt;
    return lines.at(i);
}

void admission(const QByteArray &input)
{
    // method \n path \n authorization \n type \n encoding \n length \n transfer ("-": absent)
    const QList<QByteArray> lines = input.split('\n');
    if (lines.size() < 2)
        return;
    const HttpAdmission::Headers headers{field(lines, 2), field(lines, 3), field(lines, 4),
                                         field(lines, 5), field(lines, 6)};
    const auto decision =
        HttpAdmission::admit(routes(), lines.at(0), lines.at(1), headers,
                             [](QByteArrayView presented) { return presented == "right"; });
    if (const auto *admitted = std::get_if<HttpAdmission::Admitted>(&decision)) {
        if (admitted->route->access == HttpRoute::Access::Credential &&
            headers.authorization != QByteArray("Bearer right"))
            std::abort();
        if (admitted->contentLength < 0 || admitted->contentLength > admitted->route->maxBody)
            std::abort();
        if (admitted->route->maxBody == 0 && (admitted->chunked || admitted->contentLength != 0))
            std::abort();
    }
}

void lifecycle(const QByteArray &body)
{
    const QString id = QStringLiteral("0b0e0f3a-4c1d-4d7e-9a55-6f3a2b1c0d9e");
    for (const auto operation :
         {LifecycleApi::Operation::Provision, LifecycleApi::Operation::Revoke,
          LifecycleApi::Operation::Delete}) {
        const QByteArray key =
            LifecycleApi::idempotencyKey(QUuid::fromString(id), operation).toLatin1();
        const auto parsed = LifecycleApi::parse(operation, id, key, body, TestOverrides());
        if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
            if (refused->body != HttpError::response(HttpError::Kind::MalformedRequest).body)
                std::abort();
            continue;
        }
        const LifecycleApi::Call &call = std::get<LifecycleApi::Call>(parsed);
        const auto again = LifecycleApi::parse(
            operation, id, key, LifecycleApi::requestBody(call.scope, call.providerReference),
            TestOverrides());
        const auto *back = std::get_if<LifecycleApi::Call>(&again);
        if (!back || back->scope.profileId != call.scope.profileId ||
            back->scope.tenant != call.scope.tenant ||
            back->scope.principal != call.scope.principal ||
            back->scope.allowedOrigins != call.scope.allowedOrigins ||
            back->providerReference != call.providerReference)
            std::abort();
    }
    if (const auto reference = KeysApi::parseRotation(body)) {
        if (reference->isEmpty())
            std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray input(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    if (data[0] & 1)
        admission(input);
    else
        lifecycle(input);
    return 0;
}
