#pragma once

#include "domain/TestOverrides.h"

#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QIODevice;
class QLocalServer;
class QTcpServer;

namespace veetbot {

// The dedicated browser egress proxy. Accepts only "CONNECT host:443" for a valid public DNS
// host name, resolves it, refuses when any resolved address is not public, and dials one of
// the checked addresses (never the name again). Plaintext HTTP requests, IP literals, other
// ports, single-label and special-use names are refused with a fixed 403 response and no
// outbound connection. Logs nothing about destinations.
//
// Test-only: a host present in TestOverrides resolves to its mapped loopback address, counts
// as public, and may use any port.
class EgressProxy : public QObject
{
    Q_OBJECT
public:
    // Resolves a host name to addresses; the default uses the system resolver (QHostInfo).
    // Replaceable so tests can return private or mixed answers.
    using Resolver = std::function<void(const QString &host,
                                        std::function<void(QList<QHostAddress>)> done)>;

    explicit EgressProxy(TestOverrides overrides, QObject *parent = nullptr);
    ~EgressProxy() override;

    void setResolver(Resolver resolver);

    // Listen on a Unix domain socket path (the browser host's forwarder connects here).
    bool listenLocal(const QString &socketPath);
    // Listen on loopback TCP (in-process developer preview); port 0 picks one.
    bool listenTcp(quint16 port = 0);
    quint16 tcpPort() const;

    // Content-free counters for tests and diagnostics.
    int tunnelsOpened() const { return m_tunnelsOpened; }
    int requestsRefused() const { return m_requestsRefused; }

Q_SIGNALS:
    void tunnelOpened();
    void requestRefused();

private:
    void handleClient(QIODevice *client);

    class Session;
    friend class Session;

    TestOverrides m_overrides;
    Resolver m_resolver;
    QLocalServer *m_local = nullptr;
    QTcpServer *m_tcp = nullptr;
    int m_tunnelsOpened = 0;
    int m_requestsRefused = 0;
};

} // namespace veetbot
