#include "SignInWindow.h"

#include "SignInHeading.h"
#include "SignInView.h"
#include "client/WebsiteAccess.h"
#include "domain/web/OriginPolicy.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWebEngineView>

namespace veetbot {

SignInWindow::SignInWindow(BrowserProfile profile, TestOverrides overrides, const QUrl &start,
                           bool adoptsFirstRedirect, QWidget *parent)
    : QWidget(parent), m_profile(std::move(profile)), m_overrides(std::move(overrides)),
      m_client(new WebsiteAccessClient(this))
{
    setWindowTitle(tr("Sign in — Veetbot Workbench"));
    m_outcome = new QLabel(this);
    m_outcome->setTextFormat(Qt::PlainText);
    m_outcome->setWordWrap(true);
    m_outcome->setAccessibleName(tr("Sign-in outcome"));
    m_outcome->setText(tr("Sign in to the website below, then choose \u201cI'm signed in\u201d. "
                          "Your password stays in this window."));
    QLabel *heading = signInHeading(m_profile, this);
    m_close = new QPushButton(tr("Close"), this);
    m_close->setAccessibleName(tr("Close the sign-in window"));
    m_close->hide();
    connect(m_close, &QPushButton::clicked, this, &QWidget::close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(m_outcome);
    const Result<OriginPolicy> policy = OriginPolicy::create(m_profile.allowedOrigins);
    if (!policy) {
        m_outcome->setText(tr("This profile has no website to sign in to."));
        return;
    }
    m_view = new SignInView(*policy, m_overrides, this);
    layout->addWidget(m_view, 1);
    layout->addStretch(0);
    layout->addWidget(m_close, 0, Qt::AlignRight);
    m_view->setAdoptsFirstRedirect(adoptsFirstRedirect);
    connect(m_view, &SignInView::confirmed, this, &SignInWindow::handOff);
    connect(m_view, &SignInView::redirectedToCounterpart, this,
            [this](const Origin &origin, const QUrl &url) {
                m_adopted = qMakePair(origin, url);
                end(false, QStringLiteral("origin_adopted"),
                    tr("The website moved to %1; opening that instead.").arg(origin.toString()));
            });
    connect(m_view, &SignInView::cancelled, this, [this] {
        end(false, QStringLiteral("cancelled"), tr("Sign-in cancelled. Nothing was kept."));
    });
    connect(m_view, &SignInView::failed, this, [this] {
        end(false, QStringLiteral("session_unreadable"),
            tr("The session could not be read from the sign-in window; try again."));
    });
    resize(1100, 800);
    m_view->open(start);
}

SignInWindow::~SignInWindow()
{
    delete m_view.data();
}

QString SignInWindow::outcome() const
{
    return m_outcome->text();
}

void SignInWindow::handOff(const QUrl &confirmedUrl, const SessionState &state)
{
    if (m_working)
        return;
    m_working = true;
    m_outcome->setText(tr("Verifying the sign-in with the website…"));
    // The session was read and the store cleared; the view is hidden now and goes, with its
    // browser profile, when the outcome is known.
    if (m_view)
        m_view->hide();
    m_client->signInProfile(m_profile.id, confirmedUrl, state, this,
                            [this](const Result<BrowserProfile> &signedIn) {
                                if (signedIn)
                                    end(true, QStringLiteral("ready"),
                                        tr("Signed in. Agents can now use this website as you."));
                                else
                                    end(false, signedIn.error().code, signedIn.error().message);
                            });
}

void SignInWindow::end(bool ready, const QString &code, const QString &message)
{
    m_ready = ready;
    m_outcome->setText(message);
    // With the browser gone the outcome stays at the top; Close ends the window.
    if (auto *box = qobject_cast<QVBoxLayout *>(layout()))
        box->setStretch(box->count() - 2, 1);
    m_close->show();
    m_close->setFocus();
    if (m_view) {
        m_view->hide();
        m_view->deleteLater();
    }
    Q_EMIT finished(ready, code);
}

} // namespace veetbot
