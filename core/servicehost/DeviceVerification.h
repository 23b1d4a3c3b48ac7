#pragma once

#include "domain/observation/BrowserObservation.h"
#include "domain/profile/SessionState.h"
#include "domain/signin/SiteVerification.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <optional>

namespace veetbot {

class BrowserProvider;

// Differential verification of a device sign-in (docs/signin.md): two fresh isolated
// browsers, one started from the handed-off state and one from none, load the confirmed
// page. Ready only when the site tells them apart: with the session the page stays on an
// allowed origin at or below the confirmed path and shows no sign-in challenge; without it
// the page shows a challenge, moves to another path or leaves the allowed origins. On ready
// the verifying browser's own state (never the client's bytes) is read for sealing. Both
// browsers close in every case. Each load goes to DOMContentLoaded, waits up to 5 s for the
// network to be idle, and is inspected; a page that is signed in as far as it shows but whose
// requests were not idle waits for them to settle (until the deadline) and is inspected again.
// Within 30 s in all; one that does not finish names the load that stopped it and its stage
// in a content-free warning.
//
// With a site verification definition for the profile (setSiteDefinition), both browsers then
// load its protected page too, and the sign-in is ready only when the one with the session
// shows the protected state and the intended account: another account is
// session_wrong_account, the protected state without the session session_public_page, no
// protected state session_signed_out.
class DeviceVerification : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDeadlineMs = 30000;
    static constexpr int kIdleBoundMs = 5000;
    static constexpr int kQuietMs = 500;

    struct Outcome
    {
        QString code;                      // CeremonyApi: ready, session_signed_out, ...
        std::optional<SessionState> state; // ready only: the verifying browser's state
        // ready with a site definition only: the account it confirmed, masked
        // (SiteDefinition::accountLabel)
        QString account;
    };
    using Done = std::function<void(Outcome)>;

    DeviceVerification(OriginPolicy policy, TestOverrides overrides, BrowserEngine engine,
                       QObject *parent = nullptr);
    ~DeviceVerification() override;

    // Before start(): the profile's definition, checked as above.
    void setSiteDefinition(const SiteDefinition &site) { m_site = site; }
    void start(const SessionState &filtered, const QUrl &confirmedUrl, Done done);

    // The protected page of `site` in `browser`: loaded to DOMContentLoaded, its network
    // waited for (the idle bound), observed and read with the browser's private facts of that
    // capture. A page that leaves the allowed origins reads as no protected state; any other
    // failure is the browser's error. Shared by sign-in verification and the lease's check
    // (SessionHost). `done` is not called once the browser is gone.
    static void readProtectedPage(BrowserProvider &browser, const SiteDefinition &site,
                                  const TestOverrides &overrides,
                                  std::function<void(Result<SiteReading>)> done);
    // Ends it now (the profile was revoked or deleted): both browsers close, and it answers
    // tool.browser.profile_unavailable.
    void abort();

private:
    enum class Stage
    {
        Start,
        Navigate,
        Idle,
        Inspect,
        Settle,
        Reinspect,
        Protected, // the site definition's protected page: loaded, waited for, read
        Capture,
        Done
    };
    struct Load
    {
        const char *name = "";
        QPointer<BrowserProvider> browser;
        Stage stage = Stage::Start;
        std::optional<bool> signedIn;    // after inspect: on the path with no challenge
        std::optional<SiteReading> site; // after the protected page was read
        bool failed = false;
    };
    static const char *stageName(Stage stage);
    void navigate(Load &load);
    // Idle: the first wait, at most kIdleBoundMs; Settle: the wait after a page that showed
    // itself signed in before its requests were idle, until the deadline.
    void wait(Load &load, Stage stage);
    // Inspect or Reinspect; `idle`: the network was idle before this inspection.
    void inspect(Load &load, Stage stage, bool idle);
    // Where the page landed and whether it shows a sign-in challenge: true when it is on an
    // allowed origin at or below the confirmed path with none.
    bool showsSignedIn(const Load &load, const BrowserObservation &observation) const;
    // The protected page of the site definition, in this load's browser.
    void readProtected(Load &load);
    void fail(Load &load);
    void decide();
    void finish(Outcome outcome);
    void timedOut();
    // The one content-free record of a verification that did not finish: the loads that
    // stopped it with their stages, and the seconds since they started.
    void warn(const QString &loads) const;

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    BrowserEngine m_engine;
    QUrl m_confirmed;
    std::optional<SiteDefinition> m_site;
    Load m_with;
    Load m_without;
    Done m_done;
    QTimer m_deadline;
    QElapsedTimer m_elapsed;
};

} // namespace veetbot
