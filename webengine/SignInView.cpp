#include "SignInView.h"

#include "GuardedPage.h"
#include "ProfileState.h"
#include "RequestInterceptor.h"
#include "domain/web/Origin.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWebEngineCookieStore>
#include <QWebEngineDownloadRequest>
#include <QWebEngineProfile>
#include <QWebEngineView>

namespace veetbot {

SignInView::SignInView(OriginPolicy policy, TestOverrides overrides, QWidget *parent)
    : QWidget(parent), m_policy(std::move(policy)), m_overrides(std::move(overrides))
{
    // No storage name: off the record, nothing on disk. No user script and the default user
    // agent: the site sees the browser as it is.
    m_profile = new QWebEngineProfile(this);
    m_profile->setHttpCacheType(QWebEngineProfile::MemoryHttpCache);
    m_profile->setPersistentCookiesPolicy(QWebEngineProfile::NoPersistentCookies);
    m_profile->setSpellCheckEnabled(false);
    m_interceptor = new RequestInterceptor(m_policy, m_overrides, this);
    m_profile->setUrlRequestInterceptor(m_interceptor);
    // Mirrors the cookie store from its first moment: it cannot be listed later.
    m_state = new ProfileState(
        m_profile, [this](bool allowed) { m_interceptor->setStateDocumentsAllowed(allowed); },
        this);
    connect(m_profile, &QWebEngineProfile::downloadRequested, this,
            [](QWebEngineDownloadRequest *download) { download->cancel(); });

    m_origin = new QLabel(this);
    m_origin->setAccessibleName(tr("Website"));
    m_origin->setTextFormat(Qt::PlainText);
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText);
    m_confirm = new QPushButton(tr("I'm &signed in"), this);
    m_confirm->setAccessibleName(tr("I'm signed in"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setAccessibleName(tr("Cancel sign-in"));
    m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_origin, 1);
    bar->addWidget(m_status);
    bar->addWidget(m_confirm);
    bar->addWidget(m_cancel);

    m_view = new QWebEngineView(this);
    m_page = new GuardedPage(m_policy, m_overrides, m_profile, m_view);
    m_view->setPage(m_page);
    m_view->setAccessibleName(tr("Website sign-in"));
    connect(m_page, &QWebEnginePage::urlChanged, this, &SignInView::showOrigin);
    connect(m_page, &QWebEnginePage::loadFinished, this, [this](bool ok) { m_loaded |= ok; });
    connect(m_page, &GuardedPage::mainFrameNavigationRefused, this, [this] {
        // Only a new website's first load, only to the other of bare name and www name, on
        // the same scheme and port; anything else stays refused.
        if (!m_adoptsFirstRedirect || m_loaded || m_done || m_policy.origins().size() != 1)
            return;
        const QUrl target = m_page->lastRefusedUrl();
        const Result<Origin> origin = Origin::ofUrl(target, m_overrides);
        const Origin &allowed = m_policy.origins().constFirst();
        if (!origin || origin->port() != allowed.port() ||
            (origin->host() != QLatin1String("www.") + allowed.host() &&
             allowed.host() != QLatin1String("www.") + origin->host()))
            return;
        m_done = true;
        m_profile->cookieStore()->deleteAllCookies();
        Q_EMIT redirectedToCounterpart(*origin, target);
    });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_confirm, &QPushButton::clicked, this, &SignInView::confirm);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (std::exchange(m_done, true))
            return;
        m_profile->cookieStore()->deleteAllCookies();
        Q_EMIT cancelled();
    });
}

SignInView::~SignInView()
{
    // Every page goes before its profile: the view's, and any private page the state reader
    // still holds.
    delete m_view;
    m_view = nullptr;
    delete m_state;
    m_state = nullptr;
}

void SignInView::open(const QUrl &url)
{
    m_view->load(url);
}

QString SignInView::shownOrigin() const
{
    return m_origin->text();
}

void SignInView::showOrigin(const QUrl &url)
{
    // Only an https origin on the profile's list is shown as the website; certificate errors
    // are never overridden (GuardedPage refuses them), so a shown origin is a verified one.
    const Result<Origin> origin = Origin::ofUrl(url, m_overrides);
    m_origin->setText(origin && m_policy.contains(*origin) ? origin->toString() : QString());
}

void SignInView::confirm()
{
    if (m_done || m_state->busy())
        return;
    m_done = true;
    m_confirm->setEnabled(false);
    m_status->setText(tr("Reading the session…"));
    const QUrl confirmedUrl = m_page->url();
    m_state->exportState(m_policy.origins(), [this, confirmedUrl](Result<SessionState> state) {
        // Whatever happens next, the store is cleared: the session leaves only through the
        // hand-off.
        m_profile->cookieStore()->deleteAllCookies();
        if (!state) {
            m_status->setText(tr("The session could not be read; cancel and try again."));
            Q_EMIT failed();
            return;
        }
        m_status->setText(tr("Verifying…"));
        Q_EMIT confirmed(confirmedUrl, *state);
    });
}

} // namespace veetbot
