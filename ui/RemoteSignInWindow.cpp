#include "RemoteSignInWindow.h"

#include "RemoteScreen.h"
#include "SignInHeading.h"
#include "client/RemoteViewChannel.h"
#include "client/WebsiteAccess.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>

namespace veetbot {

RemoteSignInWindow::RemoteSignInWindow(BrowserProfile profile, const QUrl &start, QWidget *parent)
    : QWidget(parent), m_profile(std::move(profile)), m_client(new WebsiteAccessClient(this))
{
    setWindowTitle(tr("Sign in in a secure browser — Veetbot Workbench"));
    QLabel *heading = signInHeading(m_profile, this);
    m_outcome = new QLabel(this);
    m_outcome->setTextFormat(Qt::PlainText);
    m_outcome->setWordWrap(true);
    m_outcome->setAccessibleName(tr("Sign-in outcome"));
    m_outcome->setText(tr("Starting a secure browser for this website…"));
    m_address = new QLabel(this);
    m_address->setTextFormat(Qt::PlainText);
    m_address->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_address->setAccessibleName(tr("The secure browser's address"));
    m_screen = new RemoteScreen(this);
    m_screen->setEnabled(false);
    m_signedIn = new QPushButton(tr("I'm &signed in"), this);
    m_signedIn->setAccessibleName(tr("I'm signed in: verify and keep this sign-in"));
    m_signedIn->setEnabled(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setAccessibleName(tr("Cancel the sign-in and keep nothing"));
    m_close = new QPushButton(tr("Close"), this);
    m_close->setAccessibleName(tr("Close the sign-in window"));
    m_close->hide();
    connect(m_signedIn, &QPushButton::clicked, this, &RemoteSignInWindow::finishSignIn);
    connect(m_cancel, &QPushButton::clicked, this, &RemoteSignInWindow::cancelSignIn);
    connect(m_close, &QPushButton::clicked, this, &QWidget::close);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_signedIn);
    buttons->addWidget(m_close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(m_outcome);
    layout->addWidget(m_address);
    layout->addWidget(m_screen, 1);
    layout->addLayout(buttons);
    resize(1100, 820);

    // A begin the owner gave up on while it launched (Cancel, or the window closed) is cancelled
    // as soon as it answers, so the service's browser does not wait for its expiry.
    m_client->call<RemoteSignIn>(
        [id = m_profile.id, start, abandoned = m_abandoned]() -> Result<RemoteSignIn> {
            Result<RemoteSignIn> signIn = beginRemoteSignIn(id, start);
            if (signIn && abandoned->load()) {
                (void)veetbot::cancelSignIn(signIn->ceremony.id);
                return Error{QStringLiteral("cancelled"), QString()};
            }
            return signIn;
        },
        this,
        [this](const Result<RemoteSignIn> &signIn) {
            if (m_ended)
                return;
            if (!signIn) {
                end(false, signIn.error().code, signIn.error().message);
                return;
            }
            begun(*signIn);
        });
}

RemoteSignInWindow::~RemoteSignInWindow()
{
    m_abandoned->store(true); // a begin still launching ends as soon as it answers
    // A window that goes without an outcome ends its ceremony, so the service's browser closes
    // now rather than at its expiry.
    if (!m_ceremonyId.isEmpty() && !m_ended)
        QThreadPool::globalInstance()->start(
            [id = m_ceremonyId] { (void)veetbot::cancelSignIn(id); });
}

QString RemoteSignInWindow::outcome() const
{
    return m_outcome->text();
}

QString RemoteSignInWindow::address() const
{
    return m_address->text();
}

void RemoteSignInWindow::begun(const RemoteSignIn &signIn)
{
    m_ceremonyId = signIn.ceremony.id;
    m_channel =
        new RemoteViewChannel(signIn.socketPath, signIn.ceremony.id, signIn.launchPath, this);
    connect(m_channel, &RemoteViewChannel::frameArrived, this, [this](const OwnerViewFrame &frame) {
        m_screen->showFrame(frame);
        const QString page = frame.page.toString();
        m_address->setText(frame.page.isEmpty() ? QString()
                           : frame.isSecure()   ? tr("Secure connection — %1").arg(page)
                                                : tr("Not secure — %1").arg(page));
    });
    connect(m_screen, &RemoteScreen::ownerInput, m_channel, &RemoteViewChannel::send);
    connect(m_screen, &RemoteScreen::resized, this, &RemoteSignInWindow::updateShowing);
    connect(m_channel, &RemoteViewChannel::inputFailed, this, [this] {
        m_outcome->setText(tr("A key did not reach the website. Clear the field and type it "
                              "again."));
    });
    connect(m_channel, &RemoteViewChannel::finished, this, &RemoteSignInWindow::settle);
    connect(m_channel, &RemoteViewChannel::closed, this, [this] {
        if (!m_working)
            settle(QStringLiteral("ceremony.closed"),
                   tr("The sign-in ended in the profile service (it expired or was "
                      "cancelled). Nothing was kept."));
    });
    m_outcome->setText(tr("Sign in to the website below as you always do, then choose \u201cI'm "
                          "signed in\u201d. What you type goes only to the website."));
    m_screen->setEnabled(true);
    m_screen->setFocus();
    m_signedIn->setEnabled(true);
    updateShowing();
}

void RemoteSignInWindow::dropChannel()
{
    if (!m_channel)
        return;
    // Possibly inside one of its signals: it goes once that is over, and says nothing more.
    disconnect(m_channel, nullptr, this, nullptr);
    disconnect(m_screen, nullptr, m_channel, nullptr);
    m_channel->deleteLater();
    m_channel.clear();
}

void RemoteSignInWindow::updateShowing()
{
    if (m_channel)
        m_channel->setShowing(isVisible() && !m_ended && !m_working, m_screen->size());
}

void RemoteSignInWindow::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updateShowing();
}

void RemoteSignInWindow::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updateShowing();
}

