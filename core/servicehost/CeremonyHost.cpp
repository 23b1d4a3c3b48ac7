#include "CeremonyHost.h"

#include "DeviceVerification.h"
#include "RemoteCeremony.h"
#include "SessionHost.h"
#include "domain/web/Origin.h"
#include "service/api/CeremonyApi.h"
#include "vault/VaultControlPlane.h"
#include "json/StrictJson.h"

namespace veetbot {

namespace {

HttpResponse profileUnavailable()
{
    return CeremonyApi::handoffAnswer(reasonCodeString(ReasonCode::ProfileUnavailable));
}

HttpResponse providerUnavailable()
{
    return CeremonyApi::handoffAnswer(reasonCodeString(ReasonCode::ProviderUnavailable));
}

HttpResponse notOpen()
{
    return HttpError::response(HttpError::Kind::Unauthorized);
}

} // namespace

CeremonyHost::CeremonyHost(VaultAccess vault, SessionHost *sessions, TestOverrides overrides,
                           QObject *parent)
    : QObject(parent), m_vault(std::move(vault)), m_sessions(sessions),
      m_overrides(std::move(overrides)), m_ceremonies([clock = m_overrides] { return clock.now(); })
{
    // Expired ceremonies close their browsers without waiting for a request.
    m_sweep.setInterval(kSweepMs);
    connect(&m_sweep, &QTimer::timeout, this, &CeremonyHost::reap);
    m_sweep.start();
}

// The remote ceremonies are children: each closes its browser as it goes. Their places are
// not released (the session host may be gone already, and the service ends with them).
CeremonyHost::~CeremonyHost() = default;

void CeremonyHost::endProfile(const QUuid &profileId)
{
    m_ceremonies.cancelProfile(profileId);
    reap();
    // A launch in progress ends too: its answer finds it gone and releases its place.
    if (const QPointer<RemoteCeremony> launching = m_launching.take(profileId))
        launching->close();
    if (const QPointer<DeviceVerification> running = m_verifications.take(profileId))
        running->abort();
}

void CeremonyHost::reap()
{
    for (const QString &id : m_remotes.keys()) {
        if (!m_ceremonies.isOpen(id))
            closeRemote(id);
    }
}

void CeremonyHost::closeRemote(const QString &id)
{
    const QPointer<RemoteCeremony> remote = m_remotes.take(id);
    if (!remote)
        return;
    remote->close();
    remote->deleteLater();
    m_sessions->releaseBrowsers(1);
}

Result<QStringList> CeremonyHost::originsFor(const CeremonyRegistry::Owner &owner) const
{
    VaultControlPlane *vault = m_vault();
    if (!vault)
        return Error::fromReason(ReasonCode::ProviderUnavailable);
    return vault->sessionOrigins(owner.profileId.toString(QUuid::WithoutBraces), owner.tenant,
                                 owner.principal, owner.providerReference);
}

Result<OriginPolicy> CeremonyHost::policyFor(const QStringList &origins) const
{
    QList<Origin> allowed;
    for (const QString &text : origins) {
        if (const Result<Origin> origin = Origin::parse(text, m_overrides))
            allowed.append(*origin);
    }
    return OriginPolicy::create(allowed);
}

QList<HttpRoute> CeremonyHost::routes()
{
    QList<HttpRoute> routes;
    const auto route = [this,
                        &routes](CeremonyApi::Operation operation,
                                 std::function<HttpResponse(const CeremonyApi::Call &)> handle) {
        HttpRoute entry;
        entry.method = "POST";
        entry.pattern = QRegularExpression(
            QRegularExpression::escape(QString::fromLatin1(CeremonyApi::path(operation))));
        entry.maxBody = CeremonyApi::kMaxBody;
        entry.handle = [this, operation, handle](const HttpRequest &request) {
            const auto parsed = CeremonyApi::parse(operation, request.body, m_overrides);
            if (const auto *refused = std::get_if<HttpResponse>(&parsed))
                return *refused;
            return handle(std::get<CeremonyApi::Call>(parsed));
        };
        routes.append(entry);
    };

    HttpRoute beginRoute;
    beginRoute.method = "POST";
    beginRoute.pattern = QRegularExpression(QRegularExpression::escape(
        QString::fromLatin1(CeremonyApi::path(CeremonyApi::Operation::Begin))));
    beginRoute.maxBody = CeremonyApi::kMaxBody;
    beginRoute.handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        begin(request, std::move(reply));
    };
    routes.append(beginRoute);
    route(CeremonyApi::Operation::Status, [this](const CeremonyApi::Call &call) {
        const Result<CeremonyRegistry::Ceremony> ceremony =
            m_ceremonies.status(call.ceremonyId, call.owner);
        reap(); // an expired remote ceremony's browser closes now
        return ceremony ? HttpResponse{200, CeremonyApi::statusBody(*ceremony)}
                        : HttpError::response(404, ceremony.error());
    });
    route(CeremonyApi::Operation::Cancel, [this](const CeremonyApi::Call &call) {
        if (call.ceremonyId.isEmpty()) {
            m_ceremonies.cancelOwner(call.owner);
            reap();
            return HttpResponse{204, {}};
        }
        const Result<CeremonyRegistry::Ceremony> ceremony =
            m_ceremonies.cancel(call.ceremonyId, call.owner);
        reap();
        return ceremony ? HttpResponse{200, CeremonyApi::statusBody(*ceremony)}
                        : HttpError::response(404, ceremony.error());
    });

