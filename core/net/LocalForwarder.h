#pragma once

#include <QObject>
#include <QString>

class QTcpServer;

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

private:
    void acceptPending();

    QString m_proxySocketPath;
    QTcpServer *m_server = nullptr;
};

} // namespace veetbot
