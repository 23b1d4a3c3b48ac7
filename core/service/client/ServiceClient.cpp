#include "ServiceClient.h"

#include "domain/profile/BrowserProfile.h"
#include "service/api/LifecycleApi.h"
#include "json/StrictJson.h"

#include <httplib.h>

#include <csignal>
#include <mutex>
#include <signal.h>
#include <sys/socket.h>

namespace veetbot {

namespace {

std::unique_ptr<httplib::Client> connect(const QString &socketPath,
                                         const ServiceClient::Timeouts &timeouts)
{
    auto client = std::make_unique<httplib::Client>(socketPath.toLocal8Bit().toStdString());
    client->set_address_family(AF_UNIX);
    client->set_keep_alive(false);
    client->set_follow_location(false);
    client->set_decompress(false);
    client->set_connection_timeout(std::chrono::milliseconds(timeouts.connectMs));
    client->set_read_timeout(std::chrono::milliseconds(timeouts.readMs));
    client->set_write_timeout(std::chrono::milliseconds(timeouts.writeMs));
    return client;
}

Result<HttpResponse> answerOf(const httplib::Result &result)
{
    if (!result || result->body.size() > size_t(ServiceClient::kMaxAnswerBytes))
        return ServiceClient::unavailable();
    return HttpResponse{result->status,
                        QByteArray(result->body.data(), qsizetype(result->body.size()))};
}

Error errorOf(const HttpResponse &answer)
{
    if (answer.status == 409)
        return profileError(ProfileFailure::Conflict);
    if (answer.status == 503)
        return ServiceClient::notReady();
    return ServiceClient::failed();
}

QByteArray lifecyclePath(const QUuid &id, LifecycleApi::Operation operation)
{
    return QStringLiteral("/v1/browser-profiles/%1:%2")
        .arg(id.toString(QUuid::WithoutBraces), LifecycleApi::operationName(operation))
        .toLatin1();
}

} // namespace

ServiceClient::ServiceClient(QString socketPath, ServiceCredential credential, Timeouts timeouts)
    : m_socketPath(std::move(socketPath)), m_credential(std::move(credential)), m_timeouts(timeouts)
{
    // Debian's cpp-httplib 0.11.4 writes with send(..., 0), without MSG_NOSIGNAL (read in its
    // object code). It looks at the socket before each write, but a service that closes the
    // connection between that look and the write (one that is ending, or that refused an
    // over-long head) kills the writing process with SIGPIPE: measured as `veetbot service
    // stop` ending by signal 13 on a loaded machine. A client of the service treats that as
    // the failed request it is. Only a default disposition is replaced; a process that
    // handles SIGPIPE keeps its handler.
    static std::once_flag ignored;
    std::call_once(ignored, [] {
        struct sigaction current = {};
        if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
            ::signal(SIGPIPE, SIG_IGN);
    });
}

Error ServiceClient::unavailable()
{
    return Error{QStringLiteral("service.unavailable"),
                 QStringLiteral("The profile service does not answer; start it with "
                                "'veetbot service start'.")};
}

Error ServiceClient::notReady()
{
    return Error{QStringLiteral("service.not_ready"),
                 QStringLiteral("The profile service is running but not ready; 'veetbot service "
                                "status' says why.")};
}

Error ServiceClient::failed()
{
    return Error{QStringLiteral("service.failed"),
                 QStringLiteral("The profile service could not complete the request.")};
}

Result<HttpResponse> ServiceClient::get(const QByteArray &path) const
{
    auto client = connect(m_socketPath, m_timeouts);
    const std::string bearer = m_credential.bearer().toStdString();
    return answerOf(client->Get(path.toStdString(), {{"Authorization", bearer}}));
}

Result<HttpResponse> ServiceClient::post(const QByteArray &path, const QByteArray &body,
                                         const QByteArray &idempotencyKey,
                                         std::optional<int> readMs) const
{
    Timeouts timeouts = m_timeouts;
    timeouts.readMs = readMs.value_or(timeouts.readMs);
    auto client = connect(m_socketPath, timeouts);
    httplib::Headers headers{{"Authorization", m_credential.bearer().toStdString()}};
    if (!idempotencyKey.isEmpty())
        headers.emplace("Idempotency-Key", idempotencyKey.toStdString());
    return answerOf(client->Post(path.toStdString(), headers, body.constData(), size_t(body.size()),
                                 "application/json"));
}

Error ServiceClient::errorOf(const HttpResponse &answer)
{
    StrictJson::Limits limits;
    limits.maxBytes = 4096;
    limits.maxDepth = 3;
    const std::optional<QJsonValue> parsed = StrictJson::parse(answer.body, limits);
    const QJsonObject error =
        parsed ? parsed->toObject().value(QStringLiteral("error")).toObject() : QJsonObject();
    const QString code = error.value(QStringLiteral("code")).toString();
    const QString message = error.value(QStringLiteral("message")).toString();
    if (code.isEmpty() || message.isEmpty() || code.size() > 64 || message.size() > 512)
        return failed();
    return Error{code, message};
}

Result<HttpResponse> ServiceClient::handOff(const QString &socketPath, const QString &launchPath,
                                            const QByteArray &body)
{
    const qsizetype hash = launchPath.indexOf(QLatin1Char('#'));
    if (hash <= 0 || hash == launchPath.size() - 1)
        return failed();
    return withCapability(socketPath, launchPath.left(hash).toLatin1(),
                          launchPath.mid(hash + 1).toLatin1(), body, 45000);
}

Result<HttpResponse> ServiceClient::withCapability(const QString &socketPath,
                                                   const QByteArray &path,
                                                   const QByteArray &capability,
                                                   const QByteArray &body, int readMs)
{
    if (capability.isEmpty())
        return failed();
    Timeouts timeouts;
    timeouts.readMs = readMs;
    auto client = connect(socketPath, timeouts);
    const httplib::Headers headers{{HttpAdmission::kCapabilityHeader, capability.toStdString()}};
    return answerOf(client->Post(path.toStdString(), headers, body.constData(), size_t(body.size()),
                                 body.isEmpty() ? "" : "application/json"));
}

bool ServiceClient::isReady() const
{
    const Result<HttpResponse> answer = get("/health/ready");
    return answer && answer->status == 200;
}

Result<ProvisionedMaterial> ServiceControlPlane::provision(const MaterialScope &scope)
{
    const Result<HttpResponse> answer =
        post(scope, std::nullopt, LifecycleApi::Operation::Provision);
    if (!answer)
        return answer.error();
    if (answer->status != 201)
        return errorOf(*answer);
    StrictJson::Limits limits;
    limits.maxBytes = 4096;
    limits.maxDepth = 2;
    const std::optional<StrictJson::Value> document =
        StrictJson::parseDocument(answer->body, limits);
    if (!document || !document->isObject() || document->members.size() != 3)
        return ServiceClient::failed();
    const StrictJson::Value *name = document->member("provider_name");
    const StrictJson::Value *reference = document->member("provider_reference");
    const StrictJson::Value *version = document->member("key_version");
    if (!name || !name->isString() || !reference || !reference->isString() || !version ||
        !version->isString())
        return ServiceClient::failed();
    ProvisionedMaterial provisioned{QString::fromUtf8(name->string),
                                    QString::fromUtf8(reference->string),
                                    QString::fromUtf8(version->string)};
    if (provisioned.providerName.isEmpty() ||
        provisioned.providerName.size() > BrowserProfile::kMaxProviderNameLength ||
        provisioned.providerReference.isEmpty() ||
        provisioned.providerReference.size() > BrowserProfile::kMaxProviderReferenceLength ||
        provisioned.keyVersion.isEmpty() ||
        provisioned.keyVersion.size() > BrowserProfile::kMaxKeyVersionLength)
        return ServiceClient::failed();
    return provisioned;
}

Result<Unit> ServiceControlPlane::revoke(const MaterialScope &scope,
                                         const std::optional<QString> &providerReference)
{
    return postWithoutAnswer(scope, providerReference, LifecycleApi::Operation::Revoke);
}

Result<Unit> ServiceControlPlane::remove(const MaterialScope &scope,
                                         const std::optional<QString> &providerReference)
{
    return postWithoutAnswer(scope, providerReference, LifecycleApi::Operation::Delete);
}

Result<HttpResponse> ServiceControlPlane::post(const MaterialScope &scope,
                                               const std::optional<QString> &providerReference,
                                               LifecycleApi::Operation operation) const
{
    return m_client->post(lifecyclePath(scope.profileId, operation),
                          LifecycleApi::requestBody(scope, providerReference),
                          LifecycleApi::idempotencyKey(scope.profileId, operation).toLatin1());
}

Result<Unit> ServiceControlPlane::postWithoutAnswer(const MaterialScope &scope,
                                                    const std::optional<QString> &providerReference,
                                                    LifecycleApi::Operation operation) const
{
    const Result<HttpResponse> answer = post(scope, providerReference, operation);
    if (!answer)
        return answer.error();
    if (answer->status != 204)
        return errorOf(*answer);
    return Unit{};
}

} // namespace veetbot
