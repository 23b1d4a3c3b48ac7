#include "SignInNotices.h"

#include "Palette.h"

#include <QCloseEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

#include <algorithm>

namespace veetbot {

namespace {

// The website as the owner knows it: its origin without the scheme (https always).
QString siteOf(const BrowserProfile &profile)
{
    const QString origin = profile.allowedOrigins.constFirst().toString();
    return origin.mid(origin.indexOf(QLatin1String("://")) + 3);
}

QLabel *plain(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setAccessibleName(text);
    return label;
}

} // namespace

SignInNotices::SignInNotices(ProfileLister listProfiles, QObject *parent)
    : QObject(parent), m_listProfiles(std::move(listProfiles)), m_window(new QWidget)
{
    m_window->setWindowTitle(tr("Sign in again — Veetbot Workbench"));
    m_window->setAccessibleName(tr("Sign-in notices"));
    // A notice alone does not keep the workbench running once Website Access is closed.
    m_window->setAttribute(Qt::WA_QuitOnClose, false);
    m_rows = new QVBoxLayout(m_window.get());
    m_rows->setSizeConstraint(QLayout::SetFixedSize);
    // Closing the window, or Esc, is Later for every row in it.
    m_window->installEventFilter(this);
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), m_window.get());
    connect(escape, &QShortcut::activated, m_window.get(), &QWidget::close);
}

SignInNotices::~SignInNotices() = default;

void SignInNotices::refresh()
{
    const Result<QList<BrowserProfile>> listed = m_listProfiles();
    if (!listed)
        return; // the store is busy or gone: keep what is shown, read again shortly
    const auto find = [&listed](const QUuid &id) -> const BrowserProfile * {
        const auto found = std::find_if(listed->cbegin(), listed->cend(),
                                        [&id](const BrowserProfile &p) { return p.id == id; });
        return found == listed->cend() ? nullptr : &*found;
    };
    // Blockers that ended: the profile left NEEDS_USER, is gone, or was signed in meanwhile.
    for (qsizetype i = m_blockers.size() - 1; i >= 0; --i) {
        Blocker &blocker = m_blockers[i];
        const BrowserProfile *profile = find(blocker.profileId);
        if (profile && profile->status == ProfileStatus::NeedsUser &&
            profile->lastVerifiedAt == blocker.lastVerifiedAt)
            continue;
        closeRow(blocker);
        m_blockers.removeAt(i);
    }
    bool cameNew = false;
    for (const BrowserProfile &profile : *listed) {
        if (profile.status != ProfileStatus::NeedsUser || profile.allowedOrigins.isEmpty())
            continue;
        const bool known =
            std::any_of(m_blockers.cbegin(), m_blockers.cend(),
                        [&profile](const Blocker &b) { return b.profileId == profile.id; });
        if (known)
            continue;
        m_blockers.append(Blocker{.profileId = profile.id,
                                  .lastVerifiedAt = profile.lastVerifiedAt,
                                  .row = addRow(profile)});
        cameNew = true;
        Q_EMIT noticeShown(profile.id, siteOf(profile));
    }
    showWindow(cameNew);
}

QList<QWidget *> SignInNotices::notices() const
{
    QList<QWidget *> rows;
    for (const Blocker &blocker : m_blockers) {
        if (blocker.row)
            rows << blocker.row;
    }
    return rows;
}

QWidget *SignInNotices::addRow(const BrowserProfile &profile)
{
    const QString site = siteOf(profile);
    auto *row = new QFrame(m_window.get());
    row->setObjectName(QStringLiteral("signInNotice"));
    row->setMinimumWidth(440);
    row->setAccessibleName(tr("Sign-in notice for %1").arg(site));
    row->setStyleSheet(QStringLiteral("QFrame#signInNotice { %1 border: 1px solid #e6d08a; "
                                      "border-radius: 6px; } QFrame#signInNotice QLabel { "
                                      "color: #2b2300; }")
                           .arg(Palette::highlightStyle()));
    auto *layout = new QVBoxLayout(row);
    layout->setContentsMargins(14, 12, 14, 12);
    layout->setSpacing(8);

    const QString action = tr("Sign in to %1 again").arg(site);
    QLabel *title = plain(action, row);
    QFont bold = title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    title->setFont(bold);
    layout->addWidget(title);
    layout->addWidget(plain(tr("The website asked to sign in again. Agents cannot use it until "
                               "you do; a waiting task then goes on by itself."),
                            row));

    auto *buttons = new QHBoxLayout;
    auto *signIn = new QPushButton(action, row);
    signIn->setAccessibleName(action);
    signIn->setDefault(true);
    auto *later = new QPushButton(tr("Later"), row);
    later->setAccessibleName(tr("Later"));
    later->setAccessibleDescription(
        tr("Hides this notice. Website Access still shows that the website needs you."));
    buttons->addWidget(signIn);
    buttons->addStretch(1);
    buttons->addWidget(later);
    layout->addLayout(buttons);
    row->setFocusProxy(signIn);

    const QUuid id = profile.id;
    connect(signIn, &QPushButton::clicked, this, [this, id] { Q_EMIT signInRequested(id); });
    connect(later, &QPushButton::clicked, this, [this, id] { this->later(id); });
    m_rows->addWidget(row);
    row->show(); // a child added to a window already shown stays hidden otherwise
    return row;
}

void SignInNotices::later(const QUuid &profileId)
{
    for (Blocker &blocker : m_blockers) {
        if (blocker.profileId == profileId)
            closeRow(blocker); // the blocker stays known, so it brings no row again
    }
    showWindow(false);
}

void SignInNotices::closeRow(Blocker &blocker)
{
    if (!blocker.row)
        return;
    blocker.row->hide();
    m_rows->removeWidget(blocker.row);
    blocker.row->deleteLater();
    blocker.row = nullptr;
    Q_EMIT noticeGone(blocker.profileId);
}

void SignInNotices::showWindow(bool cameNew)
{
    const QList<QWidget *> rows = notices();
    if (rows.isEmpty()) {
        m_window->hide();
        return;
    }
    m_rows->activate(); // the window fits its rows now, not at the next layout pass
    if (!m_window->focusWidget())
        rows.constFirst()->setFocus(Qt::OtherFocusReason);
    if (cameNew) {
        m_window->show();
        m_window->raise();
    }
}

bool SignInNotices::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window.get() && event->type() == QEvent::Close) {
        for (Blocker &blocker : m_blockers)
            closeRow(blocker);
    }
    return QObject::eventFilter(watched, event);
}

} // namespace veetbot
