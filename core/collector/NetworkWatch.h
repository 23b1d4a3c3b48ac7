#pragma once

#include "collector/CollectorCalls.h"
#include "domain/Result.h"
#include "domain/observation/NetworkIdle.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace veetbot {

// Drives the network-idle rule (domain/NetworkIdle) on a verification browser's page, for every
// engine. Each round reads three things: the frame documents, scripts and stylesheets the
// request stage let go since the navigation began (the main document excepted: it is whole by
// DOMContentLoaded), which of them resource timing reports finished (the collector's settle
// probe), and the main-world observer's count of the page's own requests
// (resources/collector/network.js). At most one wait runs at a time; stop() drops it, and no
// callback of a stopped wait runs.
class NetworkWatch : public QObject
{
    Q_OBJECT
public:
    // true: idle; false: the bound passed first; tool.browser.provider_unavailable: the page
    // did not answer a probe, or the wait was abandoned.
    using Done = std::function<void(Result<bool>)>;
    // The resources the request stage let go since the navigation began (the main document
    // and the page's own requests excepted), oldest first, at most Settling::kMaxRequests; and
    // how long ago the last of them started.
    struct StartedResources
    {
        QStringList urls;
        std::optional<qint64> sinceLastMs;
    };
    struct Start
    {
        CollectorRunner probe;     // the collector's world: the settle probe
        CollectorRunner pageProbe; // the page's main world: the observer's probe
        QString observerKey;       // the main-world observer's name on this page
        NetworkIdle::Timing timing;
        std::function<StartedResources()> started;
        // Whether another document the page itself navigated to is on its way: the network is
        // busy until it has loaded.
        std::function<bool()> documentOnItsWay;
    };

    using QObject::QObject;

    void start(Start start, Done done);
    void stop();
    // Ends a wait in progress, answering it tool.browser.provider_unavailable (the browser is
    // closing).
    void abandon();
    bool active() const { return m_done != nullptr; }

private:
    void poll(quint64 generation);
    // A probe the page did not answer.
    void unanswered(quint64 generation);
    void finish(std::optional<bool> idle);

    Start m_start;
    Done m_done;
    std::optional<NetworkIdle> m_rule;
    QElapsedTimer m_clock;
    quint64 m_generation = 0;
    int m_lastPending = -1;
    qint64 m_lastFinishedAtMs = 0; // this wait's clock: when a resource was last seen finished
};

} // namespace veetbot
