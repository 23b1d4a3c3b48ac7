#include "DeviceVerification.h"

#include "domain/observation/BrowserObservation.h"
#include "domain/signin/SignInChallenge.h"
#include "domain/web/Origin.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "service/api/CeremonyApi.h"

#include <QTextStream>

#include <algorithm>

namespace veetbot {

namespace {

// At the confirmed path or below it ("/account" covers "/account/settings", not
// "/accounting").
bool atOrBelow(const QString &path, const QString &confirmed)
{
    if (path == confirmed || confirmed == QLatin1String("/"))
        return true;
    const QString base =
        confirmed.endsWith(QLatin1Char('/')) ? confirmed : confirmed + QLatin1Char('/');
    return path.startsWith(base);
}

} // namespace

DeviceVerification::DeviceVerification(OriginPolicy policy, TestOverrides overrides,
                                       BrowserEngine engine, QObject *parent)
    : QObject(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides)),
      m_engine(engine)
{
    m_with.name = "with_session";
    m_without.name = "without_session";
    m_deadline.setSingleShot(true);
    m_deadline.setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5 % early
    connect(&m_deadline, &QTimer::timeout, this, &DeviceVerification::timedOut);
}

DeviceVerification::~DeviceVerification()
{
    for (Load *load : {&m_with, &m_without}) {
        if (load->browser) {
            load->browser->close();
            load->browser->deleteLater();
        }
    }
}

const char *DeviceVerification::stageName(Stage stage)
{
    switch (stage) {
    case Stage::Start:
        return "start";
    case Stage::Navigate:
        return "navigate";
    case Stage::Idle:
        return "idle";
    case Stage::Inspect:
        return "inspect";
    case Stage::Settle:
        return "settle";
    case Stage::Reinspect:
        return "reinspect";
    case Stage::Protected:
        return "protected";
    case Stage::Capture:
        return "capture";
    case Stage::Done:
        break;
    }
    return "capture";
}

void DeviceVerification::start(const SessionState &filtered, const QUrl &confirmedUrl, Done done)
{
    m_confirmed = confirmedUrl;
    m_done = std::move(done);
    m_elapsed.start();
    m_deadline.start(m_overrides.verificationDeadlineMs().value_or(kDeadlineMs));
    for (Load *load : {&m_with, &m_without}) {
        IsolatedBrowserProvider::Options options;
        options.observeNetwork = true;
        options.engine = m_engine;
        auto *browser = new IsolatedBrowserProvider(m_policy, m_overrides, options, this);
        // Verification never acts: its gate stays shut.
        browser->setDispatchGate([](const ActRequest &, GateAnswer answer) { answer(false); },
                                 this);
        load->browser = browser;
    }
    m_with.browser->restoreState(filtered, [this](Result<Unit> restored) {
        if (!restored) {
            m_with.failed = true;
            decide();
            return;
        }
        navigate(m_with);
    });
    navigate(m_without);
}

void DeviceVerification::navigate(Load &load)
{
    load.stage = Stage::Navigate;
    load.browser->navigate({m_confirmed, NavigateRequest::Until::ContentLoaded},
                           [this, &load](Result<BrowserObservation> observed) {
                               if (!m_done)
                                   return;
                               if (!observed) {
                                   // A page that left the allowed origins is evidence; any other
                                   // failure is not.
                                   if (observed.error().is(ReasonCode::UrlDisallowed)) {
                                       load.signedIn = false;
                                       load.stage = Stage::Done;
                                       decide();
                                   } else {
                                       fail(load);
                                   }
                                   return;
                               }
                               wait(load, Stage::Idle);
                           });
}

void DeviceVerification::wait(Load &load, Stage stage)
{
    load.stage = stage;
    NetworkIdleRequest request{m_overrides.verificationIdleMs().value_or(kIdleBoundMs), kQuietMs};
    if (stage == Stage::Settle) {
        // Until the deadline: a page whose requests never settle is not evidence.
        request.boundMs =
            int(std::clamp<qint64>(m_deadline.remainingTime(), 1, NetworkIdleRequest::kMaxBoundMs));
    }
    load.browser->waitForNetworkIdle(request, [this, &load, stage](Result<bool> idle) {
        if (!m_done)
            return;
        if (!idle || (stage == Stage::Settle && !*idle)) {
            fail(load);
            return;
        }
        inspect(load, stage == Stage::Idle ? Stage::Inspect : Stage::Reinspect, *idle);
    });
}

void DeviceVerification::inspect(Load &load, Stage stage, bool idle)
{
    load.stage = stage;
    load.browser->observe(ObserveRequest(),
                          [this, &load, stage, idle](Result<BrowserObservation> observed) {
                              if (!m_done)
                                  return;
                              if (!observed) {
                                  fail(load);
                                  return;
                              }
                              if (!showsSignedIn(load, *observed)) {
                                  // Already negative evidence: background work on that page does
                                  // not hold it.
                                  load.signedIn = false;
                              } else if (!idle && stage == Stage::Inspect) {
                                  // Signed in as far as it shows, with requests still open that may
                                  // change that.
                                  wait(load, Stage::Settle);
                                  return;
                              } else {
                                  load.signedIn = true;
                              }
                              load.stage = Stage::Done;
                              decide();
                          });
}

bool DeviceVerification::showsSignedIn(const Load &load,
                                       const BrowserObservation &observation) const
{
    const Result<Origin> landed = Origin::ofUrl(observation.url, m_overrides);
    const bool onPath = landed && m_policy.contains(*landed) &&
                        atOrBelow(observation.url.path(), m_confirmed.path());
    return onPath && !observationShowsSignIn(*load.browser, observation);
}

