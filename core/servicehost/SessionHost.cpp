#include "SessionHost.h"

#include "DeviceVerification.h"

#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "isolation/HostProtocol.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "service/api/LiveViewApi.h"
#include "service/api/SessionApi.h"
#include "vault/VaultControlPlane.h"

#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTextStream>

#include <openssl/crypto.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

constexpr int kKeeperLineBytes = 256;
constexpr int kKeeperGraceMs = 5000;

HttpResponse hostResult(const Result<BrowserObservation> &result,
                        const BrowserProvider *browser = nullptr)
{
    // The browser host's own result object (its id is always 1 here): one format, one
    // validation, for observations wherever they come from.
    return {200, HostProtocol::encodeResult(1, result, HostProtocol::factsFor(browser, result),
                                            HostProtocol::pageEvidenceFor(browser, result))
                     .trimmed()};
}

} // namespace

SessionHost::SessionHost(VaultAccess vault, TestOverrides overrides, QObject *parent)
    : QObject(parent), m_vault(std::move(vault)), m_overrides(std::move(overrides)),
      m_leases([clock = m_overrides] { return clock.now(); })
{
    // Expired leases end within a second, their browsers with them.
    m_sweep.setInterval(1000);
    connect(&m_sweep, &QTimer::timeout, this, &SessionHost::sweepExpired);
    m_sweep.start();
}

SessionHost::~SessionHost()
{
    endAll();
}

bool SessionHost::listenForKeepers(const QString &path)
{
    m_keepers = new QLocalServer(this);
    m_keepers->setSocketOptions(QLocalServer::UserAccessOption);
    QLocalServer::removeServer(path); // ours: the caller holds the service lock
    if (!m_keepers->listen(path))
        return false;
    // Qt's user-only access gives the socket 0700; the execute bit means nothing on a socket,
    // but the documented mode, like service.sock's, is 0600.
    if (::chmod(QFile::encodeName(path).constData(), 0600) != 0)
        return false;
    connect(m_keepers, &QLocalServer::newConnection, this, &SessionHost::acceptKeeper);
    return true;
}

void SessionHost::acceptKeeper()
{
    while (QLocalSocket *socket = m_keepers->nextPendingConnection()) {
        socket->setParent(this);
        socket->setReadBufferSize(kKeeperLineBytes);
        // A keeper names its lease in one line, soon; anything else is closed.
        QTimer::singleShot(kKeeperGraceMs, socket, [socket] {
            if (!socket->property("bound").toBool())
                socket->abort();
        });
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (socket->property("bound").toBool() || !socket->canReadLine()) {
                if (socket->bytesAvailable() >= kKeeperLineBytes)
                    socket->abort();
                return;
            }
            const QByteArray reference = socket->readLine(kKeeperLineBytes).trimmed();
            const std::optional<QString> leaseId = m_leases.idOf(reference);
            struct ucred peer = {};
            socklen_t length = sizeof peer;
            const bool sameUser = ::getsockopt(int(socket->socketDescriptor()), SOL_SOCKET,
                                               SO_PEERCRED, &peer, &length) == 0 &&
                                  peer.uid == ::geteuid();
            if (!leaseId || !m_runtimes.contains(*leaseId) || !sameUser) {
                socket->abort();
                return;
            }
            m_runtimes[*leaseId].keepers.append(socket);
            socket->setProperty("bound", true);
            socket->write("ok\n");
            // A holder went (exited, crashed, killed): when it was the last, the lease ends
            // unsealed.
            connect(socket, &QLocalSocket::disconnected, this, [this, socket, id = *leaseId] {
                const auto it = m_runtimes.find(id);
                if (it == m_runtimes.end())
                    return;
                it->keepers.removeAll(socket);
                it->keepers.removeAll(nullptr);
                if (it->keepers.isEmpty())
                    endRuntime(id);
            });
        });
    }
}

Result<QStringList> SessionHost::originsFor(const LeaseRegistry::Holder &holder) const
{
    VaultControlPlane *vault = m_vault();
    if (!vault)
        return Error::fromReason(ReasonCode::ProviderUnavailable);
    return vault->sessionOrigins(holder.profileId.toString(QUuid::WithoutBraces), holder.tenant,
                                 holder.principal, holder.providerReference);
}

