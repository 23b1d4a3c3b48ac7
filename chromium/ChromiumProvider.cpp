#include "ChromiumProvider.h"

#include "collector/PageSettler.h"
#include "domain/Sha256.h"

#include <QFile>
#include <QJsonArray>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace veetbot::chromium {

namespace {
constexpr int kViewWidth = 1280;
constexpr int kViewHeight = 800;
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

QString text(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

// browser.act's closed key list as the protocol's key events: the DOM key and code, the
// Windows virtual key code Chromium reads, and the text of a key that types a character.
struct KeyEvent
{
    const char *key;
    const char *code;
    int virtualKey;
    const char *text;
};
KeyEvent keyEvent(ActRequest::Key key)
{
    switch (key) {
    case ActRequest::Key::Enter:
        return {"Enter", "Enter", 13, "\r"};
    case ActRequest::Key::Tab:
        return {"Tab", "Tab", 9, ""};
    case ActRequest::Key::Escape:
        return {"Escape", "Escape", 27, ""};
    case ActRequest::Key::Backspace:
        return {"Backspace", "Backspace", 8, ""};
    case ActRequest::Key::Delete:
        return {"Delete", "Delete", 46, ""};
    case ActRequest::Key::Space:
        return {" ", "Space", 32, " "};
    case ActRequest::Key::ArrowUp:
        return {"ArrowUp", "ArrowUp", 38, ""};
    case ActRequest::Key::ArrowDown:
        return {"ArrowDown", "ArrowDown", 40, ""};
    case ActRequest::Key::ArrowLeft:
        return {"ArrowLeft", "ArrowLeft", 37, ""};
    case ActRequest::Key::ArrowRight:
        return {"ArrowRight", "ArrowRight", 39, ""};
    case ActRequest::Key::Home:
        return {"Home", "Home", 36, ""};
    case ActRequest::Key::End:
        return {"End", "End", 35, ""};
    case ActRequest::Key::PageUp:
        return {"PageUp", "PageUp", 33, ""};
    case ActRequest::Key::PageDown:
        return {"PageDown", "PageDown", 34, ""};
    }
    return {"", "", 0, ""};
}
} // namespace

ChromiumProvider::ChromiumProvider(OriginPolicy policy, TestOverrides overrides,
                                   ChromiumProcess::Options process, QObject *parent)
    : BrowserProvider(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides)),
      m_processOptions(std::move(process)), m_revision(m_policy, m_overrides),
      m_operations(new OperationQueue(this)), m_settler(new PageSettler(this)),
      m_act(new ActDispatch(this))
{
    m_clock.start();
    m_navigationTimer.setSingleShot(true);
    connect(&m_navigationTimer, &QTimer::timeout, this, [this] {
        if (m_operations->busy() && m_phase == Phase::Loading)
            abandonPage(ReasonCode::ProviderUnavailable); // a renderer stuck in a script
    });
    m_patienceTimer.setSingleShot(true);
    connect(&m_patienceTimer, &QTimer::timeout, this, &ChromiumProvider::checkLoadPatience);
}

ChromiumProvider::~ChromiumProvider()
{
    close();
    // The browser goes first, while this object is whole: its destructor ends the browser's
    // process group and removes its profile, and nothing it signals reaches this object.
    if (m_process) {
        m_process->disconnect(this);
        if (cdp::Connection *connection = m_process->connection())
            connection->disconnect(this);
        delete m_process;
        m_process = nullptr;
        m_gate = nullptr; // its connection went with the browser
    }
}

ProviderCapabilities ChromiumProvider::capabilities() const
{
    ProviderCapabilities capabilities;
    capabilities.navigate = true;
    capabilities.observe = true;
    capabilities.expand = true;
    capabilities.extract = true;
    capabilities.act = true;
    return capabilities;
}

