#pragma once

#include "domain/ApprovalView.h"

#include <QObject>

#include <functional>

namespace veetbot {

// How one approval request ended. Only Approved approves; every other answer is a denial.
enum class ApprovalAnswer
{
    Approved,
    Declined,
    Cancelled,
    Failed, // the approver could not ask or could not read the answer
    TimedOut
};

inline bool approves(ApprovalAnswer answer)
{
    return answer == ApprovalAnswer::Approved;
}

// One question to the owner: the view of the pending action and an id to withdraw it by.
// The request carries the view only: never the element reference, the page revision or the
// arguments themselves.
struct ApprovalRequest
{
    quint64 id = 0;
    ApprovalView view;
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
