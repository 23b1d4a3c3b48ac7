#include "CdpConnection.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace veetbot::cdp {

namespace {

void makeNonBlocking(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

} // namespace

Connection::Connection(int commandFd, int replyFd, QObject *parent)
    : QObject(parent), m_commandFd(commandFd), m_replyFd(replyFd)
{
    makeNonBlocking(m_commandFd);
    makeNonBlocking(m_replyFd);
    m_readable = new QSocketNotifier(m_replyFd, QSocketNotifier::Read, this);
    connect(m_readable, &QSocketNotifier::activated, this, &Connection::readReplies);
    m_writable = new QSocketNotifier(m_commandFd, QSocketNotifier::Write, this);
    m_writable->setEnabled(false);
    connect(m_writable, &QSocketNotifier::activated, this, &Connection::writeQueued);
}

Connection::~Connection()
{
    // Answers must not reach a half-destroyed owner: pending replies are dropped unanswered
    // only here, where nobody is left to hear them.
    m_pending.clear();
    close();
}

Error Connection::protocolError(int code)
{
    return Error{QStringLiteral("chromium.protocol_error"),
                 QStringLiteral("The browser refused a protocol command (%1).").arg(code)};
}

qint64 Connection::send(const QString &method, const QJsonObject &params, Reply done,
                        const QString &sessionId)
{
    if (!m_open) {
        QTimer::singleShot(0, QCoreApplication::instance(), [done = std::move(done)] {
            done(Error::fromReason(ReasonCode::ProviderUnavailable));
        });
        return 0;
    }
    const qint64 id = m_nextId++;
    m_pending.insert(id, done);
    m_output += encodeCommand(id, method, params, sessionId);
    writeQueued();
    return id;
}

void Connection::writeQueued()
{
    while (m_open && !m_output.isEmpty()) {
        const ssize_t n = ::write(m_commandFd, m_output.constData(), size_t(m_output.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            m_writable->setEnabled(true);
            return;
        }
        if (n <= 0) {
            close();
            return;
        }
        m_output.remove(0, n);
    }
    if (m_writable)
        m_writable->setEnabled(false);
}

void Connection::readReplies()
{
    // The connection may go away in a reply's callback or an event's slot.
    const QPointer<Connection> alive(this);
    char buffer[65536];
    while (m_open) {
        const ssize_t n = ::read(m_replyFd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close();
            return;
        }
        QList<QByteArray> messages;
        const bool framed = m_frames.feed(QByteArrayView(buffer, n), &messages);
        for (const QByteArray &bytes : std::as_const(messages)) {
            const std::optional<Message> message = Message::parse(bytes);
            if (!message) {
                close();
                return;
            }
            if (message->kind == Message::Kind::Event) {
                Q_EMIT event(message->method, message->payload, message->sessionId);
            } else {
                Reply done = m_pending.take(message->id);
                if (!done) {
                    close();
                    return;
                }
                if (message->kind == Message::Kind::Result)
                    done(message->payload);
                else
                    done(protocolError(message->errorCode));
            }
            if (!alive || !m_open)
                return;
        }
        if (!framed) {
            close();
            return;
        }
    }
}

void Connection::close()
{
    if (!m_open)
        return;
    m_open = false;
    // close() may run inside a notifier's own activation: the notifiers go later.
    for (QSocketNotifier *notifier : {m_readable, m_writable}) {
        notifier->setEnabled(false);
        notifier->deleteLater();
    }
    m_readable = nullptr;
    m_writable = nullptr;
    ::close(m_commandFd);
    ::close(m_replyFd);
    m_output.clear();
    failAll();
    Q_EMIT closed();
}

void Connection::failAll()
{
    // Later, from the event loop: never inside send(), and whatever happens to this object.
    const QHash<qint64, Reply> pending = std::exchange(m_pending, {});
    for (const Reply &done : pending)
        QTimer::singleShot(0, QCoreApplication::instance(),
                           [done] { done(Error::fromReason(ReasonCode::ProviderUnavailable)); });
}

} // namespace veetbot::cdp
