#include "WebEngineProvider.h"

#include "Collector.h"
#include "GuardedPage.h"
#include "ProfileState.h"
#include "RequestInterceptor.h"
#include "TrustedInput.h"
#include "collector/ActDispatch.h"
#include "collector/NetworkWatch.h"
#include "collector/PageSettler.h"
#include "domain/observation/CaptureAssembly.h"

#include <QBuffer>
#include <QImage>
#include <QWebEngineDownloadRequest>
#include <QWebEngineLoadingInfo>
#include <QWebEngineProfile>
#include <QWebEngineScriptCollection>
#include <QWebEngineView>
#include <QtWebEngineCore/qtwebenginecoreglobal.h>

namespace veetbot {

namespace {
constexpr int kViewWidth = 1280;
constexpr int kViewHeight = 800;

} // namespace

WebEngineProvider::WebEngineProvider(OriginPolicy policy, TestOverrides overrides, QObject *parent,
                                     QWidget *viewParent)
    : BrowserProvider(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides)),
      m_revision(m_policy, m_overrides), m_operations(new OperationQueue(this)),
      m_act(new ActDispatch(this))
{
    // No storage name: an off-the-record profile that keeps nothing on disk.
    m_profile = new QWebEngineProfile(this);
    m_profile->setHttpCacheType(QWebEngineProfile::MemoryHttpCache);
    m_profile->setPersistentCookiesPolicy(QWebEngineProfile::NoPersistentCookies);
    m_profile->setSpellCheckEnabled(false);
    m_interceptor = new RequestInterceptor(m_policy, m_overrides, this);
    // Mirrors the cookie store from now on: it cannot be listed later.
    m_state = new ProfileState(
        m_profile, [this](bool allowed) { m_interceptor->setStateDocumentsAllowed(allowed); },
        this);
    m_settler = new PageSettler(this);
    m_profile->setUrlRequestInterceptor(m_interceptor);
    m_interceptor->setRequestGuard(
        [this](const WriteGuard::Request &request) { return m_guard.allows(request); });
    m_profile->scripts()->insert(Collector::installScript());
    // Downloads are refused; the navigation guard refuses disallowed ones before any
    // request, this cancels what reaches the profile from an allowed origin.
    connect(m_profile, &QWebEngineProfile::downloadRequested, this,
            [](QWebEngineDownloadRequest *download) { download->cancel(); });

    m_view = new QWebEngineView(viewParent);
    m_view->resize(kViewWidth, kViewHeight);
    createPage();
    if (!viewParent)
        m_view->show();

    m_navigationTimer.setSingleShot(true);
    connect(&m_navigationTimer, &QTimer::timeout, this, [this] {
        if (m_operations->busy() && m_phase == Phase::Loading) {
            // A document that never became ready may have a renderer stuck in a script:
            // recycle the page so the next operation starts clean.
            abandonPage(ReasonCode::ProviderUnavailable);
        }
    });
    m_patienceTimer.setSingleShot(true);
    connect(&m_patienceTimer, &QTimer::timeout, this, &WebEngineProvider::checkLoadPatience);
    m_contentLoadedTimer.setSingleShot(true);
    connect(&m_contentLoadedTimer, &QTimer::timeout, this, &WebEngineProvider::checkContentLoaded);
}

void WebEngineProvider::observeNetwork()
{
    if (!m_networkKey.isEmpty())
        return;
    // A fresh name per browser: nothing on the page can rely on it in advance.
    m_networkKey = QStringLiteral("__veetbotNetwork_") + randomToken(12);
    m_profile->scripts()->insert(Collector::networkObserverScript(m_networkKey));
    m_networkWatch = new NetworkWatch(this);
}

void WebEngineProvider::waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done)
{
    if (!m_networkWatch || m_operations->busy() || m_networkWatch->active() ||
        !m_policy.allowsNavigation(m_page->url(), m_overrides)) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_networkWatch->start(
        {.probe = Collector::runnerFor(m_page, m_timeouts.scriptMs),
         .pageProbe =
             Collector::runnerFor(m_page, m_timeouts.scriptMs, QWebEngineScript::MainWorld),
         .observerKey = m_networkKey,
         .timing = {.boundMs = request.boundMs,
                    .quietMs = request.quietMs,
                    .pollMs = m_timeouts.pollMs},
         .started = [this] { return startedResources(); },
         // A navigation the page started itself (a script sending the
         // visitor to sign in) holds the wait until its document loaded.
         .documentOnItsWay = [this] { return m_pageLoading && !m_contentLoaded; }},
        std::move(done));
}

