#pragma once

#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/observation/VisiblePredicate.h"
#include "ports/BrowserProvider.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

namespace veetbot {

// browser.observe 1.7.0 over a bound provider. Window modes ({}, after, cursor, extract, focus) are
// one provider call. {wait_for} is the tool's own bounded poll: it reads the current first window,
// then at most twenty further windows at least 250 ms apart, never starting a capture when less
// time remains than the previous one took, and stops as soon as the predicate holds. The answer is
// the last observation read, with a wait_for outcome: satisfied (exactly one visible control with
// the role and name, in the requested state), ambiguous (more than one with the role and name), or
// not_observed. It proves only what was visible, never an action's effect.
namespace ObserveTool {

inline constexpr int kMaxFurtherObservations = 20;
inline constexpr int kPollIntervalMs = 250;

// Runs `request` on `provider`; `done` runs exactly once, on the provider's thread.
void run(BrowserProvider &provider, const ObserveRequest &request, ObservationCallback done);

// The predicate over one window's elements.
WaitOutcome::Status evaluate(const VisiblePredicate &predicate,
                             const QList<ElementRecord> &elements);

} // namespace ObserveTool

// One wait_for poll in progress (ObserveTool::run owns it; it deletes itself when done).
class WaitForPoll : public QObject
{
    Q_OBJECT
public:
    WaitForPoll(BrowserProvider &provider, VisiblePredicate predicate, ObservationCallback done);
    void start();

private:
    void captureNext();
    void onObservation(Result<BrowserObservation> result);
    void finishWithLast();
    void finish(Result<BrowserObservation> result);

    QPointer<BrowserProvider> m_provider;
    VisiblePredicate m_predicate;
    ObservationCallback m_done;
    QElapsedTimer m_clock;
    qint64 m_captureStartedMs = 0;
    qint64 m_lastCaptureMs = 0;
    int m_observations = 0;
    std::optional<BrowserObservation> m_last;
    WaitOutcome::Status m_lastStatus = WaitOutcome::Status::NotObserved;
};

} // namespace veetbot
