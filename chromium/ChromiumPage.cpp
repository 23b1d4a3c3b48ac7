// The Chromium placement's browser and page (ChromiumProvider, docs/decisions/0014): starting
// Debian's Chromium, opening the one page target, the events of both, and the request stage
// that judges every request of the browser.

#include "ChromiumProvider.h"

#include "domain/Sha256.h"
#include "domain/observation/Settling.h"

#include <QFile>
#include <QJsonArray>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace veetbot::chromium {

using cdp::text;

namespace {
constexpr int kMaxFrames = 1024;
constexpr int kMaxStarted = 1024;
constexpr int kMaxAdmitted = 1024;
constexpr qint64 kAdmissionMs = 60 * 1000;

// Every permission a page can ask for, denied for every origin (the names of the protocol's
// PermissionDescriptor; one this browser does not know is left as its default, which asks, and
// a headless browser with nobody to ask dismisses).
const char *const kDeniedPermissions[] = {"geolocation",
                                          "notifications",
                                          "midi",
                                          "camera",
                                          "microphone",
                                          "clipboard-read",
                                          "clipboard-write",
                                          "background-sync",
                                          "persistent-storage",
                                          "screen-wake-lock",
                                          "display-capture",
                                          "idle-detection",
                                          "storage-access",
                                          "window-management",
                                          "local-fonts",
                                          "payment-handler",
                                          "background-fetch",
                                          "periodic-background-sync",
                                          "nfc",
                                          "sensors"};

// The settling kinds: what a settling waits for (the same as Qt WebEngine's interceptor).
bool isSettlingKind(const QString &resourceType)
{
    return resourceType == QLatin1String("Document") || resourceType == QLatin1String("Script") ||
           resourceType == QLatin1String("Stylesheet") || resourceType == QLatin1String("XHR") ||
           resourceType == QLatin1String("Fetch");
}

// Test-only (TestOverrides' CA): the base64 SHA-256 of the test CA's public key, for
// --ignore-certificate-errors-spki-list, which Chromium honours only with a private
// --user-data-dir. Empty when there is no readable single certificate.
QString testCaSpkiHash(const QString &caPath)
{
    QFile file(caPath);
    if (caPath.isEmpty() || !file.open(QIODevice::ReadOnly))
        return QString();
    const QByteArray pem = file.readAll();
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.constData(), int(pem.size())),
                                                  &BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> certificate(
        bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, &X509_free);
    if (!certificate)
        return QString();
    unsigned char *der = nullptr;
    const int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate.get()), &der);
    if (length <= 0)
        return QString();
    const QByteArray spki(reinterpret_cast<const char *>(der), length);
    OPENSSL_free(der);
    return QString::fromLatin1(Sha256::digest(spki).toBase64());
}

} // namespace

// --- the browser and its page ---------------------------------------------------------------

void ChromiumProvider::ensurePage(std::function<void(bool)> ready)
{
    if (!m_session.isEmpty()) {
        ready(true);
        return;
    }
    if (m_browserFailed || m_operations->closed()) {
        ready(false);
        return;
    }
    m_waitingForPage.push_back(std::move(ready));
    if (m_openingPage)
        return;
    m_openingPage = true;
    const auto opened = [this](bool ok) { pageReady(ok); };
    if (!m_process)
        startBrowser(opened);
    else
        openPage(opened);
}

void ChromiumProvider::pageReady(bool ok)
{
    m_openingPage = false;
    if (!ok) {
        m_session.clear();
        m_targetId.clear();
    }
    std::deque<std::function<void(bool)>> waiting = std::exchange(m_waitingForPage, {});
    for (auto &ready : waiting)
        ready(ok && !m_session.isEmpty());
}

