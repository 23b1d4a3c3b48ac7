#include "LocalForwarder.h"

#include <QLocalSocket>
#include <QTcpServer>
#include <QTcpSocket>

namespace veetbot {

LocalForwarder::LocalForwarder(QString proxySocketPath, QObject *parent)
    : QObject(parent), m_proxySocketPath(std::move(proxySocketPath)),
      m_server(new QTcpServer(this))
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

void LocalForwarder::acceptPending()
{
    while (QTcpSocket *client = m_server->nextPendingConnection()) {
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
            if (upstream->state() == QLocalSocket::ConnectedState) {
                upstream->write(client->readAll());
                upstream->disconnectFromServer();
            }
            client->deleteLater();
        });
        upstream->connectToServer(m_proxySocketPath);
    }
}

} // namespace veetbot