void SessionHost::endRuntime(const QString &leaseId)
{
    // An act in progress: its browser goes, so it answers now (nothing is sent after this,
    // and after its gate opened its outcome is unknown).
    if (const auto pending = m_acts.find(leaseId); pending != m_acts.end()) {
        PendingAct act = std::move(*pending);
        m_acts.erase(pending);
        act.gate.withdraw();
        if (act.actReply)
            act.actReply(hostResult(Error::fromReason(ReasonCode::ProviderUnavailable)));
        else if (act.dispatchReply)
            act.dispatchReply(hostResult(Error::fromReason(ReasonCode::OutcomeUnknown)));
    }
    (void)m_leases.closeId(leaseId); // already closed when the close route ended it
    const auto it = m_runtimes.find(leaseId);
    if (it == m_runtimes.end())
        return;
    Runtime runtime = *it;
    m_runtimes.erase(it);
    if (runtime.browser) {
        runtime.browser->close();
        runtime.browser->deleteLater();
    }
    for (const QPointer<QLocalSocket> &keeper : std::as_const(runtime.keepers)) {
        if (keeper) {
            keeper->disconnect(this);
            keeper->abort();
        }
    }
}

void SessionHost::noteFailure(const QString &leaseId, const Result<BrowserObservation> &result)
{
    // A browser that failed (or an act whose outcome is unknown): its state is not sealed.
    if (!result && (result.error().is(ReasonCode::ProviderUnavailable) ||
                    result.error().is(ReasonCode::OutcomeUnknown))) {
        if (const auto it = m_runtimes.find(leaseId); it != m_runtimes.end())
            it->failed = true;
    }
}

void SessionHost::sweepExpired()
{
    for (const LeaseRegistry::Lease &lease : m_leases.takeEnded())
        endRuntime(lease.id);
}

void SessionHost::endProfile(const QUuid &profileId)
{
    for (const LeaseRegistry::Lease &lease : m_leases.closeProfile(profileId))
        endRuntime(lease.id);
}

void SessionHost::endAll()
{
    const QStringList ids = m_runtimes.keys();
    for (const QString &id : ids)
        endRuntime(id);
}

QList<HttpRoute> SessionHost::routes()
{
    QList<HttpRoute> routes;
    using Handler = void (SessionHost::*)(const SessionApi::Call &, HttpRoute::Reply);
    const auto route = [this, &routes](SessionApi::Operation operation, Handler handle) {
        HttpRoute entry;
        entry.method = "POST";
        entry.pattern = QRegularExpression(
            QRegularExpression::escape(QString::fromLatin1(SessionApi::path(operation))));
        entry.maxBody = SessionApi::kMaxBody;
        entry.handleAsync = [this, operation, handle](const HttpRequest &request,
                                                      HttpRoute::Reply reply) {
            const auto parsed = SessionApi::parse(operation, request.body, m_overrides);
            if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
                reply(*refused);
                return;
            }
            sweepExpired();
            (this->*handle)(std::get<SessionApi::Call>(parsed), std::move(reply));
        };
        routes.append(entry);
    };
    route(SessionApi::Operation::Acquire, &SessionHost::acquire);
    route(SessionApi::Operation::Renew, &SessionHost::renew);
    route(SessionApi::Operation::Navigate, &SessionHost::browse);
    route(SessionApi::Operation::Observe, &SessionHost::browse);
    route(SessionApi::Operation::Act, &SessionHost::act);
    route(SessionApi::Operation::Dispatch, &SessionHost::dispatch);
    route(SessionApi::Operation::Close, &SessionHost::close);
    routes.append(liveViewRoute());
    return routes;
}

