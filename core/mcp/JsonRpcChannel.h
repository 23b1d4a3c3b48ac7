#pragma once

#include "json/StrictJson.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

class QIODevice;

namespace veetbot::mcp {

// JSON-RPC 2.0 error codes used on the wire.
namespace JsonRpcErrorCode {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// Local only: handed to the callback of a server-to-client request that can no longer be
// answered (the input ended, or the request was abandoned). Never sent.
inline constexpr int kConnectionClosed = -32000;
inline constexpr int kRequestAbandoned = -32001;
} // namespace JsonRpcErrorCode

// The answer to a request this side sent: a result, or an error code and message (the
// peer's message is kept only for the caller to decide on; it is never logged here).
struct JsonRpcReply
{
    bool ok = false;
    QJsonValue result;
    int errorCode = 0;
    QString errorMessage;
};

// One JSON-RPC 2.0 connection over newline-delimited messages (the MCP stdio transport).
//
// Input arrives as bytes (receive()/finishInput(), or attachInput() for a QIODevice). Each
// line is one message of at most kMaxMessageBytes; a longer line is refused with one error
// and discarded up to its newline without being buffered, and the next line is served.
// Malformed JSON is -32700: the project's strict parser reads every line, so a duplicate
// member name, invalid UTF-8 or a lone surrogate escape is malformed too. A batch (a JSON array) or
// any other shape that is not a single request, notification or response is -32600; these answers
// carry fixed messages and never echo the input. Requests and notifications go to the handlers;
// responses are routed to the callback of the request this side sent with that id (sendRequest),
// and a response for an unknown id is dropped. When the input ends, every pending callback gets
// kConnectionClosed and inputFinished() is emitted once.
//
// Output is one compact JSON line per message, written whole to the output device.
class JsonRpcChannel : public QObject
{
    Q_OBJECT
public:
    // The largest message accepted, in bytes, not counting its newline.
    static constexpr qsizetype kMaxMessageBytes = 1024 * 1024;

    using RequestHandler =
        std::function<void(const QJsonValue &id, const QString &method, const QJsonValue &params)>;
    using NotificationHandler =
        std::function<void(const QString &method, const QJsonValue &params)>;
    using ReplyHandler = std::function<void(const JsonRpcReply &reply)>;

    explicit JsonRpcChannel(QIODevice *output, QObject *parent = nullptr);
    ~JsonRpcChannel() override;

    void setRequestHandler(RequestHandler handler) { m_onRequest = std::move(handler); }
    void setNotificationHandler(NotificationHandler handler)
    {
        m_onNotification = std::move(handler);
    }

    // Reads everything `input` makes available; its end (readChannelFinished, or closing)
    // is the end of input.
    void attachInput(QIODevice *input);
    void receive(QByteArrayView bytes);
    void finishInput();
    bool inputFinished() const { return m_inputFinished; }

    void sendResult(const QJsonValue &id, const QJsonValue &result);
    void sendError(const QJsonValue &id, int code, const QString &message);
    void sendNotification(const QString &method, const QJsonObject &params);
    // Sends a request with a fresh id of this side and returns that id; `onReply` runs
    // exactly once: with the peer's response, or with kConnectionClosed / kRequestAbandoned.
    QJsonValue sendRequest(const QString &method, const QJsonObject &params, ReplyHandler onReply);
    // Stops waiting for a request this side sent (its callback runs now with
    // kRequestAbandoned; a later response is dropped) and tells the peer with
    // notifications/cancelled. False if no such request is pending.
    bool cancelRequest(const QJsonValue &id);
    int pendingRequests() const { return int(m_pending.size()); }

    // Stops all output (after the peer went away or the server shut down).
    void closeOutput() { m_outputClosed = true; }

    // A valid request id: a string or a number (MCP forbids null).
    static bool isValidId(const QJsonValue &id);
    // A hashable key that keeps 1 and "1" apart.
    static QString idKey(const QJsonValue &id);
    // What one input line may hold: kMaxMessageBytes, nesting and container bounds far above
    // any MCP message, any finite number.
    static StrictJson::Limits inputLimits()
    {
        return StrictJson::Limits{.maxBytes = kMaxMessageBytes,
                                  .maxDepth = 64,
                                  .maxMembers = 65536,
                                  .numbers = StrictJson::Numbers::Finite};
    }

Q_SIGNALS:
    void inputEnded();

private:
    // Every callback still waiting hears, exactly once, that the connection closed.
    void failPending();
    void readAvailable();
    void handleLine(QByteArrayView line);
    void handleMessage(const QJsonObject &message);
    void handleResponse(const QJsonObject &message);
    void write(const QJsonObject &message);

    QPointer<QIODevice> m_output;
    QPointer<QIODevice> m_input;
    RequestHandler m_onRequest;
    NotificationHandler m_onNotification;
    QByteArray m_line;
    bool m_discarding = false; // inside an oversized line, until its newline
    bool m_inputFinished = false;
    bool m_outputClosed = false;
    qint64 m_nextRequestId = 1;
    QHash<QString, ReplyHandler> m_pending;
};

} // namespace veetbot::mcp
