#include "WebEngineProvider.h"

#include "Collector.h"
#include "GuardedPage.h"
#include "RequestInterceptor.h"
#include "TrustedInput.h"
#include "domain/CaptureAssembly.h"
#include "domain/ToolJson.h"

#include <QCoreApplication>
#include <QInputMethodEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QWebEngineDownloadRequest>
#include <QWebEngineLoadingInfo>
#include <QWebEngineProfile>
#include <QWebEngineScriptCollection>
#include <QWebEngineView>

namespace veetbot {

namespace {
constexpr int kMaxSettlingRequests = 256;
constexpr int kViewWidth = 1280;
constexpr int kViewHeight = 800;
constexpr int kCursorBytes = 24; // 192 random bits, 32 base64url characters

} // namespace

WebEngineProvider::WebEngineProvider(OriginPolicy policy, TestOverrides overrides, QObject *parent,
                                     QWidget *viewParent)
    : BrowserProvider(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides)),
      m_operations(new OperationQueue(this))
{
    // No storage name: an off-the-record profile that keeps nothing on disk.
    m_profile = new QWebEngineProfile(this);
    m_profile->setHttpCacheType(QWebEngineProfile::MemoryHttpCache);
    m_profile->setPersistentCookiesPolicy(QWebEngineProfile::NoPersistentCookies);
    m_profile->setSpellCheckEnabled(false);
    m_interceptor = new RequestInterceptor(m_policy, m_overrides, this);
    m_profile->setUrlRequestInterceptor(m_interceptor);
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
    if (old) {
        old->disconnect(this);
        old->deleteLater();
        m_retiredPages.removeAll(nullptr);
        m_retiredPages.append(old);
    }
}

ProviderCapabilities WebEngineProvider::capabilities() const
{
    ProviderCapabilities capabilities;
    capabilities.navigate = true;
    capabilities.observe = true;
    capabilities.expand = true;  // observe() continues with {after} and {cursor}
    capabilities.extract = true; // observe() reads collections with {extract}
    capabilities.act = true;
    return capabilities;
}

void WebEngineProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    const QUrl url = request.url;
    enqueue([this, url] { startNavigate(url); }, std::move(done));
}

void WebEngineProvider::observe(const ObserveRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startObserve(request); }, std::move(done));
}