// :acquire: a lease of the profile, and its browser started from the sealed state.
void SessionHost::acquire(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    const Result<QStringList> origins = originsFor(call.holder);
    if (!origins) {
        reply(hostResult(origins.error()));
        return;
    }
    const Result<LeaseRegistry::Acquired> acquired = m_leases.acquire(call.holder, call.deadline);
    if (!acquired) {
        reply(hostResult(acquired.error()));
        return;
    }
    if (acquired->reattached) {
        reply({200, SessionApi::acquiredBody(acquired->reference, acquired->lease, true)});
        return;
    }
    QList<Origin> allowed;
    for (const QString &text : *origins) {
        const Result<Origin> origin = Origin::parse(text, m_overrides);
        if (origin)
            allowed.append(*origin);
    }
    const Result<OriginPolicy> policy = OriginPolicy::create(allowed);
    // The sealed state, scoped to the sealed origins again, goes in before anything loads.
    const VaultControlPlane *vault = m_vault();
    const Result<SecretBytes> material =
        vault ? vault->sessionMaterial(call.holder.profileId.toString(QUuid::WithoutBraces),
                                       call.holder.tenant, call.holder.principal,
                                       call.holder.providerReference)
              : Result<SecretBytes>(ReasonCode::ProviderUnavailable);
    const Result<SessionState> state = material ? SessionState::fromMaterial(*material, m_overrides)
                                                : Result<SessionState>(material.error());
    if (!policy || allowed.size() != origins->size() || !state) {
        (void)m_leases.closeId(acquired->lease.id);
        reply(hostResult(Error::fromReason(ReasonCode::ProfileUnavailable)));
        return;
    }
    IsolatedBrowserProvider::Options options;
    options.engine = m_engine;
    // The site check waits for the protected page's network to be idle.
    options.observeNetwork = m_sites.forProfile(call.holder.profileId) != nullptr;
    auto *browser = new IsolatedBrowserProvider(*policy, m_overrides, options, this);
    const QString id = acquired->lease.id;
    // An act's gate is the client's, asked over :act and answered by :dispatch, since the
    // client's effect ledger records dispatch_started.
    browser->setDispatchGate(
        [this, id](const ActRequest &, GateAnswer answer) {
            const auto pending = m_acts.find(id);
            if (pending == m_acts.end() || !pending->actReply) {
                answer(false);
                return;
            }
            // A client that does not come back in time: the gate closes, nothing is sent.
            pending->gateTicket =
                pending->gate.ask(this, GateQuestion::kServiceWaitMs, std::move(answer));
            std::exchange(pending->actReply, nullptr)({200, SessionApi::gateBody(pending->token)});
        },
        this);
    m_runtimes.insert(id, Runtime{id, browser, {}, allowed, false, {}, false});
    browser->restoreState(
        state->scopedTo(allowed, QDateTime::currentDateTimeUtc()),
        [this, id, reference = acquired->reference, lease = acquired->lease,
         reply](Result<Unit> restored) {
            if (!restored || !m_runtimes.contains(id)) {
                endRuntime(id);
                reply(hostResult(Error::fromReason(ReasonCode::ProviderUnavailable)));
                return;
            }
            const auto publish = [this, id, reference, lease, reply] {
                reply({200, SessionApi::acquiredBody(reference, lease, false)});
                // A holder that never connects its keeper (it died right after acquiring)
                // does not keep the profile for the lease's whole deadline.
                QTimer::singleShot(2 * kKeeperGraceMs, this, [this, id] {
                    const auto it = m_runtimes.constFind(id);
                    if (it != m_runtimes.constEnd() && it->keepers.isEmpty())
                        endRuntime(id);
                });
            };
            const SiteDefinition *site = m_sites.forProfile(lease.holder.profileId);
            if (!site) {
                publish();
                return;
            }
            // The sealed session must still be the intended account's before anyone uses it.
            checkSite(id, *site, lease.expiresAt,
                      [this, id, reply, publish](std::optional<Error> refused) {
                          if (!m_runtimes.contains(id)) {
                              reply(hostResult(Error::fromReason(ReasonCode::ProviderUnavailable)));
                              return;
                          }
                          if (refused) {
                              endRuntime(id);
                              reply(hostResult(*refused));
                              return;
                          }
                          publish();
                      });
        });
}

void SessionHost::checkSite(const QString &id, const SiteDefinition &site,
                            const QDateTime &expiresAt,
                            std::function<void(std::optional<Error>)> done)
{
    const auto runtime = m_runtimes.constFind(id);
    if (runtime == m_runtimes.constEnd() || !runtime->browser) {
        done(Error::fromReason(ReasonCode::ProviderUnavailable));
        return;
    }
    QPointer<BrowserProvider> browser = runtime->browser;
    // One answer: the reading, a failure, or the bound.
    auto once = std::make_shared<std::function<void(std::optional<Error>)>>(std::move(done));
    auto answer = [once](std::optional<Error> outcome) {
        if (*once)
            std::exchange(*once, nullptr)(std::move(outcome));
    };
    const qint64 leaseLeftMs = QDateTime::currentDateTimeUtc().msecsTo(expiresAt);
    const int boundMs = int(std::clamp<qint64>(leaseLeftMs, 1, kSiteCheckMs));
    auto *bound = new QTimer(this);
    bound->setSingleShot(true);
    connect(bound, &QTimer::timeout, this, [answer, bound] {
        bound->deleteLater();
        answer(Error::fromReason(ReasonCode::ProviderUnavailable));
    });
    bound->start(boundMs);
    const auto finished = [answer, bound](std::optional<Error> outcome) {
        bound->stop();
        bound->deleteLater();
        answer(std::move(outcome));
    };
    DeviceVerification::readProtectedPage(
        *browser, site, m_overrides, [finished](Result<SiteReading> reading) {
            if (!reading) {
                finished(Error::fromReason(ReasonCode::ProviderUnavailable));
                return;
            }
            switch (reading->verdict) {
            case SiteReading::Verdict::Verified:
                finished(std::nullopt);
                return;
            case SiteReading::Verdict::WrongAccount:
                finished(Error::fromReason(ReasonCode::AccountMismatch));
                return;
            case SiteReading::Verdict::NotReady:
                finished(Error::fromReason(ReasonCode::AuthenticationRequired));
                return;
            }
        });
}

