#pragma once

#include "HostProtocol.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "ports/GateQuestion.h"

#include <QByteArray>
#include <QHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <deque>
#include <memory>

namespace veetbot {

class EgressProxy;

// BrowserProvider over a veetbot-browser-host child process that runs in its own network
// namespace, with a temporary home and a scrubbed environment. The egress proxy lives here,
// outside the namespace, on a Unix socket in a private runtime directory; the host's only way
// out is a forwarder to it. Calls run one at a time in arrival order, each bounded by the call
// budget from its dispatch; a host that does not answer in time is killed and the call fails
// with tool.browser.provider_unavailable. Host output is validated before it is returned, and
// host stderr is dropped except the host's own "veetbot: " notices.
//
// Acts run in the host; its dispatch gate is answered here, through this provider's own gate
// (the pipeline's ledger commit), before the host may send the first input. Once the gate
// opened, any failure — a host that dies, stalls past the budget or answers garbage — is
// tool.browser.outcome_unknown, and nothing is resent. The element facts the host sends with
// each observation stay here, for the approval view, and never enter the observation.
class IsolatedBrowserProvider : public BrowserProvider
{
    Q_OBJECT
public:
    struct Options
    {
        QString hostProgram;        // empty: veetbot-browser-host beside this program
        int startTimeoutMs = 30000; // until the host reports ready
        int callTimeoutMs = 30000;  // each call, from its dispatch
        // A device verification's browser: the host observes its pages' own requests, for
        // NavigateRequest::Until::ContentLoaded and waitForNetworkIdle().
        bool observeNetwork = false;
        // The engine the host's browser runs (--engine of the host).
        BrowserEngine engine = defaultBrowserEngine();
    };

    IsolatedBrowserProvider(OriginPolicy policy, TestOverrides overrides, Options options,
                            QObject *parent = nullptr);
    ~IsolatedBrowserProvider() override;

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
    // What the host's browser said with its last observation.
    std::optional<EngineIdentity> engineIdentity() const override { return m_engine; }
    void restoreState(const SessionState &state, std::function<void(Result<Unit>)> done) override;
    void exportState(const QList<Origin> &origins, StateCallback done) override;
    void waitForNetworkIdle(const NetworkIdleRequest &request, IdleCallback done) override;
    // Queued like any call, so a frame is taken between operations; with no host running
    // (none started yet, or it went) it starts none and fails at once.
    void captureFrame(FrameCallback done) override;
    // The owner's remote view of the host's browser, over the host protocol ("view", "input",
    // "screen" events); only once the host is up, and only a Chromium host offers one.
    bool startOwnerView(const QSize &max) override;
    void stopOwnerView() override;
    bool ownerInput(const OwnerInput &input) override;

    // The default host program location.
    static QString defaultHostProgram();
    // The running browser host's process id, or 0 (tests: it exits and is reaped after close()).
    qint64 hostProcessId() const { return m_host ? m_host->processId() : 0; }
    // Content-free proxy counters (tests).
    const EgressProxy *egressProxy() const { return m_proxy; }

private:
    struct Call
    {
        QString op;
        QString url;
        ObserveRequest observe;
        std::optional<ActRequest> act;
        ObservationCallback done;          // failures (and observations)
        bool dispatchStarted = false;      // the gate opened: the site may see this act
        std::optional<SessionState> state; // restore
        QList<Origin> origins;             // export
        NavigateRequest::Until until = NavigateRequest::Until::Settled; // navigate
        bool guarded = false;                                           // navigate
        bool discardUnsaved = false;                                    // navigate
        NetworkIdleRequest idle;                                        // idle
        std::optional<DispatchConstraint> constraint;                   // act
        // restore, export and idle: their well-formed answer (its error form goes to `done`).
        std::function<void(const HostProtocol::Response &)> answered;
    };

    void enqueue(Call call);
    void dispatchNext();
    bool ensureHost();
    void stopHost();
    void readHostOutput();
    void readHostErrors();
    void hostFinished();
    void answerDispatchGate(quint64 id);
    // Writes a one-way request (view, input) to a running host; false without one.
    bool tell(HostProtocol::Request request);
    void finishCall(Result<BrowserObservation> result);
    void failEverything();

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    Options m_options;
    std::unique_ptr<QTemporaryDir> m_runtimeDir;
    EgressProxy *m_proxy = nullptr;
    QProcess *m_host = nullptr;
    bool m_hostReady = false;
    std::optional<EngineIdentity> m_engine; // the host browser's, from its last observation
    bool m_closed = false;
    QByteArray m_stdout;
    QByteArray m_stderr;
    std::deque<Call> m_queue;
    std::optional<Call> m_inFlight;
    quint64 m_inFlightId = 0;
    quint64 m_nextId = 1;
    QString m_factsRevision;
    QHash<QString, ElementFacts> m_facts;
    std::optional<PageEvidence> m_pageEvidence; // of m_factsRevision
    QTimer m_callTimer;
    GateQuestion m_gate; // the in-flight act's question to this provider's gate
    QTimer m_startTimer;
};

} // namespace veetbot