NetworkWatch::StartedResources WebEngineProvider::startedResources() const
{
    // Bounded like settling; the main document is whole by DOMContentLoaded, and the page's own
    // requests are the observer's.
    NetworkWatch::StartedResources started;
    qint64 lastStartMs = -1;
    for (const RequestInterceptor::StartedRequest &request :
         m_interceptor->startedSince(m_loadStartMs, 4 * Settling::kMaxRequests)) {
        if (request.kind != RequestInterceptor::StartedRequest::Kind::Resource ||
            started.urls.size() >= Settling::kMaxRequests)
            continue;
        started.urls.append(QString::fromUtf8(request.url.toEncoded()));
        lastStartMs = request.startedAtMs;
    }
    if (lastStartMs >= 0)
        started.sinceLastMs = m_interceptor->nowMs() - lastStartMs;
    return started;
}

WebEngineProvider::~WebEngineProvider()
{
    // Close first, while this object is whole: every pending call is answered exactly once,
    // and a collector callback that a page's deletion still runs finds no current operation.
    close();
    // Then every page, the current one and any recycled one not yet deleted, goes before the
    // profile: no page outlives this object, so none of their callbacks runs after it. The
    // view may already be gone with a UI parent.
    delete m_view.data();
    for (const QPointer<GuardedPage> &retired : std::as_const(m_retiredPages))
        delete retired.data();
    m_retiredPages.clear();
    delete m_page;
    m_page = nullptr;
}

void WebEngineProvider::createPage()
{
    m_page = new GuardedPage(m_policy, m_overrides, m_profile, this);
    connect(m_page, &QWebEnginePage::loadingChanged, this, &WebEngineProvider::onLoadingChanged);
    connect(m_page, &GuardedPage::beforeUnloadDismissed, this,
            &WebEngineProvider::onBeforeUnloadDismissed);
    connect(m_page, &QWebEnginePage::renderProcessTerminated, this,
            [this](QWebEnginePage::RenderProcessTerminationStatus status, int) {
                if (status == QWebEnginePage::NormalTerminationStatus)
                    return;
                // Replace the page before anything else runs on it; the dead one's late
                // signals are disconnected.
                invalidateRevision();
                recyclePage();
                if (m_operations->busy())
                    complete(ReasonCode::ProviderUnavailable);
            });
    if (m_view)
        m_view->setPage(m_page);
}

void WebEngineProvider::abandonPage(ReasonCode reason)
{
    invalidateRevision();
    recyclePage();
    complete(reason);
}

void WebEngineProvider::recyclePage()
{
    GuardedPage *old = m_page;
    createPage();
    m_pageLoading = false;
    m_contentLoaded = false;
    if (old) {
        old->disconnect(this);
        old->deleteLater();
        m_retiredPages.removeAll(nullptr);
        m_retiredPages.append(old);
    }
}

ProviderCapabilities WebEngineProvider::capabilities() const
{
    return ProviderCapabilities::browsing();
}

void WebEngineProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    const QUrl url = request.url;
    if (request.until == NavigateRequest::Until::ContentLoaded && m_networkKey.isEmpty()) {
        done(ReasonCode::ProviderUnavailable); // only a verification browser knows that moment
        return;
    }
    enqueue([this, request] { startNavigate(request); }, std::move(done));
}

void WebEngineProvider::observe(const ObserveRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startObserve(request); }, std::move(done));
}

void WebEngineProvider::startObserve(const ObserveRequest &request)
{
    // A continuation is resolved against the committed revision first. What is not current
    // is refused before any capture: the current revision stays valid.
    Result<PageRevision::Window> window = m_revision.resolve(request);
    if (!window) {
        complete(window.error());
        return;
    }
    if (!m_policy.allowsNavigation(m_page->url(), m_overrides) ||
        (m_pageLoading && !m_contentLoaded)) {
        // No allowed document to observe (never navigated, or mid-load after a crash
        // recycle). A verification's document is one from DOMContentLoaded on, while an
        // image or a frame may still hold its load event.
        complete(ReasonCode::ProviderUnavailable);
        return;
    }
    capture(std::nullopt, *window);
}

void WebEngineProvider::invalidateRevision()
{
    m_revision.invalidate();
}

