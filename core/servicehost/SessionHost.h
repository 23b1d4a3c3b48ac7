#pragma once

#include "domain/observation/BrowserObservation.h"
#include "domain/signin/SiteVerification.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"
#include "ports/GateQuestion.h"
#include "service/api/HttpApi.h"
#include "service/api/SessionApi.h"
#include "service/server/LeaseRegistry.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>

class QLocalServer;
class QLocalSocket;

namespace veetbot {

class BrowserProvider;
class VaultControlPlane;

// The profile service's sessions: leases (LeaseRegistry) and the browser each one holds (an
// isolated browser host with the profile's sealed origins as its policy). Every operation
// revalidates the lease, the vault record (scope, revocation fence, origins) and then runs
// on the lease's browser. A lease also ends when the process that holds it goes: the client
// keeps a connection to the keeper socket (lease.sock) open for the lease's life (its peer
// credentials are checked to be this user's), and when the last such connection closes
// without the lease having been closed, the lease and its browser end (nothing is sealed).
// On the Qt thread.
class SessionHost : public QObject
{
    Q_OBJECT
public:
    using VaultAccess = std::function<VaultControlPlane *()>;
    SessionHost(VaultAccess vault, TestOverrides overrides, QObject *parent = nullptr);
    ~SessionHost() override;

    // The engine of the lease browsers (Chromium unless set).
    void setEngine(BrowserEngine engine) { m_engine = engine; }
    // The site verification definitions: a profile with one has its protected page and account
    // checked in the lease's browser before the lease is published (docs/signin.md "Which
    // account"), within kSiteCheckMs clamped to the lease's life.
    static constexpr int kSiteCheckMs = 20000;
    void setSiteCatalog(SiteCatalog sites) { m_sites = std::move(sites); }
    // Listens for lease keepers at `path` (0600).
    bool listenForKeepers(const QString &path);
    // The session routes and the owner's live-view route (LiveViewApi).
    QList<HttpRoute> routes();
    // Revocation and deletion: every live runtime of the profile ends before they answer.
    void endProfile(const QUuid &profileId);
    void endAll();
    int liveBrowsers() { return m_leases.liveCount(); }
    // Browsers that are not a lease's (a device verification's two) count against the same
    // limit: false, reserving nothing, when there is no room.
    bool reserveBrowsers(int browsers) { return m_leases.reserve(browsers); }
    void releaseBrowsers(int browsers) { m_leases.release(browsers); }

private:
    struct Runtime
    {
        QString leaseId;
        QPointer<BrowserProvider> browser;
        // Every process that holds the lease (a run resumed elsewhere attaches its own); the
        // lease ends when the last one goes.
        QList<QPointer<QLocalSocket>> keepers;
        QList<Origin> origins; // the sealed origins: the policy, and what is sealed back
        bool failed = false;   // a browser failure: the lease closes without sealing
        // The owner's live view: when its last frame was asked for, and whether one is
        // being taken (at most one a second, one at a time).
        QElapsedTimer lastFrame;
        bool frameInFlight = false;
    };
    // The act of a lease in progress: :act waits for it to end or to reach its dispatch gate;
    // at the gate :act answers with a token, and :dispatch answers the gate and then waits
    // for the act's end.
    struct PendingAct
    {
        QByteArray token;
        HttpRoute::Reply actReply; // until the gate is reached
        GateQuestion gate;         // asked when the act reaches its gate
        quint64 gateTicket = 0;
        HttpRoute::Reply dispatchReply; // after :dispatch
    };
    void acceptKeeper();
    void endRuntime(const QString &leaseId);
    void sweepExpired();
    // The call's lease, valid for its holder, whose profile the vault still allows; else the
    // refusal is replied (a fenced profile's runtime ends) and nothing.
    std::optional<LeaseRegistry::Lease> fencedLease(const SessionApi::Call &call,
                                                    const HttpRoute::Reply &reply);
    // The session routes' handlers (routes()), each given a parsed call.
    void acquire(const SessionApi::Call &call, HttpRoute::Reply reply);
    // The protected page of `site` in the lease `id`'s browser, read: done hears nothing
    // (verified), tool.browser.account_mismatch, tool.browser.authentication_required or
    // tool.browser.provider_unavailable.
    void checkSite(const QString &id, const SiteDefinition &site, const QDateTime &expiresAt,
                   std::function<void(std::optional<Error>)> done);
    void renew(const SessionApi::Call &call, HttpRoute::Reply reply);
    void browse(const SessionApi::Call &call, HttpRoute::Reply reply);
    void act(const SessionApi::Call &call, HttpRoute::Reply reply);
    void dispatch(const SessionApi::Call &call, HttpRoute::Reply reply);
    void close(const SessionApi::Call &call, HttpRoute::Reply reply);
    HttpRoute liveViewRoute();
    void noteFailure(const QString &leaseId, const Result<BrowserObservation> &result);
    // The vault's word on the holder: its origins, or the refusal.
    Result<QStringList> originsFor(const LeaseRegistry::Holder &holder) const;

    VaultAccess m_vault;
    TestOverrides m_overrides;
    BrowserEngine m_engine = BrowserEngine::Chromium;
    SiteCatalog m_sites;
    LeaseRegistry m_leases;
    QHash<QString, Runtime> m_runtimes; // by lease id
    QHash<QString, PendingAct> m_acts;  // by lease id
    QLocalServer *m_keepers = nullptr;
    QTimer m_sweep;
};

} // namespace veetbot
