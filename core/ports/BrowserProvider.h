#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/action/DispatchGate.h"
#include "domain/authority/GrantCoverage.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ElementFacts.h"
#include "domain/observation/LiveFrame.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/profile/SessionState.h"
#include "domain/signin/OwnerInput.h"
#include "domain/signin/OwnerViewFrame.h"
#include "domain/signin/SignInChallenge.h"
#include "domain/web/BrowserEngine.h"

#include <QObject>
#include <QSize>
#include <QUrl>

#include <functional>
#include <optional>

namespace veetbot {

struct NavigateRequest
{
    QUrl url; // already validated by the caller; the provider checks its policy again
    // Settled: the load, then the settling rule (docs/architecture.md), then the capture.
    // ContentLoaded (device verification's browsers only): the capture as soon as the
    // document's DOMContentLoaded has fired, deferred scripts included; waitForNetworkIdle()
    // then decides how long to wait.
    enum class Until
    {
        Settled,
        ContentLoaded
    };
    Until until = Until::Settled;
    // An agent's navigation that no fresh approval stands behind (docs/authority.md, "Reading
    // addresses and writing ones"): the request stage judges every document it loads, the
    // main frame's and each redirect hop, by the write guard, and refuses one that writes; the
    // navigation then ends tool.browser.write_requires_approval with nothing sent. The page's
    // own requests while it loads (its boot reads) are not judged. Unset: the owner's own
    // navigation (a sign-in, a verification) or an approved one.
    bool guarded = false;
    // Leave a page that holds unsaved input: a beforeunload prompt is answered "leave". What
    // is discarded is only what the browser holds; nothing is sent. Unset, the prompt is
    // answered "stay" and the navigation ends tool.browser.navigation_cancelled.
    bool discardUnsaved = false;
};

// Device verification's wait for the network (domain/NetworkIdle): at most `boundMs`, idle
// once quiet for `quietMs`.
struct NetworkIdleRequest
{
    static constexpr int kMaxBoundMs = 60000;
    static constexpr int kMaxQuietMs = 10000;
    int boundMs = 5000;
    int quietMs = 500;
};

// browser.act's arguments (domain/action/ActRequest.h); the older name stays for existing adapters.
using ActionRequest = ActRequest;

struct ProviderCapabilities
{
    bool navigate = false;
    bool observe = false;
    bool expand = false;  // observe() accepts {after} and {cursor} (continuation windows)
    bool extract = false; // observe() accepts {extract} (typed collection rows)
    bool act = false;
    bool upload = false;

    // What every browser provider declares today: navigate, observe with continuation and
    // extraction, and act; no upload.
    static constexpr ProviderCapabilities browsing()
    {
        return ProviderCapabilities{true, true, true, true, true, false};
    }
};

using ObservationCallback = std::function<void(Result<BrowserObservation>)>;

// The provider port. Bound by trusted composition to exactly one principal, one profile
// reference and one origin policy. Calls are serialized in arrival order on one operation
// lock; each callback runs exactly once, on the provider's thread. Capabilities are
// declared, never inferred: an operation a provider does not declare fails with
// tool.browser.provider_unavailable without touching the browser.
class BrowserProvider : public QObject
{
    Q_OBJECT
Q_SIGNALS:
    // One frame of the owner's remote view: a JPEG of the viewport and where the page is.
    void ownerViewFrame(const veetbot::OwnerViewFrame &frame);

public:
    using QObject::QObject;
    ~BrowserProvider() override = default;

    virtual ProviderCapabilities capabilities() const = 0;
    virtual void navigate(const NavigateRequest &request, ObservationCallback done) = 0;
    // Captures a new revision of the current page: the first candidate window ({}), or the
    // window after an element of the current revision ({after}) or at the current revision's
    // continuation cursor ({cursor}). A ref or cursor that is not current (another revision,
    // another document, a removed or moved anchor, a token this provider never minted) fails
    // with tool.browser.page_changed before any capture, and the current revision stays valid.
    // Any other failure invalidates the current revision like every failed capture.
    // {extract} (capability `extract`) is the first window plus typed rows of one collection,
    // refused the same way when its revision is not the current one.
    virtual void observe(const ObserveRequest &request, ObservationCallback done) = 0;
    // One action on an element of the current revision (capability `act`). Refusals come
    // before anything is sent: a revision that is not current or a ref that is not one of its
    // elements is tool.browser.page_changed, a region ref tool.browser.region_not_actionable,
    // typing into a password or one-time-code field tool.browser.action_not_allowed, a target
    // that does not become actionable in time tool.browser.element_not_found. Then,
    // immediately before the first input reaches the page, the provider asks the dispatch
    // gate (below). Once input was sent the only outcomes are the settled observation (with
    // `action`) or tool.browser.outcome_unknown, which retires the revision; nothing is ever
    // resent.
    virtual void act(const ActRequest &request, ObservationCallback done) = 0;
    // act() under a dispatch constraint (an act authorized by ordinary interaction or a task
    // grant rather than a fresh approval): just before the first input the provider reads the
    // live element's facts and the live page again and refuses with
    // tool.browser.grant_not_applicable, nothing sent, unless the constraint still covers
    // them; while the act runs it fences document loads (DispatchConstraint::allowsDocument).
    // A provider that cannot enforce that refuses every such act.
    virtual void actUnderConstraint(const ActRequest &request, const DispatchConstraint &constraint,
                                    ObservationCallback done)
    {
        Q_UNUSED(request);
        Q_UNUSED(constraint);
        done(ReasonCode::ProviderUnavailable);
    }
    // The private approval sidecar of an element of `revision`, recorded when that revision
    // was captured; nullopt when the revision is not current, the ref is not one of its
    // elements, or the provider records no facts. Never part of an observation.
    virtual std::optional<ElementFacts> elementFacts(const QString &revision,
                                                     const QString &ref) const
    {
        Q_UNUSED(revision);
        Q_UNUSED(ref);
        return std::nullopt;
    }
    // The private facts about the page `revision` was captured from; nullopt when it is not
    // current or the provider records none.
    virtual std::optional<PageEvidence> pageEvidence(const QString &revision) const
    {
        Q_UNUSED(revision);
        return std::nullopt;
    }
    // Releases the browser; pending calls fail with tool.browser.provider_unavailable.
    virtual void close() = 0;

