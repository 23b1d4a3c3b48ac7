#pragma once

#include "collector/CollectorCalls.h"
#include "domain/ReasonCode.h"
#include "domain/action/ActRequest.h"
#include "domain/action/DispatchGate.h"
#include "domain/observation/BrowserObservation.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointF>

#include <functional>
#include <optional>

namespace veetbot {

// One browser.act on a page (docs/actions.md "Dispatch"), the same for every engine: the
// actionability trial in the collector world (nothing sent), the dispatch gate, the trusted
// input (or the in-page select and scroll), and the bounded wait for evidence that the
// document saw it. The engine supplies the collector world (`run`) and its trusted input path
// (Input). What happens to the page afterwards (settling, a navigation the input started,
// the capture) is the provider's; it hears of each step through the handlers. At most one
// act runs at a time; halt() drops its pending callbacks, end() also forgets it.
class ActDispatch : public QObject
{
    Q_OBJECT
public:
    struct Timing
    {
        int trialMs = 5000;    // the actionability trial (nothing sent yet)
        int dispatchMs = 5000; // from sending input to evidence it arrived
        int scriptMs = 5000;   // any single collector call
        int pollMs = 50;
    };
    // Runs a collector call within `timeoutMs` (CollectorRunner's contract).
    using Runner = std::function<void(const QString &source, int timeoutMs,
                                      std::function<void(std::optional<QJsonObject>)> done)>;
    // The engine's trusted input: events the page sees as the user's own (isTrusted). Points
    // are CSS pixels of the viewport, as the collector measures them.
    struct Input
    {
        // Readies the input path (focus); false when there is none: nothing is sent.
        std::function<bool()> ready;
        // A move to, then a left press and release at, the point.
        std::function<void(const QPointF &point)> click;
        // One press and release of a key of browser.act's closed list.
        std::function<void(ActRequest::Key key)> key;
        // One input-method commit of the text, replacing the selected content.
        std::function<void(const QString &text)> commit;
    };
    struct Handlers
    {
        // The target is actionable; nothing is sent yet. Requests the act causes start after.
        std::function<void()> ready;
        // The provider's dispatch gate: records dispatch_started durably before the first
        // input; closed stops the act with nothing sent. Its answer may come later; an act
        // halted meanwhile sends nothing.
        DispatchGate openGate;
        // Input is about to be sent: the revision retires, any failure is outcome_unknown.
        std::function<void()> sending;
        // The action ran, or nothing needed sending: settle and observe.
        std::function<void()> ran;
        // The act ends with this reason (before sending(): nothing was sent).
        std::function<void(ReasonCode)> failed;
        // The page did not answer a collector call: it is stuck; replace it and end.
        std::function<void(ReasonCode)> unresponsive;
        // Set for an act under a dispatch constraint: the trial then reads the live element's
        // facts ("facts" in the ready answer), and this judges them just before the gate; a
        // reason ends the act with nothing sent.
        std::function<std::optional<ReasonCode>(const QJsonObject &ready)> recheck;
    };

    explicit ActDispatch(QObject *parent = nullptr);

    // `captureId`: the committed collector capture whose handles the request's ref names.
    void start(Runner run, Input input, const ActRequest &request, const QString &captureId,
               Timing timing, Handlers handlers);
    void halt();
    void end();

    bool active() const { return m_request.has_value(); }
    // Set once the action ran (or was a no-op).
    std::optional<ActionOutcome> outcome() const { return m_outcome; }
    // A type sent to a rich-text editor: its text (the draft receipt to check).
    std::optional<QString> draftText() const { return m_draftText; }

private:
    void runTrial(quint64 generation);
    void dispatch(const QJsonObject &ready);
    void send(const QJsonObject &ready, quint64 generation);
    void awaitInputEvidence(quint64 generation);
    void performInPage();

    Runner m_run;
    Input m_input;
    std::optional<ActRequest> m_request;
    QString m_captureId;
    QString m_trialId;
    Timing m_timing;
    Handlers m_handlers;
    QElapsedTimer m_trialClock;
    QElapsedTimer m_dispatchClock;
    std::optional<ActionOutcome> m_outcome;
    std::optional<QString> m_draftText;
    quint64 m_generation = 0;
};

} // namespace veetbot
