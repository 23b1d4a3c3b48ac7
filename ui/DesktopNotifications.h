#pragma once

#include <QDBusConnection>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

namespace veetbot {

// Desktop notifications through the freedesktop notification server
// (org.freedesktop.Notifications on the session bus). Each notification has one action, the
// default one ("Open"): the server reports it when the owner clicks the notification, and
// opened() names what it was about. A notification never answers anything by itself: it only
// opens the workbench where the owner answers. Its text is the workbench's own words and a
// website's host, never page content, for notification servers keep a history.
class DesktopNotifications : public QObject
{
    Q_OBJECT
public:
    explicit DesktopNotifications(QDBusConnection bus = QDBusConnection::sessionBus(),
                                  QObject *parent = nullptr);

    // Shows a notification about `subject` (the caller's own key), replacing the one shown
    // about it. Asynchronous: a notification server that is slow or absent never holds the
    // window up; without one nothing is shown.
    void notify(const QString &subject, const QString &summary, const QString &body);
    // Closes the notification about `subject`, if one is shown or on its way (its card was
    // answered).
    void withdraw(const QString &subject);
    // Notifications the server took and that are still shown.
    int shown() const { return int(m_subjects.size()); }

Q_SIGNALS:
    void opened(const QString &subject);

private Q_SLOTS:
    void onActionInvoked(uint id, const QString &action);
    void onClosed(uint id, uint reason);

private:
    void close(uint id);

    QDBusConnection m_bus;
    QHash<uint, QString> m_subjects; // notification id → subject
    QHash<QString, int> m_pending;   // subjects whose Notify is on its way, how many
    QSet<QString> m_withdrawn;       // of those, the ones withdrawn meanwhile
};

} // namespace veetbot
