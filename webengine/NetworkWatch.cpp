#include "NetworkWatch.h"

#include "Collector.h"
#include "RequestInterceptor.h"
#include "domain/observation/Settling.h"

#include <QJsonArray>
#include <QTimer>
#include <QWebEnginePage>
#include <QWebEngineScript>

#include <algorithm>
#include <limits>

namespace veetbot {

NetworkWatch::NetworkWatch(const RequestInterceptor *interceptor, QObject *parent)
    : QObject(parent), m_interceptor(interceptor)
{
}

void NetworkWatch::start(Start start, Done done)
{
    stop();
    m_start = std::move(start);
    m_done = std::move(done);
    m_rule.emplace(m_start.timing);
    m_lastPending = -1;
    m_lastFinishedAtMs = 0;
    m_clock.start();
    poll(m_generation);
}

void NetworkWatch::stop()
{
    ++m_generation;
    m_done = nullptr;
    m_rule.reset();
}

void NetworkWatch::poll(quint64 generation)
{
    // The resources started since the navigation began, oldest first, bounded like settling.
    QStringList started;
    qint64 lastStartMs = -1;
    const auto requests =
        m_interceptor->startedSince(m_start.loadStartMs, 4 * Settling::kMaxRequests);
    for (const RequestInterceptor::StartedRequest &request : requests) {
        // The main document is whole by DOMContentLoaded; the page's own requests are the
        // observer's.
        if (request.kind != RequestInterceptor::StartedRequest::Kind::Resource ||
            started.size() >= Settling::kMaxRequests)
            continue;
        started.append(QString::fromUtf8(request.url.toEncoded()));
        lastStartMs = request.startedAtMs;
    }
    Collector::run(
        m_start.page, Collector::settleProbeCall(started), m_start.scriptMs,
        [this, generation, count = int(started.size()),
         sinceStartMs = lastStartMs < 0 ? std::numeric_limits<qint64>::max()
                                        : m_interceptor->nowMs() -
                                              lastStartMs](std::optional<QJsonObject> resources) {
            if (generation != m_generation)
                return;
            if (!resources || !resources->value(QStringLiteral("ok")).toBool()) {
                unanswered(generation);
                return;
            }
            const int pending =
                count - int(resources->value(QStringLiteral("completed")).toArray().size());
            Collector::run(
                m_start.page, Collector::networkProbeCall(m_start.observerKey), m_start.scriptMs,
                [this, generation, pending, sinceStartMs](std::optional<QJsonObject> page) {
                    if (generation != m_generation)
                        return;
                    if (!page) {
                        unanswered(generation);
                        return;
                    }
                    const qint64 elapsed = m_clock.elapsed();
                    // A resource seen finished in this round finished since the last one.
                    if (m_lastPending >= 0 && pending < m_lastPending)
                        m_lastFinishedAtMs = elapsed;
                    m_lastPending = pending;
                    NetworkIdle::Probe probe;
                    // A document the observer does not answer for (not yet, or no longer the
                    // page's) has not loaded as far as this wait knows.
                    probe.contentLoaded = page->value(QStringLiteral("ok")).toBool() &&
                                          page->value(QStringLiteral("loaded")).toBool() &&
                                          !(m_start.documentOnItsWay && m_start.documentOnItsWay());
                    probe.pendingResources = pending;
                    probe.pageRequests = qMax(0, page->value(QStringLiteral("inFlight")).toInt());
                    probe.quietMs = std::min<qint64>(
                        {qint64(page->value(QStringLiteral("quietMs")).toDouble()), sinceStartMs,
                         m_lastPending >= 0 && m_lastFinishedAtMs > 0
                             ? elapsed - m_lastFinishedAtMs
                             : std::numeric_limits<qint64>::max()});
                    const NetworkIdle::Step step = m_rule->round(probe, elapsed);
                    if (step.idle) {
                        finish(*step.idle);
                        return;
                    }
                    QTimer::singleShot(step.waitMs, this, [this, generation] {
                        if (generation == m_generation)
                            poll(generation);
                    });
                },
                QWebEngineScript::MainWorld);
        });
}

void NetworkWatch::unanswered(quint64 generation)
{
    // While a document the page navigated to replaces the old one, neither may answer; that is
    // a busy network, not a stuck page, until the bound.
    if (!m_start.documentOnItsWay || !m_start.documentOnItsWay()) {
        finish(std::nullopt);
        return;
    }
    if (m_clock.elapsed() >= m_start.timing.boundMs) {
        finish(false);
        return;
    }
    QTimer::singleShot(m_start.timing.pollMs, this, [this, generation] {
        if (generation == m_generation)
            poll(generation);
    });
}

void NetworkWatch::finish(std::optional<bool> idle)
{
    Done done = std::move(m_done);
    stop();
    done(idle);
}

} // namespace veetbot
