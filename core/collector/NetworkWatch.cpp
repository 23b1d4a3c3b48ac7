#include "NetworkWatch.h"

#include <QJsonArray>
#include <QTimer>

#include <algorithm>
#include <limits>

namespace veetbot {

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
    const StartedResources started = m_start.started();
    m_start.probe(
        Collector::settleProbeCall(started.urls),
        [this, generation, count = int(started.urls.size()),
         sinceStartMs = started.sinceLastMs.value_or(std::numeric_limits<qint64>::max())](
            std::optional<QJsonObject> resources) {
            if (generation != m_generation)
                return;
            if (!resources || !resources->value(QStringLiteral("ok")).toBool()) {
                unanswered(generation);
                return;
            }
            const int pending =
                count - int(resources->value(QStringLiteral("completed")).toArray().size());
            m_start.pageProbe(
                Collector::networkProbeCall(m_start.observerKey),
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
                });
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
    if (idle)
        done(*idle);
    else
        done(ReasonCode::ProviderUnavailable);
}

void NetworkWatch::abandon()
{
    if (active())
        finish(std::nullopt);
}

} // namespace veetbot
