#pragma once

#include "client/WebsiteAccessClient.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/signin/AuthenticationCeremony.h"

#include <QPointer>
#include <QUrl>
#include <QWidget>

#include <atomic>
#include <memory>

class QLabel;
class QPushButton;

namespace veetbot {

class RemoteScreen;
class RemoteViewChannel;
struct RemoteSignIn;

// The workbench's remote sign-in (docs/signin.md#in-a-secure-browser): the owner signs in
// inside the profile service's own browser, seen here through its frames and driven by the
// owner's mouse and keys. The page's address and whether it is secure show above the picture.
// Frames flow only while this window is visible. "I'm signed in" asks the service to verify the
// sign-in it saw and to seal it; Cancel (or closing the window) ends the ceremony and keeps
// nothing. The password goes from the keyboard to the service's browser and nowhere else: this
// window keeps no keystroke, and the session never leaves the service.
class RemoteSignInWindow : public QWidget
{
    Q_OBJECT
public:
    RemoteSignInWindow(BrowserProfile profile, const QUrl &start, QWidget *parent = nullptr);
    ~RemoteSignInWindow() override;

    RemoteScreen *screen() const { return m_screen; }
    QPushButton *signedInButton() const { return m_signedIn; }
    QPushButton *cancelButton() const { return m_cancel; }
    QString outcome() const;
    QString address() const;
    bool isReady() const { return m_ready; }
    bool hasEnded() const { return m_ended; }

Q_SIGNALS:
    // The sign-in ended: ready, or the fixed error code (cancelled: "cancelled").
    void finished(bool ready, const QString &code);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void begun(const RemoteSignIn &signIn);
    void finishSignIn();
    void cancelSignIn();
    // The service's word on the ceremony, recorded; then the window ends with it.
    void settle(const QString &code, const QString &message);
    void end(bool ready, const QString &code, const QString &message);
    void updateShowing();
    // The channel goes: its workers stop and nothing more of it is heard.
    void dropChannel();

    BrowserProfile m_profile;
    WebsiteAccessClient *m_client = nullptr;
    QPointer<RemoteViewChannel> m_channel;
    QString m_ceremonyId;
    RemoteScreen *m_screen = nullptr;
    QLabel *m_address = nullptr;
    QLabel *m_outcome = nullptr;
    QPushButton *m_signedIn = nullptr;
    QPushButton *m_cancel = nullptr;
    QPushButton *m_close = nullptr;
    bool m_working = false;
    bool m_ready = false;
    bool m_ended = false;
    // Set when the owner gives up before the begin answered (read on the client's worker).
    std::shared_ptr<std::atomic<bool>> m_abandoned = std::make_shared<std::atomic<bool>>(false);
};

} // namespace veetbot
