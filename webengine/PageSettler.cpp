#include "PageSettler.h"

#include "Collector.h"
#include "RequestInterceptor.h"

#include <QTimer>

namespace veetbot {

PageSettler::PageSettler(const RequestInterceptor *interceptor, QObject *parent)
    : QObject(parent), m_interceptor(interceptor)
{
}

void PageSettler::start(Start start, Done done)
{
    stop();
    m_start = std::move(start);
    m_done = std::move(done);
    m_clock.start();
    const quint64 generation = m_generation;
    // Interception runs on this thread after Chromium's network thread asks for it, so a
    // request the page started just before its load event can still be queued here. One
    // round trip to the renderer first lets those reach the interceptor.
    Collector::run(m_start.page, Collector::settleProbeCall({}), m_start.scriptMs,
                   [this, generation](std::optional<QJsonObject> probe) {
                       if (generation != m_generation)
                           return;
                       if (!probe) {
                           finish(std::nullopt);
                           return;
                       }
                       QStringList inFlight;
                       const auto started =
                           m_interceptor->startedSince(m_start.loadStartMs, Settling::kMaxRequests);
                       for (const auto &request : started)
                           inFlight.append(QString::fromUtf8(request.url.toEncoded()));
                       m_settling.emplace(m_start.timing, inFlight, m_start.stalledLoad);
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
    Collector::run(m_start.page, Collector::settleProbeCall(m_settling->inFlight()),
                   m_start.scriptMs, [this, generation](std::optional<QJsonObject> probe) {
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
