#include "IsolatedBrowserProvider.h"

#include "HostProtocol.h"
#include "NetworkNamespace.h"
#include "net/EgressProxy.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QThread>

#include <cstdio>
#include <utility>

namespace veetbot {

namespace {

// Waits for a stopped browser host without blocking the event loop: the host is killed when it
// has not exited kGraceMs after its input closed, and reaped (deleted) once it finished; only
// then is its private directory removed (the host writes into it until it has ended). It
// outlives the provider, under the application object; at application exit a host still
// running gets the same grace, blocking then, and is killed after it.
class HostReaper : public QObject
{
public:
    static constexpr int kGraceMs = 2000;

    static void adopt(QProcess *host, std::unique_ptr<QTemporaryDir> root)
    {
        new HostReaper(host, std::move(root));
    }

    ~HostReaper() override
    {
        if (m_host->state() != QProcess::NotRunning && !m_host->waitForFinished(kGraceMs)) {
            m_host->kill();
            m_host->waitForFinished(kGraceMs);
        }
        removeRoot();
    }

private:
    // A Chromium the host started ends by itself a moment after the host (when its DevTools
    // pipe closes) and may still write into the directory until then: a few tries, quietly,
    // before QTemporaryDir's own last one.
    void removeRoot()
    {
        if (!m_root)
            return;
        constexpr int kTries = 20;
        constexpr int kPauseMs = 50;
        for (int attempt = 0; attempt < kTries; ++attempt) {
            if (QDir(m_root->path()).removeRecursively()) {
                m_root->setAutoRemove(false);
                return;
            }
            QThread::msleep(kPauseMs);
        }
    }

    HostReaper(QProcess *host, std::unique_ptr<QTemporaryDir> root)
        : QObject(QCoreApplication::instance()), m_host(host), m_root(std::move(root))
    {
        host->setParent(this);
        connect(host, &QProcess::finished, this, &QObject::deleteLater);
        if (host->state() == QProcess::NotRunning) {
            deleteLater();
            return;
        }
        QTimer::singleShot(kGraceMs, host, [host] { host->kill(); });
    }

    QProcess *m_host;
    std::unique_ptr<QTemporaryDir> m_root;
};

} // namespace

IsolatedBrowserProvider::IsolatedBrowserProvider(OriginPolicy policy, TestOverrides overrides,
                                                 Options options, QObject *parent)
    : BrowserProvider(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides)),
      m_options(std::move(options))
{
    if (m_options.hostProgram.isEmpty())
        m_options.hostProgram = defaultHostProgram();
    m_callTimer.setSingleShot(true);
    m_startTimer.setSingleShot(true);
    connect(&m_callTimer, &QTimer::timeout, this, [this] {
        // No answer within the budget: the host is recycled and the call fails cleanly.
        stopHost();
        finishCall(ReasonCode::ProviderUnavailable);
    });
    connect(&m_startTimer, &QTimer::timeout, this, [this] {
        stopHost();
        failEverything();
    });
}

IsolatedBrowserProvider::~IsolatedBrowserProvider()
{
    stopHost();
}

QString IsolatedBrowserProvider::defaultHostProgram()
{
    // The build tree puts every program in one directory; an installed program finds its
    // helpers in libexec/veetbot relative to its own bin directory, wherever the prefix is.
    const QString dir = QCoreApplication::applicationDirPath();
    const QString beside = dir + QStringLiteral("/veetbot-browser-host");
    if (QFileInfo::exists(beside))
        return beside;
    return QDir::cleanPath(dir +
                           QStringLiteral("/" VEETBOT_HELPERS_FROM_BINDIR "/veetbot-browser-host"));
}

ProviderCapabilities IsolatedBrowserProvider::capabilities() const
{
    // Carried to the host, which decides what is current, types and bounds the rows, and
    // dispatches acts behind this provider's gate.
    return ProviderCapabilities::browsing();
}

void IsolatedBrowserProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    if (!m_policy.allowsNavigation(request.url, m_overrides)) {
        done(ReasonCode::UrlDisallowed); // refused before any browser work
        return;
    }
    Call call{QStringLiteral("navigate"),
              QString::fromUtf8(request.url.toEncoded()),
              {},
              std::nullopt,
              std::move(done)};
    call.until = request.until;
    call.guarded = request.guarded;
    call.discardUnsaved = request.discardUnsaved;
    if (call.until != NavigateRequest::Until::Settled && !m_options.observeNetwork) {
        call.done(ReasonCode::ProviderUnavailable);
        return;
    }
    enqueue(std::move(call));
}

void IsolatedBrowserProvider::waitForNetworkIdle(const NetworkIdleRequest &request,
                                                 IdleCallback done)
{
    if (!m_options.observeNetwork) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    Call call{QStringLiteral("idle"),
              QString(),
              {},
              std::nullopt,
              [done](Result<BrowserObservation> failed) { done(failed.error()); }};
    call.idle = request;
    call.answered = [done](const HostProtocol::Response &response) {
        if (response.idle)
            done(*response.idle);
        else
            done(response.result ? Result<bool>(ReasonCode::ProviderUnavailable)
                                 : Result<bool>(response.result.error()));
    };
    enqueue(std::move(call));
}

void IsolatedBrowserProvider::captureFrame(FrameCallback done)
{
    if (!m_host || !m_hostReady || m_closed) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    Call call{QStringLiteral("frame"),
              QString(),
              {},
              std::nullopt,
              [done](Result<BrowserObservation> failed) { done(failed.error()); }};
    call.answered = [done](const HostProtocol::Response &response) {
        if (response.frame)
            done(*response.frame);
        else
            done(response.result ? Result<LiveFrame>(ReasonCode::ProviderUnavailable)
                                 : Result<LiveFrame>(response.result.error()));
    };
    enqueue(std::move(call));
}

void IsolatedBrowserProvider::observe(const ObserveRequest &request, ObservationCallback done)
{
    // Refs and cursors belong to the host's current document; a host that was restarted in
    // between has no revision and answers tool.browser.page_changed.
    enqueue(Call{QStringLiteral("observe"), QString(), request, std::nullopt, std::move(done)});
}

void IsolatedBrowserProvider::act(const ActionRequest &request, ObservationCallback done)
{
    // The host decides what is current and refuses before its gate; a host restarted in
    // between has no revision and answers tool.browser.page_changed.
    enqueue(Call{QStringLiteral("act"), QString(), {}, request, std::move(done)});
}

void IsolatedBrowserProvider::actUnderConstraint(const ActRequest &request,
                                                 const DispatchConstraint &constraint,
                                                 ObservationCallback done)
{
    // The host rechecks the live element and fences documents; this side only carries it.
    Call call{QStringLiteral("act"), QString(), {}, request, std::move(done)};
    call.constraint = constraint;
    enqueue(std::move(call));
}

void IsolatedBrowserProvider::restoreState(const SessionState &state,
                                           std::function<void(Result<Unit>)> done)
{
    Call call{QStringLiteral("restore"),
              QString(),
              {},
              std::nullopt,
              [done](Result<BrowserObservation> failed) { done(failed.error()); }};
    call.state = state;
    call.answered = [done](const HostProtocol::Response &response) {
        done(response.restored ? Result<Unit>(Unit{})
             : response.result ? Result<Unit>(ReasonCode::ProviderUnavailable)
                               : Result<Unit>(response.result.error()));
    };
    enqueue(std::move(call));
}

void IsolatedBrowserProvider::exportState(const QList<Origin> &origins, StateCallback done)
{
    Call call{QStringLiteral("export"),
              QString(),
              {},
              std::nullopt,
              [done](Result<BrowserObservation> failed) { done(failed.error()); }};
    call.origins = origins;
    call.answered = [done](const HostProtocol::Response &response) {
        if (response.state)
            done(*response.state);
        else
            done(response.result ? Result<SessionState>(ReasonCode::ProviderUnavailable)
                                 : Result<SessionState>(response.result.error()));
    };
    enqueue(std::move(call));
}

