#pragma once

#include <QObject>
#include <QString>

class QLocalServer;

namespace veetbot {

// One workbench per user: the first one listens on a private socket in the runtime directory;
// a second launch asks it to come forward (raiseRequested) and ends. A socket left by a
// workbench that is gone is replaced.
class SingleInstance : public QObject
{
    Q_OBJECT
public:
    static constexpr int kAnswerMs = 3000;

    explicit SingleInstance(QString path, QObject *parent = nullptr);
    ~SingleInstance() override;

    // True when a running workbench answered and came forward: this one should end.
    bool handOff();
    // Listens so later launches find this one; false when the socket cannot be made.
    bool listen();
    QString path() const { return m_path; }

    // The socket's path beside the approval socket `approvalSocket`.
    static QString besideApprovals(const QString &approvalSocket);

Q_SIGNALS:
    void raiseRequested();

private:
    QString m_path;
    QLocalServer *m_server = nullptr;
};

} // namespace veetbot
