#include "DeviceSignIn.h"

#include "domain/web/Origin.h"
#include "service/api/CeremonyApi.h"

namespace veetbot {

DeviceSignIn::DeviceSignIn(BrowserProfileRepository &repository, const ServiceClient &client,
                           ProfileScope scope, TestOverrides overrides)
    : m_repository(repository), m_client(client), m_scope(std::move(scope)),
      m_overrides(std::move(overrides))
{
}

ServiceCeremony::Owner DeviceSignIn::ownerOf(const BrowserProfile &profile) const
{
    return {profile.id, profile.tenant, profile.principal,
            profile.providerReference.value_or(QString())};
}

Result<DeviceSignIn::Begun> DeviceSignIn::begin(const QUuid &profileId, const QUrl &loginUrl,
                                                ServiceCeremony::Mode mode)
{
    const Result<BrowserProfile> profile = m_repository.get(m_scope, profileId);
    if (!profile)
        return profile.error();
    // Scope and ownership first; then the address, before anything is launched.
    const Result<Origin> login = Origin::ofUrl(loginUrl, m_overrides);
    if (!login || !profile->allowedOrigins.contains(*login))
        return CeremonyApi::loginUrlMismatch();
    Result<Begun> begun = beginOnce(*profile, loginUrl, mode);
    if (begun || !isProfileFailure(begun.error(), ProfileFailure::CeremonyConflict))
        return begun;
    // An open ceremony: most likely a begin whose answer was lost. Recovered once: the
    // newest open one the record knows is cancelled; one only the service knows (the record
    // of its begin rolled back) is cancelled there.
    const Result<std::optional<AuthenticationCeremony>> open =
        m_repository.newestOpenCeremony(m_scope, profileId);
    if (!open)
        return open.error();
    if (*open) {
        if (const Result<CeremonyFinished> cancelled = cancel((*open)->id); !cancelled)
            return cancelled.error();
    } else {
        const Result<HttpResponse> answer = ask(CeremonyApi::Operation::Cancel, *profile, {});
        if (!answer || answer->status != 204)
            return begun;
    }
    const Result<BrowserProfile> current = m_repository.get(m_scope, profileId);
    if (!current)
        return current.error();
    return beginOnce(*current, loginUrl, mode);
}

Result<DeviceSignIn::Begun> DeviceSignIn::beginOnce(const BrowserProfile &profile,
                                                    const QUrl &loginUrl,
                                                    ServiceCeremony::Mode mode)
{
    QString launchPath;
    const Result<CeremonyBegun> begun = m_repository.beginCeremony(
        m_scope, profile.id, profile.generation, ServiceCeremony::modeName(mode),
        [&](const BrowserProfile &locked) -> Result<CeremonyLaunchRecord> {
            CeremonyApi::Call call;
            call.operation = CeremonyApi::Operation::Begin;
            call.owner = ownerOf(locked);
            call.loginUrl = loginUrl;
            call.mode = mode;
            // A remote begin answers once the service's browser has loaded the address.
            const Result<HttpResponse> answer =
                m_client.post(CeremonyApi::path(call.operation), CeremonyApi::requestBody(call), {},
                              mode == ServiceCeremony::Mode::Remote
                                  ? std::optional<int>(CeremonyApi::kRemoteBeginWaitMs)
                                  : std::nullopt);
            if (!answer)
                return answer.error();
            if (answer->status != 201)
                return answer->status == 409 && ServiceClient::errorOf(*answer).code ==
                                                    QLatin1String("ceremony.open")
                           ? profileError(ProfileFailure::CeremonyConflict)
                           : ServiceClient::errorOf(*answer);
            const std::optional<CeremonyApi::Launch> launch = CeremonyApi::parseBegun(answer->body);
            if (!launch)
                return ServiceClient::failed();
            launchPath = launch->launchPath;
            return CeremonyLaunchRecord{launch->ceremonyId, launch->expiresAt};
        });
    if (!begun)
        return begun.error();
    return Begun{begun->ceremony, launchPath};
}

Result<CeremonyFinished> DeviceSignIn::recorded(const QString &ceremonyId) const
{
    const Result<AuthenticationCeremony> record = m_repository.ceremony(m_scope, ceremonyId);
    if (!record)
        return record.error();
    const Result<BrowserProfile> profile = m_repository.get(m_scope, record->profileId);
    if (!profile)
        return profile.error();
    return CeremonyFinished{*record, *profile};
}

Result<HttpResponse> DeviceSignIn::ask(CeremonyApi::Operation operation,
                                       const BrowserProfile &profile,
                                       const QString &ceremonyId) const
{
    CeremonyApi::Call call;
    call.operation = operation;
    call.owner = ownerOf(profile);
    call.ceremonyId = ceremonyId;
    return m_client.post(CeremonyApi::path(operation), CeremonyApi::requestBody(call), {});
}

Result<CeremonyFinished> DeviceSignIn::refresh(const QString &ceremonyId)
{
    const Result<CeremonyFinished> current = recorded(ceremonyId);
    if (!current || isTerminalCeremonyStatus(current->ceremony.status))
        return current;
    const Result<HttpResponse> answer =
        ask(CeremonyApi::Operation::Status, current->profile, ceremonyId);
    if (!answer)
        return answer.error();
    if (answer->status == 404) {
        // The service no longer knows it (it restarted): the ceremony can only expire.
        return m_repository.finishCeremony(m_scope, ceremonyId, CeremonyStatus::Expired, {}, {});
    }
    const std::optional<CeremonyApi::Status> status =
        answer->status == 200 ? CeremonyApi::parseStatus(answer->body) : std::nullopt;
    if (!status)
        return ServiceClient::failed();
    // The service's terminal states are the record's ("verifying" is still open here).
    const std::optional<CeremonyStatus> outcome = ceremonyStatusFromString(status->status);
    if (!outcome || !isTerminalCeremonyStatus(*outcome))
        return CeremonyFinished{current->ceremony.asOf(m_overrides.now()), current->profile};
    if (*outcome == CeremonyStatus::Failed && !ceremonyFailureCodeFromString(status->code))
        return ServiceClient::failed();
    // The account a site definition confirmed comes only with ready (parseStatus); the record
    // checks it is a label.
    return m_repository.finishCeremony(
        m_scope, ceremonyId, *outcome,
        *outcome == CeremonyStatus::Failed ? status->code : QString(),
        *outcome == CeremonyStatus::Ready ? status->account : std::nullopt);
}

Result<CeremonyFinished> DeviceSignIn::cancel(const QString &ceremonyId)
{
    const Result<CeremonyFinished> current = recorded(ceremonyId);
    if (!current || isTerminalCeremonyStatus(current->ceremony.status))
        return current;
    const Result<HttpResponse> answer =
        ask(CeremonyApi::Operation::Cancel, current->profile, ceremonyId);
    if (!answer)
        return answer.error();
    // A ceremony that ended first keeps that outcome: the next read records it.
    if (answer->status == 200) {
        const std::optional<CeremonyApi::Status> status = CeremonyApi::parseStatus(answer->body);
        if (status && status->status != QLatin1String("cancelled"))
            return refresh(ceremonyId);
    }
    return m_repository.finishCeremony(m_scope, ceremonyId, CeremonyStatus::Cancelled, {}, {});
}

Result<BrowserProfile> DeviceSignIn::signIn(const QUuid &profileId, const QUrl &confirmedUrl,
                                            const SessionState &state)
{
    // The login address of a device sign-in is the root of the confirmed page's origin.
    const Result<Origin> origin = Origin::ofUrl(confirmedUrl, m_overrides);
    if (!origin)
        return CeremonyApi::loginUrlMismatch();
    const Result<Begun> begun = begin(profileId, QUrl(origin->toString() + QLatin1Char('/')));
    if (!begun)
        return begun.error();
    const Result<HttpResponse> answer = ServiceClient::handOff(
        m_client.socketPath(), begun->launchPath, CeremonyApi::handoffBody(confirmedUrl, state));
    const Result<CeremonyFinished> finished = refresh(begun->ceremony.id);
    if (answer && answer->status == 200 && finished &&
        finished->ceremony.status == CeremonyStatus::Ready)
        return finished->profile;
    // Not ready: the ceremony ends now, so the next attempt can begin at once.
    (void)cancel(begun->ceremony.id);
    if (!answer)
        return answer.error();
    if (answer->status != 200)
        return ServiceClient::errorOf(*answer);
    return finished ? Result<BrowserProfile>(ServiceClient::failed()) : finished.error();
}

} // namespace veetbot
