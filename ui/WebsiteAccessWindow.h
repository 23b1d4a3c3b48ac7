#pragma once

#include "client/WebsiteAccessClient.h"
#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"

#include <QMainWindow>
#include <QPointer>

#include <functional>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QToolButton;

namespace veetbot {

class RemoteSignInWindow;
class SignInWindow;

// Website Access, the window the workbench opens on (docs/workbench.md): the owner's
// websites (one browser profile each) with their status, the masked account a site
// verification definition confirmed at the last sign-in ("Signed in as"), when an agent last
// used them and when a sign-in was last verified; adding a website from one address (the scheme
// defaults to https; the primary origin is derived, the full address opens in this window's sign-in
// view, which adopts a first move between the bare and the www name); Sign in in three ways
// (docs/signin.md): in a secure browser (the profile service's own, the default), in this
// window, or by importing a session file; Revoke (confirmed) and Delete (only after revoke,
// confirmed). Every use case runs
// through WebsiteAccessClient, off the GUI thread; errors are the fixed messages. The list is read
// again whenever the window becomes active.
class WebsiteAccessWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit WebsiteAccessWindow(TestOverrides overrides, QWidget *parent = nullptr);
    ~WebsiteAccessWindow() override;

    // Reads the list again (asynchronously; refreshed() once it shows). A reading already
    // asked for is not asked again.
    void refresh();
    // What the owner typed in the address field, as Add does it. `signInOrigins`: the sign-in
    // origins field, the addresses of another origin the website's sign-in goes through (an
    // accounts host), separated by commas or spaces; each becomes one more allowed origin.
    void addWebsite(const QString &address, const QString &signInOrigins = {});
    // Brings the window up with that website selected and does what its Sign in button does
    // (a sign-in notice asked for it): the secure browser. While another sign-in is open, that
    // one comes to the front instead; one sign-in at a time.
    void signInAgain(const QUuid &profileId);
    // The ways to sign in to the selected website.
    enum class SignInWay
    {
        SecureBrowser, // the profile service's own browser (remote), the default
        ThisWindow,    // the embedded view
        SessionFile,   // a session another browser exported
    };
    void signInSelected(SignInWay way = SignInWay::SecureBrowser);
    QList<BrowserProfile> profiles() const { return m_profiles; }
    // The open sign-in in this window's view, or in the secure browser (at most one is open).
    SignInWindow *signInWindow() const;
    RemoteSignInWindow *remoteSignInWindow() const;
    QString statusText() const;
    // A change or a reading of the list is under way.
    bool isBusy() const { return m_client->pending() > 0; }

    // The origin and the address to open for what the owner typed (https by default).
    static Result<QPair<Origin, QUrl>> parseAddress(const QString &text,
                                                    const TestOverrides &overrides);

Q_SIGNALS:
    void refreshed();

protected:
    void changeEvent(QEvent *event) override;

private:
    std::optional<BrowserProfile> selected() const;
    // Sign in is offered for a website that is neither revoked nor still being set up, while
    // no other sign-in or change is under way.
    bool canSignIn(const std::optional<BrowserProfile> &profile) const;
    void signIn(const BrowserProfile &profile, const QUrl &start, bool brandNew,
                bool adoptsFirstRedirect = false);
    void signInRemotely(const BrowserProfile &profile, const QUrl &start);
    void importSessionFile(const BrowserProfile &profile);
    void revokeSelected();
    void deleteSelected();
    void updateButtons();
    void showError(const Error &error);
    // A change's continuation: the buttons wait while the change is under way.
    template <typename T>
    WebsiteAccessClient::Done<T> changed(std::function<void(const Result<T> &)> done);
    void showProfiles(const QList<BrowserProfile> &profiles);

    TestOverrides m_overrides;
    QList<BrowserProfile> m_profiles;
    QLineEdit *m_address = nullptr;
    QLineEdit *m_signInOrigins = nullptr;
    QPushButton *m_add = nullptr;
    QTableWidget *m_table = nullptr;
    QToolButton *m_signInButton = nullptr;
    QPushButton *m_revoke = nullptr;
    QPushButton *m_delete = nullptr;
    QLabel *m_status = nullptr;
    QPointer<QWidget> m_signIn; // a SignInWindow or a RemoteSignInWindow
    WebsiteAccessClient *m_client = nullptr;
    bool m_changing = false;   // a change is under way: the buttons wait
    bool m_refreshing = false; // a reading of the list is asked for
};

} // namespace veetbot
