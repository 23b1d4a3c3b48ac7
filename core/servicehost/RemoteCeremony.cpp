#include "RemoteCeremony.h"

#include "isolation/IsolatedBrowserProvider.h"
#include "ports/BrowserProvider.h"

namespace veetbot {

RemoteCeremony::RemoteCeremony(OriginPolicy policy, TestOverrides overrides, BrowserEngine engine,
                               QObject *parent)
    : QObject(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides))
{
    IsolatedBrowserProvider::Options options;
    options.engine = engine;
    auto *browser = new IsolatedBrowserProvider(m_policy, m_overrides, options, this);
    // The owner signs in here; no act of the tool contract ever runs: its gate stays shut.
    browser->setDispatchGate([](const ActRequest &, GateAnswer answer) { answer(false); }, this);
    connect(browser, &BrowserProvider::ownerViewFrame, this, &RemoteCeremony::frameArrived);
    m_browser = browser;
    m_viewIdle.setSingleShot(true);
    m_viewIdle.setInterval(kViewIdleMs);
    connect(&m_viewIdle, &QTimer::timeout, this, [this] {
        // Nobody watches: no more frames, and none is kept.
        m_viewing = false;
        m_last.reset();
        if (m_browser)
            m_browser->stopOwnerView();
    });
}

RemoteCeremony::~RemoteCeremony()
{
    close();
}

void RemoteCeremony::launch(const QUrl &loginUrl, std::function<void(Result<Unit>)> done)
{
    if (!m_browser) {
        done(Error::fromReason(ReasonCode::ProviderUnavailable));
        return;
    }
    m_browser->navigate({loginUrl, NavigateRequest::Until::Settled},
                        [done = std::move(done)](Result<BrowserObservation> loaded) {
                            if (loaded) {
                                done(Unit{});
                                return;
                            }
                            // Only the refused hop is told apart; no browser text crosses.
                            done(Error::fromReason(loaded.error().is(ReasonCode::UrlDisallowed)
                                                       ? ReasonCode::UrlDisallowed
                                                       : ReasonCode::ProviderUnavailable));
                        });
}

void RemoteCeremony::nextFrame(const CeremonyApi::FrameRequest &request, FrameDone done)
{
    if (!m_browser) {
        done(std::nullopt);
        return;
    }
    m_viewIdle.start();
    if (!m_viewing || request.max != m_viewMax) {
        if (m_viewing)
            m_browser->stopOwnerView();
        m_viewMax = request.max;
        m_viewing = m_browser->startOwnerView(request.max);
        if (!m_viewing) {
            done(std::nullopt);
            return;
        }
    }
    if (m_last && m_last->seq > request.after) {
        done(m_last);
        return;
    }
    auto waiter = std::make_unique<Waiter>();
    waiter->after = request.after;
    waiter->done = std::move(done);
    waiter->timer = std::make_unique<QTimer>();
    waiter->timer->setSingleShot(true);
    connect(waiter->timer.get(), &QTimer::timeout, this, [this] { answerWaiters(true); });
    waiter->timer->start(CeremonyApi::kFrameWaitMs);
    m_waiters.push_back(std::move(waiter));
}

void RemoteCeremony::frameArrived(const OwnerViewFrame &frame)
{
    if (!m_viewing)
        return;
    m_last = CeremonyApi::ViewFrame{(m_last ? m_last->seq : 0) + 1, frame};
    answerWaiters(false);
}

void RemoteCeremony::answerWaiters(bool timedOutOnly)
{
    // Answered outside the list: an answer may ask for the next frame at once.
    std::vector<std::unique_ptr<Waiter>> answered;
    for (auto it = m_waiters.begin(); it != m_waiters.end();) {
        Waiter &waiter = **it;
        const bool newer = !timedOutOnly && m_last && m_last->seq > waiter.after;
        const bool expired = !waiter.timer->isActive();
        if (newer || expired || !m_browser) {
            answered.push_back(std::move(*it));
            it = m_waiters.erase(it);
        } else {
            ++it;
        }
    }
    for (const std::unique_ptr<Waiter> &waiter : answered) {
        // Possibly the timer whose timeout runs this: it goes once that is over.
        waiter->timer->stop();
        waiter->timer.release()->deleteLater();
        const bool newer = m_last && m_last->seq > waiter->after && m_browser;
        waiter->done(newer ? m_last : std::nullopt);
    }
}

bool RemoteCeremony::input(const OwnerInput &input)
{
    if (!m_browser || !input.isValid() || !m_browser->ownerInput(input))
        return false;
    // One boolean of the owner's typing, never what was typed.
    if (input.kind == OwnerInput::Kind::Text ||
        (input.kind == OwnerInput::Kind::KeyDown && !input.text.isEmpty()))
        m_typed = true;
    return true;
}

void RemoteCeremony::capture(std::function<void(Result<Captured>)> done)
{
    const auto signedOut = [] {
        return Error{QString::fromLatin1(CeremonyApi::kSignedOut), QString()};
    };
    if (!m_browser) {
        done(Error::fromReason(ReasonCode::ProviderUnavailable));
        return;
    }
    if (!m_typed) {
        // A sign-in this ceremony did not see: nothing the owner typed reached a form.
        close();
        done(signedOut());
        return;
    }
    m_viewIdle.stop();
    m_browser->stopOwnerView();
    m_viewing = false;
    m_browser->observe(ObserveRequest(), [this, done, signedOut](Result<BrowserObservation> seen) {
        if (!m_browser) {
            done(Error::fromReason(ReasonCode::ProviderUnavailable));
            return;
        }
        if (!seen) {
            close();
            done(Error::fromReason(seen.error().is(ReasonCode::UrlDisallowed)
                                       ? ReasonCode::UrlDisallowed
                                       : ReasonCode::ProviderUnavailable));
            return;
        }
        const Result<Origin> landed = Origin::ofUrl(seen->url, m_overrides);
        if (!landed || !m_policy.contains(*landed) || observationShowsSignIn(*m_browser, *seen)) {
            close();
            done(signedOut());
            return;
        }
        const QUrl page = seen->url;
        m_browser->exportState(m_policy.origins(), [this, done, page](Result<SessionState> state) {
            close();
            if (!state || !state->withinBounds()) {
                done(Error::fromReason(ReasonCode::ProviderUnavailable));
                return;
            }
            done(Captured{page, *state});
        });
    });
}

void RemoteCeremony::close()
{
    m_viewIdle.stop();
    m_viewing = false;
    m_last.reset();
    if (BrowserProvider *browser = m_browser.data()) {
        m_browser.clear();
        browser->close();
        browser->deleteLater();
    }
    answerWaiters(true);
}

} // namespace veetbot
