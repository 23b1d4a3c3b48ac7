#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/action/WriteGuard.h"
#include "domain/authority/GrantCoverage.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ElementFacts.h"

#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QUrl>

#include <functional>
#include <optional>
#include <utility>

namespace veetbot {

// The authority side of the acts on one page, the same for every engine (docs/authority.md
// "The write guard", docs/actions.md "Dispatch"). The engine asks it at its request stage
// (allows(), allowsDocument()) and before it answers an act (deferForGrace(), conclude()).
//
// The write guard arms when an act under ordinary interaction or a standing grant starts, and
// again when an act an approval or a task grant stands behind has answered (an approval covers
// its own act's consequence, nothing after it: an autosave after approved typing is refused);
// it stays armed on that page until a navigation the agent asked for. While armed, every
// request that can write is refused and counted; while an approved or task-granted act runs,
// nothing is. A navigation no approval stands behind (NavigateRequest::guarded) has its
// documents judged, each redirect hop too, but not the page's own requests while it loads.
// An act or navigation during which a write was refused ends
// tool.browser.write_requires_approval: nothing that could write reached the site. Once input
// may have been sent (dispatched()), any other failure is tool.browser.outcome_unknown.
//
// What leaves to strangers (docs/authority.md, "What leaves the browser"): once an agent uses
// the browser, a request to an origin outside the profile's that carries data (a body, a
// method other than GET or HEAD, a beacon) is refused whenever no approved or task-granted
// act runs; and once the agent has typed on the page, until it navigates, every request to
// such an origin is refused but a URL the page already loaded before the typing (its static
// assets keep working). Neither depends on the request's words: a keystroke sent one
// character a request is refused like a whole code.
class ActGuard
{
public:
    // How long a guarded act's settled answer waits for a late refusal (ADR 0013): a form's
    // submit() was measured to begin its request during the capture after the quiet window.
    static constexpr int kGraceMs = 300;

    // An act starts, under `constraint` when no fresh approval stands behind it.
    void beginAct(std::optional<DispatchConstraint> constraint);
    // A navigation the agent asked for: the next page starts unarmed; with `guarded`, the
    // documents of this navigation are judged until endNavigation().
    void beginNavigation(bool guarded);
    void endNavigation();
    // Whether the guard refused a document that writes since beginNavigation().
    bool navigationRefusedWrite() const
    {
        return m_inNavigation && m_writesRefused > m_writesRefusedBeforeNavigation;
    }
    // What the guard saw since the last call, for the page's next capture: the writes refused
    // while neither an act nor a navigation ran (a debounced save after an act answered) and
    // the last request it refused; both are reset.
    // An act's own capture takes what came before the act, never the act's own refusal: that
    // one ends the act (its capture is retired) and goes with the page's next capture.
    void takeEvidence(PageEvidence &evidence)
    {
        evidence.lateWrites = std::exchange(m_lateWrites, 0);
        evidence.strangerRequestsRefused = std::exchange(m_strangersRefused, 0);
        if (m_inAct || !m_lastRefused)
            evidence.refusedWrite = std::exchange(m_refusedBeforeAct, std::nullopt);
        else
            evidence.refusedWrite = std::exchange(m_lastRefused, std::nullopt);
        if (!m_inAct)
            m_refusedBeforeAct.reset();
    }
    const std::optional<DispatchConstraint> &constraint() const { return m_constraint; }

    // Input is about to be sent: from here on the site may see the act. `typing`: the input is
    // text or a key (the page may send what it reads of it to anyone).
    void markDispatched(bool typing = false)
    {
        m_dispatched = true;
        m_actTypes = typing;
        m_typed = m_typed || typing;
    }
    bool dispatched() const { return m_dispatched; }

    // The request stage: whether `request` may go (always while the guard is disarmed). A
    // write it refuses is counted.
    bool allows(const WriteGuard::Request &request);
    // The request stage, for a document of any frame while an act under a constraint runs on
    // the page at `page`: the guard first (a refused write is counted even where the fence
    // refuses too), then the constraint's fence. Without a constraint, only the guard.
    bool allowsDocument(const QUrl &url, const QUrl &page);
    // The constraint's fence alone: whether a document may load at `url` while an act under
    // the constraint runs on the page at `page`; true without a constraint.
    bool fenceAllows(const QUrl &url, const QUrl &page) const
    {
        return !m_constraint || m_constraint->allowsDocument(url, page);
    }

    // The live recheck of an act under a constraint, on the trial's ready answer: the live
    // element's facts (read with the observed role and name) and the live page must still be
    // covered. A reason ends the act with nothing sent.
    std::optional<ReasonCode> recheck(const ActRequest &request, const ElementFacts *observed,
                                      const QJsonObject &ready, const QUrl &livePage) const;

    // A navigation the act's script scheduled can start after the page went quiet (a form's
    // submit() was measured to begin its request during the capture after the quiet window):
    // the guard refuses it whenever it comes, and a guarded act's successful answer waits
    // kGraceMs first (at most once per act) so that such a refusal still ends it
    // write_requires_approval. When it must wait, `again` gets the answer back on `context`
    // after that time, and this returns true.
    bool deferForGrace(Result<BrowserObservation> &result, QObject *context,
                       std::function<void(Result<BrowserObservation>)> again);
    // The act's answer as the authority sees it, and the end of the act. `retire` is set when
    // the page's revision must be retired (a refused write, or a failure after dispatch).
    Result<BrowserObservation> conclude(Result<BrowserObservation> result, bool *retire);

private:
    std::optional<DispatchConstraint> m_constraint;
    bool m_dispatched = false;
    bool m_armed = false;
    bool m_inAct = false;
    bool m_armAfterAct = false;
    bool m_navigationGuarded = false;
    bool m_inNavigation = false;
    int m_lateWrites = 0;
    // The stranger rule: on once an agent used this browser (an act, or a navigation no
    // approval stands behind); the page was typed on since the agent's last navigation; the
    // strangers' URLs it loaded before (bounded); what it refused since the last capture.
    bool m_agent = false;
    bool m_typed = false;
    bool m_actTypes = false; // the act in progress sends text or a key
    QSet<QUrl> m_loadedFromStrangers;
    int m_strangersRefused = 0;
    bool allowsStranger(const WriteGuard::Request &request);
    std::optional<WriteGuard::RefusedWrite> m_lastRefused;
    std::optional<WriteGuard::RefusedWrite> m_refusedBeforeAct; // the last one before the act
    int m_writesRefusedBeforeNavigation = 0;
    bool m_graceOver = false;
    int m_writesRefused = 0;
    int m_writesRefusedBeforeAct = 0;
};

} // namespace veetbot
