#include "WebsiteAccessWindow.h"

#include "RemoteSignInWindow.h"
#include "SignInWindow.h"
#include "client/WebsiteAccess.h"
#include "domain/web/Origin.h"
#include "service/client/SessionFile.h"

#include <QApplication>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace veetbot {

namespace {

QString statusText(ProfileStatus status)
{
    switch (status) {
    case ProfileStatus::Provisioning:
        return QObject::tr("Setting up");
    case ProfileStatus::AuthenticationRequired:
        return QObject::tr("Sign-in needed");
    case ProfileStatus::Ready:
        return QObject::tr("Ready");
    case ProfileStatus::NeedsUser:
        return QObject::tr("Needs you");
    case ProfileStatus::Revoked:
        return QObject::tr("Revoked");
    }
    return QString();
}

QString when(const std::optional<QDateTime> &time)
{
    return time ? QLocale().toString(time->toLocalTime(), QLocale::ShortFormat)
                : QObject::tr("Never");
}

} // namespace

WebsiteAccessWindow::WebsiteAccessWindow(TestOverrides overrides, QWidget *parent)
    : QMainWindow(parent), m_overrides(std::move(overrides)),
      m_client(new WebsiteAccessClient(this))
{
    setWindowTitle(tr("Website Access — Veetbot Workbench"));
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);

    auto *intro = new QLabel(tr("Websites your agents may use as you. Sign in once here; your "
                                "password never reaches an agent."),
                             central);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *addRow = new QHBoxLayout;
    m_address = new QLineEdit(central);
    m_address->setPlaceholderText(tr("Website address, such as shop.example or its sign-in page"));
    m_address->setAccessibleName(tr("Website address"));
    m_add = new QPushButton(tr("&Add website"), central);
    m_add->setAccessibleName(tr("Add website"));
    addRow->addWidget(m_address, 1);
    addRow->addWidget(m_add);
    layout->addLayout(addRow);
    // A sign-in that goes through an accounts host of another origin works only when that
    // origin is the profile's too.
    m_signInOrigins = new QLineEdit(central);
    m_signInOrigins->setPlaceholderText(
        tr("Optional: where its sign-in also goes, such as accounts.example.com"));
    m_signInOrigins->setAccessibleName(tr("Sign-in origins"));
    m_signInOrigins->setToolTip(tr("A website whose sign-in passes through another address (an "
                                   "accounts or identity provider site) needs that address "
                                   "here too; agents may then use it as well."));
    layout->addWidget(m_signInOrigins);

    m_table = new QTableWidget(0, 5, central);
    m_table->setHorizontalHeaderLabels(
        {tr("Website"), tr("Status"), tr("Signed in as"), tr("Last used"), tr("Last verified")});
    m_table->horizontalHeaderItem(2)->setToolTip(
        tr("The account the website showed when the sign-in was verified, masked. Shown for a "
           "website with a site verification definition (docs/signin.md, \"Which account\")."));
    m_table->setAccessibleName(tr("Websites"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < m_table->columnCount(); ++column)
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);

    auto *actions = new QHBoxLayout;
    // Sign in: the secure browser by default; the other ways on its menu.
    m_signInButton = new QToolButton(central);
    m_signInButton->setText(tr("&Sign in"));
    m_signInButton->setAccessibleName(tr("Sign in to the selected website"));
    m_signInButton->setToolTip(tr("Sign in in a secure browser run by Veetbot; the arrow offers "
                                  "the other ways"));
    m_signInButton->setPopupMode(QToolButton::MenuButtonPopup);
    auto *ways = new QMenu(m_signInButton);
    ways->addAction(tr("In a &secure browser"), this,
                    [this] { signInSelected(SignInWay::SecureBrowser); });
    ways->addAction(tr("In &this window"), this, [this] { signInSelected(SignInWay::ThisWindow); });
    ways->addAction(tr("&Import a session file…"), this,
                    [this] { signInSelected(SignInWay::SessionFile); });
    m_signInButton->setMenu(ways);
    m_revoke = new QPushButton(tr("&Revoke"), central);
    m_revoke->setAccessibleName(tr("Revoke the selected website"));
    m_delete = new QPushButton(tr("&Delete"), central);
    m_delete->setAccessibleName(tr("Delete the selected website"));
    actions->addWidget(m_signInButton);
    actions->addStretch(1);
    actions->addWidget(m_revoke);
    actions->addWidget(m_delete);
    layout->addLayout(actions);
    setCentralWidget(central);

    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText);
    statusBar()->addWidget(m_status, 1);

    const auto add = [this] { addWebsite(m_address->text(), m_signInOrigins->text()); };
    connect(m_add, &QPushButton::clicked, this, add);
    connect(m_address, &QLineEdit::returnPressed, this, add);
    connect(m_signInOrigins, &QLineEdit::returnPressed, this, add);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            &WebsiteAccessWindow::updateButtons);
    connect(m_signInButton, &QToolButton::clicked, this,
            [this] { signInSelected(SignInWay::SecureBrowser); });
    connect(m_revoke, &QPushButton::clicked, this, &WebsiteAccessWindow::revokeSelected);
    connect(m_delete, &QPushButton::clicked, this, &WebsiteAccessWindow::deleteSelected);
    resize(900, 560);
    refresh();
}

