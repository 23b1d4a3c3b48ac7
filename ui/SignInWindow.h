#pragma once

#include "SignInView.h"
#include "client/WebsiteAccessClient.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/profile/SessionState.h"
#include "domain/web/TestOverrides.h"

#include <QPointer>
#include <QUrl>
#include <QWidget>

class QLabel;

namespace veetbot {

// The workbench's device sign-in for one profile (docs/signin.md): the sign-in view on the
// profile's origins, and, once the owner confirms, the hand-off to the profile service on a
// worker thread (signInProfile: a recorded ceremony, verification in the service). The view
// and its browser profile are destroyed as soon as the session was read; the window then
// shows the outcome as a fixed message.
class SignInWindow : public QWidget
{
    Q_OBJECT
public:
    // `adoptsFirstRedirect`: a brand-new website whose first load goes to its bare-name or
    // www counterpart ends with "origin_adopted" and that origin (adoptedOrigin()).
    SignInWindow(BrowserProfile profile, TestOverrides overrides, const QUrl &start,
                 bool adoptsFirstRedirect = false, QWidget *parent = nullptr);
    ~SignInWindow() override;

    // Null once the sign-in ended (the view is hidden from the moment the session was read).
    SignInView *signInView() const { return m_view; }
    QString outcome() const;
    bool isReady() const { return m_ready; }
    std::optional<QPair<Origin, QUrl>> adoptedOrigin() const { return m_adopted; }

Q_SIGNALS:
    // The sign-in ended: ready, or the fixed error code (cancelled: "cancelled").
    void finished(bool ready, const QString &code);

private:
    void handOff(const QUrl &confirmedUrl, const SessionState &state);
    void end(bool ready, const QString &code, const QString &message);

    BrowserProfile m_profile;
    TestOverrides m_overrides;
    QPointer<SignInView> m_view;
    QLabel *m_outcome = nullptr;
    class QPushButton *m_close = nullptr;
    bool m_ready = false;
    std::optional<QPair<Origin, QUrl>> m_adopted;
    bool m_working = false;
    WebsiteAccessClient *m_client = nullptr;
};

} // namespace veetbot
