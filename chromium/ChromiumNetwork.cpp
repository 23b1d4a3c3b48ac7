// ChromiumProvider's network observation for a verification browser (docs/signin.md
// "Verification"): the main-world observer, navigation to DOMContentLoaded and the network-idle
// wait, the same rule as the Qt WebEngine placement (collector/NetworkWatch).

#include "ChromiumProvider.h"

#include "domain/observation/BrowserObservation.h"
#include "domain/observation/Settling.h"

#include <QTimer>

#include <memory>

namespace veetbot::chromium {

using cdp::text;

void ChromiumProvider::observeNetwork()
{
    if (!m_networkKey.isEmpty())
        return;
    // A fresh name per browser: nothing on the page can rely on it in advance.
    m_networkKey = QStringLiteral("__veetbotNetwork_") + randomToken(12);
    m_networkWatch = new NetworkWatch(this);
}

void ChromiumProvider::waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done)
{
    if (!m_networkWatch || m_operations->busy() || m_networkWatch->active() ||
        m_session.isEmpty() || !m_policy.allowsNavigation(m_url, m_overrides)) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_networkWatch->start(
        {.probe = runner(),
         .pageProbe =
             [self = QPointer<ChromiumProvider>(this)](
                 const QString &source, std::function<void(std::optional<QJsonObject>)> answer) {
                 if (!self) {
                     answer(std::nullopt);
                     return;
                 }
                 self->runInMainWorld(source, std::move(answer));
             },
         .observerKey = m_networkKey,
         .timing = {.boundMs = request.boundMs,
                    .quietMs = request.quietMs,
                    .pollMs = m_timeouts.pollMs},
         .started = [this] { return startedResources(); },
         // A navigation the page started itself (a script sending the visitor to sign in)
         // holds the wait until its document loaded.
         .documentOnItsWay = [this] { return m_pageLoading && !m_contentLoaded; }},
        std::move(done));
}

void ChromiumProvider::startContentLoaded(const QUrl &url)
{
    // startNavigate() began the load; it ends at DOMContentLoaded (checkContentLoaded).
    m_contentLoaded = false;
    const quint64 op = m_operations->current();
    const auto load = [this, op, url] {
        if (!isCurrent(op) || m_phase != Phase::Loading)
            return;
        send(
            QStringLiteral("Page.navigate"),
            {{QStringLiteral("url"), QString::fromUtf8(url.toEncoded())}},
            [this, op](Result<QJsonObject> navigated) {
                if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                    return;
                if (m_mainDocumentRefused) {
                    complete(ReasonCode::UrlDisallowed); // the request stage refused a hop
                    return;
                }
                if (!navigated || !text(*navigated, "errorText").isEmpty())
                    complete(ReasonCode::ProviderUnavailable);
            },
            m_session);
        m_contentLoadedTimer.start(m_timeouts.pollMs);
    };
    if (!m_policy.allowsNavigation(m_url, m_overrides)) {
        // No document of the profile's yet (a fresh browser): nothing to mistake for the new one.
        load();
        return;
    }
    // The document being replaced stops answering the observer before the load starts, so its
    // DOMContentLoaded is never taken for the new one's.
    runInMainWorld(Collector::networkReplaceCall(m_networkKey),
                   [load](std::optional<QJsonObject>) { load(); });
}

void ChromiumProvider::checkContentLoaded()
{
    if (!m_operations->busy() || m_phase != Phase::Loading || m_primaryLoadDone ||
        m_until != NavigateRequest::Until::ContentLoaded)
        return;
    const quint64 op = m_operations->current();
    runInMainWorld(Collector::networkProbeCall(m_networkKey),
                   [this, op](std::optional<QJsonObject> probe) {
                       if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                           return;
                       if (m_mainDocumentRefused) {
                           complete(ReasonCode::UrlDisallowed);
                           return;
                       }
                       const bool loaded = probe && probe->value(QStringLiteral("ok")).toBool() &&
                                           probe->value(QStringLiteral("loaded")).toBool() &&
                                           m_policy.allowsNavigation(m_url, m_overrides);
                       if (!loaded) {
                           m_contentLoadedTimer.start(m_timeouts.pollMs);
                           return;
                       }
                       m_primaryLoadDone = true;
                       m_navigationTimer.stop();
                       m_contentLoaded = true;
                       capture(std::nullopt);
                   });
}

NetworkWatch::StartedResources ChromiumProvider::startedResources() const
{
    // Bounded like settling; the main document is whole by DOMContentLoaded, and the page's own
    // requests are the observer's.
    NetworkWatch::StartedResources started;
    qint64 lastStartMs = -1;
    for (const Started &request : m_started) {
        if (!request.resource || request.atMs < m_loadStartMs ||
            started.urls.size() >= Settling::kMaxRequests)
            continue;
        started.urls.append(request.url);
        lastStartMs = request.atMs;
    }
    if (lastStartMs >= 0)
        started.sinceLastMs = m_clock.elapsed() - lastStartMs;
    return started;
}

void ChromiumProvider::runInMainWorld(const QString &source,
                                      std::function<void(std::optional<QJsonObject>)> done)
{
    struct Pending
    {
        std::function<void(std::optional<QJsonObject>)> done;
        QTimer timer;
    };
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    const auto finish = [pending](std::optional<QJsonObject> answer) {
        if (!pending->done)
            return;
        pending->timer.stop();
        std::exchange(pending->done, nullptr)(std::move(answer));
    };
    if (m_session.isEmpty()) {
        QTimer::singleShot(0, this, [finish] { finish(std::nullopt); });
        return;
    }
    pending->timer.setSingleShot(true);
    connect(&pending->timer, &QTimer::timeout, this, [finish] { finish(std::nullopt); });
    pending->timer.start(m_timeouts.scriptMs);
    // No context: the main world of the page's main frame, where the observer lives.
    send(
        QStringLiteral("Runtime.evaluate"),
        {{QStringLiteral("expression"), source}, {QStringLiteral("returnByValue"), true}},
        [finish](Result<QJsonObject> result) {
            const std::optional<QString> value = cdp::stringValue(result);
            finish(value ? Collector::parseAnswer(*value) : std::nullopt);
        },
        m_session);
}

} // namespace veetbot::chromium
