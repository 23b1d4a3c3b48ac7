#pragma once

#include "collector/CollectorCalls.h"
#include "domain/observation/Settling.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <optional>

namespace veetbot {

// Drives the settling rule (domain/Settling) on a page, for every engine: one probe round
// trip first, so the requests the page started just before its load event reach the request
// stage, then the finite set of requests in flight is taken and the collector's settle probe
// is polled until the rule says capture. At most one settling runs at a time; stop() drops it, and
// no callback of a stopped settling runs.
class PageSettler : public QObject
{
    Q_OBJECT
public:
    // The readiness to capture with, or nullopt when the page did not answer a probe.
    using Done = std::function<void(std::optional<Readiness>)>;
    struct Start
    {
        CollectorRunner probe; // runs a collector call on the page (bounded in time)
        Settling::Timing timing;
        // The URLs of the settling kinds' requests the request stage let go since the load
        // started (at most Settling::kMaxRequests), oldest first: what is in flight. Asked
        // again at every round; what was added since is waited for too.
        std::function<QStringList()> startedRequests;
        bool stalledLoad = false;
        std::function<bool()> pageLoading; // asked at every round
        Settling::After after = Settling::After::Load;
    };

    using QObject::QObject;

    void start(Start start, Done done);
    void stop();
    bool active() const { return m_done != nullptr; }

private:
    void poll(quint64 generation);
    void finish(std::optional<Readiness> readiness);

    Start m_start;
    Done m_done;
    std::optional<Settling> m_settling;
    int m_reported = 0; // how many of startedRequests() the settling knows
    QElapsedTimer m_clock;
    quint64 m_generation = 0;
};

} // namespace veetbot