    // The owner's side: each route on its ceremony's capability, of its mode only.
    const auto capabilityRoute = [this, &routes](QRegularExpression pattern,
                                                 CeremonyRegistry::Mode mode, qint64 maxBody) {
        HttpRoute entry;
        entry.method = "POST";
        entry.pattern = std::move(pattern);
        entry.access = HttpRoute::Access::Capability;
        entry.maxBody = maxBody;
        entry.capabilityMatches = [this, mode](const QStringList &parameters,
                                               QByteArrayView capability) {
            return m_ceremonies.matches(parameters.value(0), mode, capability);
        };
        routes.append(entry);
        return &routes.last();
    };
    capabilityRoute(CeremonyApi::handoffPattern(), CeremonyRegistry::Mode::Device,
                    CeremonyApi::kMaxHandoffBody)
        ->handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        handoff(request, std::move(reply));
    };
    using View = CeremonyApi::ViewOperation;
    capabilityRoute(CeremonyApi::viewPattern(View::Frame), CeremonyRegistry::Mode::Remote,
                    CeremonyApi::kMaxFrameRequest)
        ->handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        frame(request, std::move(reply));
    };
    capabilityRoute(CeremonyApi::viewPattern(View::Input), CeremonyRegistry::Mode::Remote,
                    CeremonyApi::kMaxInputBody)
        ->handle = [this](const HttpRequest &request) { return input(request); };
    capabilityRoute(CeremonyApi::viewPattern(View::Finish), CeremonyRegistry::Mode::Remote, 0)
        ->handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        finish(request, std::move(reply));
    };
    return routes;
}

void CeremonyHost::begin(const HttpRequest &request, HttpRoute::Reply reply)
{
    const auto parsed =
        CeremonyApi::parse(CeremonyApi::Operation::Begin, request.body, m_overrides);
    if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
        reply(*refused);
        return;
    }
    const CeremonyApi::Call &call = std::get<CeremonyApi::Call>(parsed);
    const Result<QStringList> origins = originsFor(call.owner);
    if (!origins) {
        reply(profileUnavailable());
        return;
    }
    const Result<Origin> login = Origin::ofUrl(call.loginUrl, m_overrides);
    if (!login || !origins->contains(login->toString())) {
        reply(HttpError::response(400, CeremonyApi::loginUrlMismatch()));
        return;
    }
    if (m_launching.contains(call.owner.profileId)) {
        reply(HttpError::response(409, CeremonyRegistry::alreadyOpen()));
        return;
    }
    if (call.mode == CeremonyRegistry::Mode::Remote) {
        beginRemote(call.owner, *origins, call.loginUrl, std::move(reply));
        return;
    }
    const Result<CeremonyRegistry::Begun> begun =
        m_ceremonies.begin(call.owner, *origins, CeremonyRegistry::Mode::Device);
    reply(begun ? HttpResponse{201, CeremonyApi::begunBody(*begun)}
                : HttpError::response(409, begun.error()));
}

