#pragma once

#include "domain/Settling.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <optional>

class QWebEnginePage;

namespace veetbot {

class RequestInterceptor;

// Drives the settling rule (domain/Settling) on a page: one probe round trip first, so the
// requests the page started just before its load event reach the interceptor, then the
// finite set of requests in flight is taken and the collector's settle probe is polled until
// the rule says capture. At most one settling runs at a time; stop() drops it, and no
// callback of a stopped settling runs.
class PageSettler : public QObject
{
    Q_OBJECT
public:
    // The readiness to capture with, or nullopt when the page did not answer a probe.
    using Done = std::function<void(std::optional<Readiness>)>;
    struct Start
    {
        QWebEnginePage *page = nullptr;
        Settling::Timing timing;
        int scriptMs = 5000;    // any single probe
        qint64 loadStartMs = 0; // the interceptor's clock: requests since then are in flight
        bool stalledLoad = false;
        std::function<bool()> pageLoading; // asked at every round
    };

    explicit PageSettler(const RequestInterceptor *interceptor, QObject *parent = nullptr);

    void start(Start start, Done done);
    void stop();
    bool active() const { return m_done != nullptr; }

private:
    void poll(quint64 generation);
    void finish(std::optional<Readiness> readiness);

    const RequestInterceptor *m_interceptor;
    Start m_start;
    Done m_done;
    std::optional<Settling> m_settling;
    QElapsedTimer m_clock;
    quint64 m_generation = 0;
};

} // namespace veetbot