std::optional<ElementFacts> IsolatedBrowserProvider::elementFacts(const QString &revision,
                                                                  const QString &ref) const
{
    if (m_factsRevision.isEmpty() || revision != m_factsRevision)
        return std::nullopt;
    const auto it = m_facts.constFind(ref);
    if (it == m_facts.constEnd())
        return std::nullopt;
    return *it;
}

std::optional<PageEvidence> IsolatedBrowserProvider::pageEvidence(const QString &revision) const
{
    if (m_factsRevision.isEmpty() || revision != m_factsRevision)
        return std::nullopt;
    return m_pageEvidence;
}

void IsolatedBrowserProvider::close()
{
    m_closed = true;
    stopHost();
    failEverything();
}

void IsolatedBrowserProvider::enqueue(Call call)
{
    if (m_closed) {
        call.done(ReasonCode::ProviderUnavailable);
        return;
    }
    m_queue.push_back(std::move(call));
    dispatchNext();
}

bool IsolatedBrowserProvider::ensureHost()
{
    if (m_host)
        return true;
    m_runtimeDir = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                                   QStringLiteral("/veetbot-browser-XXXXXX"));
    if (!m_runtimeDir->isValid())
        return false;
    const QString root = m_runtimeDir->path();
    QFile::setPermissions(root,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    for (const char *sub : {"home", "tmp", "runtime"}) {
        if (!QDir(root).mkdir(QLatin1String(sub)))
            return false;
        QFile::setPermissions(root + QLatin1Char('/') + QLatin1String(sub),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                  QFileDevice::ExeOwner);
    }
    const QString socketPath = root + QStringLiteral("/egress.sock");
    m_proxy = new EgressProxy(m_overrides, this);
    if (!m_proxy->listenLocal(socketPath))
        return false;

    // A scrubbed environment: nothing inherited reaches the browser but what is listed here.
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    env.insert(QStringLiteral("HOME"), root + QStringLiteral("/home"));
    env.insert(QStringLiteral("TMPDIR"), root + QStringLiteral("/tmp"));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), root + QStringLiteral("/runtime"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), root + QStringLiteral("/home/.config"));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), root + QStringLiteral("/home/.cache"));
    env.insert(QStringLiteral("XDG_DATA_HOME"), root + QStringLiteral("/home/.local/share"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    if (!m_overrides.resolveSpec().isEmpty())
        env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), m_overrides.resolveSpec());
    if (!m_overrides.caPath().isEmpty())
        env.insert(QStringLiteral("VEETBOT_TEST_CA"), m_overrides.caPath());

    QStringList arguments{QStringLiteral("--egress-socket"), socketPath};
    for (const Origin &origin : m_policy.origins())
        arguments << QStringLiteral("--allow-origin") << origin.toString();
    if (m_options.observeNetwork)
        arguments << QStringLiteral("--observe-network");
    arguments << QStringLiteral("--engine") << browserEngineName(m_options.engine);

    m_host = new QProcess(this);
    m_host->setProgram(m_options.hostProgram);
    m_host->setArguments(arguments);
    m_host->setProcessEnvironment(env);
    m_host->setWorkingDirectory(root);
    const NetworkNamespace::ChildSetup setup = NetworkNamespace::prepare();
    m_host->setChildProcessModifier([setup] { NetworkNamespace::enterInChild(setup); });
    connect(m_host, &QProcess::readyReadStandardOutput, this,
            &IsolatedBrowserProvider::readHostOutput);
    connect(m_host, &QProcess::readyReadStandardError, this,
            &IsolatedBrowserProvider::readHostErrors);
    connect(m_host, &QProcess::finished, this, &IsolatedBrowserProvider::hostFinished);
    connect(m_host, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            hostFinished();
    });
    m_hostReady = false;
    m_stdout.clear();
    m_stderr.clear();
    m_startTimer.start(m_options.startTimeoutMs);
    m_host->start();
    return true;
}