std::optional<ElementFacts> WebEngineProvider::elementFacts(const QString &revision,
                                                            const QString &ref) const
{
    return m_revision.elementFacts(revision, ref);
}

std::optional<PageEvidence> WebEngineProvider::pageEvidence(const QString &revision) const
{
    return m_revision.pageEvidence(revision);
}

// --- browser.act ----------------------------------------------------------------------------

void WebEngineProvider::act(const ActionRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startAct(request); }, std::move(done));
}

void WebEngineProvider::actUnderConstraint(const ActRequest &request,
                                           const DispatchConstraint &constraint,
                                           ObservationCallback done)
{
    enqueue(
        [this, request, constraint] {
            m_constraint = constraint;
            startAct(request);
        },
        std::move(done));
}

void WebEngineProvider::startAct(const ActRequest &request)
{
    // Everything here is decided before anything is sent; a refusal keeps the revision.
    if (!m_revision.isCurrent(request.expectedRevision())) {
        complete(ReasonCode::PageChanged);
        return;
    }
    if (m_revision.hasRegion(request.ref())) {
        complete(ReasonCode::RegionNotActionable); // evidence, never a target
        return;
    }
    if (!m_revision.hasElement(request.ref()) || m_pageLoading ||
        !m_policy.allowsNavigation(m_page->url(), m_overrides)) {
        complete(ReasonCode::PageChanged);
        return;
    }
    if (request.kind() == ActRequest::Kind::Type) {
        const ElementFacts *facts = m_revision.facts(request.ref());
        if (facts && refusesTyping(*facts)) {
            complete(ReasonCode::ActionNotAllowed);
            return;
        }
    }
    if (!m_view || !m_view->focusProxy()) {
        complete(ReasonCode::ProviderUnavailable); // no input path: nothing can be sent
        return;
    }
    m_phase = Phase::Trial;
    m_guard.beginAct(std::exchange(m_constraint, std::nullopt));
    ActDispatch::Handlers handlers;
    handlers.ready = [this] {
        m_page->resetOperationFlags();
        m_loadStartMs = m_interceptor->nowMs();
    };
    handlers.openGate = [this](const ActRequest &act, GateAnswer answer) {
        askDispatchGate(act, std::move(answer));
    };
    handlers.sending = [this, type = request.kind() == ActRequest::Kind::Type,
                        key = request.kind() == ActRequest::Kind::Press] {
        // A new submission replaces the draft receipt; a rich-text one may become the next.
        if (type)
            m_revision.dropDraft();
        // From here on the site may see the action: any failure is outcome_unknown. Typed
        // text or a key is the page's to read from now on.
        m_guard.markDispatched(type || key);
        invalidateRevision();
        m_phase = Phase::Dispatching;
    };
    handlers.ran = [this] {
        invalidateRevision();
        beginSettle(Settling::After::Input);
    };
    handlers.failed = [this](ReasonCode reason) { complete(reason); };
    handlers.unresponsive = [this](ReasonCode reason) { abandonPage(reason); };
    if (m_guard.constraint()) {
        handlers.recheck = [this, request](const QJsonObject &ready) {
            return m_guard.recheck(request, m_revision.facts(request.ref()), ready, m_page->url());
        };
        // Documents stay on this page's origin and off sensitive paths until the act ends;
        // under the write guard a document's address must not write either (the navigation
        // guard sees every redirect hop, which the request stage cannot stop reliably).
        const auto fence = [this, page = m_page->url()](const QUrl &url) {
            return m_guard.allowsDocument(url, page);
        };
        m_page->setDocumentFence(fence);
        m_interceptor->setDocumentFence(fence);
    }
    const auto run = [page = QPointer<GuardedPage>(m_page)](
                         const QString &source, int timeoutMs,
                         std::function<void(std::optional<QJsonObject>)> done) {
        if (!page) {
            done(std::nullopt);
            return;
        }
        Collector::run(page, source, timeoutMs, std::move(done));
    };
    m_act->start(run, TrustedInput::inputFor(m_view), request, m_revision.captureId(),
                 {.trialMs = m_timeouts.actTrialMs,
                  .dispatchMs = m_timeouts.dispatchMs,
                  .scriptMs = m_timeouts.scriptMs,
                  .pollMs = m_timeouts.pollMs},
                 std::move(handlers));
}