void WebEngineProvider::startObserve(const ObserveRequest &request)
{
    // A continuation is resolved against the committed revision first. What is not current
    // is refused before any capture: the current revision stays valid.
    Collector::CaptureWindow window;
    std::optional<int> expectedOffset = 0;
    int focusTextOffset = 0;
    std::optional<ExtractRequest> extract;
    switch (request.mode()) {
    case ObserveRequest::Mode::First:
        break;
    case ObserveRequest::Mode::After:
        // A region of the current revision is evidence, never an anchor.
        if (m_currentRegionRefs.contains(request.value())) {
            complete(ReasonCode::RegionNotActionable);
            return;
        }
        if (m_currentRevision.isEmpty() || !m_currentRefs.contains(request.value())) {
            complete(ReasonCode::PageChanged); // not an element ref of the current revision
            return;
        }
        window.continuesCapture = m_currentCaptureId;
        window.afterRef = request.value();
        expectedOffset.reset(); // the anchor's recorded position, known to the collector
        break;
    case ObserveRequest::Mode::Cursor:
        if (m_currentRevision.isEmpty() || !m_cursor || m_cursor->token != request.value()) {
            complete(ReasonCode::PageChanged); // stale, foreign or never minted
            return;
        }
        window.continuesCapture = m_currentCaptureId;
        window.startPosition = m_cursor->position;
        expectedOffset = m_cursor->position;
        break;
    case ObserveRequest::Mode::WaitFor:
        // Polling is the tool's (tools/ObserveTool): the provider captures windows only.
        complete(ToolArguments::invalidArguments());
        return;
    case ObserveRequest::Mode::Extract:
        // Only the current revision may be read into rows; anything else (an earlier
        // revision, another provider's, none) is refused before any capture.
        if (m_currentRevision.isEmpty() || request.extractRequest().revision != m_currentRevision) {
            complete(ReasonCode::PageChanged);
            return;
        }
        extract = request.extractRequest();
        window.continuesCapture = m_currentCaptureId;
        window.extract = QJsonObject{
            {QStringLiteral("kind"), extractKindString(extract->kind)},
            {QStringLiteral("index"), extract->index},
            {QStringLiteral("columns"), int(extract->columns.size())},
            {QStringLiteral("limit"), extract->limit},
        };
        break;
    case ObserveRequest::Mode::Focus: {
        const FocusRequest &focus = request.focusRequest();
        if (m_currentRevision.isEmpty() || focus.expectedRevision != m_currentRevision ||
            !m_currentRegionRefs.contains(focus.regionRef)) {
            complete(ReasonCode::PageChanged); // stale revision, or not a current region
            return;
        }
        if (focus.textOffset > 0) {
            // Text continuation: only within the region the current revision focused, at
            // an offset inside its captured text, between two code points.
            const bool matches = m_focus && m_focus->regionRef == focus.regionRef &&
                                 focus.textOffset <= m_focus->text.size() &&
                                 (focus.textOffset == m_focus->text.size() ||
                                  (quint8(m_focus->text.at(focus.textOffset)) & 0xC0) != 0x80);
            if (!matches) {
                complete(ReasonCode::FocusRequired);
                return;
            }
        }
        window.continuesCapture = m_currentCaptureId;
        window.focusRegion = focus.regionRef;
        focusTextOffset = focus.textOffset;
        break;
    }
    }
    if (!m_policy.allowsNavigation(m_page->url(), m_overrides) || m_pageLoading) {
        // No allowed document to observe (never navigated, or mid-load after a crash
        // recycle).
        complete(ReasonCode::ProviderUnavailable);
        return;
    }
    capture(std::nullopt, window, expectedOffset, focusTextOffset, extract);
}

void WebEngineProvider::invalidateRevision()
{
    m_currentRevision.clear();
    m_currentCaptureId.clear();
    m_currentRefs.clear();
    m_currentRegionRefs.clear();
    m_currentFacts.clear();
    m_cursor.reset();
    m_focus.reset();
    m_currentText.reset();
}

std::optional<ElementFacts> WebEngineProvider::elementFacts(const QString &revision,
                                                            const QString &ref) const
{
    if (m_currentRevision.isEmpty() || revision != m_currentRevision)
        return std::nullopt;
    const auto it = m_currentFacts.constFind(ref);
    if (it == m_currentFacts.constEnd())
        return std::nullopt;
    return *it;
}

// --- browser.act ----------------------------------------------------------------------------

void WebEngineProvider::act(const ActionRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startAct(request); }, std::move(done));
}

void WebEngineProvider::startAct(const ActRequest &request)
{
    // Everything here is decided before anything is sent; a refusal keeps the revision.
    if (m_currentRevision.isEmpty() || request.expectedRevision() != m_currentRevision) {
        complete(ReasonCode::PageChanged);
        return;
    }
    if (m_currentRegionRefs.contains(request.ref())) {
        complete(ReasonCode::RegionNotActionable); // evidence, never a target
        return;
    }
    if (!m_currentRefs.contains(request.ref()) || m_pageLoading ||
        !m_policy.allowsNavigation(m_page->url(), m_overrides)) {
        complete(ReasonCode::PageChanged);
        return;
    }
    if (request.kind() == ActRequest::Kind::Type) {
        const auto facts = m_currentFacts.constFind(request.ref());
        if (facts != m_currentFacts.constEnd() && refusesTyping(*facts)) {
            complete(ReasonCode::ActionNotAllowed);
            return;
        }
    }
    if (!m_view || !m_view->focusProxy()) {
        complete(ReasonCode::ProviderUnavailable); // no input path: nothing can be sent
        return;
    }
    m_act = ActState{request, m_currentCaptureId, randomToken(12), {}, {}, std::nullopt};
    m_act->trialClock.start();
    m_phase = Phase::Trial;
    runTrial();
}

