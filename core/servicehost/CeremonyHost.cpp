#include "CeremonyHost.h"

#include "DeviceVerification.h"
#include "SessionHost.h"
#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "service/api/CeremonyApi.h"
#include "vault/VaultControlPlane.h"

namespace veetbot {

namespace {

HttpResponse profileUnavailable()
{
    return CeremonyApi::handoffAnswer(reasonCodeString(ReasonCode::ProfileUnavailable));
}

} // namespace

CeremonyHost::CeremonyHost(VaultAccess vault, SessionHost *sessions, TestOverrides overrides,
                           QObject *parent)
    : QObject(parent), m_vault(std::move(vault)), m_sessions(sessions),
      m_overrides(std::move(overrides)), m_ceremonies([clock = m_overrides] { return clock.now(); })
{
}

void CeremonyHost::endProfile(const QUuid &profileId)
{
    m_ceremonies.cancelProfile(profileId);
    if (const QPointer<DeviceVerification> running = m_verifications.take(profileId))
        running->abort();
}

Result<QStringList> CeremonyHost::originsFor(const CeremonyRegistry::Owner &owner) const
{
    VaultControlPlane *vault = m_vault();
    if (!vault)
        return Error::fromReason(ReasonCode::ProviderUnavailable);
    return vault->sessionOrigins(owner.profileId.toString(QUuid::WithoutBraces), owner.tenant,
                                 owner.principal, owner.providerReference);
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

    route(CeremonyApi::Operation::Begin, [this](const CeremonyApi::Call &call) {
        const Result<QStringList> origins = originsFor(call.owner);
        if (!origins)
            return profileUnavailable();
        const Result<Origin> login = Origin::ofUrl(call.loginUrl, m_overrides);
        if (!login || !origins->contains(login->toString()))
            return HttpError::response(400, CeremonyApi::loginUrlMismatch());
        const Result<CeremonyRegistry::Begun> begun = m_ceremonies.begin(call.owner, *origins);
        if (!begun)
            return HttpError::response(409, begun.error());
        return HttpResponse{201, CeremonyApi::begunBody(*begun)};
    });
    route(CeremonyApi::Operation::Status, [this](const CeremonyApi::Call &call) {
        const Result<CeremonyRegistry::Ceremony> ceremony =
            m_ceremonies.status(call.ceremonyId, call.owner);
        return ceremony ? HttpResponse{200, CeremonyApi::statusBody(*ceremony)}
                        : HttpError::response(404, ceremony.error());
    });
    route(CeremonyApi::Operation::Cancel, [this](const CeremonyApi::Call &call) {
        if (call.ceremonyId.isEmpty()) {
            m_ceremonies.cancelOwner(call.owner);
            return HttpResponse{204, {}};
        }
        const Result<CeremonyRegistry::Ceremony> ceremony =
            m_ceremonies.cancel(call.ceremonyId, call.owner);
        return ceremony ? HttpResponse{200, CeremonyApi::statusBody(*ceremony)}
                        : HttpError::response(404, ceremony.error());
    });

    HttpRoute handoffRoute;
    handoffRoute.method = "POST";
    handoffRoute.pattern = CeremonyApi::handoffPattern();
    handoffRoute.access = HttpRoute::Access::Capability;
    handoffRoute.maxBody = CeremonyApi::kMaxHandoffBody;
    handoffRoute.capabilityMatches = [this](const QStringList &parameters,
                                            QByteArrayView capability) {
        return m_ceremonies.matches(parameters.value(0), capability);
    };
    handoffRoute.handleAsync = [this](const HttpRequest &request, HttpRoute::Reply reply) {
        handoff(request, std::move(reply));
    };
    routes.append(handoffRoute);
    return routes;
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
        m_ceremonies.peek(id, request.capability);
    const Result<Origin> confirmed = Origin::ofUrl(handoff.confirmedUrl, m_overrides);
    if (open && (!confirmed || !open->origins.contains(confirmed->toString()))) {
        reply(CeremonyApi::invalidHandoff());
        return;
    }
    const std::optional<CeremonyRegistry::Ceremony> ceremony =
        m_ceremonies.claim(id, request.capability);
    if (!ceremony) {
        reply(HttpError::response(HttpError::Kind::Unauthorized)); // spent, or another's
        return;
    }
    const auto end = [this, id, reply](const QString &code) {
        m_ceremonies.finish(id,
                            code == QLatin1String(CeremonyApi::kReady)
                                ? CeremonyRegistry::State::Ready
                                : CeremonyRegistry::State::Failed,
                            code);
        reply(CeremonyApi::handoffAnswer(code));
    };
    const Result<QStringList> origins = originsFor(ceremony->owner);
    QList<Origin> allowed;
    for (const QString &text : origins ? *origins : QStringList()) {
        if (const Result<Origin> origin = Origin::parse(text, m_overrides))
            allowed.append(*origin);
    }
    const Result<OriginPolicy> policy = OriginPolicy::create(allowed);
    if (!origins || !policy) {
        end(reasonCodeString(ReasonCode::ProfileUnavailable));
        return;
    }
    // Still one of the profile's origins now (the vault's word).
    if (!confirmed || !policy->contains(*confirmed)) {
        end(reasonCodeString(ReasonCode::ProfileUnavailable));
        return;
    }
    const SessionState filtered = handoff.state.scopedTo(allowed, m_overrides.now());
    if (filtered.isEmpty()) {
        end(QString::fromLatin1(CeremonyApi::kSessionEmpty));
        return;
    }
    // Two browsers against the service's limit, decided before either starts; a hand-off
    // that finds no room has still spent its capability.
    if (!m_sessions->reserveBrowsers(2)) {
        end(reasonCodeString(ReasonCode::ProviderUnavailable));
        return;
    }
    auto *verification = new DeviceVerification(*policy, m_overrides, m_engine, this);
    m_verifications.insert(ceremony->owner.profileId, verification);
    verification->start(filtered, handoff.confirmedUrl,
                        [this, id, owner = ceremony->owner, end,
                         verification](DeviceVerification::Outcome outcome) {
                            m_sessions->releaseBrowsers(2);
                            if (m_verifications.value(owner.profileId) == verification)
                                m_verifications.remove(owner.profileId);
                            verification->deleteLater();
                            if (outcome.code != QLatin1String(CeremonyApi::kReady)) {
                                end(outcome.code);
                                return;
                            }
                            // Sealed only while the ceremony is live and the profile unrevoked.
                            VaultControlPlane *vault = m_vault();
                            if (!m_ceremonies.isVerifying(id) || !vault) {
                                end(reasonCodeString(ReasonCode::ProfileUnavailable));
                                return;
                            }
                            const Result<Unit> sealed = vault->sealSession(
                                owner.profileId.toString(QUuid::WithoutBraces), owner.tenant,
                                owner.principal, owner.providerReference,
                                outcome.state->toMaterial());
                            end(sealed ? QString::fromLatin1(CeremonyApi::kReady)
                                       : reasonCodeString(ReasonCode::ProfileUnavailable));
                        });
}

} // namespace veetbot