void WebEngineProvider::captureFrame(FrameCallback done)
{
    // Between operations only: a frame never races a navigation or an act.
    if (!m_view || !m_page || m_operations->busy() || m_operations->closed()) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    QImage image = m_view->grab().toImage();
    constexpr int kScaleSteps = 4;
    for (int step = 0; step < kScaleSteps && !image.isNull(); ++step) {
        QByteArray png;
        QBuffer buffer(&png);
        if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
            break;
        if (std::optional<LiveFrame> frame = LiveFrame::fromPng(png)) {
            done(std::move(*frame));
            return;
        }
        image = image.scaled(image.size() * 0.7, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    }
    done(ReasonCode::ProviderUnavailable);
}

std::optional<EngineIdentity> WebEngineProvider::engineIdentity() const
{
    return EngineIdentity::fromProduct(BrowserEngine::QtWebEngine,
                                       QString::fromLatin1(qWebEngineChromiumVersion()));
}

void WebEngineProvider::close()
{
    if (m_networkWatch)
        m_networkWatch->abandon();
    invalidateRevision();
    m_operations->close([this] { complete(ReasonCode::ProviderUnavailable); });
    if (m_page)
        m_page->triggerAction(QWebEnginePage::Stop);
}

void WebEngineProvider::restoreState(const SessionState &state,
                                     std::function<void(Result<Unit>)> done)
{
    if (m_operations->busy()) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_state->restore(state, std::move(done));
}

void WebEngineProvider::exportState(const QList<Origin> &origins, StateCallback done)
{
    if (m_operations->busy()) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_state->exportState(origins, std::move(done));
}

void WebEngineProvider::runCollectorScript(const QString &source,
                                           std::function<void(std::optional<QJsonObject>)> done)
{
    Collector::run(m_page, source, m_timeouts.scriptMs, std::move(done));
}

// --- operation lock ---------------------------------------------------------------------

void WebEngineProvider::enqueue(std::function<void()> operation, ObservationCallback done)
{
    m_operations->enqueue(
        [this, operation = std::move(operation)] {
            m_phase = Phase::Idle;
            m_until = NavigateRequest::Until::Settled;
            m_constraint.reset();
            operation();
        },
        std::move(done));
}

void WebEngineProvider::complete(Result<BrowserObservation> result)
{
    if (!m_operations->busy())
        return;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_contentLoadedTimer.stop();
    m_phase = Phase::Idle;
    const quint64 op = m_operations->current();
    if (m_guard.deferForGrace(result, this, [this, op](Result<BrowserObservation> held) {
            if (isCurrent(op))
                complete(std::move(held));
        }))
        return;
    if (m_guard.navigationRefusedWrite() && !result.ok() && !m_guard.dispatched())
        result = ReasonCode::WriteRequiresApproval; // a document of the navigation writes
    m_guard.endNavigation();
    bool retire = false;
    result = m_guard.conclude(std::move(result), &retire);
    if (retire)
        invalidateRevision(); // its references are retired
    m_constraint.reset();
    m_page->setDocumentFence({});
    m_interceptor->setDocumentFence({});
    m_act->end();
    m_settler->stop();
    if (result.ok())
        Q_EMIT observationPublished(result.value());
    // Late callbacks of this operation become stale; the next one starts on the next pass.
    m_operations->finish(std::move(result));
}

// --- navigation ---------------------------------------------------------------------------

void WebEngineProvider::startNavigate(const NavigateRequest &request)
{
    const QUrl url = request.url;
    const NavigateRequest::Until until = request.until;
    if (!m_policy.allowsNavigation(url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed); // before any request
        return;
    }
    m_revision.dropDraft(); // its editor belongs to the page being replaced
    m_contentLoaded = false;
    // A navigation the agent asked for starts unarmed; unless an approval stands behind it,
    // every document it loads (each redirect hop in the navigation guard, the request stage
    // behind it) must not write.
    m_guard.beginNavigation(request.guarded);
    // The references of the page being replaced stop being valid now.
    invalidateRevision();
    m_page->resetOperationFlags();
    m_page->setLeavesUnsavedInput(request.discardUnsaved);
    if (request.guarded) {
        // The first request the request stage judges (a refusal there fails the load, where
        // the navigation guard's would leave it waiting); the navigation guard every hop after.
        m_page->setDocumentFence([this, first = url](const QUrl &document) {
            return document == first || m_guard.allowsDocument(document, QUrl());
        });
    }
    m_primaryLoadDone = false;
    m_stalledLoad = false;
    m_phase = Phase::Loading;
    m_loadStartMs = m_interceptor->nowMs();
    m_navigationTimer.start(m_timeouts.navigationMs);
    m_until = until;
    if (until == NavigateRequest::Until::Settled) {
        m_patienceTimer.start(m_timeouts.loadPatienceMs);
        m_page->load(url);
        return;
    }
    if (!m_policy.allowsNavigation(m_page->url(), m_overrides)) {
        // No document of the profile's yet (a fresh browser): nothing to mistake for the new one.
        m_page->load(url);
        m_contentLoadedTimer.start(m_timeouts.pollMs);
        return;
    }
    // The document being replaced stops answering the observer before the load starts, so
    // its DOMContentLoaded is never taken for the new one's.
    const quint64 op = m_operations->current();
    Collector::run(
        m_page, Collector::networkReplaceCall(m_networkKey), m_timeouts.scriptMs,
        [this, op, url](std::optional<QJsonObject>) {
            if (!isCurrent(op) || m_phase != Phase::Loading)
                return;
            m_page->load(url);
            m_contentLoadedTimer.start(m_timeouts.pollMs);
        },
        QWebEngineScript::MainWorld);
}

void WebEngineProvider::checkContentLoaded()
{
    if (!m_operations->busy() || m_phase != Phase::Loading || m_primaryLoadDone)
        return;
    const quint64 op = m_operations->current();
    Collector::run(
        m_page, Collector::networkProbeCall(m_networkKey), m_timeouts.scriptMs,
        [this, op](std::optional<QJsonObject> probe) {
            if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                return;
            const bool loaded = probe && probe->value(QStringLiteral("ok")).toBool() &&
                                probe->value(QStringLiteral("loaded")).toBool() &&
                                m_policy.allowsNavigation(m_page->url(), m_overrides) &&
                                !m_page->refusedMainFrameNavigation();
            if (!loaded) {
                m_contentLoadedTimer.start(m_timeouts.pollMs);
                return;
            }
            primaryLoadReady();
        },
        QWebEngineScript::MainWorld);
}

void WebEngineProvider::primaryLoadReady()
{
    m_primaryLoadDone = true;
    if (m_until == NavigateRequest::Until::Settled) {
        beginSettle();
        return;
    }
    m_navigationTimer.stop();
    m_contentLoadedTimer.stop();
    m_contentLoaded = true;
    capture(std::nullopt);
}

void WebEngineProvider::checkLoadPatience()
{
    // The load event can wait on a stalled subresource for a long time. Once the allowed
    // document has been parsed, settle and observe it as it is instead of failing.
    if (!m_operations->busy() || m_phase != Phase::Loading || m_primaryLoadDone)
        return;
    const quint64 op = m_operations->current();
    Collector::run(m_page, Collector::settleProbeCall({}), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                           return;
                       const bool parsed = probe && probe->value(QStringLiteral("ok")).toBool() &&
                                           probe->value(QStringLiteral("readyState")).toString() !=
                                               QLatin1String("loading") &&
                                           m_policy.allowsNavigation(m_page->url(), m_overrides) &&
                                           !m_page->refusedMainFrameNavigation();
                       if (!parsed) {
                           m_patienceTimer.start(m_timeouts.pollMs * 10);
                           return;
                       }
                       m_primaryLoadDone = true;
                       m_stalledLoad = true;
                       beginSettle();
                   });
}