void WebEngineProvider::runTrial()
{
    const quint64 op = m_operations->current();
    const qint64 remaining = m_timeouts.actTrialMs - m_act->trialClock.elapsed();
    if (remaining <= 0) {
        complete(ReasonCode::ElementNotFound); // never actionable in time: nothing sent
        return;
    }
    const ActRequest &request = m_act->request;
    QJsonObject options{{QStringLiteral("current"), m_act->captureId},
                        {QStringLiteral("ref"), request.ref()},
                        {QStringLiteral("kind"), actKindString(request.kind())},
                        {QStringLiteral("trial"), m_act->trialId}};
    if (request.kind() == ActRequest::Kind::Select)
        options.insert(QStringLiteral("option"), request.option());
    if (request.kind() == ActRequest::Kind::Check)
        options.insert(QStringLiteral("checked"), request.checked());
    // The call gets the full script bound even near the end of the trial bound: a page is
    // judged stuck (and replaced) only when it does not answer within scriptMs, never
    // because the trial's last round trip outlasted the few milliseconds left.
    Collector::run(m_page, Collector::actCall(QStringLiteral("actTrial"), options),
                   m_timeouts.scriptMs, [this, op](std::optional<QJsonObject> answer) {
                       if (!isCurrent(op) || m_phase != Phase::Trial)
                           return;
                       if (!answer) {
                           // The page did not answer the trial: nothing was sent. It is stuck;
                           // replace it (which retires the revision).
                           abandonPage(ReasonCode::ElementNotFound);
                           return;
                       }
                       const QString error = answer->value(QStringLiteral("error")).toString();
                       if (!answer->value(QStringLiteral("ok")).toBool()) {
                           if (error == QLatin1String("page_changed"))
                               complete(ReasonCode::PageChanged); // another document, or the
                                                                  // target's role or name changed
                           else if (error == QLatin1String("not_allowed"))
                               complete(ReasonCode::ActionNotAllowed);
                           else
                               complete(
                                   ReasonCode::ElementNotFound); // detached, wrong kind, failed
                           return;
                       }
                       if (answer->value(QStringLiteral("state")) == QLatin1String("ready")) {
                           dispatchAct(*answer);
                           return;
                       }
                       QTimer::singleShot(m_timeouts.pollMs, this, [this, op] {
                           if (isCurrent(op) && m_phase == Phase::Trial)
                               runTrial();
                       });
                   });
}

