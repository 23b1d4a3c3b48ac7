#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace veetbot {

// Inside the browser's network namespace: accepts TCP connections on the namespace's own
// loopback and relays each one, byte for byte, to the egress proxy's Unix socket outside the
// namespace. It is the namespace's only way out. It reads nothing of what it relays.
class LocalForwarder : public QObject
{
    Q_OBJECT
public:
    explicit LocalForwarder(QString proxySocketPath, QObject *parent = nullptr);

    // Listens on 127.0.0.1 (port 0 picks one).
    bool listen(quint16 port = 0);
    quint16 port() const;

    // Passes on, now, every close the proxy has already made: each relay whose Unix-socket end
    // has reached end of stream (nothing left to read) closes its browser-side connection
    // instead of waiting for the next event-loop pass; with nothing left to deliver (a tunnel
    // the proxy retired as idle) the close is done when this returns. For the moment right
    // after EgressProxy::retireIdleTunnels() and right before an act's first input, so the
    // browser's socket pool sees those connections closed when it picks one. Returns how many
    // relays it closed. Reads no relayed byte's value.
    int propagateProxyCloses();

    // Admission (the Chromium placement, docs/decisions/0014): when set, each connection's
    // first line must be a tunnel request ("CONNECT host:port HTTP/1.1") that `admits`
    // accepts before anything is relayed; any other connection is answered 403 and closed,
    // and nothing of it reaches the proxy. A browser's request stage admits the hosts of the
    // requests it let go, so a request the browser makes on its own (an updater, an account
    // check) never leaves the namespace. Reads only that first line.
    using Admission = std::function<bool(const QString &host, quint16 port)>;
    void setAdmission(Admission admits) { m_admits = std::move(admits); }
    // Connections refused by the admission (content-free, for tests and diagnostics).
    int tunnelsRefused() const { return m_tunnelsRefused; }

private:
    void acceptPending();
    void relay(QTcpSocket *client);
    void admit(QTcpSocket *client);

    QString m_proxySocketPath;
    QTcpServer *m_server = nullptr;
    Admission m_admits;
    int m_tunnelsRefused = 0;
};

} // namespace veetbot