void ChromiumProvider::send(const QString &method, const QJsonObject &params, Reply done,
                            const QString &session)
{
    cdp::Connection *connection = m_process ? m_process->connection() : nullptr;
    if (!connection) {
        QTimer::singleShot(0, this, [done = std::move(done)] {
            done(Error::fromReason(ReasonCode::ProviderUnavailable));
        });
        return;
    }
    connection->send(method, params, std::move(done), session);
}

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
        // settling began, so it is followed from this moment.
        if (text(params, "frameId") == m_mainFrame &&
            text(params, "disposition") == QLatin1String("currentTab") && m_operations->busy() &&
            m_guard.dispatched() && (m_phase == Phase::Dispatching || m_phase == Phase::Settling))
            followActNavigation();
    } else if (method == QLatin1String("Page.frameStartedLoading")) {
        if (text(params, "frameId") != m_mainFrame)
            return;
        m_pageLoading = true;
        if (m_operations->busy() && m_guard.dispatched() &&
            (m_phase == Phase::Dispatching || m_phase == Phase::Settling))
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
        onLoadEvent();
    } else if (method == QLatin1String("Page.javascriptDialogOpening")) {
        // Nobody answers a page's dialogs: each is dismissed. A beforeunload dismissed keeps
        // the page, and a navigation it held is cancelled.
        if (text(params, "type") == QLatin1String("beforeunload"))
            m_beforeUnloadDismissed = true;
        send(
            QStringLiteral("Page.handleJavaScriptDialog"), {{QStringLiteral("accept"), false}},
            [](Result<QJsonObject>) {}, m_session);
    }
}

bool ChromiumProvider::judge(const RequestGate::PausedRequest &paused)
{
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
    if (allowed)
        allowed = m_guard.allows(paused.request);
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
        m_started.push_back({QString::fromUtf8(url.toEncoded()), m_clock.elapsed()});
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

// --- the collector's world ------------------------------------------------------------------

void ChromiumProvider::runInWorld(const QString &source, int timeoutMs,
                                  std::function<void(std::optional<QJsonObject>)> done,
                                  bool retried)
{
    struct Pending
    {
        std::function<void(std::optional<QJsonObject>)> done;
        QTimer timer;
        void finish(std::optional<QJsonObject> result)
        {
            if (!done)
                return;
            timer.stop();
            QObject::disconnect(&timer, nullptr, nullptr, nullptr);
            std::exchange(done, nullptr)(std::move(result));
        }
    };
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    if (m_session.isEmpty()) {
        QTimer::singleShot(0, this, [pending] { pending->finish(std::nullopt); });
        return;
    }
    pending->timer.setSingleShot(true);
    connect(&pending->timer, &QTimer::timeout, this, [pending] { pending->finish(std::nullopt); });
    pending->timer.start(timeoutMs);
    const QString session = m_session;
    const QString loader = m_loaderId;
    const auto evaluate = [this, pending, source, session, loader, timeoutMs,
                           retried](int context) {
        send(
            QStringLiteral("Runtime.evaluate"),
            {{QStringLiteral("expression"), source},
             {QStringLiteral("contextId"), context},
             {QStringLiteral("returnByValue"), true}},
            [this, pending, source, loader, timeoutMs, retried](Result<QJsonObject> result) {
                if (!pending->done)
                    return;
                if (!result && !retried && m_loaderId != loader) {
                    // The document changed between the world and the call: once more, in the
                    // new document's world (whose collector knows nothing of the old one).
                    pending->timer.stop();
                    runInWorld(source, timeoutMs, std::exchange(pending->done, nullptr), true);
                    return;
                }
                const QJsonValue value =
                    result && !result->contains(QLatin1String("exceptionDetails"))
                        ? result->value(QLatin1String("result"))
                              .toObject()
                              .value(QLatin1String("value"))
                        : QJsonValue();
                pending->finish(value.isString() ? Collector::parseAnswer(value.toString())
                                                 : std::nullopt);
            },
            session);
    };
    if (m_worldContext > 0) {
        evaluate(m_worldContext);
        return;
    }
    send(
        QStringLiteral("Page.createIsolatedWorld"),
        {{QStringLiteral("frameId"), m_mainFrame},
         {QStringLiteral("worldName"), QLatin1String(Collector::kWorldName)}},
        [this, pending, evaluate, loader](Result<QJsonObject> world) {
            if (!pending->done)
                return;
            const int context =
                world ? world->value(QLatin1String("executionContextId")).toInt() : 0;
            if (context <= 0) {
                pending->finish(std::nullopt);
                return;
            }
            if (m_loaderId == loader)
                m_worldContext = context;
            evaluate(context);
        },
        session);
}

CollectorRunner ChromiumProvider::runner()
{
    return [self = QPointer<ChromiumProvider>(this)](
               const QString &source, std::function<void(std::optional<QJsonObject>)> done) {
        if (!self) {
            done(std::nullopt);
            return;
        }
        self->runInWorld(source, self->m_timeouts.scriptMs, std::move(done));
    };
}

void ChromiumProvider::runCollectorScript(const QString &source,
                                          std::function<void(std::optional<QJsonObject>)> done)
{
    runInWorld(source, m_timeouts.scriptMs, std::move(done));
}

// --- operations -----------------------------------------------------------------------------

void ChromiumProvider::enqueue(std::function<void()> operation, ObservationCallback done)
{
    m_operations->enqueue(
        [this, operation = std::move(operation)] {
            m_phase = Phase::Idle;
            const quint64 op = m_operations->current();
            ensurePage([this, op, operation](bool ready) {
                if (!isCurrent(op))
                    return;
                if (!ready) {
                    complete(ReasonCode::ProviderUnavailable);
                    return;
                }
                operation();
            });
        },
        std::move(done));
}

void ChromiumProvider::complete(Result<BrowserObservation> result)
{
    if (!m_operations->busy())
        return;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_settler->stop();
    m_phase = Phase::Idle;
    m_expectedLoader.clear();
    const quint64 op = m_operations->current();
    if (m_guard.deferForGrace(result, this, [this, op](Result<BrowserObservation> held) {
            if (isCurrent(op))
                complete(std::move(held));
        }))
        return;
    bool retire = false;
    result = m_guard.conclude(std::move(result), &retire);
    if (retire)
        m_revision.invalidate();
    m_act->end();
    if (result.ok())
        Q_EMIT observationPublished(result.value());
    m_operations->finish(std::move(result));
}

void ChromiumProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    if (request.until == NavigateRequest::Until::ContentLoaded) {
        done(ReasonCode::ProviderUnavailable); // only a verification browser knows that moment
        return;
    }
    enqueue([this, url = request.url] { startNavigate(url); }, std::move(done));
}