void DeviceVerification::readProtectedPage(BrowserProvider &provider, const SiteDefinition &site,
                                           const TestOverrides &overrides,
                                           std::function<void(Result<SiteReading>)> done)
{
    QPointer<BrowserProvider> browser = &provider;
    provider.navigate(
        {site.protectedUrl(), NavigateRequest::Until::ContentLoaded},
        [browser, site, overrides, done](Result<BrowserObservation> loaded) {
            if (!browser)
                return;
            if (!loaded) {
                // Off the allowed origins (a sign-in page elsewhere): no protected state.
                if (loaded.error().is(ReasonCode::UrlDisallowed))
                    done(SiteReading{});
                else
                    done(loaded.error());
                return;
            }
            const NetworkIdleRequest idle{overrides.verificationIdleMs().value_or(kIdleBoundMs),
                                          kQuietMs};
            browser->waitForNetworkIdle(idle, [browser, site, done](Result<bool> waited) {
                if (!browser)
                    return;
                if (!waited) {
                    done(waited.error());
                    return;
                }
                browser->observe(ObserveRequest(), [browser, site,
                                                    done](Result<BrowserObservation> seen) {
                    if (!browser)
                        return;
                    if (!seen) {
                        done(seen.error());
                        return;
                    }
                    done(readSite(
                        site, *seen, [browser, revision = seen->revision](const QString &ref) {
                            return browser ? browser->elementFacts(revision, ref) : std::nullopt;
                        }));
                });
            });
        });
}

void DeviceVerification::readProtected(Load &load)
{
    load.stage = Stage::Protected;
    readProtectedPage(*load.browser, *m_site, m_overrides,
                      [this, &load](Result<SiteReading> reading) {
                          if (!m_done)
                              return;
                          if (!reading) {
                              fail(load);
                              return;
                          }
                          load.site = *reading;
                          decide();
                      });
}

void DeviceVerification::fail(Load &load)
{
    load.failed = true; // named with the stage it failed in
    decide();
}

void DeviceVerification::decide()
{
    if (!m_done)
        return;
    if (m_with.failed || m_without.failed) {
        // A load that failed is named alone.
        const Load &failed = m_with.failed ? m_with : m_without;
        warn(QLatin1Char(' ') + QLatin1String(failed.name) + QLatin1Char(' ') +
             QLatin1String(stageName(failed.stage)));
        finish({reasonCodeString(ReasonCode::ProviderUnavailable), std::nullopt});
        return;
    }
    // A signed-out page with the session settles it at once; otherwise both are needed.
    if (m_with.signedIn == false) {
        finish({QString::fromLatin1(CeremonyApi::kSignedOut), std::nullopt});
        return;
    }
    if (!m_with.signedIn || !m_without.signedIn)
        return;
    if (*m_without.signedIn) {
        finish({QString::fromLatin1(CeremonyApi::kUnconfirmed), std::nullopt});
        return;
    }
    if (m_site) {
        // The definition's page, in both browsers, before anything is sealed.
        if (!m_with.site || !m_without.site) {
            for (Load *load : {&m_with, &m_without}) {
                if (!load->site && load->stage != Stage::Protected)
                    readProtected(*load);
            }
            return;
        }
        if (m_without.site->readySeen) {
            finish({QString::fromLatin1(CeremonyApi::kPublicPage), std::nullopt});
            return;
        }
        if (m_with.site->verdict == SiteReading::Verdict::WrongAccount) {
            finish({QString::fromLatin1(CeremonyApi::kWrongAccount), std::nullopt});
            return;
        }
        if (m_with.site->verdict != SiteReading::Verdict::Verified) {
            finish({QString::fromLatin1(CeremonyApi::kSignedOut), std::nullopt});
            return;
        }
    }
    m_with.stage = Stage::Capture;
    m_with.browser->exportState(m_policy.origins(), [this](Result<SessionState> state) {
        if (!m_done)
            return;
        if (!state || !state->withinBounds()) {
            m_with.failed = true;
            decide();
            return;
        }
        finish({QString::fromLatin1(CeremonyApi::kReady), *state,
                m_site ? m_site->accountLabel() : QString()});
    });
}

void DeviceVerification::finish(Outcome outcome)
{
    m_deadline.stop();
    // Taken first: closing fails the loads still running, and their answers are not heard.
    Done done = std::exchange(m_done, nullptr);
    for (Load *load : {&m_with, &m_without}) {
        if (load->browser)
            load->browser->close();
    }
    if (done)
        done(std::move(outcome));
}

void DeviceVerification::warn(const QString &loads) const
{
    QTextStream(stderr) << "veetbot-profile-service: device verification did not finish:" << loads
                        << ' ' << QString::number(double(m_elapsed.elapsed()) / 1000.0, 'f', 1)
                        << " s\n";
}

void DeviceVerification::abort()
{
    if (m_done)
        finish({reasonCodeString(ReasonCode::ProfileUnavailable), std::nullopt});
}

void DeviceVerification::timedOut()
{
    if (!m_done)
        return;
    // One content-free record: which load stopped it, in which stage, and when.
    QString loads;
    for (const Load *load : {&m_with, &m_without}) {
        if (load->stage == Stage::Done)
            continue;
        loads += QLatin1Char(' ') + QLatin1String(load->name) + QLatin1Char(' ') +
                 QLatin1String(stageName(load->stage));
    }
    if (loads.isEmpty())
        loads = QStringLiteral(" with_session capture");
    warn(loads);
    finish({reasonCodeString(ReasonCode::ProviderUnavailable), std::nullopt});
}

} // namespace veetbot
