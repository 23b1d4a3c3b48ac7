#include "WebEngineProvider.h"

#include "Collector.h"
#include "GuardedPage.h"
#include "RequestInterceptor.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QWebEngineLoadingInfo>
#include <QWebEngineProfile>
#include <QWebEngineScriptCollection>
#include <QWebEngineDownloadRequest>
#include <QWebEngineView>

namespace veetbot {

namespace {
constexpr int kMaxSettlingRequests = 256;
constexpr int kViewWidth = 1280;
constexpr int kViewHeight = 800;
} // namespace

WebEngineProvider::WebEngineProvider(OriginPolicy policy, TestOverrides overrides,
                                     QObject *parent, QWidget *viewParent)
    : BrowserProvider(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides))
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
        if (m_busy && m_phase == Phase::Loading) {
            // A document that never became ready may have a renderer stuck in a script:
            // recycle the page so the next operation starts clean.
            m_currentRevision.clear();
            recyclePage();
            complete(ReasonCode::ProviderUnavailable);
        }
    });
    m_patienceTimer.setSingleShot(true);
    connect(&m_patienceTimer, &QTimer::timeout, this, &WebEngineProvider::checkLoadPatience);
}

WebEngineProvider::~WebEngineProvider()
{
    // Pages go before their profile; the view may already be gone with a UI parent.
    delete m_view.data();
    delete m_page;
    m_page = nullptr;
}

void WebEngineProvider::createPage()
{
    m_page = new GuardedPage(m_policy, m_overrides, m_profile, this);
    connect(m_page, &QWebEnginePage::loadingChanged, this, &WebEngineProvider::onLoadingChanged);
    connect(m_page, &QWebEnginePage::renderProcessTerminated, this,
            [this](QWebEnginePage::RenderProcessTerminationStatus status, int) {
                if (status == QWebEnginePage::NormalTerminationStatus)
                    return;
                // Replace the page before anything else runs on it; the dead one's late
                // signals are disconnected.
                m_currentRevision.clear();
                recyclePage();
                if (m_busy)
                    complete(ReasonCode::ProviderUnavailable);
            });
    if (m_view)
        m_view->setPage(m_page);
}

void WebEngineProvider::recyclePage()
{
    GuardedPage *old = m_page;
    createPage();
    m_pageLoading = false;
    if (old) {
        old->disconnect(this);
        old->deleteLater();
    }
}

ProviderCapabilities WebEngineProvider::capabilities() const
{
    ProviderCapabilities capabilities;
    capabilities.navigate = true;
    capabilities.observe = true;
    return capabilities;
}

void WebEngineProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    const QUrl url = request.url;
    enqueue([this, url] { startNavigate(url); }, std::move(done));
}

void WebEngineProvider::observe(ObservationCallback done)
{
    enqueue(
        [this] {
            if (!m_policy.allowsNavigation(m_page->url(), m_overrides) || m_pageLoading) {
                // No allowed document to observe (never navigated, or mid-load after a
                // crash recycle).
                complete(ReasonCode::ProviderUnavailable);
                return;
            }
            capture(std::nullopt);
        },
        std::move(done));
}

void WebEngineProvider::expand(const ObservationExpansion &, ObservationCallback done)
{
    done(ReasonCode::ProviderUnavailable); // not a declared capability of this provider
}

void WebEngineProvider::act(const ActionRequest &, ObservationCallback done)
{
    done(ReasonCode::ProviderUnavailable); // not a declared capability of this provider
}

void WebEngineProvider::close()
{
    m_closed = true;
    m_currentRevision.clear();
    auto queue = std::move(m_queue);
    m_queue.clear();
    if (m_busy)
        complete(ReasonCode::ProviderUnavailable);
    for (auto &entry : queue)
        entry.second(ReasonCode::ProviderUnavailable);
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
    if (m_closed) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_queue.emplace_back(std::move(operation), std::move(done));
    if (!m_busy)
        runNext();
}

void WebEngineProvider::runNext()
{
    if (m_busy || m_queue.empty())
        return;
    auto [operation, done] = std::move(m_queue.front());
    m_queue.pop_front();
    m_busy = true;
    ++m_op;
    m_done = std::move(done);
    m_phase = Phase::Idle;
    operation();
}

void WebEngineProvider::complete(Result<BrowserObservation> result)
{
    if (!m_busy)
        return;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_phase = Phase::Idle;
    m_busy = false;
    ++m_op; // late callbacks of this operation become stale
    auto done = std::move(m_done);
    m_done = nullptr;
    if (result.ok())
        Q_EMIT observationPublished(result.value());
    done(std::move(result));
    QTimer::singleShot(0, this, &WebEngineProvider::runNext);
}

// --- navigation ---------------------------------------------------------------------------

