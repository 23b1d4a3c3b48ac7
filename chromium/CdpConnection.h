#pragma once

#include "CdpProtocol.h"
#include "domain/Result.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <functional>

class QSocketNotifier;

namespace veetbot::cdp {

// A DevTools protocol client over the two ends of Chromium's pipe: commands go out on one
// descriptor (the browser's fd 3), replies and events come back on the other (its fd 4). Each
// command gets a fresh id and exactly one answer: its result, a protocol error, or, when the
// pipe ends or breaks a rule (a message past its bound, one that is not a protocol message, a
// reply nobody asked for), provider_unavailable for it and every other pending command. Events
// go to event(), flattened target sessions named by their session id.
//
// It never blocks: both descriptors are non-blocking and watched by the event loop, and output
// the pipe cannot take yet waits in a queue. It never keeps what a protocol error said (page
// text can ride in it), only its code.
class Connection final : public QObject
{
    Q_OBJECT
public:
    using Reply = std::function<void(Result<QJsonObject>)>;

    // Takes both descriptors (closed when the connection is).
    Connection(int commandFd, int replyFd, QObject *parent = nullptr);
    ~Connection() override;

    // Sends `method`; `done` is called once, later, never from inside send(). Returns the
    // command's id, or 0 when the connection is already closed (done is then called with
    // provider_unavailable, later as well).
    qint64 send(const QString &method, const QJsonObject &params, Reply done,
                const QString &sessionId = {});
    bool isOpen() const { return m_open; }
    int pendingCount() const { return int(m_pending.size()); }
    // Closes both descriptors and fails what is pending. Idempotent.
    void close();

    // The stable code of a command the browser answered with a protocol error.
    static Error protocolError(int code);

Q_SIGNALS:
    void event(const QString &method, const QJsonObject &params, const QString &sessionId);
    // The pipe ended (the browser exited) or broke a rule; emitted once.
    void closed();

private:
    void readReplies();
    void writeQueued();
    void failAll();

    int m_commandFd = -1;
    int m_replyFd = -1;
    QSocketNotifier *m_readable = nullptr;
    QSocketNotifier *m_writable = nullptr;
    FrameReader m_frames;
    QByteArray m_output;
    qint64 m_nextId = 1;
    QHash<qint64, Reply> m_pending;
    bool m_open = true;
};

} // namespace veetbot::cdp