WebsiteAccessWindow::~WebsiteAccessWindow() = default;

template <typename T>
WebsiteAccessClient::Done<T>
WebsiteAccessWindow::changed(std::function<void(const Result<T> &)> done)
{
    m_changing = true;
    updateButtons();
    return [this, done = std::move(done)](const Result<T> &answer) {
        m_changing = false;
        done(answer);
        updateButtons();
    };
}

QString WebsiteAccessWindow::statusText() const
{
    return m_status->text();
}

void WebsiteAccessWindow::showError(const Error &error)
{
    m_status->setText(error.message);
}

Result<QPair<Origin, QUrl>> WebsiteAccessWindow::parseAddress(const QString &text,
                                                              const TestOverrides &overrides)
{
    QString address = text.trimmed();
    if (!address.contains(QLatin1String("://")))
        address.prepend(QLatin1String("https://"));
    const Result<QUrl> url = PublicUrl::parse(address, overrides);
    if (!url)
        return url.error();
    const Result<Origin> origin = Origin::ofUrl(*url, overrides);
    if (!origin)
        return origin.error();
    return qMakePair(*origin, *url);
}

void WebsiteAccessWindow::refresh()
{
    if (m_refreshing)
        return;
    m_refreshing = true;
    m_client->listProfiles(this, [this](const Result<QList<BrowserProfile>> &listed) {
        m_refreshing = false;
        if (listed)
            showProfiles(*listed);
        else
            showError(listed.error());
        Q_EMIT refreshed();
    });
}

void WebsiteAccessWindow::showProfiles(const QList<BrowserProfile> &profiles)
{
    const std::optional<BrowserProfile> previous = selected();
    m_profiles = profiles;
    m_table->setRowCount(int(m_profiles.size()));
    for (int row = 0; row < m_profiles.size(); ++row) {
        const BrowserProfile &profile = m_profiles.at(row);
        QStringList origins;
        for (const Origin &origin : profile.allowedOrigins)
            origins << origin.toString();
        m_table->setItem(row, 0, new QTableWidgetItem(origins.join(QStringLiteral(", "))));
        m_table->setItem(row, 1, new QTableWidgetItem(veetbot::statusText(profile.status)));
        m_table->setItem(row, 2, new QTableWidgetItem(profile.verifiedAccount.value_or(QString())));
        m_table->setItem(row, 3, new QTableWidgetItem(when(profile.lastUsedAt)));
        m_table->setItem(row, 4, new QTableWidgetItem(when(profile.lastVerifiedAt)));
        if (previous && previous->id == profile.id)
            m_table->selectRow(row);
    }
    updateButtons();
}

std::optional<BrowserProfile> WebsiteAccessWindow::selected() const
{
    const int row = m_table->currentRow();
    if (row < 0 || row >= m_profiles.size() || m_table->selectedItems().isEmpty())
        return std::nullopt;
    return m_profiles.at(row);
}

bool WebsiteAccessWindow::canSignIn(const std::optional<BrowserProfile> &profile) const
{
    return !m_changing && !m_signIn && profile && profile->status != ProfileStatus::Revoked &&
           profile->status != ProfileStatus::Provisioning;
}

SignInWindow *WebsiteAccessWindow::signInWindow() const
{
    return qobject_cast<SignInWindow *>(m_signIn.data());
}

