#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;

namespace veetbot {

// One OpenAI-compatible chat-completions request at a time (POST, JSON, no streaming) to the
// endpoint ModelEndpoint::parse gave. The API key, when there is one, travels only in the
// Authorization header of that request; it is never logged, stored or put in an error.
// Answers are bounded (4 MiB) and parsed strictly enough to be safe: the first choice's
// message (its text and its function tool calls) and the usage the server reports.
// Failures are fixed: model.unavailable (no connection, a timeout, an HTTP error status),
// model.unauthorized (401/403), model.invalid_response (not the expected JSON, too large),
// model.cancelled. No server text reaches an error.
class ChatClient : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kMaxResponseBytes = 4 * 1024 * 1024;
    static constexpr int kDefaultTimeoutMs = 180'000;

    struct ToolCall
    {
        QString id;
        QString name;
        QString arguments; // the JSON text the model wrote
    };
    struct Reply
    {
        QString content; // may be empty
        QList<ToolCall> toolCalls;
        QJsonObject assistantMessage; // the message as it goes back into the history
        // As the server reported them; -1 when it did not.
        qint64 promptTokens = -1;
        qint64 completionTokens = -1;
        qint64 requestBytes = 0;
        qint64 responseBytes = 0;
    };
    using Done = std::function<void(Result<Reply>)>;

    ChatClient(QUrl endpoint, SecretBytes apiKey, QObject *parent = nullptr);
    ~ChatClient() override;

    // `body` is the whole request object (model, messages, tools, ...). One request at a
    // time; `done` runs exactly once, never from inside this call, unless cancel() came first.
    void complete(const QJsonObject &body, Done done, int timeoutMs = kDefaultTimeoutMs);
    // Drops the request in flight: its `done` never runs.
    void cancel();
    bool busy() const { return !m_reply.isNull(); }

    static Error unavailable();
    static Error unauthorized();
    static Error invalidResponse();
    // The reply's parts, from the response body (tests).
    static Result<Reply> parseResponse(const QByteArray &body);

private:
    void finished(QNetworkReply *reply, qint64 requestBytes);

    QUrl m_endpoint;
    SecretBytes m_apiKey;
    QNetworkAccessManager *m_network = nullptr;
    QPointer<QNetworkReply> m_reply;
    Done m_done;
};

} // namespace veetbot
