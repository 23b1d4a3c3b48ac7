#include "HostServer.h"

#include "isolation/HostProtocol.h"
#include "ports/BrowserProvider.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace veetbot {

HostServer::HostServer(BrowserProvider *provider, int protocolFd, TestOverrides overrides,
                       QObject *parent)
    : QObject(parent), m_provider(provider), m_protocolFd(protocolFd),
      m_overrides(std::move(overrides)),
      m_notifier(new QSocketNotifier(STDIN_FILENO, QSocketNotifier::Read, this))
{
    ::fcntl(STDIN_FILENO, F_SETFL, ::fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    connect(m_notifier, &QSocketNotifier::activated, this, &HostServer::readInput);
    m_provider->setDispatchGate(
        [this](const ActRequest &, GateAnswer answer) { askOwner(std::move(answer)); }, this);
    connect(m_provider, &BrowserProvider::ownerViewFrame, this,
            [this](const OwnerViewFrame &frame) {
                if (frame.isValid())
                    write(HostProtocol::encodeScreen(frame));
            });
}

void HostServer::announceReady()
{
    write(HostProtocol::encodeReady());
}

bool HostServer::readAvailable()
{
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n > 0) {
            m_buffer.append(chunk, n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return true;
        return false;
    }
}

void HostServer::endOfInput()
{
    // The owner is gone: an act at its gate sends nothing.
    m_inputEnded = true;
    m_notifier->setEnabled(false);
    m_gate.withdraw();
    m_provider->close();
    QCoreApplication::quit();
}

void HostServer::readInput()
{
    if (m_inputEnded)
        return;
    if (!readAvailable()) {
        endOfInput();
        return;
    }
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        handleLine(line);
    }
    // A restore line carries a whole session state; nothing is longer.
    if (m_buffer.size() > HostProtocol::kMaxLineBytes) {
        m_notifier->setEnabled(false);
        QCoreApplication::exit(2);
    }
}

void HostServer::handleLine(const QByteArray &line)
{
    const auto request = HostProtocol::decodeRequest(line, m_overrides);
    if (!request) {
        // The owner speaks the protocol; anything else ends the host.
        m_notifier->setEnabled(false);
        QCoreApplication::exit(2);
        return;
    }
    const quint64 id = request->id;
    if (request->op == QLatin1String("dispatch")) {
        // The owner's answer to the act's gate; one for another act (or a closed question)
        // answers nothing.
        if (id == m_gateAct)
            (void)m_gate.answer(m_gateTicket, request->open);
        return;
    }
    // The owner asks nothing else while an act waits at its gate: the gate closes.
    m_gate.withdraw();
    // The owner's remote view: neither is answered (its frames are events).
    if (request->op == QLatin1String("view")) {
        if (request->start)
            (void)m_provider->startOwnerView(request->viewMax);
        else
            m_provider->stopOwnerView();
        return;
    }
    if (request->op == QLatin1String("input")) {
        (void)m_provider->ownerInput(*request->input);
        return;
    }
    auto reply = [this, id](Result<BrowserObservation> result) {
        if (m_actInFlight == id) {
            m_actInFlight = 0;
            m_gate.withdraw(); // ended before its gate was answered: that answer opens nothing
        }
        write(HostProtocol::encodeResult(id, result, HostProtocol::factsFor(m_provider, result),
                                         HostProtocol::pageEvidenceFor(m_provider, result),
                                         m_provider->engineIdentity()));
    };
    if (request->op == QLatin1String("navigate")) {
        NavigateRequest navigation{QUrl(request->url, QUrl::StrictMode), request->until};
        navigation.guarded = request->guarded;
        navigation.discardUnsaved = request->discardUnsaved;
        m_provider->navigate(navigation, reply);
    } else if (request->op == QLatin1String("idle")) {
        m_provider->waitForNetworkIdle(request->idle, [this, id](Result<bool> idle) {
            write(idle ? HostProtocol::encodeIdle(id, *idle)
                       : HostProtocol::encodeResult(id, idle.error()));
        });
    } else if (request->op == QLatin1String("observe")) {
        m_provider->observe(request->observe, reply);
    } else if (request->op == QLatin1String("act")) {
        m_actInFlight = id;
        if (request->constraint)
            m_provider->actUnderConstraint(*request->act, *request->constraint, reply);
        else
            m_provider->act(*request->act, reply);
    } else if (request->op == QLatin1String("frame")) {
        m_provider->captureFrame([this, id](Result<LiveFrame> frame) {
            write(frame ? HostProtocol::encodeFrame(id, *frame)
                        : HostProtocol::encodeResult(id, frame.error()));
        });
    } else if (request->op == QLatin1String("restore")) {
        m_provider->restoreState(*request->state, [this, id](Result<Unit> restored) {
            write(restored ? HostProtocol::encodeRestored(id)
                           : HostProtocol::encodeResult(id, restored.error()));
        });
    } else if (request->op == QLatin1String("export")) {
        m_provider->exportState(request->origins, [this, id](Result<SessionState> state) {
            write(state ? HostProtocol::encodeState(id, *state)
                        : HostProtocol::encodeResult(id, state.error()));
        });
    }
}

void HostServer::askOwner(GateAnswer answer)
{
    if (m_actInFlight == 0 || m_inputEnded) {
        answer(false);
        return;
    }
    // The owner commits dispatch_started durably, then answers; the page gets no input before.
    m_gateAct = m_actInFlight;
    m_gateTicket =
        m_gate.ask(this, GateQuestion::kHostWaitMs, [this, answer = std::move(answer)](bool open) {
            if (open && m_gateOpened)
                m_gateOpened();
            answer(open);
        });
    write(HostProtocol::encodeDispatchGate(m_gateAct));
}

void HostServer::write(const QByteArray &bytes)
{
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n =
            ::write(m_protocolFd, bytes.constData() + written, size_t(bytes.size() - written));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            QCoreApplication::exit(2);
            return;
        }
        written += n;
    }
}

} // namespace veetbot