void WebEngineProvider::dispatchAct(const QJsonObject &ready)
{
    const ActRequest &request = m_act->request;
    m_act->outcome = ActionOutcome{actKindString(request.kind()), true, std::nullopt};
    m_page->resetOperationFlags();
    m_loadStartMs = m_interceptor->nowMs();
    if (request.kind() == ActRequest::Kind::Check &&
        ready.value(QStringLiteral("unchanged")).toBool()) {
        // Already in the requested state: nothing is sent; observe the page as it is.
        m_act->outcome->dispatched = false;
        invalidateRevision();
        beginSettle();
        return;
    }
    // The dispatch gate records dispatch_started durably before the first input; a gate that
    // cannot do so stops the act here, with nothing sent.
    if (!openDispatchGate(request)) {
        complete(ReasonCode::ProviderUnavailable);
        return;
    }
    if (request.kind() == ActRequest::Kind::Type) {
        // A new submission replaces the receipt; a rich-text one may become the next.
        m_draft.reset();
        if (ready.value(QStringLiteral("editable")).toBool())
            m_act->draftText = request.text();
    }
    // From here on the site may see the action: any failure is outcome_unknown.
    m_dispatched = true;
    invalidateRevision();
    m_phase = Phase::Dispatching;
    m_act->dispatchClock.start();
    QWidget *target = m_view ? m_view->focusProxy() : nullptr;
    if (!target) {
        complete(ReasonCode::ProviderUnavailable);
        return;
    }
    // Keys and input-method text reach the page only through a focused view; a replaced page
    // gets a new render widget that nothing focused yet.
    if (!target->hasFocus())
        target->setFocus(Qt::OtherFocusReason);
    const qreal zoom = m_page->zoomFactor();
    const QPointF point(ready.value(QStringLiteral("x")).toDouble() * zoom,
                        ready.value(QStringLiteral("y")).toDouble() * zoom);
    switch (request.kind()) {
    case ActRequest::Kind::Click:
    case ActRequest::Kind::Check:
        TrustedInput::click(target, point);
        break;
    case ActRequest::Kind::Press:
        TrustedInput::key(target, request.key());
        break;
    case ActRequest::Kind::Type:
        if (request.text().isEmpty()) {
            // Nothing to insert: delete the selected content (the whole value).
            TrustedInput::key(target, ActRequest::Key::Delete);
        } else {
            // One trusted input-method commit replaces the selected content.
            QInputMethodEvent commit;
            commit.setCommitString(request.text());
            QCoreApplication::sendEvent(target, &commit);
        }
        break;
    case ActRequest::Kind::Select:
    case ActRequest::Kind::Scroll:
        performInPage();
        return;
    }
    awaitInputEvidence();
}

void WebEngineProvider::awaitInputEvidence()
{
    // The input went to the browser; wait (bounded) until the document saw a trusted event
    // of it, or was replaced by a navigation it started, before settling.
    const quint64 op = m_operations->current();
    const qint64 remaining = m_timeouts.dispatchMs - m_act->dispatchClock.elapsed();
    if (remaining <= 0) {
        complete(ReasonCode::ProviderUnavailable); // reported as outcome_unknown
        return;
    }
    Collector::run(
        m_page,
        Collector::actCall(QStringLiteral("actSeen"), {{QStringLiteral("trial"), m_act->trialId}}),
        int(qMin<qint64>(remaining, m_timeouts.scriptMs)),
        [this, op](std::optional<QJsonObject> answer) {
            if (!isCurrent(op) || m_phase != Phase::Dispatching)
                return;
            if (!answer || !answer->value(QStringLiteral("ok")).toBool()) {
                // A page that does not answer (a busy loop, a dead renderer).
                abandonPage(ReasonCode::ProviderUnavailable);
                return;
            }
            if (answer->value(QStringLiteral("seen")).toBool() ||
                answer->value(QStringLiteral("replaced")).toBool()) {
                beginSettle();
                return;
            }
            QTimer::singleShot(m_timeouts.pollMs, this, [this, op] {
                if (isCurrent(op) && m_phase == Phase::Dispatching)
                    awaitInputEvidence();
            });
        });
}

void WebEngineProvider::performInPage()
{
    // select and scroll run in the collector world, bounded like any dispatch.
    const quint64 op = m_operations->current();
    const ActRequest &request = m_act->request;
    QJsonObject options{{QStringLiteral("current"), m_act->captureId},
                        {QStringLiteral("ref"), request.ref()},
                        {QStringLiteral("trial"), m_act->trialId},
                        {QStringLiteral("kind"), actKindString(request.kind())}};
    if (request.kind() == ActRequest::Kind::Select)
        options.insert(QStringLiteral("option"), request.option());
    else
        options.insert(QStringLiteral("delta"), request.delta());
    Collector::run(m_page, Collector::actCall(QStringLiteral("actPerform"), options),
                   qMin(m_timeouts.dispatchMs, m_timeouts.scriptMs),
                   [this, op](std::optional<QJsonObject> answer) {
                       if (!isCurrent(op) || m_phase != Phase::Dispatching)
                           return;
                       if (!answer) {
                           abandonPage(ReasonCode::ProviderUnavailable);
                           return;
                       }
                       if (!answer->value(QStringLiteral("ok")).toBool()) {
                           complete(ReasonCode::ProviderUnavailable);
                           return;
                       }
                       if (m_act->request.kind() == ActRequest::Kind::Scroll) {
                           const double scrolled =
                               answer->value(QStringLiteral("scrolled")).toDouble();
                           m_act->outcome->scrolledPx =
                               int(qBound<double>(-ActRequest::kMaxScrollDistance, scrolled,
                                                  ActRequest::kMaxScrollDistance));
                       }
                       beginSettle();
                   });
}

