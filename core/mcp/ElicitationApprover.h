#pragma once

#include "JsonRpcChannel.h"
#include "ports/Approver.h"

#include <QHash>
#include <QPointer>

#include <functional>

namespace veetbot::mcp {

// Approval through MCP elicitation (`veetbot mcp --approver elicitation`): each request is an
// `elicitation/create` to the client with a fixed message holding the approval view and a
// required {approve: boolean} schema. Only `accept` with `approve: true` approves; decline is
// Declined, cancel is Cancelled, an error reply, a malformed answer or a client without the
// elicitation capability is Failed. Withdrawing a request cancels it at the client. The wait
// itself is bounded by Approvals (25 s).
class ElicitationApprover final : public Approver
{
    Q_OBJECT
public:
    // `clientSupportsElicitation` is read at each request (the client declares it at
    // initialize).
    ElicitationApprover(JsonRpcChannel &channel, std::function<bool()> clientSupportsElicitation,
                        QObject *parent = nullptr);

    void requestApproval(const ApprovalRequest &request, AnswerCallback done) override;
    void cancel(quint64 id) override;

    // The elicitation/create parameters for a question: its view, and with a task-grant
    // offer a second boolean, for_task, that (with approve) answers approve_for_task.
    static QJsonObject elicitationParams(const ApprovalRequest &request);

private:
    struct Pending
    {
        QJsonValue requestId;
        AnswerCallback done;
    };
    void settle(quint64 id, ApprovalAnswer answer);

    QPointer<JsonRpcChannel> m_channel;
    std::function<bool()> m_clientSupportsElicitation;
    QHash<quint64, Pending> m_pending;
};

} // namespace veetbot::mcp
