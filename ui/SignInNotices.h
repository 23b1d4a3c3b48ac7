#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QUuid>

#include <functional>
#include <memory>
#include <optional>

class QVBoxLayout;
class QWidget;

namespace veetbot {

// The owner's "Sign in to <site> again" notices: one row, in one small window, for each
// website whose profile waits for the owner to sign in again (NEEDS_USER: a run met a
// sign-in wall and waits; it goes on by itself after a verified sign-in). Each row has the
// sign-in button (signInRequested) and Later.
//
// One notice per blocker. A blocker begins when refresh() first sees a profile in NEEDS_USER
// (the profile's id at that generation). It ends when a refresh sees the profile out of
// NEEDS_USER or gone, or signed in meanwhile (a newer verification time): its row then
// closes itself, and a later NEEDS_USER is a new blocker with a new row. A generation
// advance with the status still NEEDS_USER (a sign-in began, or one failed) is the same
// blocker: it never brings a second row. Later, or closing the window (Esc), hides a
// blocker's row for good; Website Access still shows the status.
//
// It shows the website's origin and nothing else of the profile, never page content, and
// logs nothing.
class SignInNotices : public QObject
{
    Q_OBJECT
public:
    using ProfileLister = std::function<Result<QList<BrowserProfile>>()>;

    explicit SignInNotices(ProfileLister listProfiles, QObject *parent = nullptr);
    ~SignInNotices() override;

    // Reads the profiles now and brings the rows in line with them. A failed read keeps
    // what is shown.
    void refresh();

    // The rows shown now, one per blocker, in the order they came; each holds its sign-in
    // and Later buttons.
    QList<QWidget *> notices() const;
    // The window the rows are in (hidden while there is none).
    QWidget *window() const { return m_window.get(); }

Q_SIGNALS:
    // The owner chose "Sign in to <site> again".
    void signInRequested(const QUuid &profileId);
    // A notice's row came (its website's origin), or went (signed in, Later, closed, gone).
    void noticeShown(const QUuid &profileId, const QString &site);
    void noticeGone(const QUuid &profileId);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Blocker
    {
        QUuid profileId;
        std::optional<QDateTime> lastVerifiedAt;
        QWidget *row = nullptr; // null once the owner chose Later
    };

    QWidget *addRow(const BrowserProfile &profile);
    void later(const QUuid &profileId);
    void closeRow(Blocker &blocker);
    void showWindow(bool cameNew);

    ProfileLister m_listProfiles;
    QList<Blocker> m_blockers;
    std::unique_ptr<QWidget> m_window;
    QVBoxLayout *m_rows = nullptr;
};

} // namespace veetbot
