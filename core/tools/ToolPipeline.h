#pragma once

#include "Approvals.h"
#include "Diagnostics.h"
#include "ToolPolicy.h"
#include "ToolRegistry.h"
#include "domain/action/WriteGuard.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/run/Activity.h"
#include "policy/ActAuthority.h"
#include "ports/BrowserProvider.h"
#include "ports/StandingGrantStore.h"
#include "ports/TaskGrantStore.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QUuid>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace veetbot {

class EffectLedger;

// The tool pipeline: one entry point for browser.navigate, browser.observe and browser.act 1.7.0
// over one bound provider.
//
//  - Arguments are parsed against the tool's closed schema first (tool.invalid_arguments).
//  - Policy (ToolPolicy) decides: reads run; an act needs a fresh, single-use approval bound
//    to its argument digest, revision, ref and origin (Approvals), except a bounded scroll the
//    owner permitted; anything else is tool.policy_denied.
//  - Every act is recorded in the effect ledger, content-free: prepared, then authorized or
//    not_sent; dispatch_started is committed through the provider's dispatch gate right before
//    the first input reaches the page; then dispatched, observed_complete (its postcondition
//    held) or outcome_unknown. A refusal the provider decided before the gate leaves the call
//    not_sent. Nothing is ever retried.
//  - Calls run one at a time in arrival order; each call's deadline (30 s) starts when it is
//    dispatched to the provider. A read past it fails with tool.browser.provider_unavailable;
//    an act past it before its dispatch gate opened is closed out (the gate then refuses, so
//    nothing is sent) and ends not_sent; after the gate it is outcome_unknown. The next call
//    reaches the provider only once the provider answered the late one.
//  - Every call ends with content-free diagnostics (Diagnostics::Summary).
// Results are canonical observations; callers give a model only their projection.
class ToolPipeline : public QObject
{
    Q_OBJECT
public:
    static constexpr int kCallDeadlineMs = 30'000;

    struct Options
    {
        PolicySettings settings;
        PolicyContext context;
        int approvalWaitMs = Approvals::kDefaultWaitMs;
        int callDeadlineMs = kCallDeadlineMs;
        // Task grants (docs/authority.md): the store, the owner's scope and this session's
        // pins (their policy version is set from `settings`). Without a store or complete
        // pins no offer is made and no grant is used. The overrides name test hosts that
        // scope matching accepts (tests only).
        TaskGrantStore *taskGrants = nullptr;
        ProfileScope owner;
        TaskGrantPins pins;
        TestOverrides overrides;
        // A standing grant the owner pinned this session to (`veetbot mcp --grant ID`), the
        // store that authorizes it (re-reading grant and profile on every act), and the
        // session's purpose. The profile, generation and versions are the pins above.
        StandingGrantStore *standingGrants = nullptr;
        std::optional<QUuid> standingGrant;
        std::optional<QString> purpose;
        // Where the owner's activity timeline receives this session's events (content-free,
        // docs/timeline.md); none: nothing is recorded.
        std::function<void(const ActivityEvent &)> activity;
        // A page asked its visitor to sign in (docs/signin.md, the challenge detector): the
        // call answered ToolFailure::signInRequired() (or sentThenSignIn() for an act that was
        // sent), and this runs once for it. The owner's session is needed: the composition
        // moves the profile to NEEDS_USER.
        std::function<void()> signInWall;
        // Tests only: runs when an act's provider answer arrived after its dispatch started,
        // before the ledger records how it ended (a crash there leaves it dispatch_started).
        std::function<void()> afterDispatchHook;
    };

    struct Outcome
    {
        Result<BrowserObservation> result = Error{};
        std::optional<Diagnostics::Summary> diagnostics;
        // The page asked to sign in (the result is then one of the sign-in failures).
        bool signInWall = false;
    };
    using Done = std::function<void(Outcome)>;

    // `provider` may be null (no browser tool exists); `ledger` must outlive the pipeline and
    // is required for browser.act (without one every act is tool.policy_denied).
    ToolPipeline(BrowserProvider *provider, Approver &approver, EffectLedger *ledger,
                 Options options, QObject *parent = nullptr);
    ~ToolPipeline() override;

    const ToolRegistry &registry() const { return m_registry; }

    // Runs one call (`tool` is browser.navigate / browser.observe / browser.act); `done` runs
    // exactly once, never from inside this call. Returns an id for cancel().
    quint64 call(const QString &tool, const QJsonObject &arguments, Done done);
    // Cancels a call: a queued call, one waiting for approval, or an act at the provider whose
    // dispatch gate has not opened (the gate then refuses) ends with nothing sent (not_sent);
    // an act whose dispatch started still finishes at the provider and ends outcome_unknown.
    // A cancelled call's result is never delivered.
    void cancel(quint64 id);

