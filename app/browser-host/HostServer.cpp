#include "HostServer.h"

#include "isolation/HostProtocol.h"
#include "ports/BrowserProvider.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace veetbot {

HostServer::HostServer(BrowserProvider *provider, int protocolFd, QObject *parent)
    : QObject(parent), m_provider(provider), m_protocolFd(protocolFd),
      m_notifier(new QSocketNotifier(STDIN_FILENO, QSocketNotifier::Read, this))
{
    ::fcntl(STDIN_FILENO, F_SETFL, ::fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    connect(m_notifier, &QSocketNotifier::activated, this, &HostServer::readInput);
}

void HostServer::announceReady()
{
    write(HostProtocol::encodeReady());
}

void HostServer::readInput()
{
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n > 0) {
            m_buffer.append(chunk, n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        // End of input (or an error): the owner is gone.
        m_notifier->setEnabled(false);
        m_provider->close();
        QCoreApplication::quit();
        return;
    }
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        handleLine(line);
    }
    if (m_buffer.size() > 65536) {
        m_notifier->setEnabled(false);
        QCoreApplication::exit(2);
    }
}

void HostServer::handleLine(const QByteArray &line)
{
    const auto request = HostProtocol::decodeRequest(line);
    if (!request) {
        // The owner speaks the protocol; anything else ends the host.
        m_notifier->setEnabled(false);
        QCoreApplication::exit(2);
        return;
    }
    const quint64 id = request->id;
    auto reply = [this, id](Result<BrowserObservation> result) {
        write(HostProtocol::encodeResult(id, result));
    };
    if (request->op == QLatin1String("navigate"))
        m_provider->navigate(NavigateRequest{QUrl(request->url, QUrl::StrictMode)}, reply);
    else
        m_provider->observe(request->observe, reply);
}

void HostServer::write(const QByteArray &bytes)
{
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(m_protocolFd, bytes.constData() + written,
                                  size_t(bytes.size() - written));
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