    // The engine this provider's browser runs and its Chromium version, once the browser said
    // (a browser that has not started yet may not know): what a tool call's diagnostics name.
    virtual std::optional<EngineIdentity> engineIdentity() const { return std::nullopt; }

    // A signed-in profile's state (the profile service's lease browsers only; docs/vault.md
    // "Material"): put in before the first navigation, and read back for sealing, scoped to
    // `origins`. Each answers once; while an operation runs, or where the provider keeps no
    // such state, tool.browser.provider_unavailable. Never reachable from a model tool.
    using StateCallback = std::function<void(Result<SessionState>)>;
    virtual void restoreState(const SessionState &state, std::function<void(Result<Unit>)> done)
    {
        Q_UNUSED(state);
        done(ReasonCode::ProviderUnavailable);
    }
    virtual void exportState(const QList<Origin> &origins, StateCallback done)
    {
        Q_UNUSED(origins);
        done(ReasonCode::ProviderUnavailable);
    }

    // Waits on the current page for the network-idle rule (NetworkIdleRequest) and answers
    // true when the network was idle, false when the bound passed first. Only a provider made
    // for device verification observes the page's own requests; any other, or one with an
    // operation running, answers tool.browser.provider_unavailable. Never reachable from a
    // model tool.
    using IdleCallback = std::function<void(Result<bool>)>;
    virtual void waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done)
    {
        Q_UNUSED(request);
        done(ReasonCode::ProviderUnavailable);
    }

    // One viewport of the current page, for the owner's live view (domain/LiveFrame: a PNG
    // of at most 1 MiB). Taken between operations, never during one; a provider without a
    // running browser, or one that keeps no view, answers tool.browser.provider_unavailable
    // and starts nothing. Never reachable from a model tool, and nothing keeps the frame.
    using FrameCallback = std::function<void(Result<LiveFrame>)>;
    virtual void captureFrame(FrameCallback done) { done(ReasonCode::ProviderUnavailable); }

    // The owner's remote view (the remote sign-in, issue 29): while started, the page's frames
    // as JPEG (at most `max` in CSS pixels) through ownerViewFrame(); the owner's own input as
    // the browser's trusted input. Only the owner's view reaches these, never a model tool, and
    // nothing keeps a frame. A provider without a remote view answers false and sends nothing
    // (the Chromium placements have one; the owner's embedded Qt WebEngine view needs none).
    virtual bool startOwnerView(const QSize &max)
    {
        Q_UNUSED(max);
        return false;
    }
    virtual void stopOwnerView() {}
    virtual bool ownerInput(const OwnerInput &input)
    {
        Q_UNUSED(input);
        return false;
    }

    // The dispatch gate (domain/action/DispatchGate.h; ToolPipeline installs it): asked with
    // the act about to be dispatched, right before its first input; it commits the effect
    // ledger's dispatch_started and answers, once, whether dispatch may proceed. A provider
    // whose gate answers closed sends nothing and fails the act with
    // tool.browser.provider_unavailable. A missing gate answers closed: nothing is ever
    // dispatched that no ledger saw start.
    void setDispatchGate(DispatchGate gate, const void *owner)
    {
        m_dispatchGate = std::move(gate);
        m_dispatchGateOwner = owner;
    }
    // Removes the gate only if `owner` installed it (a newer pipeline's gate stays).
    void clearDispatchGate(const void *owner)
    {
        if (m_dispatchGateOwner == owner) {
            m_dispatchGate = nullptr;
            m_dispatchGateOwner = nullptr;
        }
    }

protected:
    // For implementations: asks the gate about `request`; `answer` hears it once (closed
    // without a gate). It may come at once or on a later pass of the event loop.
    void askDispatchGate(const ActRequest &request, GateAnswer answer) const
    {
        if (!m_dispatchGate) {
            answer(false);
            return;
        }
        m_dispatchGate(request, std::move(answer));
    }

private:
    DispatchGate m_dispatchGate;
    const void *m_dispatchGateOwner = nullptr;
};

// Whether the page of `observation` asks to sign in (showsSignInChallenge), read from the
// provider's private element facts and page evidence of its revision, never its values. The
// tool pipeline and `veetbot observe --profile` screen with it.
inline bool observationShowsSignIn(const BrowserProvider &provider,
                                   const BrowserObservation &observation)
{
    QList<ElementFacts> facts;
    facts.reserve(observation.elements.size());
    for (const ElementRecord &element : observation.elements) {
        if (std::optional<ElementFacts> found =
                provider.elementFacts(observation.revision, element.ref))
            facts.append(std::move(*found));
    }
    return showsSignInChallenge(
        facts, provider.pageEvidence(observation.revision).value_or(PageEvidence{}));
}

} // namespace veetbot