void RemoteSignInWindow::closeEvent(QCloseEvent *event)
{
    if (!m_ended)
        cancelSignIn();
    QWidget::closeEvent(event);
}

void RemoteSignInWindow::finishSignIn()
{
    if (m_working || m_ended || !m_channel)
        return;
    m_working = true;
    m_signedIn->setEnabled(false);
    m_cancel->setEnabled(false);
    m_screen->setEnabled(false);
    updateShowing();
    m_outcome->setText(tr("Verifying the sign-in with the website…"));
    m_channel->finish(); // after every key already typed
}

void RemoteSignInWindow::cancelSignIn()
{
    if (m_ended)
        return;
    m_working = true;
    const QString id = m_ceremonyId;
    if (id.isEmpty()) {
        m_abandoned->store(true);
        end(false, QStringLiteral("cancelled"), tr("Sign-in cancelled. Nothing was kept."));
        return;
    }
    m_client->call<CeremonyFinished>([id] { return veetbot::cancelSignIn(id); }, this,
                                     [this](const Result<CeremonyFinished> &) {
                                         end(false, QStringLiteral("cancelled"),
                                             tr("Sign-in cancelled. Nothing was kept."));
                                     });
    dropChannel();
    updateShowing();
}

void RemoteSignInWindow::settle(const QString &code, const QString &message)
{
    m_working = true;
    dropChannel(); // the service's browser is closed by now
    m_client->call<CeremonyFinished>(
        [id = m_ceremonyId] { return refreshSignIn(id); }, this,
        [this, code, message](const Result<CeremonyFinished> &recorded) {
            if (recorded && recorded->ceremony.status == CeremonyStatus::Ready) {
                end(true, QStringLiteral("ready"),
                    tr("Signed in. Agents can now use this website as you."));
                return;
            }
            if (!code.isEmpty()) {
                end(false, code, message);
                return;
            }
            // The service said ready, and the record could not follow.
            end(false, recorded ? QStringLiteral("ceremony.not_ready") : recorded.error().code,
                recorded ? tr("The sign-in could not be recorded; try again.")
                         : recorded.error().message);
        });
}

void RemoteSignInWindow::end(bool ready, const QString &code, const QString &message)
{
    if (m_ended)
        return;
    m_ended = true;
    m_ready = ready;
    m_outcome->setText(message);
    dropChannel();
    // The outcome stays at the top, Close at the bottom.
    if (auto *box = qobject_cast<QVBoxLayout *>(layout()); box && m_screen->isVisibleTo(this))
        box->insertStretch(box->indexOf(m_screen), 1);
    m_screen->hide();
    m_address->hide();
    m_signedIn->hide();
    m_cancel->hide();
    m_close->show();
    m_close->setFocus();
    Q_EMIT finished(ready, code);
}

} // namespace veetbot