void WebEngineProvider::startNavigate(const QUrl &url)
{
    if (!m_policy.allowsNavigation(url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed); // before any request
        return;
    }
    // The references of the page being replaced stop being valid now.
    m_currentRevision.clear();
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
    if (!m_busy || m_phase != Phase::Loading || m_primaryLoadDone)
        return;
    const quint64 op = m_op;
    Collector::run(m_page, Collector::settleProbeCall({}), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                           return;
                       const bool parsed =
                           probe && probe->value(QStringLiteral("ok")).toBool()
                           && probe->value(QStringLiteral("readyState")).toString()
                                  != QLatin1String("loading")
                           && m_policy.allowsNavigation(m_page->url(), m_overrides)
                           && !m_page->refusedMainFrameNavigation();
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
    if (!m_busy || m_phase != Phase::Loading)
        return;
    if (started)
        return;
    if (!m_primaryLoadDone) {
        if (info.status() == QWebEngineLoadingInfo::LoadSucceededStatus) {
            m_primaryLoadDone = true;
            beginSettle();
            return;
        }
        if (m_page->refusedMainFrameNavigation())
            complete(ReasonCode::UrlDisallowed);
        else if (m_page->dismissedBeforeUnload())
            complete(ReasonCode::NavigationCancelled);
        else
            complete(ReasonCode::ProviderUnavailable);
    }
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
    const quint64 op = m_op;
    Collector::run(m_page, Collector::settleProbeCall({}), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op))
                           return;
                       if (!probe) {
                           m_currentRevision.clear();
                           recyclePage();
                           complete(ReasonCode::ProviderUnavailable);
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
    const quint64 op = m_op;
    const qint64 remaining = m_timeouts.settleBoundMs - m_settleClock.elapsed();
    if (remaining <= 0) {
        capture(Readiness::BoundExpired);
        return;
    }
    Collector::run(m_page, Collector::settleProbeCall(m_inFlight), m_timeouts.scriptMs,
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op))
                           return;
                       if (!probe || !probe->value(QStringLiteral("ok")).toBool()) {
                           // The page does not answer: recycle it and fail cleanly.
                           m_currentRevision.clear();
                           recyclePage();
                           complete(ReasonCode::ProviderUnavailable);
                           return;
                       }
                       QStringList stillPending;
                       QSet<int> completed;
                       for (const QJsonValue &index :
                            probe->value(QStringLiteral("completed")).toArray())
                           completed.insert(index.toInt(-1));
                       for (int i = 0; i < m_inFlight.size(); ++i) {
                           if (!completed.contains(i))
                               stillPending.append(m_inFlight.at(i));
                       }
                       m_inFlight = stillPending;
                       const QString readyState =
                           probe->value(QStringLiteral("readyState")).toString();
                       const double quietMs = probe->value(QStringLiteral("quietMs")).toDouble();
                       const bool documentReady = (m_stalledLoad || !m_pageLoading)
                                                  && readyState != QLatin1String("loading");
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
                           if (isCurrent(op))
                               pollSettle();
                       });
                   });
}

// --- capture --------------------------------------------------------------------------------

void WebEngineProvider::capture(std::optional<Readiness> readiness)
{
    m_phase = Phase::Capturing;
    const quint64 op = m_op;
    const QString captureId = randomToken(12);
    const QString refPrefix = randomToken(6);
    const QString revision = newRevision();
    const QUrl urlBefore = m_page->url();
    Collector::run(
        m_page, Collector::captureCall(captureId, refPrefix), m_timeouts.scriptMs,
        [this, op, captureId, revision, readiness, urlBefore](std::optional<QJsonObject> result) {
            if (!isCurrent(op))
                return;
            if (!result) {
                // No answer: the page is stuck or gone. Recycling drops every handle.
                m_currentRevision.clear();
                recyclePage();
                complete(ReasonCode::ProviderUnavailable);
                return;
            }
            if (!result->value(QStringLiteral("ok")).toBool() || m_page->url() != urlBefore) {
                failCapture(captureId, ReasonCode::ProviderUnavailable);
                return;
            }
            if (!m_policy.allowsNavigation(urlBefore, m_overrides)) {
                failCapture(captureId, ReasonCode::UrlDisallowed);
                return;
            }
            QJsonObject json{
                {QStringLiteral("url"), QString::fromUtf8(urlBefore.toEncoded())},
                {QStringLiteral("title"), result->value(QStringLiteral("title"))},
                {QStringLiteral("revision"), revision},
                {QStringLiteral("text"), result->value(QStringLiteral("text"))},
                {QStringLiteral("text_coverage"), result->value(QStringLiteral("text_coverage"))},
                {QStringLiteral("elements"), result->value(QStringLiteral("elements"))},
                {QStringLiteral("coverage"), result->value(QStringLiteral("coverage"))},
            };
            if (readiness)
                json.insert(QStringLiteral("readiness"), readinessString(*readiness));
            Result<BrowserObservation> observation = BrowserObservation::fromJson(json, m_overrides);
            if (!observation) {
                failCapture(captureId, ReasonCode::OutputInvalid);
                return;
            }
            // Publish the revision and its handles only after the whole result validated.
            Collector::run(m_page, Collector::commitCall(captureId), m_timeouts.scriptMs,
                           [this, op, revision, observation](std::optional<QJsonObject> commit) {
                               if (!isCurrent(op))
                                   return;
                               if (!commit || !commit->value(QStringLiteral("ok")).toBool()) {
                                   m_currentRevision.clear();
                                   if (!commit)
                                       recyclePage();
                                   complete(ReasonCode::ProviderUnavailable);
                                   return;
                               }
                               m_currentRevision = revision;
                               complete(observation);
                           });
        });
}

void WebEngineProvider::failCapture(const QString &captureId, ReasonCode reason)
{
    // A failed capture leaves no usable reference: the pending handles and the previous
    // revision are both released.
    m_currentRevision.clear();
    const quint64 op = m_op;
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
