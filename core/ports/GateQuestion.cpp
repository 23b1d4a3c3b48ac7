#include "GateQuestion.h"

#include <QTimer>

#include <atomic>
#include <utility>

namespace veetbot {

namespace {

std::atomic<quint64> nextTicket{1};

} // namespace

struct GateQuestion::Shared
{
    State state = State::Idle;
    quint64 ticket = 0;
    GateAnswer decided;
};

GateQuestion::GateQuestion() : m_shared(std::make_shared<Shared>()) {}

quint64 GateQuestion::ask(QObject *context, int waitMs, GateAnswer decided)
{
    withdraw();
    const quint64 ticket = nextTicket.fetch_add(1);
    m_shared->state = State::Asked;
    m_shared->ticket = ticket;
    m_shared->decided = std::move(decided);
    // The timer holds the question too: it closes even when every holder dropped it.
    QTimer::singleShot(waitMs, context, [question = *this, ticket]() mutable {
        (void)question.answer(ticket, false);
    });
    return ticket;
}

bool GateQuestion::answer(quint64 ticket, bool open)
{
    if (m_shared->state != State::Asked || ticket != m_shared->ticket)
        return false;
    m_shared->state = open ? State::Opened : State::Closed;
    // The asker may ask again from inside its answer: take the callback first.
    std::exchange(m_shared->decided, nullptr)(open);
    return true;
}

void GateQuestion::withdraw()
{
    (void)answer(m_shared->ticket, false);
}

GateQuestion::State GateQuestion::state() const
{
    return m_shared->state;
}

quint64 GateQuestion::ticket() const
{
    return m_shared->ticket;
}

} // namespace veetbot
