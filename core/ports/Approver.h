#pragma once

#include "domain/action/ApprovalView.h"
#include "domain/authority/TaskGrant.h"

#include <QObject>

#include <functional>
#include <optional>

namespace veetbot {

// How one approval request ended. Only Approved and ApprovedForTask approve; every other
// answer is a denial.
enum class ApprovalAnswer
{
    Approved,
    ApprovedForTask, // approve_for_task: this action once, and the offered task grant (an
                     // answer to a request without an offer approves once only)
    Declined,
    Cancelled,
    Failed, // the approver could not ask or could not read the answer
    TimedOut
};

inline bool approves(ApprovalAnswer answer)
{
    return answer == ApprovalAnswer::Approved || answer == ApprovalAnswer::ApprovedForTask;
}

// One question to the owner: the view of the pending action and an id to withdraw it by.
// The request carries the view only: never the element reference, the page revision or the
// arguments themselves. It may carry a task-grant offer (docs/authority.md); when the owner
// chose it and no grant could be made, the same question comes again without the offer and
// with the reason's stable code in offerRefused.
struct ApprovalRequest
{
    quint64 id = 0;
    ApprovalView view;
    std::optional<TaskGrantOffer> offer;
    QString offerRefused;
};

// The approval port: asks the owner, asynchronously, whether one browser.act call may run.
// Implementations: DenyApprover (the default), ScriptedApprover (tests), TerminalApprover; an
// MCP elicitation approver and the workbench card come on the same port. The caller
// (Approvals) bounds the wait, withdraws a request with cancel(), and treats every answer but
// Approved as a denial; an implementation must never approve by default.
class Approver : public QObject
{
    Q_OBJECT
public:
    using AnswerCallback = std::function<void(ApprovalAnswer)>;

    using QObject::QObject;
    ~Approver() override = default;

    // Asks about `request`; `done` runs at most once, never from inside this call.
    virtual void requestApproval(const ApprovalRequest &request, AnswerCallback done) = 0;
    // Withdraws a pending request: its callback runs with Cancelled if it has not run yet.
    virtual void cancel(quint64 id) = 0;
};

} // namespace veetbot