void ChromiumProvider::startBrowser(std::function<void(bool)> ready)
{
    m_process = new ChromiumProcess(this);
    ChromiumProcess::Options options = m_processOptions;
    options.extraSwitches << QStringLiteral("--window-size=%1,%2").arg(kViewWidth).arg(kViewHeight);
    if (const QString spki = testCaSpkiHash(m_overrides.caPath()); !spki.isEmpty())
        options.extraSwitches << QStringLiteral("--ignore-certificate-errors-spki-list=") + spki;
    if (!m_process->start(options)) {
        m_browserFailed = true;
        ready(false);
        return;
    }
    cdp::Connection *connection = m_process->connection();
    connect(connection, &cdp::Connection::event, this, &ChromiumProvider::onEvent);
    connect(m_process, &ChromiumProcess::finished, this, [this] {
        // The browser is gone: nothing of it can answer again.
        m_browserFailed = true;
        m_session.clear();
        m_revision.invalidate();
        if (m_operations->busy())
            complete(ReasonCode::ProviderUnavailable);
    });
    // The request stage of the whole browser: every page, frame and worker.
    m_gate = new RequestGate(
        connection, QString(),
        [this](const RequestGate::PausedRequest &request) { return judge(request); }, this);
    m_gate->setLocalAnswer(
        [this](const RequestGate::PausedRequest &request) { return answersLocally(request); });

    auto fail = [this, ready](Result<QJsonObject>) {
        m_browserFailed = true;
        ready(false);
    };
    send(QStringLiteral("Browser.getVersion"), {},
         [this, ready, fail](Result<QJsonObject> version) {
             if (!version)
                 return fail(version);
             m_product = text(*version, "product");
             m_gate->enable([this, ready, fail](Result<Unit> gated) {
                 if (!gated)
                     return fail(Error::fromReason(ReasonCode::ProviderUnavailable));
                 send(QStringLiteral("Browser.setDownloadBehavior"),
                      {{QStringLiteral("behavior"), QStringLiteral("deny")}},
                      [this, ready, fail](Result<QJsonObject> downloads) {
                          if (!downloads)
                              return fail(downloads);
                          for (const char *name : kDeniedPermissions) {
                              send(QStringLiteral("Browser.setPermission"),
                                   {{QStringLiteral("permission"),
                                     QJsonObject{{QStringLiteral("name"), QLatin1String(name)}}},
                                    {QStringLiteral("setting"), QStringLiteral("denied")}},
                                   [](Result<QJsonObject>) {});
                          }
                          send(QStringLiteral("Target.setDiscoverTargets"),
                               {{QStringLiteral("discover"), true}},
                               [this, ready, fail](Result<QJsonObject> discovering) {
                                   if (!discovering)
                                       return fail(discovering);
                                   openPage(ready);
                               });
                      });
             });
         });
}

void ChromiumProvider::openPage(std::function<void(bool)> ready)
{
    m_frames.clear();
    m_mainFrame.clear();
    m_url = QUrl();
    m_loaderId.clear();
    m_loadedLoaderId.clear();
    m_worldContext = 0;
    m_pageLoading = false;
    auto fail = [ready](Result<QJsonObject>) { ready(false); };
    send(QStringLiteral("Target.createTarget"),
         {{QStringLiteral("url"), QStringLiteral("about:blank")}},
         [this, ready, fail](Result<QJsonObject> target) {
             if (!target)
                 return fail(target);
             m_targetId = text(*target, "targetId");
             // Pages that appeared before this one was known: none of them is this one.
             for (const QString &early : std::exchange(m_earlyTargets, {})) {
                 if (early != m_targetId) {
                     ++m_refusedWindows;
                     send(QStringLiteral("Target.closeTarget"),
                          {{QStringLiteral("targetId"), early}}, [](Result<QJsonObject>) {});
                 }
             }
             send(QStringLiteral("Target.attachToTarget"),
                  {{QStringLiteral("targetId"), m_targetId}, {QStringLiteral("flatten"), true}},
                  [this, ready, fail](Result<QJsonObject> attached) {
                      if (!attached)
                          return fail(attached);
                      const QString session = text(*attached, "sessionId");
                      send(
                          QStringLiteral("Page.enable"), {},
                          [this, ready, fail, session](Result<QJsonObject> enabled) {
                              if (!enabled)
                                  return fail(enabled);
                              // A headless page is never the focused window: without this,
                              // focus and keys would not reach its focused element.
                              send(
                                  QStringLiteral("Emulation.setFocusEmulationEnabled"),
                                  {{QStringLiteral("enabled"), true}}, [](Result<QJsonObject>) {},
                                  session);
                              send(
                                  QStringLiteral("Page.addScriptToEvaluateOnNewDocument"),
                                  {{QStringLiteral("source"), Collector::source()},
                                   {QStringLiteral("worldName"),
                                    QLatin1String(Collector::kWorldName)}},
                                  [this, ready, fail, session](Result<QJsonObject> installed) {
                                      if (!installed)
                                          return fail(installed);
                                      // A verification browser's observer, in the main world.
                                      if (!m_networkKey.isEmpty())
                                          send(
                                              QStringLiteral(
                                                  "Page.addScriptToEvaluateOnNewDocument"),
                                              {{QStringLiteral("source"),
                                                Collector::networkObserverSource(m_networkKey)}},
                                              [](Result<QJsonObject>) {}, session);
                                      send(
                                          QStringLiteral("Page.getFrameTree"), {},
                                          [this, ready, fail, session](Result<QJsonObject> tree) {
                                              if (!tree)
                                                  return fail(tree);
                                              const QJsonObject frame =
                                                  tree->value(QLatin1String("frameTree"))
                                                      .toObject()
                                                      .value(QLatin1String("frame"))
                                                      .toObject();
                                              m_mainFrame = text(frame, "id");
                                              m_loaderId = text(frame, "loaderId");
                                              m_session = session;
                                              ready(!m_mainFrame.isEmpty());
                                          },
                                          session);
                                  },
                                  session);
                          },
                          session);
                  });
         });
}

