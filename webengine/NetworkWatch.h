#pragma once

#include "domain/observation/NetworkIdle.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QWebEnginePage;

namespace veetbot {

class RequestInterceptor;

// Drives the network-idle rule (domain/NetworkIdle) on a verification browser's page. Each
// round reads three things: the documents, scripts and stylesheets the interceptor saw start
// since the navigation began (the main document excepted: it is whole by DOMContentLoaded),
// which of them resource timing reports finished (the collector's settle probe), and the
// main-world observer's count of the page's own requests (resources/collector/network.js).
// At most one wait runs at a time; stop() drops it, and no callback of a stopped wait runs.
class NetworkWatch : public QObject
{
    Q_OBJECT
public:
    // true: idle; false: the bound passed first; nullopt: the page did not answer a probe.
    using Done = std::function<void(std::optional<bool>)>;
    struct Start
    {
        QWebEnginePage *page = nullptr;
        QString observerKey; // the main-world observer's name on this page
        NetworkIdle::Timing timing;
        int scriptMs = 5000;    // any single probe
        qint64 loadStartMs = 0; // the interceptor's clock: the navigation's start
        // Whether another document the page itself navigated to is on its way: the network is
        // busy until it has loaded.
        std::function<bool()> documentOnItsWay;
    };

    explicit NetworkWatch(const RequestInterceptor *interceptor, QObject *parent = nullptr);

    void start(Start start, Done done);
    void stop();
    bool active() const { return m_done != nullptr; }

private:
    void poll(quint64 generation);
    // A probe the page did not answer.
    void unanswered(quint64 generation);
    void finish(std::optional<bool> idle);

    const RequestInterceptor *m_interceptor;
    Start m_start;
    Done m_done;
    std::optional<NetworkIdle> m_rule;
    QElapsedTimer m_clock;
    quint64 m_generation = 0;
    int m_lastPending = -1;
    qint64 m_lastFinishedAtMs = 0; // this wait's clock: when a resource was last seen finished
};

} // namespace veetbot