void WebEngineProvider::close()
{
    invalidateRevision();
    m_operations->close([this] { complete(ReasonCode::ProviderUnavailable); });
    if (m_page)
        m_page->triggerAction(QWebEnginePage::Stop);
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
    m_phase = Phase::Idle;
    if (m_dispatched && !result.ok()) {
        // Input may have reached the site: the outcome is unknown, the revision and every
        // ref are retired, and nothing is ever sent again for this call.
        invalidateRevision();
        result = ReasonCode::OutcomeUnknown;
    }
    m_dispatched = false;
    m_act.reset();
    if (result.ok())
        Q_EMIT observationPublished(result.value());
    // Late callbacks of this operation become stale; the next one starts on the next pass.
    m_operations->finish(std::move(result));
}

// --- navigation ---------------------------------------------------------------------------

void WebEngineProvider::startNavigate(const QUrl &url)
{
    if (!m_policy.allowsNavigation(url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed); // before any request
        return;
    }
    m_draft.reset(); // its editor belongs to the page being replaced
    // The references of the page being replaced stop being valid now.
    invalidateRevision();
    m_page->resetOperationFlags();
    m_primaryLoadDone = false;
    m_stalledLoad = false;
    m_phase = Phase::Loading;
    m_loadStartMs = m_interceptor->nowMs();
    m_navigationTimer.start(m_timeouts.navigationMs);
    m_patienceTimer.start(m_timeouts.loadPatienceMs);
    m_page->load(url);
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
    if (started && m_operations->busy() && m_dispatched &&
        (m_phase == Phase::Dispatching || m_phase == Phase::Settling)) {
        // The action started a navigation: follow it like navigate does (the guard refuses
        // what the policy does not allow).
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
            m_primaryLoadDone = true;
            beginSettle();
            return;
        }
        if (m_dispatched && m_page->refusedMainFrameNavigation()) {
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
            complete(ReasonCode::NavigationCancelled);
        else
            complete(ReasonCode::ProviderUnavailable);
    }
}

void WebEngineProvider::onBeforeUnloadDismissed()
{
    // navigate: the page's beforeunload prompt was answered "stay", so the load never starts
    // and no load signal will come. The page stays as it was (its revision was already
    // retired when the navigation began). After an act the page also stays; the act settles
    // and observes it as usual.
    if (m_operations->busy() && m_phase == Phase::Loading && !m_dispatched && !m_primaryLoadDone &&
        !m_pageLoading)
        complete(ReasonCode::NavigationCancelled);
}

// --- settling -------------------------------------------------------------------------------

void WebEngineProvider::beginSettle()
{
    m_phase = Phase::Settling;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_settleClock.start();
    m_inFlight.clear();
    // Interception runs on this thread after Chromium's network thread asks for it, so a
    // request the page started just before its load event can still be queued here. One
    // round trip to the renderer first lets those reach the interceptor; then the finite
    // set of requests in flight is taken.
    const quint64 op = m_operations->current();
    Collector::run(m_page, Collector::settleProbeCall({}), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op) || m_phase != Phase::Settling)
                           return;
                       if (!probe) {
                           abandonPage(ReasonCode::ProviderUnavailable);
                           return;
                       }
                       const auto started =
                           m_interceptor->startedSince(m_loadStartMs, kMaxSettlingRequests);
                       for (const auto &request : started)
                           m_inFlight.append(QString::fromUtf8(request.url.toEncoded()));
                       pollSettle();
                   });
}