void ChromiumProvider::startNavigate(const QUrl &url)
{
    if (!m_policy.allowsNavigation(url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed); // before any request
        return;
    }
    m_revision.dropDraft();
    // The references of the page being replaced stop being valid now.
    m_revision.invalidate();
    m_guard.navigationStarted(); // a navigation the agent asked for starts unguarded
    m_phase = Phase::Loading;
    m_primaryLoadDone = false;
    m_mainDocumentRefused = false;
    m_beforeUnloadDismissed = false;
    m_loadStartMs = m_clock.elapsed();
    m_navigationTimer.start(m_timeouts.navigationMs);
    m_patienceTimer.start(m_timeouts.loadPatienceMs);
    const quint64 op = m_operations->current();
    send(
        QStringLiteral("Page.navigate"),
        {{QStringLiteral("url"), QString::fromUtf8(url.toEncoded())}},
        [this, op](Result<QJsonObject> navigated) {
            if (!isCurrent(op) || m_phase != Phase::Loading)
                return;
            if (m_mainDocumentRefused) {
                complete(ReasonCode::UrlDisallowed); // the request stage refused a hop
                return;
            }
            if (m_beforeUnloadDismissed) {
                complete(ReasonCode::NavigationCancelled);
                return;
            }
            if (!navigated || !text(*navigated, "errorText").isEmpty()) {
                complete(ReasonCode::ProviderUnavailable);
                return;
            }
            const QString loader = text(*navigated, "loaderId");
            if (loader.isEmpty()) {
                // The same document (a fragment): nothing loads.
                m_primaryLoadDone = true;
                beginSettle(false);
                return;
            }
            m_expectedLoader = loader;
            if (m_loadedLoaderId == loader)
                onLoadEvent(); // its load event came before this answer
        },
        m_session);
}

