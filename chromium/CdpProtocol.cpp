#include "CdpProtocol.h"

#include "json/StrictJson.h"

#include <QJsonDocument>

namespace veetbot::cdp {

bool FrameReader::feed(QByteArrayView bytes, QList<QByteArray> *messages)
{
    if (m_failed)
        return false;
    while (!bytes.isEmpty()) {
        const qsizetype end = bytes.indexOf('\0');
        const QByteArrayView part = end < 0 ? bytes : bytes.first(end);
        if (m_partial.size() + part.size() > m_maxMessageBytes) {
            m_failed = true;
            m_partial = QByteArray();
            return false;
        }
        m_partial.append(part.data(), part.size());
        if (end < 0)
            break;
        messages->append(std::exchange(m_partial, QByteArray()));
        bytes = bytes.sliced(end + 1);
    }
    return true;
}

std::optional<Message> Message::parse(QByteArrayView json)
{
    const StrictJson::Limits limits{.maxBytes = FrameReader::kMaxMessageBytes,
                                    .maxDepth = kMaxDepth,
                                    .maxMembers = 1 << 20,
                                    .numbers = StrictJson::Numbers::Finite};
    const std::optional<QJsonValue> value = StrictJson::parse(json, limits);
    if (!value || !value->isObject())
        return std::nullopt;
    const QJsonObject object = value->toObject();
    Message message;
    const QJsonValue session = object.value(QLatin1String("sessionId"));
    if (!session.isUndefined()) {
        if (!session.isString() || session.toString().isEmpty())
            return std::nullopt;
        message.sessionId = session.toString();
    }
    const QJsonValue id = object.value(QLatin1String("id"));
    if (!id.isUndefined()) {
        // A reply: a whole positive id, and exactly one of result and error.
        const double number = id.toDouble(-1);
        if (!id.isDouble() || number < 1 || number > double(StrictJson::kMaxSafeInteger) ||
            number != double(qint64(number)))
            return std::nullopt;
        message.id = qint64(number);
        const QJsonValue result = object.value(QLatin1String("result"));
        const QJsonValue error = object.value(QLatin1String("error"));
        if (result.isObject() && error.isUndefined()) {
            message.kind = Kind::Result;
            message.payload = result.toObject();
            return message;
        }
        if (error.isObject() && result.isUndefined()) {
            const QJsonValue code = error.toObject().value(QLatin1String("code"));
            if (!code.isDouble())
                return std::nullopt;
            message.kind = Kind::Error;
            message.errorCode = code.toInt();
            return message;
        }
        return std::nullopt;
    }
    const QJsonValue method = object.value(QLatin1String("method"));
    const QJsonValue params = object.value(QLatin1String("params"));
    if (!method.isString() || method.toString().isEmpty() ||
        !(params.isUndefined() || params.isObject()))
        return std::nullopt;
    message.kind = Kind::Event;
    message.method = method.toString();
    message.payload = params.toObject();
    return message;
}

QByteArray encodeCommand(qint64 id, const QString &method, const QJsonObject &params,
                         const QString &sessionId)
{
    QJsonObject command{{QStringLiteral("id"), id},
                        {QStringLiteral("method"), method},
                        {QStringLiteral("params"), params}};
    if (!sessionId.isEmpty())
        command.insert(QStringLiteral("sessionId"), sessionId);
    return QJsonDocument(command).toJson(QJsonDocument::Compact) + '\0';
}

} // namespace veetbot::cdp
