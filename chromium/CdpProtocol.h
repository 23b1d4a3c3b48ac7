#pragma once

#include "domain/Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace veetbot::cdp {

// The framing of Chromium's DevTools pipe (`--remote-debugging-pipe`): each message is one JSON
// text followed by a NUL byte, in both directions. The reader takes bytes in whatever pieces
// the pipe gives and hands back whole messages. A message that grows past its bound poisons the
// reader for good: nothing after it can be framed with certainty, so the connection must end.
class FrameReader
{
public:
    // Large enough for a screenshot of the live view or a capture of a large page; a larger
    // message is no answer this project ever asks for.
    static constexpr qsizetype kMaxMessageBytes = 32 * 1024 * 1024;

    explicit FrameReader(qsizetype maxMessageBytes = kMaxMessageBytes)
        : m_maxMessageBytes(maxMessageBytes)
    {
    }

    // Appends `bytes` and moves every message they complete (without its NUL) to `messages`,
    // in order. False, and nothing from then on, once a message outgrew the bound.
    bool feed(QByteArrayView bytes, QList<QByteArray> *messages);
    bool failed() const { return m_failed; }
    // Bytes of the message not yet ended by its NUL.
    qsizetype pendingBytes() const { return m_partial.size(); }

private:
    qsizetype m_maxMessageBytes;
    QByteArray m_partial;
    bool m_failed = false;
};

// One message from the browser, read with the project's strict JSON reader (duplicate members,
// bad UTF-8 and nesting past the bound refused): a reply to a command (`id` with `result` or
// `error`), or an event (`method` with `params`). Either may name the flattened target session
// it belongs to (`sessionId`).
struct Message
{
    enum class Kind
    {
        Result,
        Error,
        Event
    };
    // How deep a message may nest: the commands this project sends never ask for deep trees.
    static constexpr int kMaxDepth = 64;

    Kind kind = Kind::Event;
    qint64 id = 0;  // Result and Error
    QString method; // Event
    QString sessionId;
    QJsonObject payload; // the result, or the event's params
    int errorCode = 0;   // Error: the protocol's code (its message is never kept)

    // nullopt for anything that is not exactly one of the shapes above.
    static std::optional<Message> parse(QByteArrayView json);
};

// One command as the pipe carries it: compact JSON and its NUL. `id` is at least 1.
QByteArray encodeCommand(qint64 id, const QString &method, const QJsonObject &params,
                         const QString &sessionId = {});

// A message's string member, or an empty string.
inline QString text(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

// The string a Runtime.evaluate with returnByValue answered; nullopt for a failed call, a thrown
// exception or any other value.
inline std::optional<QString> stringValue(const Result<QJsonObject> &evaluated)
{
    if (!evaluated || evaluated->contains(QLatin1String("exceptionDetails")))
        return std::nullopt;
    const QJsonValue value =
        evaluated->value(QLatin1String("result")).toObject().value(QLatin1String("value"));
    return value.isString() ? std::optional<QString>(value.toString()) : std::nullopt;
}

} // namespace veetbot::cdp
