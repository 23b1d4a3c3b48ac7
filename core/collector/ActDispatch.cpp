#include "ActDispatch.h"

#include <QPointer>
#include <QTimer>

namespace veetbot {

ActDispatch::ActDispatch(QObject *parent) : QObject(parent) {}

void ActDispatch::start(Runner run, Input input, const ActRequest &request,
                        const QString &captureId, Timing timing, Handlers handlers)
{
    end();
    m_run = std::move(run);
    m_input = std::move(input);
    m_request = request;
    m_captureId = captureId;
    m_trialId = randomToken(12);
    m_timing = timing;
    m_handlers = std::move(handlers);
    m_trialClock.start();
    runTrial(m_generation);
}

void ActDispatch::halt()
{
    ++m_generation;
}

void ActDispatch::end()
{
    halt();
    m_request.reset();
    m_outcome.reset();
    m_draftText.reset();
    // The handlers stay until the next start(): end() may be called from inside one of them.
}

void ActDispatch::runTrial(quint64 generation)
{
    const qint64 remaining = m_timing.trialMs - m_trialClock.elapsed();
    if (remaining <= 0) {
        m_handlers.failed(ReasonCode::ElementNotFound); // never actionable in time: nothing sent
        return;
    }
    const ActRequest &request = *m_request;
    QJsonObject options{{QStringLiteral("current"), m_captureId},
                        {QStringLiteral("ref"), request.ref()},
                        {QStringLiteral("kind"), actKindString(request.kind())},
                        {QStringLiteral("trial"), m_trialId}};
    if (request.kind() == ActRequest::Kind::Select)
        options.insert(QStringLiteral("option"), request.option());
    if (m_handlers.recheck)
        options.insert(QStringLiteral("facts"), true);
    if (request.kind() == ActRequest::Kind::Check)
        options.insert(QStringLiteral("checked"), request.checked());
    // The call gets the full script bound even near the end of the trial bound: a page is
    // judged stuck (and replaced) only when it does not answer within scriptMs, never
    // because the trial's last round trip outlasted the few milliseconds left.
    m_run(Collector::actCall(QStringLiteral("actTrial"), options), m_timing.scriptMs,
          [this, generation](std::optional<QJsonObject> answer) {
              if (generation != m_generation)
                  return;
              if (!answer) {
                  // The page did not answer the trial: nothing was sent.
                  m_handlers.unresponsive(ReasonCode::ElementNotFound);
                  return;
              }
              const QString error = answer->value(QStringLiteral("error")).toString();
              if (!answer->value(QStringLiteral("ok")).toBool()) {
                  if (error == QLatin1String("page_changed"))
                      // Another document, or the target's role or name changed.
                      m_handlers.failed(ReasonCode::PageChanged);
                  else if (error == QLatin1String("not_allowed"))
                      m_handlers.failed(ReasonCode::ActionNotAllowed);
                  else // detached, the wrong kind of element, or a failed trial
                      m_handlers.failed(ReasonCode::ElementNotFound);
                  return;
              }
              if (answer->value(QStringLiteral("state")) == QLatin1String("ready")) {
                  dispatch(*answer);
                  return;
              }
              QTimer::singleShot(m_timing.pollMs, this, [this, generation] {
                  if (generation == m_generation)
                      runTrial(generation);
              });
          });
}

void ActDispatch::dispatch(const QJsonObject &ready)
{
    const ActRequest request = *m_request;
    m_outcome = ActionOutcome{actKindString(request.kind()), true, std::nullopt};
    m_handlers.ready();
    if (request.kind() == ActRequest::Kind::Check &&
        ready.value(QStringLiteral("unchanged")).toBool()) {
        // Already in the requested state: nothing is sent; observe the page as it is.
        m_outcome->dispatched = false;
        m_handlers.ran();
        return;
    }
    if (m_handlers.recheck) {
        // The live element, read in the same trial that found it ready, right before the gate.
        if (const std::optional<ReasonCode> refused = m_handlers.recheck(ready)) {
            m_handlers.failed(*refused);
            return;
        }
    }
    // The dispatch gate records dispatch_started durably before the first input; a gate that
    // cannot do so stops the act here, with nothing sent.
    if (!m_input.ready || !m_input.ready()) {
        m_handlers.failed(ReasonCode::ProviderUnavailable); // no input path: nothing sent
        return;
    }
    const quint64 generation = m_generation;
    QPointer<ActDispatch> self(this);
    m_handlers.openGate(request, [self, ready, generation](bool open) {
        if (!self || generation != self->m_generation)
            return; // the act ended while its gate was asked: nothing is sent
        if (!open) {
            self->m_handlers.failed(ReasonCode::ProviderUnavailable);
            return;
        }
        self->send(ready, generation);
    });
}

void ActDispatch::send(const QJsonObject &ready, quint64 generation)
{
    const ActRequest request = *m_request;
    if (request.kind() == ActRequest::Kind::Type &&
        ready.value(QStringLiteral("editable")).toBool())
        m_draftText = request.text();
    // From here on the site may see the action.
    m_handlers.sending();
    if (generation != m_generation)
        return;
    m_dispatchClock.start();
    const QPointF point(ready.value(QStringLiteral("x")).toDouble(),
                        ready.value(QStringLiteral("y")).toDouble());
    switch (request.kind()) {
    case ActRequest::Kind::Click:
    case ActRequest::Kind::Check:
        m_input.click(point);
        break;
    case ActRequest::Kind::Press:
        m_input.key(request.key());
        break;
    case ActRequest::Kind::Type:
        if (request.text().isEmpty())
            // Nothing to insert: delete the selected content (the whole value).
            m_input.key(ActRequest::Key::Delete);
        else
            // One trusted input-method commit replaces the selected content.
            m_input.commit(request.text());
        break;
    case ActRequest::Kind::Select:
    case ActRequest::Kind::Scroll:
        performInPage();
        return;
    }
    // Sending input runs no nested event loop, but a handler reached from it might end the
    // act: only a live act waits for evidence.
    if (generation == m_generation)
        awaitInputEvidence(generation);
}

void ActDispatch::awaitInputEvidence(quint64 generation)
{
    // The input went to the browser; wait (bounded) until the document saw a trusted event
    // of it, or was replaced by a navigation it started.
    const qint64 remaining = m_timing.dispatchMs - m_dispatchClock.elapsed();
    if (remaining <= 0) {
        m_handlers.failed(ReasonCode::ProviderUnavailable); // reported as outcome_unknown
        return;
    }
    m_run(Collector::actCall(QStringLiteral("actSeen"), {{QStringLiteral("trial"), m_trialId}}),
          int(qMin<qint64>(remaining, m_timing.scriptMs)),
          [this, generation](std::optional<QJsonObject> answer) {
              if (generation != m_generation)
                  return;
              if (!answer || !answer->value(QStringLiteral("ok")).toBool()) {
                  // A page that does not answer (a busy loop, a dead renderer).
                  m_handlers.unresponsive(ReasonCode::ProviderUnavailable);
                  return;
              }
              if (answer->value(QStringLiteral("seen")).toBool() ||
                  answer->value(QStringLiteral("replaced")).toBool()) {
                  m_handlers.ran();
                  return;
              }
              QTimer::singleShot(m_timing.pollMs, this, [this, generation] {
                  if (generation == m_generation)
                      awaitInputEvidence(generation);
              });
          });
}

void ActDispatch::performInPage()
{
    // select and scroll run in the collector world, bounded like any dispatch.
    const quint64 generation = m_generation;
    const ActRequest &request = *m_request;
    QJsonObject options{{QStringLiteral("current"), m_captureId},
                        {QStringLiteral("ref"), request.ref()},
                        {QStringLiteral("trial"), m_trialId},
                        {QStringLiteral("kind"), actKindString(request.kind())}};
    if (request.kind() == ActRequest::Kind::Select)
        options.insert(QStringLiteral("option"), request.option());
    else
        options.insert(QStringLiteral("delta"), request.delta());
    m_run(Collector::actCall(QStringLiteral("actPerform"), options),
          qMin(m_timing.dispatchMs, m_timing.scriptMs),
          [this, generation](std::optional<QJsonObject> answer) {
              if (generation != m_generation)
                  return;
              if (!answer) {
                  m_handlers.unresponsive(ReasonCode::ProviderUnavailable);
                  return;
              }
              if (!answer->value(QStringLiteral("ok")).toBool()) {
                  m_handlers.failed(ReasonCode::ProviderUnavailable);
                  return;
              }
              if (m_request->kind() == ActRequest::Kind::Scroll) {
                  const double scrolled = answer->value(QStringLiteral("scrolled")).toDouble();
                  m_outcome->scrolledPx = int(qBound<double>(
                      -ActRequest::kMaxScrollDistance, scrolled, ActRequest::kMaxScrollDistance));
              }
              m_handlers.ran();
          });
}

} // namespace veetbot
