#pragma once

#include "domain/action/DispatchGate.h"

#include <QObject>

#include <memory>

namespace veetbot {

// One question to a dispatch gate and its one answer: the small state machine that the isolated
// host, the isolated provider, the service's session host and its client share
// (docs/actions.md "Dispatch").
//
//   idle --ask--> asked --answer(open)--> opened
//                       --answer(closed), the wait passing, withdraw(), ask() again--> closed
//
// The asker hears exactly one answer. An answer carries the ticket ask() gave, so an answer
// meant for an earlier question (late, or a replay) answers nothing. Copies share the one
// question (a holder may keep it in a container).
class GateQuestion
{
public:
    enum class State
    {
        Idle,
        Asked,
        Opened,
        Closed
    };

    // How long the isolated browser host waits at an act's gate for its owner's answer.
    static constexpr int kHostWaitMs = 10'000;
    // How long the profile service waits for its client's answer: inside the host's wait, so
    // the host hears the service's answer (or its close) before it gives up.
    static constexpr int kServiceWaitMs = 8'000;

    GateQuestion();

    // Asks; `decided` hears the answer. A question still pending is closed first (its asker
    // hears closed). Unanswered after `waitMs`, the question closes; the timer lives no longer
    // than `context`. The ticket names this question to answer().
    quint64 ask(QObject *context, int waitMs, GateAnswer decided);
    // The gate's answer to question `ticket`: false, changing nothing, when that question is
    // not the one pending.
    bool answer(quint64 ticket, bool open);
    // Closes the pending question, if any (its act ended, its answerer went away).
    void withdraw();

    State state() const;
    bool pending() const { return state() == State::Asked; }
    // The pending (or last) question's ticket; 0 before the first.
    quint64 ticket() const;

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;
};

} // namespace veetbot
