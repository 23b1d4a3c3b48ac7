#pragma once

#include "ChromiumProcess.h"
#include "RequestGate.h"
#include "collector/ActDispatch.h"
#include "collector/ActGuard.h"
#include "collector/NetworkWatch.h"
#include "collector/PageRevision.h"
#include "collector/StorageScripts.h"
#include "domain/observation/Settling.h"
#include "domain/signin/OwnerInput.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "ports/OperationQueue.h"

#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QSet>
#include <QSize>
#include <QTimer>

#include <deque>
#include <functional>

namespace veetbot {
class PageSettler;
}

namespace veetbot::chromium {

// The Chromium placement of BrowserProvider (docs/decisions/0014): Debian's Chromium, headless,
// driven over the DevTools pipe, with one page target per provider. The same collector, the
// same page revision and the same settling rule as the Qt WebEngine provider
// (core/collector): observation, continuation, focus and extraction have one implementation.
//
// Confinement, at the browser's own request stage (Fetch on the browser's session, so every
// page, frame and worker of the browser passes it): the main frame's document and every
// redirect hop of it only inside the origin policy, a frame's document and every other
// request only to a public HTTPS URL by syntax, no service worker script, no ping or report;
// a document for any frame that is not this page's (a new window) never leaves, and the new
// window is closed. Downloads are denied, every permission is denied, every JavaScript dialog
// is dismissed. The egress proxy and the network namespace stay the boundary beneath.
//
// Acts run the same trial, gate and evidence as every engine (ActDispatch) with trusted input
// through Input.dispatchMouseEvent, Input.dispatchKeyEvent and Input.insertText, and the same
// write guard and fence (ActGuard) at this request stage, which sees each request's method
// and body.
//
// Operations run one at a time in arrival order (OperationQueue). It never returns HTML,
// input values, cookies, headers, console text or Chromium's error text.
class ChromiumProvider final : public BrowserProvider
{
    Q_OBJECT
public:
    struct Timeouts
    {
        int startMs = 20000;       // from launch to a page ready for its first navigation
        int navigationMs = 20000;  // from Page.navigate to the document's load
        int loadPatienceMs = 4000; // then a parsed document held up by a stalled
                                   // subresource is settled and observed as it is
        int settleBoundMs = 2000;
        int quietMs = 300;
        int pollMs = 50;
        int scriptMs = 5000;   // any single collector call; a page that does not answer is
                               // replaced
        int actTrialMs = 5000; // browser.act: the actionability trial (nothing sent yet)
        int dispatchMs = 5000; // browser.act: from sending input to evidence it arrived
    };

    // `process`: how to launch the browser (its proxy, the sandbox rule). The browser starts
    // with the first operation.
    ChromiumProvider(OriginPolicy policy, TestOverrides overrides, ChromiumProcess::Options process,
                     QObject *parent = nullptr);
    ~ChromiumProvider() override;

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
    // A screenshot of the viewport (Page.captureScreenshot), as a PNG, scaled down while over
    // LiveFrame's 1 MiB.
    void captureFrame(FrameCallback done) override;
    // A lease's sealed state in and out (ChromiumState.cpp): the cookies through the browser's
    // cookie store (Storage.setCookies, Storage.getCookies), the localStorage of each origin
    // through an empty document at that origin which the request stage answers itself, so no
    // request leaves while either runs. Refused while an operation runs; one at a time.
    void restoreState(const SessionState &state, std::function<void(Result<Unit>)> done) override;
    void exportState(const QList<Origin> &origins, StateCallback done) override;
    // A verification browser's (ChromiumNetwork.cpp): the main-world network observer on every
    // document of the page, so navigate {until: content_loaded} and waitForNetworkIdle() work.
    // Before the first operation; never for an agent's browser.
    void observeNetwork();
    void waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done) override;

