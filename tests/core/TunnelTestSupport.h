#pragma once

// Shared by the egress proxy and local forwarder tests: a loopback "site" and the idle-socket
// probe Chromium's socket pool uses.

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>

#include <cerrno>
#include <sys/socket.h>

namespace veetbot::testing {

inline const QByteArray kEstablished =
    QByteArrayLiteral("HTTP/1.1 200 Connection Established\r\n\r\n");

// The "site": a loopback TCP server that records what it receives. A refused request must
// never reach it.
class Site : public QObject
{
public:
    Site()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                ++accepted;
                sockets.append(socket);
                connect(socket, &QIODevice::readyRead, this,
                        [this, socket] { received += socket->readAll(); });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    quint16 port() const { return m_server.serverPort(); }

    int accepted = 0;
    QByteArray received;
    QList<QTcpSocket *> sockets;

private:
    QTcpServer m_server;
};

// What the browser's socket pool asks before it reuses an idle connection (Chromium's
// TCPSocketPosix::IsConnectedAndIdle peeks the same way): "eof" once the peer closed, "data"
// when bytes wait unread, "idle" otherwise. Never consumes a byte.
inline QByteArray peekState(qintptr fd)
{
    char byte = 0;
    const ssize_t peeked = ::recv(int(fd), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked == 0)
        return "eof";
    if (peeked > 0)
        return "data";
    return errno == EAGAIN || errno == EWOULDBLOCK ? "idle" : "error";
}

} // namespace veetbot::testing
