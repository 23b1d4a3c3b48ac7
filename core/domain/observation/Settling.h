#pragma once

#include "BrowserObservation.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace veetbot {

// The settling rule (docs/architecture.md "Settling and capture"): after a load or an action the
// page is captured once its document is ready, every request it started since (as far as the
// browser reported it before the capture) has completed and the DOM has been quiet for
// `quietMs`; or, at the latest, when `boundMs` has passed. Pure: the browser adapter asks the
// collector's settle probe and feeds its answers to round().
class Settling
{
public:
    struct Timing
    {
        int boundMs = 2000;
        int quietMs = 300;
        int pollMs = 50;
    };
    // At most this many requests in flight are tracked; the rest cannot hold settling up.
    static constexpr int kMaxRequests = 256;

    // What settling follows. After an input (an act's click, key or text), quiet is counted
    // from the latest of the DOM's last mutation, the input itself, and the last request the
    // request stage reported or the page completed: a request stage hears of the request an
    // input started some time after the page made it, and a page acts on an answer (clears
    // a dirty flag, moves itself) after it completed. After a load, the DOM's quiet alone.
    enum class After
    {
        Load,
        Input
    };

    // `inFlight`: the URLs of the requests started since the load began, in the order the
    // probe will report them by index. `stalledLoad`: the load event is held up by a stalled
    // subresource and the parsed document is settled as it is.
    Settling(Timing timing, QStringList inFlight, bool stalledLoad, After after = After::Load);

    struct Step
    {
        std::optional<Readiness> capture; // set: capture now, with this readiness
        int waitMs = 0;                   // otherwise: probe again after this long
    };
    // One round: `probe` is the collector's answer ({ok, completed: [indexes into the list
    // last passed to the probe], readyState, quietMs}); `pageLoading` whether the page still
    // reports a load in progress; `elapsedMs` since settling began. A probe that is not ok
    // is the caller's to handle (the page does not answer).
    Step round(const QJsonObject &probe, bool pageLoading, qint64 elapsedMs);
    // Requests the browser reported as started after settling began: they are waited for too
    // (a browser reports a request some time after the page made it, and an act's input
    // starts requests while its evidence is read). At most kMaxRequests pending in all.
    void addStarted(const QStringList &urls, qint64 elapsedMs);
    // The requests still pending, for the next probe.
    const QStringList &inFlight() const { return m_inFlight; }
    // Before any probe: the bound may already have passed.
    std::optional<Readiness> expired(qint64 elapsedMs) const;

private:
    // The quiet time that counts: the DOM's, bounded after an input by the time since the
    // last network activity settling saw.
    double quietFor(double domQuietMs, qint64 elapsedMs) const;

    Timing m_timing;
    QStringList m_inFlight;
    bool m_stalledLoad = false;
    After m_after = After::Load;
    qint64 m_lastActivityMs = 0; // since settling began: the input, a request reported or done
};

} // namespace veetbot