    // The owner's remote view (ChromiumView.cpp): Page.startScreencast's JPEG frames (every
    // `everyNth` one) and Input.dispatch*/insertText for the owner's input.
    bool startOwnerView(const QSize &max) override;
    void stopOwnerView() override;
    bool ownerInput(const OwnerInput &input) override;
    bool ownerViewing() const { return m_screencasting; }
    void setOwnerViewQuality(int quality, int everyNth)
    {
        m_viewQuality = quality;
        m_viewEveryNth = everyNth;
    }

    void setTimeouts(const Timeouts &timeouts) { m_timeouts = timeouts; }
    // Chromium and its version ("156.0.8078.114", from the product Browser.getVersion gives)
    // once the browser answered, else nothing.
    std::optional<EngineIdentity> engineIdentity() const override
    {
        return EngineIdentity::fromProduct(BrowserEngine::Chromium, m_product);
    }
    QString currentRevision() const { return m_revision.revision(); }
    // Content-free counters: requests the request stage refused, new windows closed.
    int refusedRequests() const { return m_gate ? m_gate->refused() : 0; }
    int refusedWindows() const { return m_refusedWindows; }
    // Whether a tunnel to host:port may open (LocalForwarder's admission): only to where this
    // browser's request stage let a request go within the last minute. What the browser asks
    // for on its own (an updater, an account check, a time query) was never judged, so it
    // never leaves.
    bool admitsTunnel(const QString &host, quint16 port) const;
    // Runs a collector-world script on the current page (tests: isolated-world checks).
    void runCollectorScript(const QString &source,
                            std::function<void(std::optional<QJsonObject>)> done);

Q_SIGNALS:
    void observationPublished(const veetbot::BrowserObservation &observation);

private:
    // The page's viewport, in CSS pixels.
    static constexpr int kViewWidth = 1280;
    static constexpr int kViewHeight = 800;

    using Reply = cdp::Connection::Reply;
    void captureFrameAt(double scale, FrameCallback done);
    void send(const QString &method, const QJsonObject &params, Reply done,
              const QString &session = {});

    // Starts the browser and its page when there is none; `ready` answers whether there is.
    void ensurePage(std::function<void(bool)> ready);
    void startBrowser(std::function<void(bool)> ready);
    void openPage(std::function<void(bool)> ready);
    void pageReady(bool ok);
    // The page stopped answering or crashed: it is closed and the next operation opens another.
    void dropPage();
    void onEvent(const QString &method, const QJsonObject &params, const QString &sessionId);
    void onPageEvent(const QString &method, const QJsonObject &params);
    void onScreencastFrame(const QJsonObject &params);
    bool judge(const RequestGate::PausedRequest &request);

    void enqueue(std::function<void()> operation, ObservationCallback done);
    void complete(Result<BrowserObservation> result);
    bool isCurrent(quint64 op) const { return m_operations->isCurrent(op); }

    void startNavigate(const NavigateRequest &request);
    void startObserve(const ObserveRequest &request);
    void onLoadEvent();
    void checkLoadPatience();
    void beginSettle(bool stalledLoad, Settling::After after = Settling::After::Load);
    void capture(std::optional<Readiness> readiness, const PageRevision::Window &window = {});
    // browser.act: the checks against the current revision, then ActDispatch.
    void startAct(const ActRequest &request, std::optional<DispatchConstraint> constraint);
    // The act's input started a navigation of the main frame: follow it like navigate does.
    void followActNavigation();
    // A navigation the page starts now follows an act (dispatched, settling or capturing).
    bool followsActNavigation() const;
    ActDispatch::Input trustedInput();
    // The page did not answer: its revision is retired, it is replaced, the operation ends.
    void abandonPage(ReasonCode reason);

    // Network observation (ChromiumNetwork.cpp). The load startNavigate() began, to
    // DOMContentLoaded.
    void startContentLoaded(const QUrl &url);
    void checkContentLoaded();
    NetworkWatch::StartedResources startedResources() const;
    // Runs `source` in the page's main world (the network observer's); its string answer
    // parsed, or nullopt.
    void runInMainWorld(const QString &source,
                        std::function<void(std::optional<QJsonObject>)> done);

