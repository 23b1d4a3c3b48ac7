#include "SingleInstance.h"

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>

namespace veetbot {

namespace {

constexpr char kRaise[] = "raise\n";
constexpr char kRaised[] = "raised\n";

} // namespace

SingleInstance::SingleInstance(QString path, QObject *parent)
    : QObject(parent), m_path(std::move(path))
{
}

SingleInstance::~SingleInstance() = default;

QString SingleInstance::besideApprovals(const QString &approvalSocket)
{
    return QFileInfo(approvalSocket).dir().filePath(QStringLiteral("workbench-instance.sock"));
}

bool SingleInstance::handOff()
{
    QLocalSocket socket;
    socket.connectToServer(m_path);
    if (!socket.waitForConnected(kAnswerMs))
        return false; // nobody listens (or a socket left by a workbench that is gone)
    socket.write(kRaise);
    if (!socket.waitForBytesWritten(kAnswerMs))
        return false;
    QByteArray answer;
    while (!answer.endsWith('\n') && answer.size() < 64 && socket.waitForReadyRead(kAnswerMs))
        answer += socket.readAll();
    return answer == QByteArray(kRaised);
}

bool SingleInstance::listen()
{
    if (!m_server) {
        m_server = new QLocalServer(this);
        m_server->setSocketOptions(QLocalServer::UserAccessOption);
        connect(m_server, &QLocalServer::newConnection, this, [this] {
            while (QLocalSocket *socket = m_server->nextPendingConnection()) {
                socket->setParent(this);
                socket->setReadBufferSize(64);
                connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
                connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
                    if (!socket->canReadLine()) {
                        if (socket->bytesAvailable() >= 64)
                            socket->abort();
                        return;
                    }
                    if (socket->readLine(64) != QByteArray(kRaise)) {
                        socket->abort();
                        return;
                    }
                    socket->write(kRaised);
                    socket->disconnectFromServer();
                    Q_EMIT raiseRequested();
                });
            }
        });
    }
    if (m_server->isListening())
        return true;
    QLocalServer::removeServer(m_path); // a socket file left by a workbench that is gone
    return m_server->listen(m_path);
}

} // namespace veetbot
