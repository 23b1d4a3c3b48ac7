#pragma once

#include "domain/profile/SessionState.h"
#include "domain/signin/SiteVerification.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "service/api/HttpApi.h"
#include "service/server/CeremonyRegistry.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUuid>

#include <functional>

namespace veetbot {

class RemoteCeremony;
class SessionHost;
class VaultControlPlane;

// The profile service's sign-in ceremonies (docs/signin.md): the ceremony routes an
// orchestration program uses (begin, status, cancel), and the routes the owner's side uses
// with the capability from the launch path.
//  - Device: the hand-off route the owner's client sends the site's session to once. A
//    hand-off is checked, filtered to the profile's origins (trusting nothing the client
//    filtered), and verified by DeviceVerification.
//  - Remote: the begin starts the service's own browser (RemoteCeremony, one against the
//    service's browser limit) on the login address and answers once it loaded; a redirect off
//    the profile's origins ends it with no ceremony. The owner's view takes frames and sends
//    input while the ceremony is open; its finish reads the browser's page and state, closes
//    it, and verifies them like a hand-off.
// Verification runs two fresh browsers that count as two against the limit, and on ready the
// verifying browser's own state is sealed. Cancel, expiry, revocation and deletion close a
// remote ceremony's browser and seal nothing. Nothing of a body, an input or a capability is
// logged or kept. On the Qt thread, but for the capability check before a body is read.
class CeremonyHost : public QObject
{
    Q_OBJECT
public:
    // How often ceremonies past their expiry close their browsers without waiting for a request.
    static constexpr int kSweepMs = 15000;

    using VaultAccess = std::function<VaultControlPlane *()>;
    CeremonyHost(VaultAccess vault, SessionHost *sessions, TestOverrides overrides,
                 QObject *parent = nullptr);
    ~CeremonyHost() override;
    // The engine of the ceremony and verification browsers (Chromium unless set). A remote
    // ceremony needs Chromium: with Qt WebEngine its begin is tool.browser.provider_unavailable.
    void setEngine(BrowserEngine engine) { m_engine = engine; }
    // The site verification definitions every sign-in of a profile with one is checked against
    // (docs/signin.md "Which account").
    void setSiteCatalog(SiteCatalog sites) { m_sites = std::move(sites); }

    QList<HttpRoute> routes();
    // Revocation and deletion: the profile's open ceremonies end cancelled, and their browsers
    // (a remote ceremony's, a verification's) close before this returns.
    void endProfile(const QUuid &profileId);

private:
    // The outcome's code, and on ready the masked account a site definition confirmed.
    using End = std::function<void(const QString &code, const QString &account)>;
    void begin(const HttpRequest &request, HttpRoute::Reply reply);
    void beginRemote(const CeremonyRegistry::Owner &owner, const QStringList &origins,
                     const QUrl &loginUrl, HttpRoute::Reply reply);
    void handoff(const HttpRequest &request, HttpRoute::Reply reply);
    void frame(const HttpRequest &request, HttpRoute::Reply reply);
    HttpResponse input(const HttpRequest &request);
    void finish(const HttpRequest &request, HttpRoute::Reply reply);
    // A claimed ceremony's state from `confirmedUrl`: filtered to the profile's origins as the
    // vault has them now, verified, and sealed on ready; `end` hears the outcome.
    void verify(const QString &id, const CeremonyRegistry::Owner &owner, const SessionState &state,
                const QUrl &confirmedUrl, const End &end);
    // The end of a claimed ceremony: its outcome recorded, `reply` told.
    End ending(const QString &id, HttpRoute::Reply reply);
    // The vault's word on the owner (scope, fence): its origins, or the refusal.
    Result<QStringList> originsFor(const CeremonyRegistry::Owner &owner) const;
    Result<OriginPolicy> policyFor(const QStringList &origins) const;
    // Closes the browser of every remote ceremony that is no longer open (cancelled, expired,
    // claimed elsewhere) and releases its place.
    void reap();
    void closeRemote(const QString &id);

    VaultAccess m_vault;
    SessionHost *m_sessions;
    TestOverrides m_overrides;
    BrowserEngine m_engine = BrowserEngine::Chromium;
    SiteCatalog m_sites;
    CeremonyRegistry m_ceremonies;
    QHash<QUuid, QPointer<class DeviceVerification>> m_verifications; // by profile
    QHash<QString, QPointer<RemoteCeremony>> m_remotes;               // by ceremony id
    QHash<QUuid, QPointer<RemoteCeremony>> m_launching;               // by profile
    QTimer m_sweep;
};

} // namespace veetbot