void WebEngineProvider::pollSettle()
{
    const quint64 op = m_operations->current();
    const qint64 remaining = m_timeouts.settleBoundMs - m_settleClock.elapsed();
    if (remaining <= 0) {
        capture(Readiness::BoundExpired);
        return;
    }
    Collector::run(
        m_page, Collector::settleProbeCall(m_inFlight), m_timeouts.scriptMs,
        [this, op](std::optional<QJsonObject> probe) {
            if (!isCurrent(op) || m_phase != Phase::Settling)
                return;
            if (!probe || !probe->value(QStringLiteral("ok")).toBool()) {
                // The page does not answer: recycle it and fail cleanly.
                abandonPage(ReasonCode::ProviderUnavailable);
                return;
            }
            QStringList stillPending;
            QSet<int> completed;
            for (const QJsonValue &index : probe->value(QStringLiteral("completed")).toArray()) {
                if (const auto i = ToolJson::integer(index, 0, kMaxSettlingRequests))
                    completed.insert(int(*i));
            }
            for (int i = 0; i < m_inFlight.size(); ++i) {
                if (!completed.contains(i))
                    stillPending.append(m_inFlight.at(i));
            }
            m_inFlight = stillPending;
            const QString readyState = probe->value(QStringLiteral("readyState")).toString();
            const double quietMs = probe->value(QStringLiteral("quietMs")).toDouble();
            const bool documentReady =
                (m_stalledLoad || !m_pageLoading) && readyState != QLatin1String("loading");
            if (documentReady && m_inFlight.isEmpty() && quietMs >= m_timeouts.quietMs) {
                capture(Readiness::DomQuiet);
                return;
            }
            if (m_settleClock.elapsed() >= m_timeouts.settleBoundMs) {
                capture(Readiness::BoundExpired);
                return;
            }
            int wait = m_timeouts.pollMs;
            if (documentReady && m_inFlight.isEmpty())
                wait = qBound(1, int(m_timeouts.quietMs - quietMs), m_timeouts.quietMs);
            const qint64 left = m_timeouts.settleBoundMs - m_settleClock.elapsed();
            QTimer::singleShot(int(qMin<qint64>(wait, left)), this, [this, op] {
                if (isCurrent(op) && m_phase == Phase::Settling)
                    pollSettle();
            });
        });
}

// --- capture --------------------------------------------------------------------------------