// :renew: the lease lives on to the new deadline.
void SessionHost::renew(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    const Result<LeaseRegistry::Lease> renewed =
        m_leases.renew(call.leaseReference, call.holder, call.deadline);
    reply(renewed ? HttpResponse{200, SessionApi::renewedBody(*renewed)}
                  : hostResult(renewed.error()));
}

std::optional<LeaseRegistry::Lease> SessionHost::fencedLease(const SessionApi::Call &call,
                                                             const HttpRoute::Reply &reply)
{
    const Result<LeaseRegistry::Lease> lease = m_leases.validate(call.leaseReference, call.holder);
    if (!lease) {
        reply(hostResult(lease.error()));
        return std::nullopt;
    }
    // The fence and the scope again, before anything reaches the browser.
    if (const Result<QStringList> origins = originsFor(call.holder); !origins) {
        endRuntime(lease->id);
        reply(hostResult(origins.error()));
        return std::nullopt;
    }
    return *lease;
}

// :navigate and :observe, on the lease's browser.
void SessionHost::browse(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    const std::optional<LeaseRegistry::Lease> lease = fencedLease(call, reply);
    if (!lease)
        return;
    const auto runtime = m_runtimes.constFind(lease->id);
    if (runtime == m_runtimes.constEnd() || !runtime->browser) {
        reply(hostResult(Error::fromReason(ReasonCode::ProfileUnavailable)));
        return;
    }
    QPointer<BrowserProvider> browser = runtime->browser;
    auto answer = [this, id = lease->id, browser, reply](Result<BrowserObservation> result) {
        noteFailure(id, result);
        reply(hostResult(result, browser));
    };
    if (call.operation == SessionApi::Operation::Navigate) {
        // A lease's navigation is an agent's: unless an approval stands behind it, the browser
        // judges every document it loads.
        NavigateRequest navigation{call.url};
        navigation.guarded = !call.approved;
        navigation.discardUnsaved = call.discardUnsaved;
        browser->navigate(navigation, std::move(answer));
    } else {
        browser->observe(*call.observe, std::move(answer));
    }
}

// :act: the act runs until it ends or reaches its dispatch gate, whose token :act answers.
void SessionHost::act(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    const std::optional<LeaseRegistry::Lease> lease = fencedLease(call, reply);
    if (!lease)
        return;
    const auto runtime = m_runtimes.constFind(lease->id);
    if (runtime == m_runtimes.constEnd() || !runtime->browser || m_acts.contains(lease->id)) {
        reply(hostResult(Error::fromReason(ReasonCode::ProviderUnavailable)));
        return;
    }
    // Sequence-bound: an act the lease already saw is never run again.
    if (!m_leases.advance(call.leaseReference, call.holder, call.sequence)) {
        reply(hostResult(Error::fromReason(ReasonCode::ProfileUnavailable)));
        return;
    }
    const QString id = lease->id;
    m_acts.insert(id, PendingAct{randomToken(16).toLatin1(), reply, {}, 0, nullptr});
    QPointer<BrowserProvider> browser = runtime->browser;
    auto acted = [this, id, browser](Result<BrowserObservation> result) {
        const auto pending = m_acts.find(id);
        if (pending == m_acts.end())
            return;
        PendingAct act = std::move(*pending);
        m_acts.erase(pending);
        noteFailure(id, result);
        // Ended before its gate (nothing sent): :act answers; else :dispatch does.
        const HttpResponse answer = hostResult(result, browser);
        if (act.actReply)
            act.actReply(answer);
        else if (act.dispatchReply)
            act.dispatchReply(answer);
    };
    if (call.constraint)
        browser->actUnderConstraint(*call.act, *call.constraint, std::move(acted));
    else
        browser->act(*call.act, std::move(acted));
}