RemoteSignInWindow *WebsiteAccessWindow::remoteSignInWindow() const
{
    return qobject_cast<RemoteSignInWindow *>(m_signIn.data());
}

void WebsiteAccessWindow::signInSelected(SignInWay way)
{
    const std::optional<BrowserProfile> profile = selected();
    if (!canSignIn(profile))
        return;
    const QUrl start(profile->allowedOrigins.constFirst().toString() + '/');
    switch (way) {
    case SignInWay::SecureBrowser:
        signInRemotely(*profile, start);
        return;
    case SignInWay::ThisWindow:
        signIn(*profile, start, false);
        return;
    case SignInWay::SessionFile:
        importSessionFile(*profile);
        return;
    }
}

void WebsiteAccessWindow::signInRemotely(const BrowserProfile &profile, const QUrl &start)
{
    auto *window = new RemoteSignInWindow(profile, start);
    window->setAttribute(Qt::WA_DeleteOnClose);
    m_signIn = window;
    connect(window, &RemoteSignInWindow::finished, this, [this] { refresh(); });
    connect(window, &QObject::destroyed, this, [this] { refresh(); });
    window->show();
    updateButtons();
}

void WebsiteAccessWindow::importSessionFile(const BrowserProfile &profile)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a session file"), QString(),
                                                      tr("Session files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    // A hand-off file names its confirmed page; a browser's storage state needs one given.
    Result<SessionFile::Contents> contents =
        SessionFile::read(path, QString(), profile.allowedOrigins, m_overrides);
    if (!contents) {
        bool given = false;
        const QString page = QInputDialog::getText(
            this, tr("Import a session file"),
            tr("A page of the website only a signed-in account sees:"), QLineEdit::Normal,
            profile.allowedOrigins.constFirst().toString() + QLatin1Char('/'), &given);
        if (!given)
            return;
        contents = SessionFile::read(path, page, profile.allowedOrigins, m_overrides);
    }
    if (!contents) {
        showError(contents.error());
        return;
    }
    m_status->setText(tr("Verifying the imported session with the website…"));
    const CeremonyApi::Handoff handoff = contents->handoff;
    m_client->signInProfile(profile.id, handoff.confirmedUrl, handoff.state, this,
                            changed<BrowserProfile>([this](const Result<BrowserProfile> &done) {
                                refresh();
                                if (!done) {
                                    showError(done.error());
                                    return;
                                }
                                m_status->setText(tr("Signed in from the session file."));
                            }));
}

void WebsiteAccessWindow::signInAgain(const QUuid &profileId)
{
    show();
    raise();
    activateWindow();
    if (m_signIn) {
        m_signIn->show();
        m_signIn->raise();
        m_signIn->activateWindow();
        return;
    }
    if (m_changing) {
        m_status->setText(tr("A change is under way; choose Sign in once it is done."));
        return;
    }
    // The list as it is now, then that website's sign-in.
    m_client->listProfiles(this, [this, profileId](const Result<QList<BrowserProfile>> &listed) {
        if (!listed) {
            showError(listed.error());
            return;
        }
        showProfiles(*listed);
        for (int row = 0; row < m_profiles.size(); ++row) {
            if (m_profiles.at(row).id == profileId) {
                m_table->selectRow(row);
                signInSelected();
                return;
            }
        }
    });
}

void WebsiteAccessWindow::updateButtons()
{
    const std::optional<BrowserProfile> profile = selected();
    const bool idle = !m_changing && !m_signIn;
    m_add->setEnabled(idle);
    m_signInButton->setEnabled(canSignIn(profile));
    m_revoke->setEnabled(idle && profile && profile->status != ProfileStatus::Revoked);
    m_delete->setEnabled(idle && profile && profile->status == ProfileStatus::Revoked);
}

