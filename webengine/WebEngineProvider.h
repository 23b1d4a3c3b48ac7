#pragma once

#include "Collector.h"
#include "collector/ActGuard.h"
#include "collector/NetworkWatch.h"
#include "collector/PageRevision.h"
#include "domain/action/WriteGuard.h"
#include "domain/observation/Settling.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "ports/OperationQueue.h"

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>

class QWebEngineLoadingInfo;
class QWebEngineProfile;
#include <QWebEngineView>

namespace veetbot {

class ActDispatch;
class GuardedPage;
class PageSettler;
class ProfileState;
class RequestInterceptor;

// The in-process Qt WebEngine implementation of BrowserProvider: one off-the-record profile
// per instance, one shown view (offscreen in agent-operated processes), the navigation guard,
// the request interceptor, settling, and atomic observation capture through the isolated
// collector world. Operations run one at a time in arrival order. It never returns HTML,
// input values, cookies, headers, console text or Chromium's error text.
class WebEngineProvider : public BrowserProvider
{
    Q_OBJECT
public:
    struct Timeouts
    {
        int navigationMs = 20000;  // from load() to a parsed document
        int loadPatienceMs = 4000; // after this, a parsed document whose load event is held
                                   // up by a stalled subresource is settled and observed
        int settleBoundMs = 2000;  // readiness + in-flight requests + DOM quiet
        int quietMs = 300;
        int pollMs = 50;
        int scriptMs = 5000;   // any single collector call; a page that does not answer is
                               // recycled
        int actTrialMs = 5000; // browser.act: the actionability trial (nothing sent yet)
        int dispatchMs = 5000; // browser.act: from sending input to evidence it arrived
    };

    // With no viewParent the view is a shown top-level window (offscreen in agent-operated
    // processes); a UI passes the widget that will lay it out.
    WebEngineProvider(OriginPolicy policy, TestOverrides overrides, QObject *parent = nullptr,
                      QWidget *viewParent = nullptr);
    ~WebEngineProvider() override;

    ProviderCapabilities capabilities() const override;
    void navigate(const NavigateRequest &request, ObservationCallback done) override;
    void observe(const ObserveRequest &request, ObservationCallback done) override;
    void act(const ActionRequest &request, ObservationCallback done) override;
    void actUnderConstraint(const ActRequest &request, const DispatchConstraint &constraint,
                            ObservationCallback done) override;
    std::optional<ElementFacts> elementFacts(const QString &revision,
                                             const QString &ref) const override;
    std::optional<PageEvidence> pageEvidence(const QString &revision) const override;
    void close() override;
    // Qt WebEngine and the Chromium version it is built on (qWebEngineChromiumVersion).
    std::optional<EngineIdentity> engineIdentity() const override;
    void restoreState(const SessionState &state, std::function<void(Result<Unit>)> done) override;
    void exportState(const QList<Origin> &origins, StateCallback done) override;
    void waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done) override;
    // A grab of the view, as a PNG; scaled down while over LiveFrame's 1 MiB.
    void captureFrame(FrameCallback done) override;

    // Makes this a device verification browser: the network observer goes into every page's
    // main world (Collector::networkObserverScript), so NavigateRequest::Until::ContentLoaded
    // and waitForNetworkIdle() work. Before the first navigation; never for an agent's browser.
    void observeNetwork();

    void setTimeouts(const Timeouts &timeouts) { m_timeouts = timeouts; }
    // The view the page is shown in (trusted input goes to its focus proxy).
    QWebEngineView *view() const { return m_view; }
    // The revision whose references are currently valid; empty when none is.
    QString currentRevision() const { return m_revision.revision(); }
    // Runs a collector-world script (tests: isolated-world state checks).
    void runCollectorScript(const QString &source,
                            std::function<void(std::optional<QJsonObject>)> done);

Q_SIGNALS:
    void observationPublished(const veetbot::BrowserObservation &observation);

private:
    NetworkWatch::StartedResources startedResources() const;
    void enqueue(std::function<void()> operation, ObservationCallback done);
    void complete(Result<BrowserObservation> result);
    bool isCurrent(quint64 op) const { return m_operations->isCurrent(op); }

    void startNavigate(const NavigateRequest &request);
    // The page's beforeunload prompt was answered "stay": tool.browser.navigation_cancelled,
    // once the page answers a probe.
    void cancelOnceThePageAnswers();
    // Until::ContentLoaded: polls the observer until the new document's DOMContentLoaded.
    void checkContentLoaded();
    // The allowed document loaded as far as the navigation waits: settle, or capture at once.
    void primaryLoadReady();
    void onLoadingChanged(const QWebEngineLoadingInfo &info);
    void onBeforeUnloadDismissed();
    void checkLoadPatience();
    void beginSettle(Settling::After after = Settling::After::Load);
    void startObserve(const ObserveRequest &request);
    // Captures `window` of the current page and publishes the revision (PageRevision).
    void capture(std::optional<Readiness> readiness, const PageRevision::Window &window = {});
    // browser.act (docs/actions.md "Dispatch"): the checks against the current revision, then
    // ActDispatch.
    void startAct(const ActRequest &request);
    void invalidateRevision();
    // The page does not answer (a busy loop, a dead renderer): its revision is retired, a new
    // page replaces it, and the operation ends with `reason`.
    void abandonPage(ReasonCode reason);
    void recyclePage();
    void createPage();

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    Timeouts m_timeouts;
    // The committed revision and everything that belongs to it.
    PageRevision m_revision;
    QWebEngineProfile *m_profile = nullptr;
    RequestInterceptor *m_interceptor = nullptr;
    QPointer<QWebEngineView> m_view;
    GuardedPage *m_page = nullptr;
    QList<QPointer<GuardedPage>> m_retiredPages; // recycled, deleted later (or by ~)

    OperationQueue *m_operations = nullptr; // the operation lock

    // Navigation and settling state of the operation in progress.
    enum class Phase
    {
        Idle,
        Trial,
        Dispatching,
        Loading,
        Settling,
        Capturing
    };
    Phase m_phase = Phase::Idle;
    // Bumped when a capture is dropped for the navigation the page started during it (after
    // an act, the new document is followed and captured instead).
    quint64 m_captureGeneration = 0;
    bool m_primaryLoadDone = false;
    bool m_pageLoading = false;
    bool m_stalledLoad = false;
    QTimer m_patienceTimer;
    qint64 m_loadStartMs = 0;
    QTimer m_navigationTimer;
    NavigateRequest::Until m_until = NavigateRequest::Until::Settled;
    // The current document was taken at DOMContentLoaded (Until::ContentLoaded): it is
    // observed and waited on while its load event may still be held up.
    bool m_contentLoaded = false;
    QTimer m_contentLoadedTimer;
    // The network observer's name in this browser's pages; empty unless observeNetwork().
    QString m_networkKey;
    NetworkWatch *m_networkWatch = nullptr;

    // The act in progress (its trial, dispatch and evidence), and the authority over what the
    // page may send while acts run (ActGuard: the write guard, the fence, and
    // tool.browser.outcome_unknown once input may have been sent).
    ActDispatch *m_act = nullptr;
    std::optional<DispatchConstraint> m_constraint; // of the act about to start
    ActGuard m_guard;
    PageSettler *m_settler = nullptr;
    ProfileState *m_state = nullptr; // cookies mirrored from the profile's creation
};

} // namespace veetbot
