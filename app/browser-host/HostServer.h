#pragma once

#include <QByteArray>
#include <QObject>

class QSocketNotifier;

namespace veetbot {

class BrowserProvider;

// Serves the host protocol (core/isolation/HostProtocol.h) on stdin and a private copy of
// the original stdout. Requests go to the provider one at a time, in arrival order (the
// provider's own operation lock); end of input closes the provider and quits.
class HostServer : public QObject
{
    Q_OBJECT
public:
    HostServer(BrowserProvider *provider, int protocolFd, QObject *parent = nullptr);

    void announceReady();

private:
    void readInput();
    void handleLine(const QByteArray &line);
    void write(const QByteArray &bytes);

    BrowserProvider *m_provider;
    int m_protocolFd;
    QSocketNotifier *m_notifier;
    QByteArray m_buffer;
};

} // namespace veetbot