void CeremonyHost::beginRemote(const CeremonyRegistry::Owner &owner, const QStringList &origins,
                               const QUrl &loginUrl, HttpRoute::Reply reply)
{
    // Only the Chromium placement offers the owner a view of its browser.
    if (m_engine != BrowserEngine::Chromium) {
        reply(providerUnavailable());
        return;
    }
    if (m_ceremonies.isLive(owner.profileId)) {
        reply(HttpError::response(409, CeremonyRegistry::alreadyOpen()));
        return;
    }
    const Result<OriginPolicy> policy = policyFor(origins);
    if (!policy) {
        reply(profileUnavailable());
        return;
    }
    // One browser against the service's limit, decided before it starts.
    if (!m_sessions->reserveBrowsers(1)) {
        reply(providerUnavailable());
        return;
    }
    QPointer<RemoteCeremony> remote = new RemoteCeremony(*policy, m_overrides, m_engine, this);
    m_launching.insert(owner.profileId, remote);
    remote->launch(loginUrl,
                   [this, remote, owner, origins, reply = std::move(reply)](Result<Unit> launched) {
                       const bool current = m_launching.value(owner.profileId) == remote;
                       if (current)
                           m_launching.remove(owner.profileId);
                       const auto discard = [this, remote] {
                           if (remote) {
                               remote->close();
                               remote->deleteLater();
                           }
                           m_sessions->releaseBrowsers(1);
                       };
                       if (!current) { // revoked or deleted meanwhile
                           discard();
                           reply(profileUnavailable());
                           return;
                       }
                       if (!launched) {
                           discard();
                           // The website's own redirect off the profile's origins is the owner's to
                           // fix.
                           reply(launched.error().is(ReasonCode::UrlDisallowed)
                                     ? HttpError::response(400, CeremonyApi::redirectedOffOrigins())
                                     : providerUnavailable());
                           return;
                       }
                       const Result<CeremonyRegistry::Begun> begun =
                           m_ceremonies.begin(owner, origins, CeremonyRegistry::Mode::Remote);
                       if (!begun) {
                           discard();
                           reply(HttpError::response(409, begun.error()));
                           return;
                       }
                       m_remotes.insert(begun->ceremony.id, remote);
                       reply(HttpResponse{201, CeremonyApi::begunBody(*begun)});
                   });
}

void CeremonyHost::frame(const HttpRequest &request, HttpRoute::Reply reply)
{
    const QString id = request.parameters.value(0);
    const std::optional<CeremonyApi::FrameRequest> asked =
        CeremonyApi::parseFrameRequest(request.body);
    if (!asked) {
        reply(HttpError::response(HttpError::Kind::MalformedRequest));
        return;
    }
    // Checked again here, on the Qt thread, before the page is touched.
    const QPointer<RemoteCeremony> remote = m_remotes.value(id);
    if (!remote || !m_ceremonies.matches(id, CeremonyRegistry::Mode::Remote, request.capability)) {
        reply(notOpen());
        return;
    }
    remote->nextFrame(*asked, [reply](std::optional<CeremonyApi::ViewFrame> frame) {
        reply(frame ? HttpResponse{200, CeremonyApi::viewFrameBody(*frame)}
                    : HttpResponse{204, {}});
    });
}

HttpResponse CeremonyHost::input(const HttpRequest &request)
{
    const QString id = request.parameters.value(0);
    StrictJson::Limits limits;
    limits.maxBytes = CeremonyApi::kMaxInputBody;
    limits.maxDepth = 2;
    limits.maxMembers = 16;
    limits.numbers = StrictJson::Numbers::Finite;
    const std::optional<QJsonValue> parsed = StrictJson::parse(request.body, limits);
    const std::optional<OwnerInput> input =
        parsed && parsed->isObject() ? OwnerInput::fromJson(parsed->toObject()) : std::nullopt;
    if (!input)
        return HttpError::response(HttpError::Kind::MalformedRequest);
    const QPointer<RemoteCeremony> remote = m_remotes.value(id);
    if (!remote || !m_ceremonies.matches(id, CeremonyRegistry::Mode::Remote, request.capability))
        return notOpen();
    return remote->input(*input) ? HttpResponse{204, {}} : providerUnavailable();
}

void CeremonyHost::finish(const HttpRequest &request, HttpRoute::Reply reply)
{
    const QString id = request.parameters.value(0);
    const std::optional<CeremonyRegistry::Ceremony> ceremony =
        m_ceremonies.claim(id, CeremonyRegistry::Mode::Remote, request.capability);
    const QPointer<RemoteCeremony> remote = m_remotes.take(id);
    if (!ceremony || !remote) {
        if (remote)
            m_remotes.insert(id, remote);
        if (ceremony) // claimed with no browser left: it cannot end otherwise
            ending(id, reply)(reasonCodeString(ReasonCode::ProviderUnavailable), {});
        else
            reply(notOpen());
        return;
    }
    remote->capture([this, id, owner = ceremony->owner, remote,
                     end = ending(id, reply)](Result<RemoteCeremony::Captured> captured) {
        // The ceremony's browser is closed now; its place is the verification's to take.
        if (remote)
            remote->deleteLater();
        m_sessions->releaseBrowsers(1);
        if (!captured) {
            const bool signedOut =
                captured.error().code == QLatin1String(CeremonyApi::kSignedOut) ||
                captured.error().is(ReasonCode::UrlDisallowed);
            end(signedOut ? QString::fromLatin1(CeremonyApi::kSignedOut)
                          : reasonCodeString(ReasonCode::ProviderUnavailable),
                {});
            return;
        }
        verify(id, owner, captured->state, captured->page, end);
    });
}