// :dispatch: the client's answer to the act's gate; then the act's end.
void SessionHost::dispatch(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    const Result<LeaseRegistry::Lease> lease = m_leases.validate(call.leaseReference, call.holder);
    const auto pending = lease ? m_acts.find(lease->id) : m_acts.end();
    if (!lease || pending == m_acts.end() || !pending->gate.pending() ||
        pending->token.size() != call.gate.size() ||
        CRYPTO_memcmp(pending->token.constData(), call.gate.constData(),
                      size_t(call.gate.size())) != 0) {
        reply(
            hostResult(lease ? Error::fromReason(ReasonCode::ProviderUnavailable) : lease.error()));
        return;
    }
    pending->dispatchReply = reply;
    GateQuestion gate = pending->gate; // answering may end the act
    (void)gate.answer(pending->gateTicket, call.open);
}

// :close: idempotent; a healthy lease seals its browser's state back first.
void SessionHost::close(const SessionApi::Call &call, HttpRoute::Reply reply)
{
    // Closing is idempotent: a lease already gone is closed.
    const auto closed = m_leases.close(call.leaseReference, call.holder);
    if (!closed) {
        reply({204, {}});
        return;
    }
    const auto runtime = m_runtimes.constFind(closed->id);
    if (runtime == m_runtimes.constEnd() || !runtime->browser || runtime->failed) {
        endRuntime(closed->id); // a failed lease closes without sealing
        reply({204, {}});
        return;
    }
    // A healthy close seals the browser's state back before the profile is free again.
    const LeaseRegistry::Holder holder = call.holder;
    const QString id = closed->id;
    runtime->browser->exportState(runtime->origins, [this, holder, id,
                                                     reply](Result<SessionState> state) {
        VaultControlPlane *vault = m_vault();
        // Over any bound, or unreadable: nothing is sealed; the previous material stays.
        if (state && state->withinBounds() && vault) {
            const Result<Unit> sealed =
                vault->sealSession(holder.profileId.toString(QUuid::WithoutBraces), holder.tenant,
                                   holder.principal, holder.providerReference, state->toMaterial());
            if (!sealed)
                QTextStream(stderr)
                    << "veetbot-profile-service: a session was not sealed: " << sealed.error().code
                    << '\n';
        }
        endRuntime(id);
        reply({204, {}});
    });
}

HttpRoute SessionHost::liveViewRoute()
{
    HttpRoute route;
    route.method = "POST";
    route.pattern = LiveViewApi::pattern();
    route.maxBody = LiveViewApi::kMaxBody;
    route.handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        const auto owner = LiveViewApi::parse(request.body);
        if (const auto *refused = std::get_if<HttpResponse>(&owner)) {
            reply(*refused);
            return;
        }
        sweepExpired();
        const ProfileScope &scope = std::get<ProfileScope>(owner);
        const std::optional<LeaseRegistry::Lease> lease =
            m_leases.leaseOfRun(scope.tenant, scope.principal, request.parameters.value(0));
        const auto runtime = lease ? m_runtimes.find(lease->id) : m_runtimes.end();
        if (runtime == m_runtimes.end() || !runtime->browser) {
            reply(LiveViewApi::notRunning());
            return;
        }
        // The vault's word first, as for every operation on a lease's browser.
        if (const Result<QStringList> origins = originsFor(lease->holder); !origins) {
            endRuntime(lease->id);
            reply(LiveViewApi::notRunning());
            return;
        }
        if (runtime->frameInFlight || (runtime->lastFrame.isValid() &&
                                       !runtime->lastFrame.hasExpired(LiveFrame::kMinIntervalMs))) {
            reply(LiveViewApi::tooSoon());
            return;
        }
        runtime->lastFrame.start();
        runtime->frameInFlight = true;
        runtime->browser->captureFrame([this, id = lease->id, reply](Result<LiveFrame> frame) {
            if (const auto it = m_runtimes.find(id); it != m_runtimes.end())
                it->frameInFlight = false;
            reply(frame ? LiveViewApi::frameBody(*frame)
                        : HttpError::response(409,
                                              Error::fromReason(ReasonCode::ProviderUnavailable)));
        });
    };
    return route;
}

} // namespace veetbot