void WebEngineProvider::capture(std::optional<Readiness> readiness,
                                const Collector::CaptureWindow &window,
                                std::optional<int> expectedOffset, int focusTextOffset,
                                const std::optional<ExtractRequest> &extract)
{
    m_phase = Phase::Capturing;
    const quint64 op = m_operations->current();
    const QString captureId = randomToken(12);
    const QString refPrefix = randomToken(6);
    const QString revision = newRevision();
    const QUrl urlBefore = m_page->url();
    // An extraction or a focus is refused like a continuation when the revision's document
    // is gone.
    const bool continuation = !window.afterRef.isEmpty() || window.startPosition.has_value() ||
                              !window.focusRegion.isEmpty() || extract.has_value();
    // A text continuation reads the same region text again from a later offset.
    const QByteArray previousFocusText =
        focusTextOffset > 0 && m_focus ? m_focus->text : QByteArray();
    // The draft receipt to check: the act's own rich-text submission, else the one kept.
    Collector::CaptureWindow callWindow = window;
    callWindow.draft = m_act && m_act->draftText ? m_act->draftText : m_draft;
    Collector::run(
        m_page, Collector::captureCall(captureId, refPrefix, callWindow), m_timeouts.scriptMs,
        [this, op, captureId, revision, readiness, urlBefore, continuation, expectedOffset,
         focusTextOffset, previousFocusText, focusRequested = !window.focusRegion.isEmpty(),
         extract, draft = callWindow.draft](std::optional<QJsonObject> result) {
            if (!isCurrent(op))
                return;
            if (!result) {
                // No answer: the page is stuck or gone. Recycling drops every handle.
                abandonPage(ReasonCode::ProviderUnavailable);
                return;
            }
            if (continuation && !result->value(QStringLiteral("ok")).toBool() &&
                result->value(QStringLiteral("error")) == QLatin1String("page_changed")) {
                // The anchor is gone or moved, or the document is not the one the revision
                // was captured from. The collector decided that before capturing anything
                // and changed nothing: the current revision stays as it is.
                complete(ReasonCode::PageChanged);
                return;
            }
            if (!result->value(QStringLiteral("ok")).toBool() || m_page->url() != urlBefore) {
                failCapture(captureId, ReasonCode::ProviderUnavailable);
                return;
            }
            if (!CaptureAssembly::restoreUnchangedText(*result, continuation ? m_currentText
                                                                             : std::nullopt)) {
                failCapture(captureId, ReasonCode::OutputInvalid);
                return;
            }
            const CaptureAssembly::CapturedText text = CaptureAssembly::capturedText(*result);
            if (!m_policy.allowsNavigation(urlBefore, m_overrides)) {
                failCapture(captureId, ReasonCode::UrlDisallowed);
                return;
            }
            CaptureAssembly::Request assembly{
                .url = urlBefore,
                .revision = revision,
                .cursorToken = randomToken(kCursorBytes),
                .evidencePrefix = randomToken(6),
                .readiness = readiness,
                .expectedOffset = expectedOffset,
                .focusTextOffset = focusTextOffset,
                .previousFocusText = previousFocusText,
                .focusRequested = focusRequested,
                .extract = extract,
                .draft = draft,
                .action = m_act ? m_act->outcome : std::nullopt,
            };
            Result<CaptureAssembly::Capture> assembled =
                CaptureAssembly::assemble(*result, assembly, m_overrides);
            if (!assembled) {
                failCapture(captureId,
                            assembled.error().reason().value_or(ReasonCode::OutputInvalid));
                return;
            }
            // Publish the revision, its handles and its cursor only after the whole result
            // validated.
            std::optional<Cursor> cursor;
            if (assembled->nextPosition)
                cursor = Cursor{assembly.cursorToken, *assembled->nextPosition};
            Collector::run(
                m_page, Collector::commitCall(captureId), m_timeouts.scriptMs,
                [this, op, revision, captureId, cursor, text,
                 capture = std::move(assembled).value()](std::optional<QJsonObject> commit) {
                    if (!isCurrent(op))
                        return;
                    if (!commit || !commit->value(QStringLiteral("ok")).toBool()) {
                        invalidateRevision();
                        if (!commit)
                            abandonPage(ReasonCode::ProviderUnavailable);
                        return;
                    }
                    m_currentRevision = revision;
                    m_currentCaptureId = captureId;
                    m_currentRefs.clear();
                    for (const ElementRecord &element : capture.observation.elements)
                        m_currentRefs.insert(element.ref);
                    m_currentRegionRefs.clear();
                    for (const RegionRecord &region : capture.observation.regions)
                        m_currentRegionRefs.insert(region.ref);
                    m_cursor = cursor;
                    m_focus = capture.focus;
                    m_currentText = text;
                    m_currentFacts = capture.facts;
                    if (capture.nextDraft)
                        m_draft = *capture.nextDraft;
                    complete(capture.observation);
                });
        });
}

void WebEngineProvider::failCapture(const QString &captureId, ReasonCode reason)
{
    // A failed capture leaves no usable reference: the pending handles and the previous
    // revision are both released.
    invalidateRevision();
    const quint64 op = m_operations->current();
    Collector::run(m_page, Collector::discardCall(captureId), m_timeouts.scriptMs,
                   [this, op, reason](std::optional<QJsonObject> discarded) {
                       if (!isCurrent(op))
                           return;
                       if (!discarded)
                           recyclePage();
                       complete(reason);
                   });
}

} // namespace veetbot