void IsolatedBrowserProvider::stopHost()
{
    m_startTimer.stop();
    m_hostReady = false;
    m_factsRevision.clear();
    m_facts.clear();
    m_pageEvidence.reset();
    if (m_host) {
        QProcess *host = std::exchange(m_host, nullptr);
        host->disconnect(this);
        // The end of its input: the host closes its browser and exits by itself.
        host->closeWriteChannel();
        HostReaper::adopt(host, std::move(m_runtimeDir));
    }
    delete m_proxy;
    m_proxy = nullptr;
    m_runtimeDir.reset();
}

void IsolatedBrowserProvider::dispatchNext()
{
    if (m_inFlight || m_queue.empty())
        return;
    if (!ensureHost()) {
        stopHost();
        failEverything();
        return;
    }
    if (!m_hostReady)
        return; // dispatched when the host reports ready
    m_inFlight = std::move(m_queue.front());
    m_queue.pop_front();
    m_inFlightId = m_nextId++;
    HostProtocol::Request request{m_inFlightId, m_inFlight->op, m_inFlight->url,
                                  m_inFlight->observe, m_inFlight->act};
    request.state = m_inFlight->state;
    request.origins = m_inFlight->origins;
    request.until = m_inFlight->until;
    request.guarded = m_inFlight->guarded;
    request.discardUnsaved = m_inFlight->discardUnsaved;
    request.constraint = m_inFlight->constraint;
    request.idle = m_inFlight->idle;
    m_callTimer.start(m_options.callTimeoutMs);
    m_host->write(HostProtocol::encodeRequest(request));
}

void IsolatedBrowserProvider::readHostOutput()
{
    if (!m_host)
        return;
    m_stdout.append(m_host->readAllStandardOutput());
    qsizetype newline;
    while ((newline = m_stdout.indexOf('\n')) >= 0) {
        const QByteArray line = m_stdout.left(newline);
        m_stdout.remove(0, newline + 1);
        const auto response = HostProtocol::decodeResponse(line, m_overrides);
        if (!response) {
            // A malformed host is not trusted further.
            stopHost();
            finishCall(ReasonCode::ProviderUnavailable);
            failEverything();
            return;
        }
        if (response->ready) {
            m_startTimer.stop();
            m_hostReady = true;
            dispatchNext();
            continue;
        }
        if (response->dispatchGate) {
            answerDispatchGate(response->id);
            continue;
        }
        if (response->screen) {
            Q_EMIT ownerViewFrame(*response->screen);
            continue;
        }
        if (response->engine)
            m_engine = response->engine;
        if (!m_inFlight || response->id != m_inFlightId)
            continue; // a late answer to a call that already timed out
        if (m_inFlight->answered) {
            // restore, export, idle or frame: its answer, or its error form.
            m_callTimer.stop();
            Call call = std::move(*m_inFlight);
            m_inFlight.reset();
            call.answered(*response);
            QTimer::singleShot(0, this, &IsolatedBrowserProvider::dispatchNext);
            continue;
        }
        if (response->restored || response->state || response->idle || response->frame) {
            // A state answer to an observation call: not a host to trust further.
            stopHost();
            finishCall(ReasonCode::ProviderUnavailable);
            failEverything();
            return;
        }
        if (response->result) {
            m_factsRevision = response->result->revision;
            m_facts = response->facts;
            m_pageEvidence = response->page;
        }
        finishCall(response->result);
    }
    if (m_stdout.size() > HostProtocol::kMaxLineBytes) {
        stopHost();
        finishCall(ReasonCode::OutputInvalid);
    }
}

void IsolatedBrowserProvider::readHostErrors()
{
    if (!m_host)
        return;
    // Only the host's own content-free notices pass; Chromium's logging may name hosts.
    m_stderr.append(m_host->readAllStandardError());
    qsizetype newline;
    while ((newline = m_stderr.indexOf('\n')) >= 0) {
        const QByteArray line = m_stderr.left(newline + 1);
        m_stderr.remove(0, newline + 1);
        if (line.startsWith("veetbot: "))
            std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
    }
    if (m_stderr.size() > 65536)
        m_stderr.clear();
}

