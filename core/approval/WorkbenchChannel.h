#pragma once

#include "ports/Approver.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

#include <optional>

class QLocalServer;
class QLocalSocket;

namespace veetbot {

// The private channel between local agents (`veetbot mcp --approver workbench`) and the
// owner's running workbench, which answers their approval questions with its cards.
//
// Where: `approvals.sock` in the runtime directory (ServiceLocation: 0700, this user's), the
// socket itself 0600. What: one JSON object per line, at most kMaxLineBytes:
//   agent -> workbench  {"ask":{"id":N,"view":{...},"offer":{...},"offer_refused":"code"}}
//                       {"cancel":{"id":N}}
//   workbench -> agent  {"answer":{"id":N,"answer":"approved"|"approved_for_task"|"denied"}}
// `view` is ApprovalView::toJson() (typed text shown to the owner, secrets already redacted),
// `offer` TaskGrantOffer::toJson(); both are optional members only where stated. Anything
// malformed closes the connection, which denies everything pending on it.
namespace WorkbenchChannel {
inline constexpr qsizetype kMaxLineBytes = 64 * 1024;
QString socketPath(const QString &runtimeDirectory);
} // namespace WorkbenchChannel

// The agent's side: an Approver that asks the workbench. Only an "approved" or
// "approved_for_task" answer approves; a closed card, a closed workbench, a lost connection
// or no workbench at all deny. It never decides anything itself.
class WorkbenchApprover final : public Approver
{
    Q_OBJECT
public:
    explicit WorkbenchApprover(QString socketPath, QObject *parent = nullptr);
    ~WorkbenchApprover() override;

    // Connects now, waiting at most timeoutMs: false when no workbench listens. A question
    // asked while not connected tries once more (for a second), then is denied at once.
    bool connectToWorkbench(int timeoutMs = 2000);
    bool isConnected() const;

    void requestApproval(const ApprovalRequest &request, AnswerCallback done) override;
    void cancel(quint64 id) override;
    // Questions no owner could answer: no workbench was there to ask, or it went away before
    // it answered. Each was denied (docs/schedules.md: refused, and noticed).
    int unanswered() const { return m_unanswered; }

private:
    void readAnswers();
    void failAll();
    void settle(quint64 id, ApprovalAnswer answer);
    bool send(const QJsonObject &message);

    QString m_path;
    QLocalSocket *m_socket = nullptr;
    QHash<quint64, AnswerCallback> m_pending;
    int m_unanswered = 0;
};

// The workbench's side: listens on the socket and turns each question into asked(); the owner's
// answer goes back with answer(). A question is withdrawn (withdrawn()) when its agent cancels
// it or goes away.
class ApprovalBroker final : public QObject
{
    Q_OBJECT
public:
    struct Question
    {
        quint64 key = 0; // this broker's own handle, unique across agents
        QJsonObject view;
        std::optional<QJsonObject> offer;
        QString offerRefused;
    };

    explicit ApprovalBroker(QObject *parent = nullptr);
    ~ApprovalBroker() override;

    // Listens at path (a private runtime directory; the socket 0600). A socket left there by
    // a workbench that is gone is replaced; false when another workbench is listening.
    bool listen(const QString &path);
    QString path() const;

    // Answers one question: Approved, ApprovedForTask (only when it carried an offer) or
    // anything else, which denies. Unknown or withdrawn keys are ignored.
    void answer(quint64 key, ApprovalAnswer answer);
    int pendingCount() const { return int(m_questions.size()); }
    // Agents connected now (each `veetbot mcp --approver workbench` or task run holds one
    // connection while it runs).
    int connectedAgents() const { return int(m_connections.size()); }

Q_SIGNALS:
    void asked(const veetbot::ApprovalBroker::Question &question);
    void withdrawn(quint64 key);
    void agentsChanged(int connected);

private:
    struct Origin
    {
        QPointer<QLocalSocket> socket;
        quint64 id = 0;
        bool offered = false;
    };

    void accept();
    void read(QLocalSocket *socket);
    void dropConnection(QLocalSocket *socket);

    QLocalServer *m_server = nullptr;
    quint64 m_nextKey = 1;
    QHash<quint64, Origin> m_questions;
    QSet<QLocalSocket *> m_connections;
};

} // namespace veetbot
