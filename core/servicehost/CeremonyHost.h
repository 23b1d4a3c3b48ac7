#pragma once

#include "domain/web/BrowserEngine.h"
#include "domain/web/TestOverrides.h"
#include "service/api/HttpApi.h"
#include "service/server/CeremonyRegistry.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QUuid>

#include <functional>

namespace veetbot {

class SessionHost;
class VaultControlPlane;

// The profile service's device sign-in (docs/signin.md): the ceremony routes an
// orchestration program uses (begin, status, cancel) and the hand-off route the owner's
// client sends the site's session to once, with the capability from the launch path. A
// hand-off is checked, filtered to the profile's origins (trusting nothing the client
// filtered), verified by DeviceVerification in two fresh browsers that count as two against
// the service's browser limit, and on ready the verifying browser's own state is sealed.
// Nothing of a body or a capability is logged or kept. On the Qt thread, but for the
// capability check before a body is read.
class CeremonyHost : public QObject
{
    Q_OBJECT
public:
    using VaultAccess = std::function<VaultControlPlane *()>;
    CeremonyHost(VaultAccess vault, SessionHost *sessions, TestOverrides overrides,
                 QObject *parent = nullptr);
    // The engine of the verification browsers (Chromium unless set).
    void setEngine(BrowserEngine engine) { m_engine = engine; }

    QList<HttpRoute> routes();
    // Revocation and deletion: the profile's open ceremonies end cancelled, and a
    // verification in progress closes its browsers before this returns.
    void endProfile(const QUuid &profileId);

private:
    void handoff(const HttpRequest &request, HttpRoute::Reply reply);
    // The vault's word on the owner (scope, fence): its origins, or the refusal.
    Result<QStringList> originsFor(const CeremonyRegistry::Owner &owner) const;

    VaultAccess m_vault;
    SessionHost *m_sessions;
    TestOverrides m_overrides;
    BrowserEngine m_engine = BrowserEngine::Chromium;
    CeremonyRegistry m_ceremonies;
    QHash<QUuid, QPointer<class DeviceVerification>> m_verifications; // by profile
};

} // namespace veetbot
