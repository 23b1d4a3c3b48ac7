#include "JsonRpcChannel.h"

#include "domain/ToolJson.h"
#include "json/StrictJson.h"

#include <QIODevice>
#include <QJsonDocument>

#include <limits>

namespace veetbot::mcp {

namespace {
const QLatin1String kVersion("2.0");

// Fixed messages: an error answer never echoes what it refuses.
const QLatin1String kParseErrorMessage("Parse error: the message is not valid JSON.");
const QLatin1String kBatchMessage("Invalid request: batches are not supported.");
const QLatin1String kInvalidRequestMessage("Invalid request: not a JSON-RPC 2.0 message.");
const QLatin1String kTooLargeMessage("Invalid request: the message exceeds 1 MiB.");
const QLatin1String kClosedMessage("The connection closed before a response arrived.");
const QLatin1String kAbandonedMessage("The request was cancelled.");

bool isBlank(QByteArrayView line)
{
    for (const char c : line) {
        if (c != ' ' && c != '\t' && c != '\r')
            return false;
    }
    return true;
}
} // namespace

JsonRpcChannel::JsonRpcChannel(QIODevice *output, QObject *parent)
    : QObject(parent), m_output(output)
{
}

JsonRpcChannel::~JsonRpcChannel()
{
    // Callbacks still waiting hear about it exactly once.
    failPending();
}

void JsonRpcChannel::failPending()
{
    const auto pending = std::exchange(m_pending, {});
    for (const ReplyHandler &handler : pending) {
        JsonRpcReply reply;
        reply.errorCode = JsonRpcErrorCode::kConnectionClosed;
        reply.errorMessage = kClosedMessage;
        handler(reply);
    }
}

bool JsonRpcChannel::isValidId(const QJsonValue &id)
{
    return id.isString() || id.isDouble();
}

QString JsonRpcChannel::idKey(const QJsonValue &id)
{
    if (id.isString())
        return QLatin1Char('s') + id.toString();
    if (id.isDouble()) {
        const qint64 integer = id.toInteger();
        if (double(integer) == id.toDouble())
            return QLatin1Char('n') + QString::number(integer);
        return QLatin1Char('n') + QString::number(id.toDouble(), 'g', 17);
    }
    return QString();
}

void JsonRpcChannel::attachInput(QIODevice *input)
{
    m_input = input;
    connect(input, &QIODevice::readyRead, this, &JsonRpcChannel::readAvailable);
    connect(input, &QIODevice::readChannelFinished, this, [this] {
        readAvailable();
        finishInput();
    });
    connect(input, &QIODevice::aboutToClose, this, [this] {
        readAvailable();
        finishInput();
    });
    readAvailable();
}

void JsonRpcChannel::readAvailable()
{
    if (!m_input)
        return;
    char buffer[64 * 1024];
    for (;;) {
        const qint64 n = m_input->read(buffer, sizeof buffer);
        if (n <= 0)
            return;
        receive(QByteArrayView(buffer, n));
    }
}

void JsonRpcChannel::receive(QByteArrayView bytes)
{
    if (m_inputFinished)
        return;
    while (!bytes.isEmpty()) {
        const qsizetype newline = bytes.indexOf('\n');
        const QByteArrayView segment = newline < 0 ? bytes : bytes.first(newline);
        if (!m_discarding) {
            if (m_line.size() + segment.size() > kMaxMessageBytes) {
                // Refuse now, then drop the rest of this line without keeping it.
                m_line.clear();
                m_line.squeeze();
                m_discarding = true;
                sendError(QJsonValue::Null, JsonRpcErrorCode::kInvalidRequest, kTooLargeMessage);
            } else {
                m_line.append(segment);
            }
        }
        if (newline < 0)
            return;
        bytes = bytes.sliced(newline + 1);
        if (m_discarding) {
            m_discarding = false;
            continue;
        }
        const QByteArray line = std::exchange(m_line, QByteArray());
        handleLine(line);
        if (m_inputFinished)
            return;
    }
}

void JsonRpcChannel::finishInput()
{
    if (m_inputFinished)
        return;
    // A last message without its newline is still a message.
    if (!m_discarding && !m_line.isEmpty()) {
        const QByteArray line = std::exchange(m_line, QByteArray());
        handleLine(line);
    }
    m_line.clear();
    m_discarding = false;
    m_inputFinished = true;
    failPending();
    Q_EMIT inputEnded();
}

void JsonRpcChannel::handleLine(QByteArrayView line)
{
    if (isBlank(line))
        return;
    // The strict parser: a duplicate member name, a lone surrogate escape or invalid UTF-8
    // is a parse error, never a message one reader sees one way and another reader another.
    const std::optional<QJsonValue> document = StrictJson::parse(line, inputLimits());
    if (!document) {
        sendError(QJsonValue::Null, JsonRpcErrorCode::kParseError, kParseErrorMessage);
        return;
    }
    if (document->isArray()) {
        sendError(QJsonValue::Null, JsonRpcErrorCode::kInvalidRequest, kBatchMessage);
        return;
    }
    if (!document->isObject()) {
        // Valid JSON that is neither an object nor an array (a bare scalar).
        sendError(QJsonValue::Null, JsonRpcErrorCode::kInvalidRequest, kInvalidRequestMessage);
        return;
    }
    handleMessage(document->toObject());
}

void JsonRpcChannel::handleMessage(const QJsonObject &message)
{
    const QJsonValue id = message.value(QLatin1String("id"));
    const bool hasId = message.contains(QLatin1String("id"));
    const QJsonValue replyId = hasId && isValidId(id) ? id : QJsonValue(QJsonValue::Null);
    const bool versionOk = message.value(QLatin1String("jsonrpc")) == QJsonValue(kVersion);
    if (!message.contains(QLatin1String("method")) && hasId &&
        (message.contains(QLatin1String("result")) || message.contains(QLatin1String("error")))) {
        // A response is never answered, not even a malformed one.
        if (versionOk)
            handleResponse(message);
        return;
    }
    const QJsonValue method = message.value(QLatin1String("method"));
    const QJsonValue params = message.value(QLatin1String("params"));
    const bool paramsShaped = params.isUndefined() || params.isObject() || params.isArray();
    if (!versionOk || !method.isString() || (hasId && !isValidId(id)) || !paramsShaped) {
        sendError(replyId, JsonRpcErrorCode::kInvalidRequest, kInvalidRequestMessage);
        return;
    }
    if (!hasId) {
        if (m_onNotification)
            m_onNotification(method.toString(), params);
        return;
    }
    if (m_onRequest)
        m_onRequest(id, method.toString(), params);
    else
        sendError(id, JsonRpcErrorCode::kMethodNotFound, QStringLiteral("Method not found."));
}

void JsonRpcChannel::handleResponse(const QJsonObject &message)
{
    const auto it = m_pending.find(idKey(message.value(QLatin1String("id"))));
    if (it == m_pending.end())
        return; // not ours, or already answered or abandoned
    const ReplyHandler handler = std::move(it.value());
    m_pending.erase(it);
    JsonRpcReply reply;
    if (message.contains(QLatin1String("error"))) {
        const QJsonObject error = message.value(QLatin1String("error")).toObject();
        const auto code =
            ToolJson::integer(error.value(QLatin1String("code")), std::numeric_limits<int>::min(),
                              std::numeric_limits<int>::max());
        reply.errorCode = code ? int(*code) : JsonRpcErrorCode::kInvalidRequest;
        reply.errorMessage = error.value(QLatin1String("message")).toString();
    } else {
        reply.ok = true;
        reply.result = message.value(QLatin1String("result"));
    }
    handler(reply);
}

void JsonRpcChannel::sendResult(const QJsonValue &id, const QJsonValue &result)
{
    write(QJsonObject{{QStringLiteral("jsonrpc"), kVersion},
                      {QStringLiteral("id"), id},
                      {QStringLiteral("result"), result}});
}

void JsonRpcChannel::sendError(const QJsonValue &id, int code, const QString &message)
{
    write(
        QJsonObject{{QStringLiteral("jsonrpc"), kVersion},
                    {QStringLiteral("id"), id},
                    {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code},
                                                          {QStringLiteral("message"), message}}}});
}