CeremonyHost::End CeremonyHost::ending(const QString &id, HttpRoute::Reply reply)
{
    return [this, id, reply = std::move(reply)](const QString &code, const QString &account) {
        m_ceremonies.finish(id,
                            code == QLatin1String(CeremonyApi::kReady)
                                ? CeremonyRegistry::State::Ready
                                : CeremonyRegistry::State::Failed,
                            code, account);
        reply(CeremonyApi::handoffAnswer(code));
    };
}

void CeremonyHost::handoff(const HttpRequest &request, HttpRoute::Reply reply)
{
    const QString id = request.parameters.value(0);
    // A malformed body is refused before the capability is spent: it stays usable.
    const auto parsed = CeremonyApi::parseHandoff(request.body, m_overrides);
    if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
        reply(*refused);
        return;
    }
    const CeremonyApi::Handoff &handoff = std::get<CeremonyApi::Handoff>(parsed);
    // The confirmed page must be on one of the profile's origins: another is a malformed
    // hand-off too.
    const std::optional<CeremonyRegistry::Ceremony> open =
        m_ceremonies.peek(id, CeremonyRegistry::Mode::Device, request.capability);
    const Result<Origin> confirmed = Origin::ofUrl(handoff.confirmedUrl, m_overrides);
    if (open && (!confirmed || !open->origins.contains(confirmed->toString()))) {
        reply(CeremonyApi::invalidHandoff());
        return;
    }
    const std::optional<CeremonyRegistry::Ceremony> ceremony =
        m_ceremonies.claim(id, CeremonyRegistry::Mode::Device, request.capability);
    if (!ceremony) {
        reply(notOpen()); // spent, or another's
        return;
    }
    verify(id, ceremony->owner, handoff.state, handoff.confirmedUrl, ending(id, std::move(reply)));
}

void CeremonyHost::verify(const QString &id, const CeremonyRegistry::Owner &owner,
                          const SessionState &state, const QUrl &confirmedUrl, const End &end)
{
    const Result<QStringList> origins = originsFor(owner);
    const Result<OriginPolicy> policy =
        origins ? policyFor(*origins) : Result<OriginPolicy>(origins.error());
    if (!origins || !policy) {
        end(reasonCodeString(ReasonCode::ProfileUnavailable), {});
        return;
    }
    // Still one of the profile's origins now (the vault's word).
    const Result<Origin> confirmed = Origin::ofUrl(confirmedUrl, m_overrides);
    if (!confirmed || !policy->contains(*confirmed)) {
        end(reasonCodeString(ReasonCode::ProfileUnavailable), {});
        return;
    }
    const SessionState filtered = state.scopedTo(policy->origins(), m_overrides.now());
    if (filtered.isEmpty()) {
        end(QString::fromLatin1(CeremonyApi::kSessionEmpty), {});
        return;
    }
    // Two browsers against the service's limit, decided before either starts; a hand-off
    // that finds no room has still spent its capability.
    if (!m_sessions->reserveBrowsers(2)) {
        end(reasonCodeString(ReasonCode::ProviderUnavailable), {});
        return;
    }
    auto *verification = new DeviceVerification(*policy, m_overrides, m_engine, this);
    if (const SiteDefinition *site = m_sites.forProfile(owner.profileId))
        verification->setSiteDefinition(*site);
    m_verifications.insert(owner.profileId, verification);
    verification->start(filtered, confirmedUrl,
                        [this, id, owner, end, verification](DeviceVerification::Outcome outcome) {
                            m_sessions->releaseBrowsers(2);
                            if (m_verifications.value(owner.profileId) == verification)
                                m_verifications.remove(owner.profileId);
                            verification->deleteLater();
                            if (outcome.code != QLatin1String(CeremonyApi::kReady)) {
                                end(outcome.code, {});
                                return;
                            }
                            // Sealed only while the ceremony is live and the profile unrevoked.
                            VaultControlPlane *vault = m_vault();
                            if (!m_ceremonies.isVerifying(id) || !vault) {
                                end(reasonCodeString(ReasonCode::ProfileUnavailable), {});
                                return;
                            }
                            const Result<Unit> sealed = vault->sealSession(
                                owner.profileId.toString(QUuid::WithoutBraces), owner.tenant,
                                owner.principal, owner.providerReference,
                                outcome.state->toMaterial());
                            if (sealed)
                                end(QString::fromLatin1(CeremonyApi::kReady), outcome.account);
                            else
                                end(reasonCodeString(ReasonCode::ProfileUnavailable), {});
                        });
}

} // namespace veetbot
