#pragma once

#include "domain/web/TestOverrides.h"
#include "ports/GateQuestion.h"

#include <QByteArray>
#include <QObject>

#include <functional>

class QSocketNotifier;

namespace veetbot {

class BrowserProvider;

// Serves the host protocol (core/isolation/HostProtocol.h) on stdin and a private copy of
// the original stdout. Requests go to the provider one at a time, in arrival order (the
// provider's own operation lock); end of input closes the provider and quits.
//
// The provider's dispatch gate is the owner's: right before an act's first input the server
// asks over the protocol and the act waits (the event loop runs) for the answer, at most
// GateQuestion::kHostWaitMs. No answer, a closed gate, any other request meanwhile or the end
// of input means the act sends nothing.
class HostServer : public QObject
{
    Q_OBJECT
public:
    HostServer(BrowserProvider *provider, int protocolFd, TestOverrides overrides,
               QObject *parent = nullptr);

    void announceReady();
    // Runs right after the owner opened an act's gate, before its first input (the browser host
    // passes the proxy's closes of idle tunnels on to Chromium there; docs/decisions/0005).
    void setGateOpenedHook(std::function<void()> hook) { m_gateOpened = std::move(hook); }

private:
    void readInput();
    // Appends what stdin has now; false at end of input or on a read error.
    bool readAvailable();
    void endOfInput();
    void handleLine(const QByteArray &line);
    void askOwner(GateAnswer answer);
    void write(const QByteArray &bytes);

    BrowserProvider *m_provider;
    int m_protocolFd;
    TestOverrides m_overrides;
    QSocketNotifier *m_notifier;
    QByteArray m_buffer;
    quint64 m_actInFlight = 0; // the act whose dispatch gate the owner answers
    GateQuestion m_gate;       // the question to the owner, while an act waits at its gate
    quint64 m_gateAct = 0;     // the act it asks about
    quint64 m_gateTicket = 0;
    bool m_inputEnded = false;
    std::function<void()> m_gateOpened;
};

} // namespace veetbot
