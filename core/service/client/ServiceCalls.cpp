#include "ServiceCalls.h"

#include "service/api/KeysApi.h"
#include "service/api/LiveViewApi.h"

namespace veetbot::ServiceCalls {

static_assert(LiveViewApi::kMaxAnswerBytes <= ServiceClient::kMaxAnswerBytes);

Result<std::optional<QString>> rotateKey(const ServiceClient &client, const QString &reference)
{
    const Result<HttpResponse> answer =
        client.post("/v1/keys:rotate", KeysApi::rotationBody(reference), QByteArray());
    if (!answer)
        return answer.error();
    if (answer->status == 503)
        return ServiceClient::notReady();
    const std::optional<std::optional<QString>> rotated =
        answer->status == 200 ? KeysApi::parseRotated(answer->body) : std::nullopt;
    if (!rotated)
        return ServiceClient::failed();
    return *rotated;
}

Result<QStringList> keyVersionsInUse(const ServiceClient &client)
{
    const Result<HttpResponse> answer = client.get("/v1/keys");
    if (!answer)
        return answer.error();
    if (answer->status == 503)
        return ServiceClient::notReady();
    const std::optional<QStringList> versions =
        answer->status == 200 ? KeysApi::parseVersionsInUse(answer->body) : std::nullopt;
    if (!versions)
        return ServiceClient::failed();
    return *versions;
}

Result<LiveFrame> liveFrame(const ServiceClient &client, const ProfileScope &owner,
                            const QString &runId)
{
    static const QRegularExpression whole(
        QRegularExpression::anchoredPattern(LiveViewApi::pattern().pattern()));
    if (!whole.match(QString::fromLatin1(LiveViewApi::path(runId))).hasMatch())
        return LiveViewApi::notRunningError(); // no run has such an id
    const Result<HttpResponse> answer =
        client.post(LiveViewApi::path(runId), LiveViewApi::requestBody(owner), {});
    if (!answer)
        return answer.error();
    if (answer->status == 404)
        return LiveViewApi::notRunningError();
    if (answer->status == 429)
        return LiveViewApi::tooSoonError();
    if (answer->status == 503)
        return ServiceClient::notReady();
    const std::optional<LiveFrame> frame =
        answer->status == 200 ? LiveViewApi::parseFrame(answer->body) : std::nullopt;
    if (!frame)
        return ServiceClient::failed();
    return *frame;
}

} // namespace veetbot::ServiceCalls
