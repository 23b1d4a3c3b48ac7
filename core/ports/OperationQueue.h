#pragma once

#include "BrowserProvider.h"

#include <QObject>

#include <deque>
#include <functional>

namespace veetbot {

// The operation lock the provider port promises: operations run one at a time in arrival
// order, and each is answered exactly once. Every operation gets a new number; a callback that
// outlives its operation (a late script answer, a timer) asks isCurrent() with the number it
// started under and stands down. It never answers from inside enqueue() except after close().
class OperationQueue : public QObject
{
    Q_OBJECT
public:
    using Start = std::function<void()>;

    using QObject::QObject;

    // Starts `start` now when nothing runs, else after the operations queued before it; `done`
    // gets its answer through finish(). After close() `done` is answered provider_unavailable
    // at once and `start` never runs.
    void enqueue(Start start, ObservationCallback done);
    bool busy() const { return m_busy; }
    bool closed() const { return m_closed; }
    // The number of the running operation (or of the last one, when none runs).
    quint64 current() const { return m_current; }
    bool isCurrent(quint64 operation) const { return m_busy && operation == m_current; }
    // Answers the running operation with `result`: from now on no callback of it is current.
    // The next operation starts on the next pass of the event loop. False when none runs.
    bool finish(Result<BrowserObservation> result);
    // Refuses every later operation, then lets `endRunning` end the running one (it must call
    // finish()), then answers every waiting one provider_unavailable, in order.
    void close(const std::function<void()> &endRunning);

private:
    void startNext();

    struct Waiting
    {
        Start start;
        ObservationCallback done;
    };
    std::deque<Waiting> m_waiting;
    ObservationCallback m_done;
    bool m_busy = false;
    bool m_closed = false;
    quint64 m_current = 0;
};

} // namespace veetbot
