#pragma once

#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QPointer>
#include <QUrl>
#include <QWidget>

class QLabel;
class QPushButton;
class QWebEngineProfile;
class QWebEngineView;

namespace veetbot {

class GuardedPage;
class ProfileState;
class RequestInterceptor;

// The owner's sign-in view (docs/signin.md): a fresh off-the-record browser profile for one
// ceremony, with Chromium's default user agent, no user script and no web channel, so
// nothing here reads what the owner types. Top-level navigation stays on the profile's
// origins; new windows, downloads and other schemes are refused (GuardedPage); traffic goes
// through the process's egress proxy. It shows the current origin and "I'm signed in" and
// "Cancel". On confirm it reads the cookies mirrored since the view opened and the
// localStorage of the allowed origins (ProfileState, in an isolated world), emits them once,
// then clears the store; the caller destroys the view, and the profile with it.
class SignInView : public QWidget
{
    Q_OBJECT
public:
    SignInView(OriginPolicy policy, TestOverrides overrides, QWidget *parent = nullptr);
    ~SignInView() override;

    void open(const QUrl &url);
    // A new website's first load may be redirected between its bare name and its www name
    // (or back): the view then stops and reports the other origin instead of refusing.
    void setAdoptsFirstRedirect(bool adopts) { m_adoptsFirstRedirect = adopts; }
    QWebEngineView *view() const { return m_view; }
    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *cancelButton() const { return m_cancel; }
    QString shownOrigin() const;

Q_SIGNALS:
    // Once: the confirmed page and what the store held for the profile's origins. Secret:
    // it goes to the hand-off and nowhere else.
    void confirmed(const QUrl &confirmedUrl, const SessionState &state);
    void cancelled();
    // The first load went to the bare-name or www counterpart of the website's origin.
    void redirectedToCounterpart(const Origin &origin, const QUrl &url);
    // The session could not be read back (the fixed message is shown in the view).
    void failed();

private:
    void confirm();
    void showOrigin(const QUrl &url);

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    QWebEngineProfile *m_profile = nullptr;
    RequestInterceptor *m_interceptor = nullptr;
    ProfileState *m_state = nullptr;
    QPointer<GuardedPage> m_page;
    QWebEngineView *m_view = nullptr;
    QLabel *m_origin = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_confirm = nullptr;
    QPushButton *m_cancel = nullptr;
    bool m_done = false;
    bool m_adoptsFirstRedirect = false;
    bool m_loaded = false; // a page of the website finished loading
};

} // namespace veetbot