void WebsiteAccessWindow::addWebsite(const QString &address, const QString &signInOrigins)
{
    const Result<QPair<Origin, QUrl>> parsed = parseAddress(address, m_overrides);
    if (!parsed) {
        m_status->setText(tr("Give the website's address as https://name or name (a public "
                             "website, not an IP address or a local name)."));
        return;
    }
    const Origin origin = parsed->first;
    const QUrl start = parsed->second;
    QList<Origin> origins{origin};
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (const QString &extra : signInOrigins.split(separators, Qt::SkipEmptyParts)) {
        const Result<QPair<Origin, QUrl>> other = parseAddress(extra, m_overrides);
        if (!other) {
            m_status->setText(tr("Give each sign-in address as https://name or name (a public "
                                 "website, not an IP address or a local name)."));
            return;
        }
        if (!origins.contains(other->first))
            origins.append(other->first);
    }
    m_status->setText(tr("Adding %1…").arg(origin.toString()));
    m_client->createProfile(
        origins, this,
        changed<BrowserProfile>([this, start](const Result<BrowserProfile> &created) {
            if (!created) {
                showError(created.error());
                return;
            }
            m_address->clear();
            m_signInOrigins->clear();
            refresh();
            signIn(*created, start, true, true);
        }));
}

void WebsiteAccessWindow::signIn(const BrowserProfile &profile, const QUrl &start, bool brandNew,
                                 bool adoptsFirstRedirect)
{
    auto *window = new SignInWindow(profile, m_overrides, start, adoptsFirstRedirect);
    window->setAttribute(Qt::WA_DeleteOnClose);
    m_signIn = window;
    connect(
        window, &SignInWindow::finished, this,
        [this, profile, brandNew, window](bool ready, const QString &code) {
            refresh();
            const std::optional<QPair<Origin, QUrl>> adopted = window->adoptedOrigin();
            if (code == QLatin1String("origin_adopted") && adopted && brandNew) {
                // The website lives on its other name: the new profile is replaced by one
                // for that origin, and the sign-in goes on there (once).
                const QUuid id = profile.id;
                const Origin origin = adopted->first;
                const QUrl start = adopted->second;
                window->close();
                m_client->replaceProfile(
                    id, origin, this,
                    changed<BrowserProfile>([this, start](const Result<BrowserProfile> &created) {
                        refresh();
                        if (!created) {
                            showError(created.error());
                            return;
                        }
                        signIn(*created, start, true, false);
                    }));
                return;
            }
            // A brand-new website whose first sign-in did not end ready leaves nothing
            // behind: revoked, then deleted.
            if (!ready && brandNew) {
                const QUuid id = profile.id;
                m_client->discardProfile(id, this,
                                         changed<Unit>([this](const Result<Unit> &removed) {
                                             if (!removed)
                                                 showError(removed.error());
                                             refresh();
                                         }));
            }
        });
    connect(window, &QObject::destroyed, this, [this] { refresh(); });
    window->show();
    updateButtons();
}

void WebsiteAccessWindow::revokeSelected()
{
    const std::optional<BrowserProfile> profile = selected();
    if (!profile)
        return;
    if (QMessageBox::question(this, tr("Revoke website"),
                              tr("Revoke %1? Agents lose access at once; its saved sign-in "
                                 "can no longer be used.")
                                  .arg(profile->allowedOrigins.constFirst().toString()),
                              QMessageBox::Yes | QMessageBox::Cancel,
                              QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    const QUuid id = profile->id;
    m_client->revokeProfile(id, this,
                            changed<BrowserProfile>([this](const Result<BrowserProfile> &revoked) {
                                if (!revoked)
                                    showError(revoked.error());
                                else
                                    m_status->setText(tr("Revoked."));
                                refresh();
                            }));
}

void WebsiteAccessWindow::deleteSelected()
{
    const std::optional<BrowserProfile> profile = selected();
    if (!profile || profile->status != ProfileStatus::Revoked)
        return;
    if (QMessageBox::question(this, tr("Delete website"),
                              tr("Delete %1 and everything kept for it?")
                                  .arg(profile->allowedOrigins.constFirst().toString()),
                              QMessageBox::Yes | QMessageBox::Cancel,
                              QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    const QUuid id = profile->id;
    m_client->deleteProfile(id, this, changed<Unit>([this](const Result<Unit> &removed) {
                                if (!removed)
                                    showError(removed.error());
                                else
                                    m_status->setText(tr("Deleted."));
                                refresh();
                            }));
}

void WebsiteAccessWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    // A sign-in finished elsewhere, or an agent used a website: statuses are read again.
    if (event->type() == QEvent::ActivationChange && isActiveWindow() && !m_changing)
        refresh();
}

} // namespace veetbot