void ChromiumProvider::onLoadEvent()
{
    if (!m_operations->busy() || m_phase != Phase::Loading || m_primaryLoadDone ||
        m_expectedLoader.isEmpty() || m_loadedLoaderId != m_expectedLoader)
        return;
    if (!m_policy.allowsNavigation(m_url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed);
        return;
    }
    m_primaryLoadDone = true;
    beginSettle(false);
}

void ChromiumProvider::checkLoadPatience()
{
    // The load event can wait on a stalled subresource for a long time. Once the allowed
    // document has been parsed, settle and observe it as it is instead of failing.
    if (!m_operations->busy() || m_phase != Phase::Loading || m_primaryLoadDone)
        return;
    const quint64 op = m_operations->current();
    if (m_expectedLoader.isEmpty() || m_loaderId != m_expectedLoader) {
        if (m_guard.dispatched() && !m_pageLoading && m_loaderId == m_actLoader) {
            // The navigation the act asked for never started, or never committed: the page
            // stayed; settle and observe it.
            m_primaryLoadDone = true;
            beginSettle(false);
            return;
        }
        m_patienceTimer.start(m_timeouts.pollMs * 10);
        return;
    }
    runInWorld(Collector::settleProbeCall({}), m_timeouts.scriptMs,
               [this, op](std::optional<QJsonObject> probe) {
                   if (!isCurrent(op) || m_phase != Phase::Loading || m_primaryLoadDone)
                       return;
                   const bool parsed = probe && probe->value(QStringLiteral("ok")).toBool() &&
                                       probe->value(QStringLiteral("readyState")).toString() !=
                                           QLatin1String("loading") &&
                                       m_policy.allowsNavigation(m_url, m_overrides);
                   if (!parsed) {
                       m_patienceTimer.start(m_timeouts.pollMs * 10);
                       return;
                   }
                   m_primaryLoadDone = true;
                   beginSettle(true);
               });
}

void ChromiumProvider::beginSettle(bool stalledLoad)
{
    m_phase = Phase::Settling;
    m_navigationTimer.stop();
    m_patienceTimer.stop();
    m_settler->start(
        {.probe = runner(),
         .timing = {.boundMs = m_timeouts.settleBoundMs,
                    .quietMs = m_timeouts.quietMs,
                    .pollMs = m_timeouts.pollMs},
         .startedRequests = [this, since = m_loadStartMs] { return startedRequests(since); },
         .stalledLoad = stalledLoad,
         .pageLoading = [this] { return m_pageLoading; }},
        [this](std::optional<Readiness> readiness) {
            if (!readiness) {
                abandonPage(ReasonCode::ProviderUnavailable);
                return;
            }
            capture(*readiness);
        });
}

void ChromiumProvider::observe(const ObserveRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startObserve(request); }, std::move(done));
}

void ChromiumProvider::startObserve(const ObserveRequest &request)
{
    // A continuation is resolved against the committed revision first. What is not current
    // is refused before any capture: the current revision stays valid.
    Result<PageRevision::Window> window = m_revision.resolve(request);
    if (!window) {
        complete(window.error());
        return;
    }
    if (!m_policy.allowsNavigation(m_url, m_overrides)) {
        complete(ReasonCode::ProviderUnavailable); // no document of the profile's to observe
        return;
    }
    capture(std::nullopt, *window);
}

void ChromiumProvider::capture(std::optional<Readiness> readiness,
                               const PageRevision::Window &window)
{
    m_phase = Phase::Capturing;
    const quint64 op = m_operations->current();
    m_revision.capture({.run = runner(),
                        .liveUrl = [self = QPointer<ChromiumProvider>(
                                        this)] { return self ? self->m_url : QUrl(); },
                        .isLive = [this, op] { return isCurrent(op); },
                        .readiness = readiness,
                        .window = window,
                        .action = m_act->outcome(),
                        .actDraft = m_act->draftText()},
                       [this](PageRevision::Outcome outcome) {
                           if (outcome.recycle)
                               dropPage(); // the page did not answer: the next one replaces it
                           complete(std::move(outcome.result));
                       });
}