void WebEngineProvider::onLoadingChanged(const QWebEngineLoadingInfo &info)
{
    const bool started = info.status() == QWebEngineLoadingInfo::LoadStartedStatus;
    m_pageLoading = started;
    // Another document is on its way: the one taken at DOMContentLoaded is going.
    if (started)
        m_contentLoaded = false;
    if (started && m_operations->busy() && m_guard.dispatched() &&
        (m_phase == Phase::Dispatching || m_phase == Phase::Settling ||
         m_phase == Phase::Capturing)) {
        // The action started a navigation (also one the page's script starts while the
        // settled page is captured): follow it like navigate does (the guard refuses what the
        // policy does not allow). The input's evidence, the settling it began and a capture
        // under way are dropped; the act's outcome stays for the capture of the new document.
        m_act->halt();
        m_settler->stop();
        ++m_captureGeneration;
        m_phase = Phase::Loading;
        m_primaryLoadDone = false;
        m_stalledLoad = false;
        m_navigationTimer.start(m_timeouts.navigationMs);
        m_patienceTimer.start(m_timeouts.loadPatienceMs);
        return;
    }
    if (!m_operations->busy() || m_phase != Phase::Loading)
        return;
    if (started)
        return;
    if (!m_primaryLoadDone) {
        if (info.status() == QWebEngineLoadingInfo::LoadSucceededStatus) {
            primaryLoadReady();
            return;
        }
        if (m_guard.dispatched() && m_page->refusedMainFrameNavigation()) {
            // The guard refused where the action led: the page stayed; observe it.
            m_primaryLoadDone = true;
            beginSettle();
            return;
        }
        // After an action any other failed load (a reset connection, no response) may have
        // reached the site: complete() reports outcome_unknown.
        if (m_page->refusedMainFrameNavigation())
            complete(ReasonCode::UrlDisallowed);
        else if (m_page->dismissedBeforeUnload())
            cancelOnceThePageAnswers();
        else
            complete(ReasonCode::ProviderUnavailable);
    }
}

