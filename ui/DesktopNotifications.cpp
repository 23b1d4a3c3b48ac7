#include "DesktopNotifications.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QVariantMap>

namespace veetbot {

namespace {

const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");
constexpr int kCallMs = 3000;

} // namespace

DesktopNotifications::DesktopNotifications(QDBusConnection bus, QObject *parent)
    : QObject(parent), m_bus(std::move(bus))
{
    if (!m_bus.isConnected())
        return;
    m_bus.connect(kService, kPath, kInterface, QStringLiteral("ActionInvoked"), this,
                  SLOT(onActionInvoked(uint, QString)));
    m_bus.connect(kService, kPath, kInterface, QStringLiteral("NotificationClosed"), this,
                  SLOT(onClosed(uint, uint)));
}

void DesktopNotifications::notify(const QString &subject, const QString &summary,
                                  const QString &body)
{
    if (!m_bus.isConnected())
        return;
    uint replaces = 0;
    for (auto it = m_subjects.cbegin(); it != m_subjects.cend(); ++it) {
        if (it.value() == subject)
            replaces = it.key();
    }
    QDBusMessage call =
        QDBusMessage::createMethodCall(kService, kPath, kInterface, QStringLiteral("Notify"));
    const QVariantMap hints{
        {QStringLiteral("desktop-entry"), QStringLiteral("org.veetbot.Workbench")},
        {QStringLiteral("urgency"), QVariant::fromValue(uchar(1))}};
    call << QStringLiteral("Veetbot Workbench") << replaces
         << QStringLiteral("org.veetbot.Workbench") << summary << body
         << QStringList{QStringLiteral("default"), tr("Open")} << hints << int(-1);
    ++m_pending[subject];
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, kCallMs), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, subject, replaces](QDBusPendingCallWatcher *done) {
                done->deleteLater();
                bool withdrawn = m_withdrawn.contains(subject);
                if (--m_pending[subject] == 0) {
                    m_pending.remove(subject);
                    m_withdrawn.remove(subject);
                }
                const QDBusPendingReply<uint> reply = *done;
                if (reply.isError() || reply.value() == 0)
                    return;
                m_subjects.remove(replaces);
                if (withdrawn) {
                    close(reply.value()); // answered before the server took it
                    return;
                }
                m_subjects.insert(reply.value(), subject);
            });
}

void DesktopNotifications::withdraw(const QString &subject)
{
    bool found = false;
    for (auto it = m_subjects.begin(); it != m_subjects.end();) {
        if (it.value() != subject) {
            ++it;
            continue;
        }
        close(it.key());
        it = m_subjects.erase(it);
        found = true;
    }
    if (!found && m_pending.contains(subject))
        m_withdrawn.insert(subject); // on its way: closed once the server says its id
}

void DesktopNotifications::close(uint id)
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface,
                                                       QStringLiteral("CloseNotification"));
    call << id;
    m_bus.call(call, QDBus::NoBlock);
}

void DesktopNotifications::onActionInvoked(uint id, const QString &action)
{
    const auto it = m_subjects.constFind(id);
    if (it == m_subjects.cend() || action != QLatin1String("default"))
        return;
    const QString subject = it.value();
    Q_EMIT opened(subject);
}

void DesktopNotifications::onClosed(uint id, uint)
{
    m_subjects.remove(id);
}

} // namespace veetbot
