#pragma once

#include "ports/Approver.h"

#include <QHash>
#include <QIODevice>
#include <QList>
#include <QPointer>

namespace veetbot {

// The default approver: declines every request (asynchronously, like any approver).
class DenyApprover final : public Approver
{
    Q_OBJECT
public:
    using Approver::Approver;
    void requestApproval(const ApprovalRequest &request, AnswerCallback done) override;
    void cancel(quint64 id) override;
};

// A test approver: answers requests from a script of answers, in order; with the script
// empty a request waits until answerPending() or cancel(). It records every request it saw.
class ScriptedApprover final : public Approver
{
    Q_OBJECT
public:
    using Approver::Approver;
    void enqueue(ApprovalAnswer answer) { m_script.append(answer); }
    void requestApproval(const ApprovalRequest &request, AnswerCallback done) override;
    void cancel(quint64 id) override;

    // Answers the oldest waiting request; false when none waits.
    bool answerPending(ApprovalAnswer answer);
    int pendingCount() const { return int(m_pending.size()); }
    const QList<ApprovalRequest> &requests() const { return m_requests; }

private:
    QList<ApprovalAnswer> m_script;
    QList<std::pair<quint64, AnswerCallback>> m_pending;
    QList<ApprovalRequest> m_requests;
};

// Asks on a terminal: writes the view and "Approve? [y/N] " to `out` and reads one line from
// `in`. Only "y" or "yes" (any case, surrounding white space ignored) approves; with a
// task-grant offer the prompt states it and "t" or "task" approves for the task; any other
// line declines; end of input, a closed device or a second concurrent request fails (a
// denial).
// The devices are borrowed and must outlive the approver.
class TerminalApprover final : public Approver
{
    Q_OBJECT
public:
    TerminalApprover(QIODevice *in, QIODevice *out, QObject *parent = nullptr);
    void requestApproval(const ApprovalRequest &request, AnswerCallback done) override;
    void cancel(quint64 id) override;

private:
    void readAnswer();
    void finish(ApprovalAnswer answer);

    QPointer<QIODevice> m_in;
    QPointer<QIODevice> m_out;
    quint64 m_pendingId = 0;
    bool m_offered = false; // the pending question offers a task grant ("t" accepts it)
    AnswerCallback m_pending;
    QByteArray m_line;
};

} // namespace veetbot