void JsonRpcChannel::sendNotification(const QString &method, const QJsonObject &params)
{
    QJsonObject message{{QStringLiteral("jsonrpc"), kVersion}, {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    write(message);
}

QJsonValue JsonRpcChannel::sendRequest(const QString &method, const QJsonObject &params,
                                       ReplyHandler onReply)
{
    const QJsonValue id(m_nextRequestId++);
    if (m_inputFinished) {
        JsonRpcReply reply;
        reply.errorCode = JsonRpcErrorCode::kConnectionClosed;
        reply.errorMessage = kClosedMessage;
        onReply(reply);
        return id;
    }
    m_pending.insert(idKey(id), onReply);
    QJsonObject message{{QStringLiteral("jsonrpc"), kVersion},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    write(message);
    return id;
}

bool JsonRpcChannel::cancelRequest(const QJsonValue &id)
{
    const auto it = m_pending.find(idKey(id));
    if (it == m_pending.end())
        return false;
    const ReplyHandler handler = std::move(it.value());
    m_pending.erase(it);
    sendNotification(QStringLiteral("notifications/cancelled"),
                     QJsonObject{{QStringLiteral("requestId"), id}});
    JsonRpcReply reply;
    reply.errorCode = JsonRpcErrorCode::kRequestAbandoned;
    reply.errorMessage = kAbandonedMessage;
    handler(reply);
    return true;
}

void JsonRpcChannel::write(const QJsonObject &message)
{
    if (m_outputClosed || !m_output)
        return;
    QByteArray bytes = QJsonDocument(message).toJson(QJsonDocument::Compact);
    bytes.append('\n');
    qint64 written = 0;
    while (written < bytes.size()) {
        const qint64 n = m_output->write(bytes.constData() + written, bytes.size() - written);
        if (n <= 0) {
            m_outputClosed = true; // the peer is gone; nothing more can be said
            return;
        }
        written += n;
    }
}

} // namespace veetbot::mcp
