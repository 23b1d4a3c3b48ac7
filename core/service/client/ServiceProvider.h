#pragma once

#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "service/api/ServiceLease.h"
#include "service/api/SessionApi.h"
#include "service/client/ServiceClient.h"
#include "storage/FileDescriptor.h"

#include <QDateTime>
#include <QHash>
#include <QTimer>

#include <memory>
#include <mutex>

namespace veetbot {

class OperationQueue;

// BrowserProvider over the profile service's session routes: the browser of a signed-in
// profile runs in the service, with the profile's sealed origins as its policy; this process
// sees bounded observations only. The first operation acquires the lease (with the
// acquisition retry: 3 attempts, after 0.25–0.5 s and then 0.5–1 s with jitter, only while
// the answer is the retryable tool.browser.provider_unavailable); navigate, observe and close
// are never replayed. The lease is renewed about once a minute and held alive by a keeper
// connection, so it ends with this process. A lease the service no longer honours is dropped
// and the next operation acquires again. An act is sequence-bound: the service runs its trial
// and stops at the dispatch gate; this provider's gate (the effect ledger's dispatch_started)
// is asked then, and its answer goes back with :dispatch. An ambiguous answer after the gate
// opened is tool.browser.outcome_unknown and retires the lease; nothing is ever resent. HTTP
// runs on worker threads; answers come back on this object's thread.
class ServiceProvider : public BrowserProvider
{
    Q_OBJECT
public:
    struct Options
    {
        LeaseHolder holder;
        std::optional<QDateTime> deadline; // the run attempt's, when it has one
        QString keeperPath;                // the service's lease.sock
        TestOverrides overrides;
        int renewIntervalMs = 60000;
        int acquireBackoffMs = 250; // first wait 1–2×, second 2–4× this
    };

    ServiceProvider(std::shared_ptr<const ServiceClient> client, Options options,
                    QObject *parent = nullptr);
    ~ServiceProvider() override;

    ProviderCapabilities capabilities() const override;
    void navigate(const NavigateRequest &request, ObservationCallback done) override;
    void observe(const ObserveRequest &request, ObservationCallback done) override;
    void act(const ActionRequest &request, ObservationCallback done) override;
    void actUnderConstraint(const ActRequest &request, const DispatchConstraint &constraint,
                            ObservationCallback done) override;
    std::optional<ElementFacts> elementFacts(const QString &revision,
                                             const QString &ref) const override;
    std::optional<PageEvidence> pageEvidence(const QString &revision) const override;
    // Closes the lease (a healthy close) and lets the keeper go; waits at most a few seconds.
    void close() override;

private:
    // A call of this lease: the operation, this holder and the lease's reference.
    SessionApi::Call leaseCall(SessionApi::Operation operation) const;
    void actWith(const ActRequest &request, const std::optional<DispatchConstraint> &constraint,
                 ObservationCallback done);
    struct Relay; // carries worker answers back while this object lives
    void run(SessionApi::Call call, ObservationCallback done);
    // An operation that needs the lease: `work` runs with the lease held, for the operation
    // with this number; an acquisition that failed ends the operation with its error.
    void runLeased(std::function<void(quint64)> work, ObservationCallback done);
    void withLease(std::function<void(Result<Unit>)> then, int attempt = 0);
    void post(SessionApi::Call call, std::function<void(Result<HttpResponse>)> done);
    void dropLease();
    void renew();
    Result<BrowserObservation> decode(const Result<HttpResponse> &answer);

    std::shared_ptr<const ServiceClient> m_client;
    Options m_options;
    std::shared_ptr<Relay> m_relay;
    OperationQueue *m_operations = nullptr;
    void dispatchAct(const ActRequest &request, quint64 operation, const QByteArray &gate);
    // The client's answer to the service's gate question (:dispatch); the act's end follows.
    void answerGate(quint64 operation, const QByteArray &gate, bool open);

    QByteArray m_leaseReference;
    qint64 m_sequence = 0; // the lease's action sequence
    FileDescriptor m_keeper;
    QTimer m_renewal;
    QString m_factsRevision;
    QHash<QString, ElementFacts> m_facts;
    std::optional<PageEvidence> m_pageEvidence; // of m_factsRevision
};

} // namespace veetbot