void ChromiumProvider::dropPage()
{
    m_revision.invalidate();
    if (!m_targetId.isEmpty())
        send(QStringLiteral("Target.closeTarget"), {{QStringLiteral("targetId"), m_targetId}},
             [](Result<QJsonObject>) {});
    m_session.clear();
    m_targetId.clear();
    m_mainFrame.clear();
    m_frames.clear();
    m_worldContext = 0;
    m_pageLoading = false;
}

void ChromiumProvider::abandonPage(ReasonCode reason)
{
    dropPage();
    complete(reason);
}

void ChromiumProvider::onEvent(const QString &method, const QJsonObject &params,
                               const QString &sessionId)
{
    if (sessionId.isEmpty()) {
        if (method == QLatin1String("Target.targetCreated")) {
            const QJsonObject info = params.value(QLatin1String("targetInfo")).toObject();
            const QString id = text(info, "targetId");
            if (text(info, "type") != QLatin1String("page") || id == m_targetId)
                return;
            if (m_targetId.isEmpty()) {
                m_earlyTargets.insert(id); // decided once this provider's page is known
                return;
            }
            // A new window: its document was refused at the request stage; the window goes.
            ++m_refusedWindows;
            send(QStringLiteral("Target.closeTarget"), {{QStringLiteral("targetId"), id}},
                 [](Result<QJsonObject>) {});
        } else if (method == QLatin1String("Target.targetCrashed") &&
                   text(params, "targetId") == m_targetId) {
            abandonPage(ReasonCode::ProviderUnavailable);
        }
        return;
    }
    if (sessionId == m_session)
        onPageEvent(method, params);
}

void ChromiumProvider::onPageEvent(const QString &method, const QJsonObject &params)
{
    if (method == QLatin1String("Page.frameAttached")) {
        if (m_frames.size() < kMaxFrames)
            m_frames.insert(text(params, "frameId"));
    } else if (method == QLatin1String("Page.frameDetached")) {
        m_frames.remove(text(params, "frameId"));
    } else if (method == QLatin1String("Page.frameNavigated")) {
        const QJsonObject frame = params.value(QLatin1String("frame")).toObject();
        if (frame.contains(QLatin1String("parentId")) || text(frame, "id") != m_mainFrame)
            return;
        m_url = QUrl(text(frame, "url") + text(frame, "urlFragment"), QUrl::StrictMode);
        m_loaderId = text(frame, "loaderId");
        m_worldContext = 0; // a new document has a new world
        if (m_operations->busy() && m_phase == Phase::Loading && m_guard.dispatched())
            m_expectedLoader = m_loaderId; // where the act's navigation committed
    } else if (method == QLatin1String("Page.navigatedWithinDocument")) {
        if (text(params, "frameId") == m_mainFrame)
            m_url = QUrl(text(params, "url"), QUrl::StrictMode);
    } else if (method == QLatin1String("Page.frameRequestedNavigation")) {
        // The page asked for a navigation of its own tab (a form's submission, a link, a
        // script): after an act, the navigation may start only after the act's evidence and
        // settling began, or even while the settled page is captured (a script that moves the
        // page once its request answered), so it is followed from this moment.
        if (text(params, "frameId") == m_mainFrame &&
            text(params, "disposition") == QLatin1String("currentTab") && followsActNavigation())
            followActNavigation();
    } else if (method == QLatin1String("Page.frameStartedLoading")) {
        if (text(params, "frameId") != m_mainFrame)
            return;
        m_pageLoading = true;
        m_contentLoaded = false; // another document is on its way
        if (followsActNavigation())
            followActNavigation();
    } else if (method == QLatin1String("Page.frameStoppedLoading")) {
        if (text(params, "frameId") != m_mainFrame)
            return;
        m_pageLoading = false;
        if (m_operations->busy() && m_phase == Phase::Loading && m_guard.dispatched() &&
            !m_primaryLoadDone && m_loaderId == m_actLoader) {
            // The act's navigation never committed (the request stage refused it, or it was
            // cancelled): the page stayed; settle and observe it.
            m_primaryLoadDone = true;
            beginSettle(false);
        }
    } else if (method == QLatin1String("Page.loadEventFired")) {
        m_loadedLoaderId = m_loaderId;
        if (m_stateLoad && !m_stateLoader.isEmpty() && m_loadedLoaderId == m_stateLoader)
            std::exchange(m_stateLoad, nullptr)(); // a state operation's empty document
        else
            onLoadEvent();
    } else if (method == QLatin1String("Page.screencastFrame")) {
        onScreencastFrame(params);
    } else if (method == QLatin1String("Page.javascriptDialogOpening")) {
        // Nobody answers a page's dialogs: each is dismissed. A beforeunload dismissed keeps
        // the page, and a navigation it held is cancelled; a navigation that discards unsaved
        // input (NavigateRequest::discardUnsaved) answers it "leave".
        const bool beforeUnload = text(params, "type") == QLatin1String("beforeunload");
        const bool leave = beforeUnload && m_leavesUnsavedInput && m_operations->busy() &&
                           m_phase == Phase::Loading;
        if (beforeUnload && !leave)
            m_beforeUnloadDismissed = true;
        send(
            QStringLiteral("Page.handleJavaScriptDialog"), {{QStringLiteral("accept"), leave}},
            [](Result<QJsonObject>) {}, m_session);
    }
}

