#include "LocalForwarder.h"

#include "ConnectRequest.h"

#include <QLocalSocket>
#include <QTcpServer>
#include <QTcpSocket>

#include <sys/socket.h>

namespace veetbot {

namespace {

// The longest first line an admission reads: a CONNECT line with a host name of 253 bytes.
constexpr qint64 kMaxRequestLine = 512;
const QByteArray kForbidden =
    QByteArrayLiteral("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

// The peer closed and every byte it sent has been read from the kernel (peeked, never consumed).
bool hasReachedEndOfStream(const QLocalSocket *socket)
{
    const qintptr fd = socket->socketDescriptor();
    if (fd < 0 || socket->bytesAvailable() > 0)
        return false;
    char byte = 0;
    return ::recv(int(fd), &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

} // namespace

LocalForwarder::LocalForwarder(QString proxySocketPath, QObject *parent)
    : QObject(parent), m_proxySocketPath(std::move(proxySocketPath)), m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &LocalForwarder::acceptPending);
}

bool LocalForwarder::listen(quint16 port)
{
    return m_server->listen(QHostAddress::LocalHost, port);
}

quint16 LocalForwarder::port() const
{
    return m_server->serverPort();
}

int LocalForwarder::propagateProxyCloses()
{
    int closed = 0;
    // Accepted sockets are the server's children; each one's upstream is its child.
    const QList<QTcpSocket *> clients =
        m_server->findChildren<QTcpSocket *>(QString(), Qt::FindDirectChildrenOnly);
    for (QTcpSocket *client : clients) {
        auto *upstream = client->findChild<QLocalSocket *>(QString(), Qt::FindDirectChildrenOnly);
        if (!upstream || client->state() != QAbstractSocket::ConnectedState ||
            upstream->state() != QLocalSocket::ConnectedState || !hasReachedEndOfStream(upstream))
            continue;
        // What the `disconnected` handler would do on the next event-loop pass.
        client->disconnectFromHost();
        ++closed;
    }
    return closed;
}

void LocalForwarder::acceptPending()
{
    while (QTcpSocket *client = m_server->nextPendingConnection()) {
        if (!m_admits) {
            relay(client);
            continue;
        }
        // Nothing is relayed until the first line is read (peeked: the relay sends it on).
        connect(client, &QTcpSocket::readyRead, this, [this, client] { admit(client); });
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        admit(client);
    }
}

void LocalForwarder::admit(QTcpSocket *client)
{
    const QByteArray peeked = client->peek(kMaxRequestLine);
    const qsizetype lineEnd = peeked.indexOf("\r\n");
    if (lineEnd < 0 && peeked.size() < kMaxRequestLine)
        return; // the line is not complete yet
    disconnect(client, nullptr, this, nullptr);
    disconnect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
    const std::optional<ConnectRequest::Target> target =
        lineEnd < 0 ? std::nullopt : ConnectRequest::parse(peeked.left(lineEnd));
    if (!target || !m_admits(target->host, target->port)) {
        ++m_tunnelsRefused;
        client->write(kForbidden);
        client->disconnectFromHost();
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        return;
    }
    relay(client);
}

void LocalForwarder::relay(QTcpSocket *client)
{
    auto *upstream = new QLocalSocket(client);
    // Bytes the client sends before the upstream connects wait in the client's buffer.
    auto pump = [](QIODevice *from, QIODevice *to) {
        const QByteArray bytes = from->readAll();
        if (!bytes.isEmpty())
            to->write(bytes);
    };
    connect(upstream, &QLocalSocket::connected, client, [client, upstream, pump] {
        pump(client, upstream);
        connect(client, &QTcpSocket::readyRead, upstream,
                [client, upstream, pump] { pump(client, upstream); });
    });
    connect(upstream, &QLocalSocket::readyRead, client,
            [client, upstream, pump] { pump(upstream, client); });
    connect(upstream, &QLocalSocket::disconnected, client, [client, upstream] {
        client->write(upstream->readAll());
        client->disconnectFromHost();
    });
    // The proxy closing its end is an orderly end of stream: `disconnected` delivers the
    // last bytes, then closes. Aborting here would drop whatever the client has not been
    // sent yet. Any other error (the proxy is not there) drops the connection.
    connect(upstream, &QLocalSocket::errorOccurred, client,
            [client](QLocalSocket::LocalSocketError error) {
                if (error != QLocalSocket::PeerClosedError)
                    client->abort();
            });
    connect(client, &QTcpSocket::disconnected, client, [client, upstream] {
        // Also emitted while the forwarder is destroyed with the connection open: then the
        // client is closed already and nothing is left to pass on.
        if (client->isOpen() && upstream->state() == QLocalSocket::ConnectedState) {
            upstream->write(client->readAll());
            upstream->disconnectFromServer();
        }
        client->deleteLater();
    });
    upstream->connectToServer(m_proxySocketPath);
}

} // namespace veetbot
