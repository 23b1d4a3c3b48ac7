#include "OperationQueue.h"

#include <QTimer>

#include <utility>

namespace veetbot {

void OperationQueue::enqueue(Start start, ObservationCallback done)
{
    if (m_closed) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_waiting.push_back(Waiting{std::move(start), std::move(done)});
    if (!m_busy)
        startNext();
}

void OperationQueue::startNext()
{
    if (m_busy || m_waiting.empty())
        return;
    Waiting next = std::move(m_waiting.front());
    m_waiting.pop_front();
    m_busy = true;
    ++m_current;
    m_done = std::move(next.done);
    next.start();
}

bool OperationQueue::finish(Result<BrowserObservation> result)
{
    if (!m_busy)
        return false;
    m_busy = false;
    ++m_current; // late callbacks of this operation become stale
    const ObservationCallback done = std::exchange(m_done, nullptr);
    done(std::move(result));
    QTimer::singleShot(0, this, &OperationQueue::startNext);
    return true;
}

void OperationQueue::close(const std::function<void()> &endRunning)
{
    m_closed = true;
    std::deque<Waiting> waiting = std::exchange(m_waiting, {});
    if (m_busy)
        endRunning();
    for (Waiting &entry : waiting)
        entry.done(ReasonCode::ProviderUnavailable);
}

} // namespace veetbot