void ChromiumProvider::act(const ActionRequest &request, ObservationCallback done)
{
    enqueue([this, request] { startAct(request, std::nullopt); }, std::move(done));
}

void ChromiumProvider::actUnderConstraint(const ActRequest &request,
                                          const DispatchConstraint &constraint,
                                          ObservationCallback done)
{
    enqueue([this, request, constraint] { startAct(request, constraint); }, std::move(done));
}

void ChromiumProvider::startAct(const ActRequest &request,
                                std::optional<DispatchConstraint> constraint)
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
        !m_policy.allowsNavigation(m_url, m_overrides)) {
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
    m_phase = Phase::Trial;
    m_guard.beginAct(std::move(constraint));
    m_actLoader = m_loaderId;
    ActDispatch::Handlers handlers;
    handlers.ready = [this] {
        m_mainDocumentRefused = false;
        m_beforeUnloadDismissed = false;
        m_loadStartMs = m_clock.elapsed();
    };
    handlers.openGate = [this](const ActRequest &act) { return openDispatchGate(act); };
    handlers.sending = [this, type = request.kind() == ActRequest::Kind::Type] {
        // A new submission replaces the draft receipt; a rich-text one may become the next.
        if (type)
            m_revision.dropDraft();
        // From here on the site may see the action: any failure is outcome_unknown.
        m_guard.markDispatched();
        m_revision.invalidate();
        m_phase = Phase::Dispatching;
    };
    handlers.ran = [this] {
        m_revision.invalidate();
        beginSettle(false);
    };
    handlers.failed = [this](ReasonCode reason) { complete(reason); };
    handlers.unresponsive = [this](ReasonCode reason) { abandonPage(reason); };
    if (m_guard.constraint()) {
        handlers.recheck = [this, request](const QJsonObject &ready) {
            return m_guard.recheck(request, m_revision.facts(request.ref()), ready, m_url);
        };
    }
    const auto run = [self = QPointer<ChromiumProvider>(this)](
                         const QString &source, int timeoutMs,
                         std::function<void(std::optional<QJsonObject>)> done) {
        if (!self) {
            done(std::nullopt);
            return;
        }
        self->runInWorld(source, timeoutMs, std::move(done));
    };
    m_act->start(run, trustedInput(), request, m_revision.captureId(),
                 {.trialMs = m_timeouts.actTrialMs,
                  .dispatchMs = m_timeouts.dispatchMs,
                  .scriptMs = m_timeouts.scriptMs,
                  .pollMs = m_timeouts.pollMs},
                 std::move(handlers));
}

void ChromiumProvider::followActNavigation()
{
    // The action started a navigation: follow it like navigate does (the request stage
    // refuses what the policy, the guard or the fence does not allow). The input's evidence
    // and the settling it began are dropped; the act's outcome stays for the capture.
    m_act->halt();
    m_settler->stop();
    m_phase = Phase::Loading;
    m_primaryLoadDone = false;
    m_expectedLoader.clear(); // known once the new document commits (Page.frameNavigated)
    m_navigationTimer.start(m_timeouts.navigationMs);
    m_patienceTimer.start(m_timeouts.loadPatienceMs);
}

