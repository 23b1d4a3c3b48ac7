#include "ElicitationApprover.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

namespace veetbot::mcp {

ElicitationApprover::ElicitationApprover(JsonRpcChannel &channel,
                                         std::function<bool()> clientSupportsElicitation,
                                         QObject *parent)
    : Approver(parent), m_channel(&channel),
      m_clientSupportsElicitation(std::move(clientSupportsElicitation))
{
}

QJsonObject ElicitationApprover::elicitationParams(const ApprovalRequest &request)
{
    // A fixed frame around the view; the view's website strings are already quoted and
    // escaped, its secrets redacted, and it never holds a ref or revision.
    QString message = QStringLiteral("Veetbot asks for your approval of one browser "
                                     "action. It runs once, on the element described, "
                                     "only if you approve.\n\n") +
                      request.view.toText();
    if (!request.offerRefused.isEmpty())
        message += QStringLiteral("\n\nNo task grant could be made (%1); approve once or deny.")
                       .arg(request.offerRefused);
    QJsonObject properties{
        {QStringLiteral("approve"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                     {QStringLiteral("title"), QStringLiteral("Approve")},
                     {QStringLiteral("description"), QStringLiteral("Run this action once.")}}}};
    if (request.offer) {
        message += QStringLiteral("\n\n") + request.offer->toText();
        properties.insert(
            QStringLiteral("for_task"),
            QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                        {QStringLiteral("title"), QStringLiteral("Approve for this task")},
                        {QStringLiteral("description"), request.offer->toText()}});
    }
    return QJsonObject{
        {QStringLiteral("message"), message},
        {QStringLiteral("requestedSchema"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                     {QStringLiteral("properties"), properties},
                     {QStringLiteral("required"), QJsonArray{QStringLiteral("approve")}}}},
    };
}

void ElicitationApprover::requestApproval(const ApprovalRequest &request, AnswerCallback done)
{
    const quint64 id = request.id;
    m_pending.insert(id, Pending{QJsonValue(), std::move(done)});
    if (!m_channel || !m_clientSupportsElicitation || !m_clientSupportsElicitation()) {
        QTimer::singleShot(0, this, [this, id] { settle(id, ApprovalAnswer::Failed); });
        return;
    }
    QPointer<ElicitationApprover> self(this);
    const QJsonValue requestId = m_channel->sendRequest(
        QStringLiteral("elicitation/create"), elicitationParams(request),
        [self, id, offered = request.offer.has_value()](const JsonRpcReply &reply) {
            if (!self)
                return;
            if (!reply.ok || !reply.result.isObject()) {
                self->settle(id, ApprovalAnswer::Failed);
                return;
            }
            const QJsonObject result = reply.result.toObject();
            const QString action = result.value(QLatin1String("action")).toString();
            if (action == QLatin1String("accept")) {
                const QJsonObject content = result.value(QLatin1String("content")).toObject();
                const bool approve = content.value(QLatin1String("approve")) == QJsonValue(true);
                // approve_for_task needs both: the approval of this action and the offer.
                const bool forTask =
                    offered && content.value(QLatin1String("for_task")) == QJsonValue(true);
                self->settle(id, !approve  ? ApprovalAnswer::Declined
                                 : forTask ? ApprovalAnswer::ApprovedForTask
                                           : ApprovalAnswer::Approved);
            } else if (action == QLatin1String("decline")) {
                self->settle(id, ApprovalAnswer::Declined);
            } else if (action == QLatin1String("cancel")) {
                self->settle(id, ApprovalAnswer::Cancelled);
            } else {
                self->settle(id, ApprovalAnswer::Failed);
            }
        });
    const auto it = m_pending.find(id);
    if (it != m_pending.end())
        it->requestId = requestId;
}

void ElicitationApprover::cancel(quint64 id)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    const QJsonValue requestId = it->requestId;
    settle(id, ApprovalAnswer::Cancelled);
    if (m_channel && !requestId.isUndefined() && !requestId.isNull())
        m_channel->cancelRequest(requestId); // its reply handler finds nothing pending
}

void ElicitationApprover::settle(quint64 id, ApprovalAnswer answer)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    AnswerCallback done = std::move(it->done);
    m_pending.erase(it);
    if (done)
        done(answer);
}

} // namespace veetbot::mcp
