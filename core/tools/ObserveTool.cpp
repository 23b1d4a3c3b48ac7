#include "ObserveTool.h"

#include <QTimer>

namespace veetbot {

WaitOutcome::Status ObserveTool::evaluate(const VisiblePredicate &predicate,
                                          const QList<ElementRecord> &elements)
{
    int matches = 0;
    int inState = 0;
    for (const ElementRecord &element : elements) {
        if (!predicate.matchesRoleAndName(element))
            continue;
        ++matches;
        if (predicate.matchesState(element))
            ++inState;
    }
    if (matches > 1)
        return WaitOutcome::Status::Ambiguous; // conflicting evidence never satisfies
    return inState == 1 ? WaitOutcome::Status::Satisfied : WaitOutcome::Status::NotObserved;
}

void ObserveTool::run(BrowserProvider &provider, const ObserveRequest &request,
                      ObservationCallback done)
{
    if (request.mode() != ObserveRequest::Mode::WaitFor) {
        provider.observe(request, std::move(done));
        return;
    }
    auto *poll = new WaitForPoll(provider, request.waitForPredicate(), std::move(done));
    poll->start();
}

WaitForPoll::WaitForPoll(BrowserProvider &provider, VisiblePredicate predicate,
                         ObservationCallback done)
    : QObject(&provider), m_provider(&provider), m_predicate(std::move(predicate)),
      m_done(std::move(done))
{
}

void WaitForPoll::start()
{
    m_clock.start();
    captureNext();
}

void WaitForPoll::captureNext()
{
    if (!m_provider) {
        finish(ReasonCode::ProviderUnavailable);
        return;
    }
    m_captureStartedMs = m_clock.elapsed();
    QPointer<WaitForPoll> self(this);
    m_provider->observe(ObserveRequest(), [self](Result<BrowserObservation> result) {
        if (self)
            self->onObservation(std::move(result));
    });
}

void WaitForPoll::onObservation(Result<BrowserObservation> result)
{
    ++m_observations;
    m_lastCaptureMs = m_clock.elapsed() - m_captureStartedMs;
    if (!result) {
        finish(std::move(result)); // the provider already retired the revision
        return;
    }
    m_lastStatus = ObserveTool::evaluate(m_predicate, result->elements);
    m_last = std::move(result).value();
    // Another read only while the predicate does not hold, fewer than twenty further reads
    // happened, and one more (after the interval) can still finish before the deadline.
    const bool another =
        m_lastStatus != WaitOutcome::Status::Satisfied &&
        m_observations <= ObserveTool::kMaxFurtherObservations &&
        m_clock.elapsed() + ObserveTool::kPollIntervalMs + m_lastCaptureMs <= m_predicate.timeoutMs;
    if (!another) {
        finishWithLast();
        return;
    }
    QTimer::singleShot(ObserveTool::kPollIntervalMs, this, [this] {
        // Rechecked after the delay: never start a capture when less time remains than the
        // previous one took (the estimate never extends the deadline).
        const qint64 remaining = m_predicate.timeoutMs - m_clock.elapsed();
        if (remaining <= 0 || remaining < m_lastCaptureMs) {
            finishWithLast();
            return;
        }
        captureNext();
    });
}

void WaitForPoll::finishWithLast()
{
    BrowserObservation observation = std::move(*m_last);
    m_last.reset();
    observation.waitFor = WaitOutcome{m_lastStatus, QStringLiteral("first_window"), m_observations,
                                      m_clock.elapsed()};
    finish(std::move(observation));
}

void WaitForPoll::finish(Result<BrowserObservation> result)
{
    auto done = std::move(m_done);
    m_done = nullptr;
    deleteLater();
    if (done)
        done(std::move(result));
}

} // namespace veetbot
