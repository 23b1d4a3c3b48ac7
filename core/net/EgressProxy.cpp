#include "EgressProxy.h"

#include "ConnectRequest.h"

#include "domain/web/HostRules.h"

#include <QHostInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QNetworkProxy>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <chrono>

#include <cerrno>
#include <sys/socket.h>

namespace veetbot {

namespace {

using namespace std::chrono_literals;

constexpr qsizetype kMaxHeadBytes = 8 * 1024;
constexpr auto kHeadTimeout = 10s;
constexpr auto kResolveTimeout = 10s;
constexpr auto kConnectTimeout = 10s;
constexpr auto kCloseTimeout = 10s;
// Per-socket read buffer and write high-water mark: bounds memory per tunnel and lets TCP
// flow control push back on a fast sender.
constexpr qint64 kSocketBufferBytes = 64 * 1024;
constexpr qint64 kChunkBytes = 16 * 1024;

const QByteArray kForbidden =
    QByteArrayLiteral("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
const QByteArray kBadGateway =
    QByteArrayLiteral("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
const QByteArray kEstablished = QByteArrayLiteral("HTTP/1.1 200 Connection Established\r\n\r\n");

bool isUnconnected(const QIODevice *device)
{
    if (const auto *socket = qobject_cast<const QAbstractSocket *>(device))
        return socket->state() == QAbstractSocket::UnconnectedState;
    if (const auto *socket = qobject_cast<const QLocalSocket *>(device))
        return socket->state() == QLocalSocket::UnconnectedState;
    return !device->isOpen();
}

// Closes after the pending bytes are written.
void closeGracefully(QIODevice *device)
{
    if (auto *socket = qobject_cast<QAbstractSocket *>(device))
        socket->disconnectFromHost();
    else if (auto *socket = qobject_cast<QLocalSocket *>(device))
        socket->disconnectFromServer();
    else
        device->close();
}

qintptr descriptorOf(const QIODevice *device)
{
    if (const auto *socket = qobject_cast<const QAbstractSocket *>(device))
        return socket->socketDescriptor();
    if (const auto *socket = qobject_cast<const QLocalSocket *>(device))
        return socket->socketDescriptor();
    return -1;
}

// Connected, and no byte waits on this socket: nothing unread in Qt's buffer or in the
// kernel's receive queue (peeked, never consumed), nothing unwritten in Qt's buffer, and no end
// of stream that the event loop has yet to process.
bool isQuiet(const QIODevice *device)
{
    if (isUnconnected(device) || device->bytesAvailable() > 0 || device->bytesToWrite() > 0)
        return false;
    const qintptr fd = descriptorOf(device);
    if (fd < 0)
        return false;
    char byte = 0;
    const ssize_t peeked = ::recv(int(fd), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

void setReadBufferSize(QIODevice *device, qint64 size)
{
    if (auto *socket = qobject_cast<QAbstractSocket *>(device))
        socket->setReadBufferSize(size);
    else if (auto *socket = qobject_cast<QLocalSocket *>(device))
        socket->setReadBufferSize(size);
}

} // namespace

// One client connection: reads the CONNECT head, checks and resolves the destination, dials
// a checked address and relays bytes. Never looks at, logs or keeps the relayed content.
class EgressProxy::Session : public QObject
{
public:
    Session(EgressProxy *proxy, QIODevice *client);
    ~Session() override;

    // Relaying, the upstream side spoke last, and nothing waits in either direction.
    bool isIdle() const;
    // Closes both sides now (an idle tunnel has nothing left to flush).
    void retire();

private:
    // Which side sent the last bytes this tunnel relayed.
    enum class Speaker
    {
        None,
        Client,
        Upstream
    };

    enum class State
    {
        ReadingHead,
        Resolving,
        Connecting,
        Relaying,
        Closing,
        Done
    };

    void watch(QIODevice *device);
    void onReadyRead(QIODevice *device);
    void onBytesWritten(QIODevice *device);
    void onClosed(QIODevice *device);
    void onTimeout();
    void readHead();
    void onHead();
    void onResolved(const QList<QHostAddress> &addresses);
    void dial(const QHostAddress &address);
    void onUpstreamConnected();
    void pump(QIODevice *from, QIODevice *to);
    void refuse();
    void replyAndClose(const QByteArray &response);
    void finishWhenClosed();
    void finish();
    QIODevice *peerOf(QIODevice *device) const;

    EgressProxy *m_proxy;
    QIODevice *m_client;
    QTcpSocket *m_upstream = nullptr;
    QTimer m_timer;
    State m_state = State::ReadingHead;
    QByteArray m_head;
    QByteArray m_early; // bytes the client sent after the head, forwarded once connected
    ConnectRequest::Target m_target;
    Speaker m_lastSpeaker = Speaker::None;
};

EgressProxy::Session::Session(EgressProxy *proxy, QIODevice *client)
    : QObject(proxy), m_proxy(proxy), m_client(client)
{
    m_client->setParent(this);
    setReadBufferSize(m_client, kSocketBufferBytes);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &Session::onTimeout);
    watch(m_client);
    m_timer.start(kHeadTimeout);
    if (isUnconnected(m_client)) {
        finish();
        return;
    }
    readHead();
}

EgressProxy::Session::~Session()
{
    // Children are deleted after this; keep their closing signals away from a dying session.
    m_client->disconnect(this);
    if (m_upstream)
        m_upstream->disconnect(this);
}

void EgressProxy::Session::watch(QIODevice *device)
{
    connect(device, &QIODevice::readyRead, this, [this, device] { onReadyRead(device); });
    connect(device, &QIODevice::bytesWritten, this, [this, device] { onBytesWritten(device); });
    if (auto *socket = qobject_cast<QAbstractSocket *>(device)) {
        connect(socket, &QAbstractSocket::disconnected, this, [this, device] { onClosed(device); });
        connect(socket, &QAbstractSocket::errorOccurred, this,
                [this, device] { onClosed(device); });
    } else if (auto *socket = qobject_cast<QLocalSocket *>(device)) {
        connect(socket, &QLocalSocket::disconnected, this, [this, device] { onClosed(device); });
        connect(socket, &QLocalSocket::errorOccurred, this, [this, device] { onClosed(device); });
    }
}

bool EgressProxy::Session::isIdle() const
{
    return m_state == State::Relaying && m_lastSpeaker == Speaker::Upstream && isQuiet(m_client) &&
           isQuiet(m_upstream);
}

void EgressProxy::Session::retire()
{
    // finish() closes the client gracefully, which with an empty write buffer closes the socket
    // at once, and aborts the upstream connection (nothing unread: an orderly close).
    finish();
}

QIODevice *EgressProxy::Session::peerOf(QIODevice *device) const
{
    return device == m_client ? static_cast<QIODevice *>(m_upstream) : m_client;
}

void EgressProxy::Session::onReadyRead(QIODevice *device)
{
    switch (m_state) {
    case State::ReadingHead:
        if (device == m_client)
            readHead();
        return;
    case State::Relaying:
        pump(device, peerOf(device));
        return;
    case State::Closing:
        // After a refusal or once the tunnel is ending nothing more is relayed.
        if (device == m_client && !m_upstream)
            device->readAll();
        return;
    case State::Resolving:
    case State::Connecting:
    case State::Done:
        // Left in the bounded socket buffer until the tunnel opens.
        return;
    }
}

void EgressProxy::Session::onBytesWritten(QIODevice *device)
{
    if (m_state == State::Relaying)
        pump(peerOf(device), device);
}

void EgressProxy::Session::onClosed(QIODevice *device)
{
    switch (m_state) {
    case State::ReadingHead:
    case State::Resolving:
        finish();
        return;
    case State::Connecting:
        if (device == m_upstream) {
            m_upstream->abort();
            replyAndClose(kBadGateway);
        } else {
            finish();
        }
        return;
    case State::Relaying: {
        // Flush what the closing side already delivered, then close the other side.
        QIODevice *peer = peerOf(device);
        if (device->bytesAvailable() > 0)
            peer->write(device->readAll());
        m_state = State::Closing;
        m_timer.start(kCloseTimeout);
        closeGracefully(peer);
        finishWhenClosed();
        return;
    }
    case State::Closing:
        finishWhenClosed();
        return;
    case State::Done:
        return;
    }
}

void EgressProxy::Session::onTimeout()
{
    switch (m_state) {
    case State::ReadingHead:
    case State::Resolving:
        refuse();
        return;
    case State::Connecting:
        m_upstream->abort();
        replyAndClose(kBadGateway);
        return;
    case State::Relaying:
        return;
    case State::Closing:
    case State::Done:
        finish();
        return;
    }
}

void EgressProxy::Session::readHead()
{
    while (m_state == State::ReadingHead && m_client->bytesAvailable() > 0) {
        const QByteArray chunk = m_client->read(kMaxHeadBytes + 1 - m_head.size());
        if (chunk.isEmpty())
            return;
        m_head += chunk;
        const qsizetype end = m_head.indexOf("\r\n\r\n");
        if (end >= 0 && end + 4 <= kMaxHeadBytes) {
            m_early = m_head.mid(end + 4);
            m_head.truncate(end);
            onHead();
            return;
        }
        if (m_head.size() > kMaxHeadBytes || end >= 0) {
            refuse();
            return;
        }
    }
}

void EgressProxy::Session::onHead()
{
    const std::optional<ConnectRequest::Target> target = ConnectRequest::parse(m_head);
    m_head.clear();
    if (!target || !HostRules::isPublicDnsName(target->host, m_proxy->m_overrides)) {
        refuse();
        return;
    }
    const bool testHost = m_proxy->m_overrides.hasHost(target->host);
    if (target->port != 443 && !testHost) {
        refuse();
        return;
    }
    m_target = *target;
    if (testHost) {
        const std::optional<QHostAddress> mapped = m_proxy->m_overrides.resolve(m_target.host);
        if (!mapped) {
            refuse();
            return;
        }
        dial(*mapped);
        return;
    }

    m_state = State::Resolving;
    m_timer.start(kResolveTimeout);
    QPointer<Session> self(this);
    m_proxy->m_resolver(m_target.host, [self](QList<QHostAddress> addresses) {
        if (self)
            self->onResolved(addresses);
    });
}

void EgressProxy::Session::onResolved(const QList<QHostAddress> &addresses)
{
    if (m_state != State::Resolving)
        return;
    if (addresses.isEmpty() ||
        !std::all_of(addresses.begin(), addresses.end(), HostRules::isPublicAddress)) {
        refuse();
        return;
    }
    dial(addresses.constFirst());
}

void EgressProxy::Session::dial(const QHostAddress &address)
{
    m_state = State::Connecting;
    m_timer.start(kConnectTimeout);
    m_upstream = new QTcpSocket(this);
    // An application-wide proxy must never apply here: this is the last hop.
    m_upstream->setProxy(QNetworkProxy::NoProxy);
    m_upstream->setReadBufferSize(kSocketBufferBytes);
    watch(m_upstream);
    connect(m_upstream, &QAbstractSocket::connected, this, &Session::onUpstreamConnected);
    m_upstream->connectToHost(address, m_target.port);
}

void EgressProxy::Session::onUpstreamConnected()
{
    if (m_state != State::Connecting)
        return;
    m_timer.stop();
    m_state = State::Relaying;
    m_client->write(kEstablished);
    ++m_proxy->m_tunnelsOpened;
    Q_EMIT m_proxy->tunnelOpened();
    if (m_state != State::Relaying)
        return;
    if (!m_early.isEmpty()) {
        m_upstream->write(m_early);
        m_early.clear();
        m_lastSpeaker = Speaker::Client;
    }
    pump(m_client, m_upstream);
    pump(m_upstream, m_client);
    if (m_state == State::Relaying && isUnconnected(m_client))
        onClosed(m_client);
}

void EgressProxy::Session::pump(QIODevice *from, QIODevice *to)
{
    while (from->bytesAvailable() > 0 && to->bytesToWrite() < kSocketBufferBytes) {
        const QByteArray chunk = from->read(kChunkBytes);
        if (chunk.isEmpty())
            return;
        to->write(chunk);
        m_lastSpeaker = from == m_client ? Speaker::Client : Speaker::Upstream;
    }
}

void EgressProxy::Session::refuse()
{
    ++m_proxy->m_requestsRefused;
    Q_EMIT m_proxy->requestRefused();
    replyAndClose(kForbidden);
}

void EgressProxy::Session::replyAndClose(const QByteArray &response)
{
    if (m_state == State::Closing || m_state == State::Done)
        return;
    m_state = State::Closing;
    m_early.clear();
    m_timer.start(kCloseTimeout);
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
        m_upstream->deleteLater();
        m_upstream = nullptr;
    }
    if (!isUnconnected(m_client)) {
        m_client->write(response);
        closeGracefully(m_client);
    }
    finishWhenClosed();
}

void EgressProxy::Session::finishWhenClosed()
{
    if (isUnconnected(m_client) && (!m_upstream || isUnconnected(m_upstream)))
        finish();
}

void EgressProxy::Session::finish()
{
    if (m_state == State::Done)
        return;
    m_state = State::Done;
    m_timer.stop();
    m_client->disconnect(this);
    m_client->close();
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
    }
    deleteLater();
}

EgressProxy::EgressProxy(TestOverrides overrides, QObject *parent)
    : QObject(parent), m_overrides(std::move(overrides))
{
    m_resolver = [this](const QString &host, std::function<void(QList<QHostAddress>)> done) {
        QHostInfo::lookupHost(host, this, [done = std::move(done)](const QHostInfo &info) {
            done(info.error() == QHostInfo::NoError ? info.addresses() : QList<QHostAddress>());
        });
    };
}

EgressProxy::~EgressProxy()
{
    if (m_local)
        m_local->close();
    if (m_tcp)
        m_tcp->close();
    const QObjectList children = this->children();
    for (QObject *child : children) {
        if (dynamic_cast<Session *>(child))
            delete child;
    }
}

int EgressProxy::retireIdleTunnels()
{
    QList<Session *> idle;
    const QObjectList children = this->children();
    for (QObject *child : children) {
        if (auto *session = dynamic_cast<Session *>(child); session && session->isIdle())
            idle.append(session);
    }
    for (Session *session : std::as_const(idle))
        session->retire();
    m_tunnelsRetired += int(idle.size());
    return int(idle.size());
}

void EgressProxy::setResolver(Resolver resolver)
{
    m_resolver = std::move(resolver);
}

bool EgressProxy::listenLocal(const QString &socketPath)
{
    if (m_local)
        return false;
    auto *server = new QLocalServer(this);
    server->setSocketOptions(QLocalServer::UserAccessOption);
    // A socket file left by an earlier run would make listen() fail.
    QLocalServer::removeServer(socketPath);
    if (!server->listen(socketPath)) {
        delete server;
        return false;
    }
    connect(server, &QLocalServer::newConnection, this, [this, server] {
        while (QLocalSocket *client = server->nextPendingConnection())
            handleClient(client);
    });
    m_local = server;
    return true;
}

bool EgressProxy::listenTcp(quint16 port)
{
    if (m_tcp)
        return false;
    auto *server = new QTcpServer(this);
    server->setProxy(QNetworkProxy::NoProxy);
    if (!server->listen(QHostAddress::LocalHost, port)) {
        delete server;
        return false;
    }
    connect(server, &QTcpServer::newConnection, this, [this, server] {
        while (QTcpSocket *client = server->nextPendingConnection())
            handleClient(client);
    });
    m_tcp = server;
    return true;
}

quint16 EgressProxy::tcpPort() const
{
    return m_tcp ? m_tcp->serverPort() : 0;
}

void EgressProxy::handleClient(QIODevice *client)
{
    new Session(this, client);
}

} // namespace veetbot
