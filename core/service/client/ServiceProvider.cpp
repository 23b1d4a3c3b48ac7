#include "ServiceProvider.h"

#include "domain/web/Origin.h"

#include "isolation/HostProtocol.h"
#include "ports/OperationQueue.h"

#include <QFile>
#include <QPointer>
#include <QRandomGenerator>

#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <thread>

namespace veetbot {

namespace {

// Connects the keeper: the lease's reference on one line, then "ok" back. The connection is
// held for the lease's life; the kernel closes it when this process goes.
FileDescriptor connectKeeper(const QString &path, const QByteArray &reference)
{
    FileDescriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const QByteArray native = QFile::encodeName(path);
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    if (!fd.isValid() || native.size() >= qsizetype(sizeof address.sun_path))
        return {};
    std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
    struct timeval timeout = {2, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const QByteArray line = reference + '\n';
    if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
        ::write(fd.get(), line.constData(), size_t(line.size())) != line.size())
        return {};
    char answer[3] = {};
    if (::read(fd.get(), answer, sizeof answer) != 3 || std::memcmp(answer, "ok\n", 3) != 0)
        return {};
    return fd;
}

} // namespace

struct ServiceProvider::Relay
{
    std::mutex mutex;
    ServiceProvider *target = nullptr;
    // Runs `work` on the target's thread if the target still lives.
    void deliver(std::function<void(ServiceProvider *)> work)
    {
        const std::lock_guard lock(mutex);
        if (!target)
            return;
        ServiceProvider *provider = target;
        QMetaObject::invokeMethod(
            provider, [provider, work = std::move(work)] { work(provider); }, Qt::QueuedConnection);
    }
};

ServiceProvider::ServiceProvider(std::shared_ptr<const ServiceClient> client, Options options,
                                 QObject *parent)
    : BrowserProvider(parent), m_client(std::move(client)), m_options(std::move(options)),
      m_relay(std::make_shared<Relay>()), m_operations(new OperationQueue(this))
{
    m_relay->target = this;
    m_renewal.setInterval(m_options.renewIntervalMs);
    connect(&m_renewal, &QTimer::timeout, this, &ServiceProvider::renew);
}

ServiceProvider::~ServiceProvider()
{
    close();
    const std::lock_guard lock(m_relay->mutex);
    m_relay->target = nullptr;
}

ProviderCapabilities ServiceProvider::capabilities() const
{
    return ProviderCapabilities::browsing();
}

SessionApi::Call ServiceProvider::leaseCall(SessionApi::Operation operation) const
{
    SessionApi::Call call;
    call.operation = operation;
    call.holder = m_options.holder;
    call.leaseReference = m_leaseReference;
    return call;
}

void ServiceProvider::navigate(const NavigateRequest &request, ObservationCallback done)
{
    // An address no profile can hold (not public HTTPS: data:, file:, an IP address, ...) is
    // refused here, as every placement refuses it, and never sent: the route would only call it
    // malformed.
    if (!PublicUrl::parse(request.url.toString(QUrl::FullyEncoded), m_options.overrides)) {
        done(Error::fromReason(ReasonCode::UrlDisallowed));
        return;
    }
    SessionApi::Call call;
    call.operation = SessionApi::Operation::Navigate;
    call.url = request.url;
    call.approved = !request.guarded; // the pipeline decided: a card stood behind it
    call.discardUnsaved = request.discardUnsaved;
    run(std::move(call), std::move(done));
}

void ServiceProvider::observe(const ObserveRequest &request, ObservationCallback done)
{
    SessionApi::Call call;
    call.operation = SessionApi::Operation::Observe;
    call.observe = request;
    run(std::move(call), std::move(done));
}

void ServiceProvider::act(const ActionRequest &request, ObservationCallback done)
{
    actWith(request, std::nullopt, std::move(done));
}

void ServiceProvider::actUnderConstraint(const ActRequest &request,
                                         const DispatchConstraint &constraint,
                                         ObservationCallback done)
{
    // The service's browser rechecks the live element and fences documents.
    actWith(request, constraint, std::move(done));
}

void ServiceProvider::actWith(const ActRequest &request,
                              const std::optional<DispatchConstraint> &constraint,
                              ObservationCallback done)
{
    runLeased(
        [this, request, constraint](quint64 operation) {
            SessionApi::Call call = leaseCall(SessionApi::Operation::Act);
            call.act = request;
            call.constraint = constraint;
            call.sequence = m_sequence;
            post(std::move(call), [this, operation, request](Result<HttpResponse> answer) {
                if (!m_operations->isCurrent(operation))
                    return;
                if (answer && answer->status == 200) {
                    ++m_sequence; // the service counted it, whatever follows
                    if (const auto gate = SessionApi::parseGate(answer->body)) {
                        dispatchAct(request, operation, *gate);
                        return;
                    }
                }
                // It ended before its gate (or never reached the service): nothing was sent,
                // since only this provider's gate lets it be.
                (void)m_operations->finish(decode(answer));
            });
        },
        std::move(done));
}

void ServiceProvider::dispatchAct(const ActRequest &request, quint64 operation,
                                  const QByteArray &gate)
{
    // The effect ledger records dispatch_started here, before the service may send anything.
    QPointer<ServiceProvider> self(this);
    askDispatchGate(request, [self, operation, gate](bool open) {
        if (self)
            self->answerGate(operation, gate, open && self->m_operations->isCurrent(operation));
    });
}

void ServiceProvider::answerGate(quint64 operation, const QByteArray &gate, bool open)
{
    SessionApi::Call call = leaseCall(SessionApi::Operation::Dispatch);
    call.gate = gate;
    call.open = open;
    post(std::move(call), [this, operation, open](Result<HttpResponse> answer) {
        if (!m_operations->isCurrent(operation))
            return;
        Result<BrowserObservation> result = decode(answer);
        if (open && !result && !result.error().certainAfterDispatch()) {
            // After the gate opened anything but the settled observation is ambiguous: the
            // outcome is unknown, the lease retired, nothing resent.
            dropLease();
            result = ReasonCode::OutcomeUnknown;
        }
        (void)m_operations->finish(std::move(result));
    });
}

std::optional<ElementFacts> ServiceProvider::elementFacts(const QString &revision,
                                                          const QString &ref) const
{
    if (revision.isEmpty() || revision != m_factsRevision)
        return std::nullopt;
    const auto it = m_facts.constFind(ref);
    if (it == m_facts.constEnd())
        return std::nullopt;
    return *it;
}

std::optional<PageEvidence> ServiceProvider::pageEvidence(const QString &revision) const
{
    if (revision.isEmpty() || revision != m_factsRevision)
        return std::nullopt;
    return m_pageEvidence;
}

void ServiceProvider::run(SessionApi::Call call, ObservationCallback done)
{
    runLeased(
        [this, call = std::move(call)](quint64 operation) mutable {
            call.holder = m_options.holder;
            call.leaseReference = m_leaseReference;
            post(std::move(call), [this, operation](Result<HttpResponse> answer) {
                if (!m_operations->isCurrent(operation))
                    return;
                (void)m_operations->finish(decode(answer));
            });
        },
        std::move(done));
}

void ServiceProvider::runLeased(std::function<void(quint64)> work, ObservationCallback done)
{
    m_operations->enqueue(
        [this, work = std::move(work)]() mutable {
            const quint64 operation = m_operations->current();
            withLease([this, operation, work = std::move(work)](Result<Unit> leased) mutable {
                if (!m_operations->isCurrent(operation))
                    return;
                if (!leased) {
                    (void)m_operations->finish(leased.error());
                    return;
                }
                work(operation);
            });
        },
        std::move(done));
}

Result<BrowserObservation> ServiceProvider::decode(const Result<HttpResponse> &answer)
{
    if (!answer || answer->status != 200) {
        // The service did not answer for the lease: it is dropped; the next call acquires.
        dropLease();
        return ReasonCode::ProviderUnavailable;
    }
    const std::optional<HostProtocol::Response> response =
        HostProtocol::decodeResponse(answer->body, m_options.overrides);
    if (!response || response->ready || response->dispatchGate) {
        dropLease();
        return ReasonCode::ProviderUnavailable;
    }
    if (!response->result) {
        if (response->result.error().is(ReasonCode::ProfileUnavailable))
            dropLease(); // not honoured any more (expired, revoked, closed)
        return response->result;
    }
    m_factsRevision = response->result->revision;
    m_facts = response->facts;
    m_pageEvidence = response->page;
    return response->result;
}

void ServiceProvider::withLease(std::function<void(Result<Unit>)> then, int attempt)
{
    if (!m_leaseReference.isEmpty()) {
        then(Unit{});
        return;
    }
    SessionApi::Call call;
    call.operation = SessionApi::Operation::Acquire;
    call.holder = m_options.holder;
    call.deadline = m_options.deadline;
    const QString keeperPath = m_options.keeperPath;
    auto client = m_client;
    auto relay = m_relay;
    const QByteArray body = SessionApi::requestBody(call);
    std::thread([client, relay, body, keeperPath, then = std::move(then), attempt,
                 backoff = m_options.acquireBackoffMs]() mutable {
        const Result<HttpResponse> answer =
            client->post(SessionApi::path(SessionApi::Operation::Acquire), body, QByteArray());
        std::optional<SessionApi::Acquired> acquired;
        Result<Unit> outcome = Error::fromReason(ReasonCode::ProviderUnavailable);
        FileDescriptor keeper;
        if (answer && answer->status == 200) {
            acquired = SessionApi::parseAcquired(answer->body);
            if (!acquired) {
                // A refusal comes as the host protocol's error object.
                const auto refused = HostProtocol::decodeResponse(answer->body, TestOverrides());
                if (refused && !refused->ready && !refused->result)
                    outcome = refused->result.error();
            } else {
                keeper = connectKeeper(keeperPath, acquired->leaseReference);
                outcome = keeper.isValid() ? Result<Unit>(Unit{})
                                           : Result<Unit>(ReasonCode::ProviderUnavailable);
            }
        }
        const bool retry =
            !outcome.ok() && outcome.error().is(ReasonCode::ProviderUnavailable) && attempt < 2;
        if (retry) {
            const int base = backoff * (attempt + 1);
            std::this_thread::sleep_for(std::chrono::milliseconds(
                base + int(QRandomGenerator::global()->bounded(base + 1))));
        }
        relay->deliver([then = std::move(then), outcome, acquired, retry, attempt,
                        keeperFd = keeper.release()](ServiceProvider *self) mutable {
            FileDescriptor held(keeperFd);
            if (retry) {
                self->withLease(std::move(then), attempt + 1);
                return;
            }
            if (outcome && acquired) {
                self->m_leaseReference = acquired->leaseReference;
                self->m_sequence = acquired->sequence;
                self->m_keeper = std::move(held);
                self->m_renewal.start();
            }
            then(outcome);
        });
    }).detach();
}

void ServiceProvider::post(SessionApi::Call call, std::function<void(Result<HttpResponse>)> done)
{
    auto client = m_client;
    auto relay = m_relay;
    const QByteArray path = SessionApi::path(call.operation);
    const QByteArray body = SessionApi::requestBody(call);
    std::thread([client, relay, path, body, done = std::move(done)]() mutable {
        Result<HttpResponse> answer = client->post(path, body, QByteArray());
        relay->deliver([done = std::move(done), answer = std::move(answer)](ServiceProvider *) {
            done(answer);
        });
    }).detach();
}

void ServiceProvider::renew()
{
    if (m_leaseReference.isEmpty())
        return;
    SessionApi::Call call = leaseCall(SessionApi::Operation::Renew);
    call.deadline = m_options.deadline;
    const QByteArray reference = m_leaseReference;
    post(std::move(call), [this, reference](Result<HttpResponse> answer) {
        if (reference != m_leaseReference)
            return;
        if (!answer || answer->status != 200 || !SessionApi::parseRenewed(answer->body))
            dropLease(); // not renewed: the next operation acquires a new one
    });
}

void ServiceProvider::dropLease()
{
    m_leaseReference.clear();
    m_sequence = 0;
    m_keeper.reset(); // the service ends the lease when its keeper goes
    m_renewal.stop();
    m_factsRevision.clear();
    m_facts.clear();
    m_pageEvidence.reset();
}

void ServiceProvider::close()
{
    m_operations->close([this] { (void)m_operations->finish(ReasonCode::ProviderUnavailable); });
    if (m_leaseReference.isEmpty())
        return;
    // A healthy close, answered before the keeper goes; bounded by the client's timeouts.
    SessionApi::Call call = leaseCall(SessionApi::Operation::Close);
    (void)m_client->post(SessionApi::path(call.operation), SessionApi::requestBody(call),
                         QByteArray());
    dropLease();
}

} // namespace veetbot