    // The ledger record of the last act (tests, activity timeline).
    QUuid lastEffectId() const { return m_lastEffect; }

private:
    struct Call
    {
        quint64 id = 0;
        QString tool;
        QJsonObject arguments;
        Done done;
        bool cancelled = false;
        bool finished = false;   // answered: anything the provider says later is dropped
        bool actSettled = false; // the act's provider result arrived after its gate opened
        QUuid effect;            // browser.act: its ledger record
        QString actionKind;      // browser.act: for the timeline
        QString targetRole;      // browser.act: the element's closed role word
        QString approvalSource;  // browser.act: what authorized it ("none" until something did)
        std::optional<QUrl> signInPage; // the page that asked to sign in
        QString control;      // browser.act: the control's key for m_knownWrites (controlKey)
        QString priorControl; // browser.act: m_lastActControl when the call began
        QElapsedTimer clock;
        Diagnostics::Collector diagnostics;
    };
    struct Page
    {
        QString revision;
        QUrl url;
        QString title;
    };

    // The call's events for the timeline, when one is attached.
    void recordActivity(const Call &call, const Result<BrowserObservation> &result,
                        Diagnostics::Outcome outcome);
    void runNext();
    void start(const std::shared_ptr<Call> &call);
    void runNavigate(const std::shared_ptr<Call> &call);
    // A navigation to an address that changes the site: a card first (tool.approval_denied
    // without one), recorded in the effect ledger like an act, then sent once.
    void approveNavigation(const std::shared_ptr<Call> &call, NavigateRequest request);
    void dispatchNavigation(const std::shared_ptr<Call> &call, NavigateRequest request,
                            const ApprovalBinding &binding, const QUuid &effect,
                            const ApprovalGrant &grant);
    // The owner's answer for `call`: a denial, a withdrawn question or a cancelled call ends it
    // with nothing sent; an approval goes on to `proceed`.
    Approvals::GrantCallback whenApproved(const std::shared_ptr<Call> &call, const QUuid &effect,
                                          std::function<void(const ApprovalGrant &)> proceed);
    void runObserve(const std::shared_ptr<Call> &call);
    void runAct(const std::shared_ptr<Call> &call);
    // `constraint`: set when no approval stands behind the act (ActAuthority); the provider
    // then rechecks the live element and fences documents.
    void dispatchAct(const std::shared_ptr<Call> &call, const ActRequest &request,
                     const QUuid &effect, const std::optional<ApprovalGrant> &grant,
                     const std::optional<DispatchConstraint> &constraint = std::nullopt);
    void afterAct(const std::shared_ptr<Call> &call, const ActRequest &request, const QUuid &effect,
                  bool dispatched, Result<BrowserObservation> result);
    // Ends the call: records the page it leaves, its diagnostics, and runs `done`.
    void finish(const std::shared_ptr<Call> &call, Result<BrowserObservation> result,
                Diagnostics::Phase lastPhase);
    // Whether the page of `observation` asks to sign in, from its private element facts and
    // page evidence (never its values).
    bool showsSignIn(const BrowserObservation &observation) const;
    // A read's result, or signInRequired() when its page asks to sign in.
    Result<BrowserObservation> screenForSignIn(Call &call, Result<BrowserObservation> result) const;
    void notSent(const QUuid &effect, const Error &error);
    void recordUncertain(const QUuid &effect);
    Result<BrowserObservation> recordDispatched(const QUuid &effect,
                                                Result<BrowserObservation> result);
    // Wraps a provider callback of the running call: counts the provider as busy until it
    // answers, starts the call's deadline at its first dispatch, and drops the answer of a
    // call that already finished.
    ObservationCallback atProvider(const std::shared_ptr<Call> &call,
                                   std::function<void(Result<BrowserObservation>)> handler);
    void deadlinePassed();
    CurrentPage currentPage() const;

    QPointer<BrowserProvider> m_provider;
    Approvals m_approvals;
    EffectLedger *m_ledger = nullptr;
    Options m_options;
    ActAuthority m_authority; // which authority lets an act run without a card
    ToolRegistry m_registry;
    std::optional<Page> m_page; // the revision whose refs are current, as last observed
    QSet<QString> m_refs;       // the element and region refs its observations named
    std::deque<std::shared_ptr<Call>> m_queue;
    std::shared_ptr<Call> m_running;
    quint64 m_nextId = 1;
    int m_providerBusy = 0; // provider calls not answered yet (a late one holds the queue)
    QTimer *m_deadline = nullptr;
    quint64 m_pendingApproval = 0; // Approvals id while the running call waits for the owner
    // The act between authorization and the provider's dispatch gate.
    struct Gate
    {
        QByteArray argumentDigest;
        QUuid effect;
        bool opened = false;
    };
    std::optional<Gate> m_gate;
    QUuid m_lastEffect;
    // Controls whose unapproved act the write guard refused, by page (origin and path), role
    // and accessible name: the next act on one goes to a card. Bounded; in memory only.
    QSet<QString> m_knownWrites;
    // The control of the last act whose input reached the page, and the controls after whose
    // act the site saved on its own (the guard refused a write after the act answered: the
    // page's evidence counts it). Such a control asks next time, and its card says so.
    QString m_lastActControl;
    QSet<QString> m_savesOnItsOwn;
    // What the guard saw of the last request each such control sent (its act's own, or the
    // site's save after it): the next card on it says so. Bounded like m_knownWrites.
    QHash<QString, WriteGuard::RefusedWrite> m_refusedRequests;
};

} // namespace veetbot