ActDispatch::Input ChromiumProvider::trustedInput()
{
    // Input events through the browser's own input pipeline: the page sees them as the
    // user's (isTrusted), at CSS pixels of the viewport (no zoom, device scale 1).
    ActDispatch::Input input;
    input.ready = [this] { return !m_session.isEmpty(); };
    input.click = [this](const QPointF &point) {
        const auto mouse = [this, point](const char *type, int buttons) {
            QJsonObject params{{QStringLiteral("type"), QLatin1String(type)},
                               {QStringLiteral("x"), point.x()},
                               {QStringLiteral("y"), point.y()},
                               {QStringLiteral("buttons"), buttons}};
            if (buttons || QLatin1String(type) == QLatin1String("mouseReleased")) {
                params.insert(QStringLiteral("button"), QStringLiteral("left"));
                params.insert(QStringLiteral("clickCount"), 1);
            }
            send(
                QStringLiteral("Input.dispatchMouseEvent"), params, [](Result<QJsonObject>) {},
                m_session);
        };
        mouse("mouseMoved", 0);
        mouse("mousePressed", 1);
        mouse("mouseReleased", 0);
    };
    input.key = [this](ActRequest::Key key) {
        const KeyEvent event = keyEvent(key);
        const QString typed = QString::fromLatin1(event.text);
        for (const char *type : {"keyDown", "keyUp"}) {
            QJsonObject params{{QStringLiteral("type"), QLatin1String(type)},
                               {QStringLiteral("key"), QLatin1String(event.key)},
                               {QStringLiteral("code"), QLatin1String(event.code)},
                               {QStringLiteral("windowsVirtualKeyCode"), event.virtualKey}};
            if (QLatin1String(type) == QLatin1String("keyDown")) {
                if (typed.isEmpty())
                    params.insert(QStringLiteral("type"), QStringLiteral("rawKeyDown"));
                else
                    params.insert(QStringLiteral("text"), typed);
            }
            send(
                QStringLiteral("Input.dispatchKeyEvent"), params, [](Result<QJsonObject>) {},
                m_session);
        }
    };
    input.commit = [this](const QString &typed) {
        send(
            QStringLiteral("Input.insertText"), {{QStringLiteral("text"), typed}},
            [](Result<QJsonObject>) {}, m_session);
    };
    return input;
}

std::optional<ElementFacts> ChromiumProvider::elementFacts(const QString &revision,
                                                           const QString &ref) const
{
    return m_revision.elementFacts(revision, ref);
}

std::optional<PageEvidence> ChromiumProvider::pageEvidence(const QString &revision) const
{
    return m_revision.pageEvidence(revision);
}

void ChromiumProvider::captureFrame(FrameCallback done)
{
    // Between operations only: a frame never races a navigation.
    if (m_session.isEmpty() || m_operations->busy() || m_operations->closed()) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    captureFrameAt(1.0, std::move(done));
}

void ChromiumProvider::captureFrameAt(double scale, FrameCallback done)
{
    QJsonObject params{{QStringLiteral("format"), QStringLiteral("png")}};
    if (scale < 1.0)
        params.insert(QStringLiteral("clip"), QJsonObject{{QStringLiteral("x"), 0},
                                                          {QStringLiteral("y"), 0},
                                                          {QStringLiteral("width"), kViewWidth},
                                                          {QStringLiteral("height"), kViewHeight},
                                                          {QStringLiteral("scale"), scale}});
    send(
        QStringLiteral("Page.captureScreenshot"), params,
        [this, scale, done = std::move(done)](Result<QJsonObject> shot) mutable {
            const QByteArray png =
                shot ? QByteArray::fromBase64(text(*shot, "data").toLatin1()) : QByteArray();
            if (std::optional<LiveFrame> frame = LiveFrame::fromPng(png)) {
                done(std::move(*frame));
                return;
            }
            constexpr double kSmallest = 0.3;
            if (!shot || png.isEmpty() || scale < kSmallest) {
                done(ReasonCode::ProviderUnavailable);
                return;
            }
            captureFrameAt(scale * 0.7, std::move(done)); // over 1 MiB: smaller
        },
        m_session);
}

void ChromiumProvider::close()
{
    m_revision.invalidate();
    m_operations->close([this] { complete(ReasonCode::ProviderUnavailable); });
    std::deque<std::function<void(bool)>> waiting = std::exchange(m_waitingForPage, {});
    for (auto &ready : waiting)
        ready(false);
    if (m_process && m_process->isRunning())
        m_process->close([] {});
}

} // namespace veetbot::chromium
