#pragma once

#include "domain/profile/SessionState.h"
#include "domain/signin/AuthenticationCeremony.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProfileRepository.h"
#include "service/api/CeremonyApi.h"
#include "service/api/CeremonyRecord.h"
#include "service/client/ServiceClient.h"

#include <QUrl>

namespace veetbot {

// An orchestration program's side of a sign-in ceremony (docs/signin.md), on the owner's
// device or in the service's own browser (remote). It records the ceremony in the profile
// repository and talks to the profile service; it never holds a key and keeps no launch
// capability: the capability lives only in the launch path `begin` returns, for the one
// hand-off or the owner's remote view.
//  - begin validates the login address against the profile's exact origins (a bare name
//    and its www name differ), then begins under the profile's lock with the service's
//    launch inside the same unit of work. A begin that meets an open ceremony (whose answer
//    was lost) is recovered once: the newest open one is cancelled and the begin repeated.
//  - refresh reads the service's outcome and records it; ready moves the profile to READY.
//  - signIn is the whole headless flow: begin, hand off once, refresh; a sign-in that does
//    not end ready cancels its ceremony, so the next attempt can begin at once.
class DeviceSignIn
{
public:
    DeviceSignIn(BrowserProfileRepository &repository, const ServiceClient &client,
                 ProfileScope scope, TestOverrides overrides);

    struct Begun
    {
        AuthenticationCeremony ceremony;
        QString launchPath; // secret: the capability is its fragment
    };
    Result<Begun> begin(const QUuid &profileId, const QUrl &loginUrl,
                        ServiceCeremony::Mode mode = ServiceCeremony::Mode::Device);
    Result<CeremonyFinished> refresh(const QString &ceremonyId);
    Result<CeremonyFinished> cancel(const QString &ceremonyId);
    // The signed-in profile, or the hand-off's fixed error (invalid_request, session_empty,
    // session_signed_out, session_unconfirmed, tool.browser.provider_unavailable,
    // tool.browser.profile_unavailable) or the begin's.
    Result<BrowserProfile> signIn(const QUuid &profileId, const QUrl &confirmedUrl,
                                  const SessionState &state);

private:
    Result<Begun> beginOnce(const BrowserProfile &profile, const QUrl &loginUrl,
                            ServiceCeremony::Mode mode);
    ServiceCeremony::Owner ownerOf(const BrowserProfile &profile) const;
    // The ceremony as stored (an outcome the service reached in time may still be recorded
    // after its expiry) and its profile.
    Result<CeremonyFinished> recorded(const QString &ceremonyId) const;
    // One ceremony route of the service for the profile's owner.
    Result<HttpResponse> ask(CeremonyApi::Operation operation, const BrowserProfile &profile,
                             const QString &ceremonyId) const;

    BrowserProfileRepository &m_repository;
    const ServiceClient &m_client;
    ProfileScope m_scope;
    TestOverrides m_overrides;
};

} // namespace veetbot