void IsolatedBrowserProvider::hostFinished()
{
    if (!m_host)
        return;
    // The host went away: the call in flight and those waiting for a start fail; a later
    // call starts a fresh host.
    QProcess *host = m_host;
    m_host = nullptr;
    host->disconnect(this);
    host->deleteLater();
    m_hostReady = false;
    m_factsRevision.clear();
    m_facts.clear();
    m_pageEvidence.reset();
    m_startTimer.stop();
    delete m_proxy;
    m_proxy = nullptr;
    m_runtimeDir.reset();
    finishCall(ReasonCode::ProviderUnavailable);
    failEverything();
}

void IsolatedBrowserProvider::answerDispatchGate(quint64 id)
{
    if (!m_host)
        return;
    QPointer<IsolatedBrowserProvider> self(this);
    const auto reply = [self, id](bool open) {
        if (!self || !self->m_host)
            return;
        HostProtocol::Request answer{id, QStringLiteral("dispatch")};
        answer.open = open;
        self->m_host->write(HostProtocol::encodeRequest(answer));
    };
    // Only the act in flight may open the gate, once; anything else is answered closed.
    if (!m_inFlight || id != m_inFlightId || !m_inFlight->act || m_inFlight->dispatchStarted ||
        m_gate.pending()) {
        reply(false);
        return;
    }
    const quint64 ticket =
        m_gate.ask(this, GateQuestion::kHostWaitMs, [self, id, reply](bool open) {
            if (!self)
                return;
            if (open && self->m_inFlight && id == self->m_inFlightId) {
                self->m_inFlight->dispatchStarted = true;
                // dispatch_started is committed: close the keep-alive tunnels no request is
                // waiting on, so the act's request opens a fresh connection, which Chromium never
                // resends on (docs/decisions/0005).
                if (self->m_proxy)
                    self->m_proxy->retireIdleTunnels();
            } else {
                open = false; // the call ended meanwhile: nothing may be sent
            }
            reply(open);
        });
    askDispatchGate(*m_inFlight->act, [question = m_gate, ticket](bool open) mutable {
        (void)question.answer(ticket, open);
    });
}

bool IsolatedBrowserProvider::tell(HostProtocol::Request request)
{
    if (!m_host || !m_hostReady || m_closed)
        return false;
    request.id = m_nextId++;
    m_host->write(HostProtocol::encodeRequest(request));
    return true;
}

bool IsolatedBrowserProvider::startOwnerView(const QSize &max)
{
    if (m_options.engine != BrowserEngine::Chromium)
        return false; // the remote view is the Chromium placement's
    HostProtocol::Request request{0, QStringLiteral("view")};
    request.start = true;
    request.viewMax = max;
    return tell(std::move(request));
}

void IsolatedBrowserProvider::stopOwnerView()
{
    (void)tell(HostProtocol::Request{0, QStringLiteral("view")});
}

bool IsolatedBrowserProvider::ownerInput(const OwnerInput &input)
{
    if (m_options.engine != BrowserEngine::Chromium || !input.isValid())
        return false;
    HostProtocol::Request request{0, QStringLiteral("input")};
    request.input = input;
    return tell(std::move(request));
}

void IsolatedBrowserProvider::finishCall(Result<BrowserObservation> result)
{
    m_callTimer.stop();
    if (!m_inFlight)
        return;
    Call call = std::move(*m_inFlight);
    m_inFlight.reset();
    m_gate.withdraw(); // a question still at the gate is answered closed
    if (call.dispatchStarted && !result && !result.error().certainAfterDispatch()) {
        // Input may have reached the site: whatever went wrong, the outcome is unknown.
        result = ReasonCode::OutcomeUnknown;
    }
    call.done(std::move(result));
    QTimer::singleShot(0, this, &IsolatedBrowserProvider::dispatchNext);
}

void IsolatedBrowserProvider::failEverything()
{
    auto queue = std::move(m_queue);
    m_queue.clear();
    if (m_inFlight)
        finishCall(ReasonCode::ProviderUnavailable);
    for (Call &call : queue)
        call.done(ReasonCode::ProviderUnavailable);
}

} // namespace veetbot
