#pragma once

#include "domain/Result.h"
#include "domain/profile/SessionState.h"
#include "domain/signin/OwnerInput.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "service/api/CeremonyApi.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

namespace veetbot {

// The service's own browser of one remote sign-in (docs/signin.md#in-a-secure-browser): an
// isolated Chromium host with the profile's origins as its policy, in which the owner signs in
// through the workbench's view of it. The launch loads the login address, and a hop of it off
// the profile's origins is refused at the request stage before it is sent
// (tool.browser.url_disallowed). Frames flow only while the owner's view asks for them: the
// screencast starts with the first request and stops kViewIdleMs after the last. The owner's
// input goes to the browser as its own trusted input; of it the ceremony keeps one boolean,
// whether the owner typed, never what. Nothing here is ever a model's, and no frame is kept
// beyond the newest. On the Qt thread.
class RemoteCeremony : public QObject
{
    Q_OBJECT
public:
    static constexpr int kViewIdleMs = 3000;

    RemoteCeremony(OriginPolicy policy, TestOverrides overrides, BrowserEngine engine,
                   QObject *parent = nullptr);
    ~RemoteCeremony() override;

    // Loads `loginUrl`: ok; tool.browser.url_disallowed when the website sent the load off the
    // profile's origins; tool.browser.provider_unavailable for any other failure.
    void launch(const QUrl &loginUrl, std::function<void(Result<Unit>)> done);

    using FrameDone = std::function<void(std::optional<CeremonyApi::ViewFrame>)>;
    // The first frame newer than `request.after`, at once when there is one, else when it
    // comes, or nullopt after CeremonyApi::kFrameWaitMs.
    void nextFrame(const CeremonyApi::FrameRequest &request, FrameDone done);
    // The owner's input, as the browser's trusted input; false when the browser cannot take it.
    bool input(const OwnerInput &input);

    struct Captured
    {
        QUrl page;          // where the owner's sign-in left the browser
        SessionState state; // the browser's own state at the profile's origins
    };
    // The owner said they are signed in: the page and state as the owner left them, then the
    // browser closes. session_signed_out when the owner typed nothing during the ceremony, or
    // the page still asks to sign in or left the profile's origins;
    // tool.browser.provider_unavailable when the browser could not say.
    void capture(std::function<void(Result<Captured>)> done);
    // Closes the browser; frames still awaited answer nullopt. Idempotent.
    void close();
    bool isClosed() const { return !m_browser; }

private:
    struct Waiter
    {
        quint64 after = 0;
        FrameDone done;
        std::unique_ptr<QTimer> timer;
    };
    void frameArrived(const OwnerViewFrame &frame);
    void answerWaiters(bool timedOutOnly);

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    QPointer<BrowserProvider> m_browser;
    std::optional<CeremonyApi::ViewFrame> m_last; // the newest frame, while the view runs
    std::vector<std::unique_ptr<Waiter>> m_waiters;
    QSize m_viewMax;
    bool m_viewing = false;
    QTimer m_viewIdle;
    bool m_typed = false; // the owner sent text during this ceremony
};

} // namespace veetbot
