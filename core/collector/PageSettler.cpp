#include "PageSettler.h"

#include <QTimer>

namespace veetbot {

void PageSettler::start(Start start, Done done)
{
    stop();
    m_start = std::move(start);
    m_done = std::move(done);
    m_clock.start();
    const quint64 generation = m_generation;
    // The request stage hears of a request after the renderer asked for it, so a request the
    // page started just before its load event can still be on its way here. One round trip to
    // the renderer first lets those arrive.
    m_start.probe(
        Collector::settleProbeCall({}), [this, generation](std::optional<QJsonObject> probe) {
            if (generation != m_generation)
                return;
            if (!probe) {
                finish(std::nullopt);
                return;
            }
            const QStringList started = m_start.startedRequests();
            m_reported = started.size();
            m_settling.emplace(m_start.timing, started, m_start.stalledLoad, m_start.after);
            poll(generation);
        });
}

void PageSettler::stop()
{
    ++m_generation;
    m_done = nullptr;
    m_settling.reset();
}

void PageSettler::poll(quint64 generation)
{
    if (const auto bound = m_settling->expired(m_clock.elapsed())) {
        finish(bound);
        return;
    }
    // Requests reported since the last round are waited for too (Settling::addStarted).
    const QStringList started = m_start.startedRequests();
    if (started.size() > m_reported) {
        m_settling->addStarted(started.mid(m_reported), m_clock.elapsed());
        m_reported = started.size();
    }
    m_start.probe(Collector::settleProbeCall(m_settling->inFlight()),
                  [this, generation](std::optional<QJsonObject> probe) {
                      if (generation != m_generation)
                          return;
                      if (!probe || !probe->value(QStringLiteral("ok")).toBool()) {
                          finish(std::nullopt); // the page does not answer
                          return;
                      }
                      const Settling::Step step =
                          m_settling->round(*probe, m_start.pageLoading(), m_clock.elapsed());
                      if (step.capture) {
                          finish(step.capture);
                          return;
                      }
                      QTimer::singleShot(step.waitMs, this, [this, generation] {
                          if (generation == m_generation)
                              poll(generation);
                      });
                  });
}

void PageSettler::finish(std::optional<Readiness> readiness)
{
    Done done = std::move(m_done);
    stop();
    done(readiness);
}

} // namespace veetbot
