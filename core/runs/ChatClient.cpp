#include "ChatClient.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace veetbot {

ChatClient::ChatClient(QUrl endpoint, SecretBytes apiKey, QObject *parent)
    : QObject(parent), m_endpoint(std::move(endpoint)), m_apiKey(std::move(apiKey)),
      m_network(new QNetworkAccessManager(this))
{
    // No proxy from the environment: the model endpoint is the owner's choice, reached as given.
    m_network->setProxy(QNetworkProxy::NoProxy);
}

ChatClient::~ChatClient()
{
    cancel();
}

Error ChatClient::unavailable()
{
    return Error{QStringLiteral("model.unavailable"),
                 QStringLiteral("The model endpoint did not answer the request.")};
}

Error ChatClient::unauthorized()
{
    return Error{QStringLiteral("model.unauthorized"),
                 QStringLiteral("The model endpoint refused the API key (or its absence).")};
}

Error ChatClient::invalidResponse()
{
    return Error{QStringLiteral("model.invalid_response"),
                 QStringLiteral("The model endpoint's answer is not a chat completion.")};
}

void ChatClient::complete(const QJsonObject &body, Done done, int timeoutMs)
{
    cancel();
    QNetworkRequest request(m_endpoint);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json");
    if (!m_apiKey.isEmpty())
        request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + m_apiKey.bytes());
    request.setTransferTimeout(timeoutMs);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    const QByteArray bytes = QJsonDocument(body).toJson(QJsonDocument::Compact);
    m_done = std::move(done);
    QNetworkReply *reply = m_network->post(request, bytes);
    m_reply = reply;
    const qint64 requestBytes = bytes.size();
    connect(reply, &QNetworkReply::downloadProgress, this, [this, reply](qint64 received, qint64) {
        if (received > kMaxResponseBytes && reply == m_reply)
            reply->abort();
    });
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, requestBytes] { finished(reply, requestBytes); });
}

void ChatClient::cancel()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    m_done = nullptr;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
}

void ChatClient::finished(QNetworkReply *reply, qint64 requestBytes)
{
    reply->deleteLater();
    if (reply != m_reply)
        return;
    m_reply = nullptr;
    Done done = std::move(m_done);
    m_done = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    Result<Reply> result = Error{};
    if (status == 401 || status == 403) {
        result = unauthorized();
    } else if (reply->error() != QNetworkReply::NoError || status < 200 || status > 299) {
        result = unavailable();
    } else {
        const QByteArray body = reply->read(kMaxResponseBytes + 1);
        if (body.size() > kMaxResponseBytes) {
            result = invalidResponse();
        } else {
            Result<Reply> parsed = parseResponse(body);
            if (parsed) {
                Reply complete = std::move(parsed).value();
                complete.requestBytes = requestBytes;
                complete.responseBytes = body.size();
                result = std::move(complete);
            } else {
                result = parsed.error();
            }
        }
    }
    // Never from inside complete(): finished() is a signal of a network reply.
    if (done)
        done(std::move(result));
}

Result<ChatClient::Reply> ChatClient::parseResponse(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return invalidResponse();
    const QJsonObject root = document.object();
    const QJsonArray choices = root.value(QLatin1String("choices")).toArray();
    if (choices.isEmpty() || !choices.first().isObject())
        return invalidResponse();
    const QJsonValue messageValue = choices.first().toObject().value(QLatin1String("message"));
    if (!messageValue.isObject())
        return invalidResponse();
    const QJsonObject message = messageValue.toObject();
    Reply reply;
    const QJsonValue content = message.value(QLatin1String("content"));
    if (content.isString())
        reply.content = content.toString();
    else if (!content.isNull() && !content.isUndefined())
        return invalidResponse();
    const QJsonValue calls = message.value(QLatin1String("tool_calls"));
    if (!calls.isUndefined() && !calls.isNull() && !calls.isArray())
        return invalidResponse();
    QJsonArray echoed;
    for (const QJsonValue &value : calls.toArray()) {
        const QJsonObject call = value.toObject();
        const QJsonObject function = call.value(QLatin1String("function")).toObject();
        const QJsonValue id = call.value(QLatin1String("id"));
        const QJsonValue name = function.value(QLatin1String("name"));
        QJsonValue arguments = function.value(QLatin1String("arguments"));
        // Some servers send the arguments as an object rather than its JSON text.
        if (arguments.isObject())
            arguments = QString::fromUtf8(
                QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
        if (!id.isString() || id.toString().isEmpty() || id.toString().size() > 256 ||
            !name.isString() || name.toString().size() > 128 ||
            (!arguments.isString() && !arguments.isUndefined()))
            return invalidResponse();
        ToolCall parsed{id.toString(), name.toString(),
                        arguments.isString() ? arguments.toString() : QStringLiteral("{}")};
        reply.toolCalls << parsed;
        echoed << QJsonObject{{QStringLiteral("id"), parsed.id},
                              {QStringLiteral("type"), QStringLiteral("function")},
                              {QStringLiteral("function"),
                               QJsonObject{{QStringLiteral("name"), parsed.name},
                                           {QStringLiteral("arguments"), parsed.arguments}}}};
    }
    if (reply.toolCalls.size() > 16)
        return invalidResponse();
    reply.assistantMessage = QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                         {QStringLiteral("content"), reply.content}};
    if (!echoed.isEmpty())
        reply.assistantMessage.insert(QStringLiteral("tool_calls"), echoed);
    const QJsonObject usage = root.value(QLatin1String("usage")).toObject();
    const QJsonValue prompt = usage.value(QLatin1String("prompt_tokens"));
    const QJsonValue completion = usage.value(QLatin1String("completion_tokens"));
    if (prompt.isDouble() && prompt.toDouble() >= 0)
        reply.promptTokens = qint64(prompt.toDouble());
    if (completion.isDouble() && completion.toDouble() >= 0)
        reply.completionTokens = qint64(completion.toDouble());
    return reply;
}

} // namespace veetbot