void WebEngineProvider::cancelOnceThePageAnswers()
{
    // The browser is still finishing the cancelled navigation when the prompt's answer comes
    // back: a navigation asked for at once was measured to be swallowed by it (the old page
    // observed as the new one). The page answering a probe means its beforeunload is over.
    m_phase = Phase::Settling;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_contentLoadedTimer.stop();
    const quint64 op = m_operations->current();
    Collector::run(m_page, Collector::settleProbeCall({}), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject>) {
                       if (isCurrent(op))
                           complete(ReasonCode::NavigationCancelled);
                   });
}

void WebEngineProvider::onBeforeUnloadDismissed()
{
    // navigate: the page's beforeunload prompt was answered "stay", so the load never starts
    // and no load signal will come. The page stays as it was (its revision was already
    // retired when the navigation began). After an act the page also stays; the act settles
    // and observes it as usual.
    if (m_operations->busy() && m_phase == Phase::Loading && !m_guard.dispatched() &&
        !m_primaryLoadDone && !m_pageLoading)
        cancelOnceThePageAnswers();
}

// --- settling -------------------------------------------------------------------------------

void WebEngineProvider::beginSettle(Settling::After after)
{
    m_phase = Phase::Settling;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_settler->start({.probe = Collector::runnerFor(m_page, m_timeouts.scriptMs),
                      .timing = {.boundMs = m_timeouts.settleBoundMs,
                                 .quietMs = m_timeouts.quietMs,
                                 .pollMs = m_timeouts.pollMs},
                      .startedRequests =
                          [this, since = m_loadStartMs] {
                              QStringList urls;
                              for (const auto &request :
                                   m_interceptor->startedSince(since, Settling::kMaxRequests))
                                  urls.append(QString::fromUtf8(request.url.toEncoded()));
                              return urls;
                          },
                      .stalledLoad = m_stalledLoad,
                      .pageLoading = [this] { return m_pageLoading; },
                      .after = after},
                     [this](std::optional<Readiness> readiness) {
                         if (!readiness) {
                             // The page does not answer: recycle it and fail cleanly.
                             abandonPage(ReasonCode::ProviderUnavailable);
                             return;
                         }
                         capture(*readiness);
                     });
}

// --- capture --------------------------------------------------------------------------------

void WebEngineProvider::capture(std::optional<Readiness> readiness,
                                const PageRevision::Window &window)
{
    m_phase = Phase::Capturing;
    const quint64 op = m_operations->current();
    m_revision.capture(
        {.run = Collector::runnerFor(m_page, m_timeouts.scriptMs),
         .liveUrl = [page = QPointer<GuardedPage>(m_page)] { return page ? page->url() : QUrl(); },
         .isLive =
             [this, op, generation = m_captureGeneration] {
                 return isCurrent(op) && generation == m_captureGeneration;
             },
         .readiness = readiness,
         .window = window,
         .action = m_act->outcome(),
         .actDraft = m_act->draftText(),
         .guardEvidence = [this](PageEvidence &evidence) { m_guard.takeEvidence(evidence); }},
        [this](PageRevision::Outcome outcome) {
            if (outcome.recycle)
                recyclePage(); // the page did not answer: a new one replaces it
            complete(std::move(outcome.result));
        });
}

} // namespace veetbot