bool ChromiumProvider::judge(const RequestGate::PausedRequest &paused)
{
    if (m_stateBusy)
        return false; // while a state operation runs nothing leaves (its document is local)
    const QUrl &url = paused.request.url;
    bool allowed = false;
    const bool document = paused.resourceType == QLatin1String("Document");
    const bool mainDocument = document && !m_mainFrame.isEmpty() && paused.frameId == m_mainFrame;
    if (paused.serviceWorkerScript || paused.request.kind == WriteGuard::RequestKind::Beacon) {
        allowed = false;
    } else if (mainDocument) {
        allowed = m_policy.allowsNavigation(url, m_overrides);
    } else if (document) {
        // A frame of this page may load any public document; a document for a frame this
        // page does not have (a new window) never leaves.
        allowed =
            m_frames.contains(paused.frameId) && OriginPolicy::allowsPageResource(url, m_overrides);
    } else {
        allowed = OriginPolicy::allowsPageResource(url, m_overrides);
    }
    // While acts run: the write guard reads the request whole (method, body), and documents
    // stay inside the act's fence. The guard first: a refused write is counted even where the
    // fence refuses too.
    if (allowed) {
        WriteGuard::Request request = paused.request;
        request.stranger = !m_policy.allowsNavigation(url, m_overrides);
        allowed = m_guard.allows(request);
    }
    if (allowed && document)
        allowed = m_guard.fenceAllows(url, m_url);
    if (!allowed && mainDocument)
        m_mainDocumentRefused = true;
    if (allowed) {
        // The tunnel this request will travel may open (admitsTunnel()).
        if (m_admitted.size() >= kMaxAdmitted) {
            const qint64 now = m_clock.elapsed();
            m_admitted.removeIf(
                [now](const auto &entry) { return now - entry.value() > kAdmissionMs; });
            if (m_admitted.size() >= kMaxAdmitted)
                m_admitted.clear(); // a page this wide asks again, and is admitted again
        }
        m_admitted.insert(
            url.host().toLower() + QLatin1Char(':') +
                QString::number(url.port(url.scheme() == QLatin1String("https") ? 443 : 80)),
            m_clock.elapsed());
    }
    if (allowed && isSettlingKind(paused.resourceType)) {
        if (m_started.size() >= kMaxStarted)
            m_started.pop_front();
        m_started.push_back({QString::fromUtf8(url.toEncoded()), m_clock.elapsed(),
                             (document && !mainDocument) ||
                                 paused.resourceType == QLatin1String("Script") ||
                                 paused.resourceType == QLatin1String("Stylesheet")});
    }
    return allowed;
}

bool ChromiumProvider::admitsTunnel(const QString &host, quint16 port) const
{
    const auto it = m_admitted.constFind(host.toLower() + QLatin1Char(':') + QString::number(port));
    return it != m_admitted.constEnd() && m_clock.elapsed() - it.value() <= kAdmissionMs;
}

QStringList ChromiumProvider::startedRequests(qint64 sinceMs) const
{
    QStringList urls;
    for (const Started &started : m_started) {
        if (started.atMs >= sinceMs && urls.size() < Settling::kMaxRequests)
            urls.append(started.url);
    }
    return urls;
}

} // namespace veetbot::chromium
