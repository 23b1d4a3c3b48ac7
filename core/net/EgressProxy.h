#pragma once

#include "domain/web/TestOverrides.h"

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
    using Resolver =
        std::function<void(const QString &host, std::function<void(QList<QHostAddress>)> done)>;

    explicit EgressProxy(TestOverrides overrides, QObject *parent = nullptr);
    ~EgressProxy() override;

    void setResolver(Resolver resolver);

    // Listen on a Unix domain socket path (the browser host's forwarder connects here).
    bool listenLocal(const QString &socketPath);
    // Listen on loopback TCP (in-process developer preview); port 0 picks one.
    bool listenTcp(quint16 port = 0);
    quint16 tcpPort() const;

    // Closes every tunnel that is idle in the HTTP sense, so the browser's next request has to
    // open a fresh connection. Called right before an act's first input: Chromium resends a
    // request whose *reused* keep-alive connection fails before any response header (POST
    // included), but never one sent on a fresh connection.
    //
    // A tunnel is idle when the upstream side sent the last relayed bytes (a response, or a
    // TLS record such as a session ticket, so no request is awaiting its answer) and no byte
    // waits in either direction: nothing unread in this proxy's buffers or the kernel's, nothing
    // unwritten. A tunnel whose client spoke last carries a request in flight and stays open:
    // closing it would itself make the browser resend. Tunnels still being set up stay too.
    // The rule reads HTTP/1.1 exactly; over HTTP/2 a session's last client bytes are often a
    // control frame (the SETTINGS acknowledgement after the first response), so such a session
    // stays open (docs/actions.md, "Lost responses").
    //
    // Synchronous: when it returns, each retired tunnel's client socket is closed (the browser
    // side reads end of stream from now on) and its upstream connection is closed. Returns how
    // many tunnels were retired. Looks at no relayed byte's value.
    int retireIdleTunnels();

    // Content-free counters for tests and diagnostics.
    int tunnelsOpened() const { return m_tunnelsOpened; }
    int requestsRefused() const { return m_requestsRefused; }
    int tunnelsRetired() const { return m_tunnelsRetired; }

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
    int m_tunnelsRetired = 0;
};

} // namespace veetbot
