#include "ChromiumProvider.h"

#include "collector/PageSettler.h"

namespace veetbot::chromium {

using cdp::text;

namespace {

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
    m_contentLoadedTimer.setSingleShot(true);
    connect(&m_contentLoadedTimer, &QTimer::timeout, this, &ChromiumProvider::checkContentLoaded);
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
    return ProviderCapabilities::browsing();
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
                const std::optional<QString> value = cdp::stringValue(result);
                pending->finish(value ? Collector::parseAnswer(*value) : std::nullopt);
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
            m_until = NavigateRequest::Until::Settled;
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
    m_contentLoadedTimer.stop();
    m_settler->stop();
    m_phase = Phase::Idle;
    m_expectedLoader.clear();
    const quint64 op = m_operations->current();
    if (m_guard.deferForGrace(result, this, [this, op](Result<BrowserObservation> held) {
            if (isCurrent(op))
                complete(std::move(held));
        }))
        return;
    if (m_guard.navigationRefusedWrite() && !result.ok() && !m_guard.dispatched())
        result = ReasonCode::WriteRequiresApproval; // a document of the navigation writes
    m_guard.endNavigation();
    m_leavesUnsavedInput = false;
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
    if (request.until == NavigateRequest::Until::ContentLoaded && m_networkKey.isEmpty()) {
        done(ReasonCode::ProviderUnavailable); // only a verification browser knows that moment
        return;
    }
    enqueue([this, request] { startNavigate(request); }, std::move(done));
}

void ChromiumProvider::startNavigate(const NavigateRequest &request)
{
    const QUrl url = request.url;
    const NavigateRequest::Until until = request.until;
    if (!m_policy.allowsNavigation(url, m_overrides)) {
        complete(ReasonCode::UrlDisallowed); // before any request
        return;
    }
    m_revision.dropDraft();
    // The references of the page being replaced stop being valid now.
    m_revision.invalidate();
    // A navigation the agent asked for starts unarmed; unless an approval stands behind it,
    // every document it loads (each redirect hop) must not write.
    m_guard.beginNavigation(request.guarded);
    m_leavesUnsavedInput = request.discardUnsaved;
    m_phase = Phase::Loading;
    m_until = until;
    m_primaryLoadDone = false;
    m_mainDocumentRefused = false;
    m_beforeUnloadDismissed = false;
    m_loadStartMs = m_clock.elapsed();
    m_navigationTimer.start(m_timeouts.navigationMs);
    if (until == NavigateRequest::Until::ContentLoaded) {
        startContentLoaded(url);
        return;
    }
    m_patienceTimer.start(m_timeouts.loadPatienceMs);
    const quint64 op = m_operations->current();
    send(
        QStringLiteral("Page.navigate"),
        {{QStringLiteral("url"), QString::fromUtf8(url.toEncoded())}},
        [this, op](Result<QJsonObject> navigated) {
            if (!isCurrent(op) || m_phase != Phase::Loading)
                return;
            if (m_mainDocumentRefused) {
                // The request stage refused a hop: one that writes, or one off the origins.
                complete(m_guard.navigationRefusedWrite() ? ReasonCode::WriteRequiresApproval
                                                          : ReasonCode::UrlDisallowed);
                return;
            }
            if (m_beforeUnloadDismissed) {
                // Answered once the page answers a probe: a navigation asked for while the
                // browser still finishes this one was measured to be aborted
                // (net::ERR_ABORTED, no prompt).
                m_phase = Phase::Settling;
                m_navigationTimer.stop();
                m_patienceTimer.stop();
                runInWorld(Collector::settleProbeCall({}), m_timeouts.scriptMs,
                           [this, op](std::optional<QJsonObject>) {
                               if (isCurrent(op))
                                   complete(ReasonCode::NavigationCancelled);
                           });
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
    // A navigation to DOMContentLoaded ends at that moment (checkContentLoaded), not here.
    if (m_until == NavigateRequest::Until::ContentLoaded || !m_operations->busy() ||
        m_phase != Phase::Loading || m_primaryLoadDone || m_expectedLoader.isEmpty() ||
        m_loadedLoaderId != m_expectedLoader)
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

void ChromiumProvider::beginSettle(bool stalledLoad, Settling::After after)
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
         .pageLoading = [this] { return m_pageLoading; },
         .after = after},
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
    m_revision.capture(
        {.run = runner(),
         .liveUrl = [self =
                         QPointer<ChromiumProvider>(this)] { return self ? self->m_url : QUrl(); },
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
        m_revision.invalidate();
        m_phase = Phase::Dispatching;
    };
    handlers.ran = [this] {
        m_revision.invalidate();
        beginSettle(false, Settling::After::Input);
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

bool ChromiumProvider::followsActNavigation() const
{
    return m_operations->busy() && m_guard.dispatched() &&
           (m_phase == Phase::Dispatching || m_phase == Phase::Settling ||
            m_phase == Phase::Capturing);
}

void ChromiumProvider::followActNavigation()
{
    // The action started a navigation: follow it like navigate does (the request stage
    // refuses what the policy, the guard or the fence does not allow). The input's evidence,
    // the settling it began and a capture already under way are dropped; the act's outcome
    // stays for the capture of the new document.
    m_act->halt();
    m_settler->stop();
    ++m_captureGeneration; // a capture of the document that goes answers nothing
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
    if (m_networkWatch)
        m_networkWatch->abandon();
    m_operations->close([this] { complete(ReasonCode::ProviderUnavailable); });
    std::deque<std::function<void(bool)>> waiting = std::exchange(m_waitingForPage, {});
    for (auto &ready : waiting)
        ready(false);
    if (m_process && m_process->isRunning())
        m_process->close([] {});
}

} // namespace veetbot::chromium