    // State transfer (ChromiumState.cpp).
    static constexpr int kStateTimeoutMs = 10000;
    bool beginState(const std::function<void(Error)> &refuse);
    void endState();
    StorageScripts::RunAtOrigin atOrigin();
    // Loads the empty document at `origin` and runs `script` in a private world of it.
    void runAtOrigin(const QString &origin, const QString &script,
                     std::function<void(std::optional<QString>)> done);
    bool answersLocally(const RequestGate::PausedRequest &request) const;

    // The collector's world of the current document: one isolated world per document, made
    // once and kept until the main frame commits another document.
    void runInWorld(const QString &source, int timeoutMs,
                    std::function<void(std::optional<QJsonObject>)> done, bool retried = false);
    CollectorRunner runner();
    QStringList startedRequests(qint64 sinceMs) const;

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    ChromiumProcess::Options m_processOptions;
    Timeouts m_timeouts;
    PageRevision m_revision;
    OperationQueue *m_operations = nullptr;
    PageSettler *m_settler = nullptr;

    ChromiumProcess *m_process = nullptr;
    RequestGate *m_gate = nullptr; // the browser session's request stage
    QString m_product;
    bool m_browserFailed = false;
    std::deque<std::function<void(bool)>> m_waitingForPage;
    bool m_openingPage = false;

    // The page: its target, its flattened session, its main frame and the frames in it.
    QString m_targetId;
    QString m_session;
    QString m_mainFrame;
    QSet<QString> m_frames; // this page's frames (its own documents may load in them)
    QSet<QString> m_earlyTargets;
    int m_refusedWindows = 0;
    QUrl m_url;               // the main frame's committed URL
    QString m_loaderId;       // the main frame's committed document
    QString m_loadedLoaderId; // the document whose load event fired last
    int m_worldContext = 0;   // the collector world's execution context of m_loaderId
    bool m_pageLoading = false;

    // The operation in progress.
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
    QString m_expectedLoader; // the document the navigation in progress waits for
    bool m_primaryLoadDone = false;
    bool m_mainDocumentRefused = false;
    bool m_beforeUnloadDismissed = false;
    bool m_leavesUnsavedInput = false; // the navigation answers beforeunload "leave"
    QTimer m_navigationTimer;
    QTimer m_patienceTimer;
    // The act in progress, and the authority over what the page may send while acts run.
    ActDispatch *m_act = nullptr;
    ActGuard m_guard;
    QString m_actLoader; // the document the act started on

    // Requests of the settling kinds the request stage let go, for settling.
    struct Started
    {
        QString url;
        qint64 atMs = 0;
        bool resource = false; // a frame's document, a script or a stylesheet
    };
    std::deque<Started> m_started;
    // "host:port" of the requests the request stage let go, with when it last did.
    QHash<QString, qint64> m_admitted;
    QElapsedTimer m_clock;
    qint64 m_loadStartMs = 0;

    // A verification browser's network observer, and the navigation's end it waits for.
    QString m_networkKey;
    NetworkWatch *m_networkWatch = nullptr;
    NavigateRequest::Until m_until = NavigateRequest::Until::Settled;
    bool m_contentLoaded = false; // the page's document reached DOMContentLoaded
    QTimer m_contentLoadedTimer;

    bool m_screencasting = false;
    int m_viewQuality = 60;
    int m_viewEveryNth = 1;

    // A state operation in progress: nothing leaves; only its empty document is answered.
    bool m_stateBusy = false;
    QUrl m_stateDocument;
    QString m_stateLoader;             // that document, once Page.navigate named it
    std::function<void()> m_stateLoad; // its load event arrived
};

} // namespace veetbot::chromium
