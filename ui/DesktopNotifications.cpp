#include "DesktopNotifications.h"

#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusReply>
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

bool DesktopNotifications::available() const
{
    if (!m_bus.isConnected() || !m_bus.interface())
        return false;
    const QDBusReply<bool> registered = m_bus.interface()->isServiceRegistered(kService);
    if (registered.isValid() && registered.value())
        return true;
    // A server that is started on demand (D-Bus activation) is there too.
    const QDBusReply<QStringList> activatable = m_bus.interface()->activatableServiceNames();
    return activatable.isValid() && activatable.value().contains(kService);
}

bool DesktopNotifications::notify(const QString &subject, const QString &summary,
                                  const QString &body)
{
    if (!m_bus.isConnected())
        return false;
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
    const QDBusReply<uint> reply = m_bus.call(call, QDBus::Block, kCallMs);
    if (!reply.isValid() || reply.value() == 0)
        return false;
    m_subjects.remove(replaces);
    m_subjects.insert(reply.value(), subject);
    return true;
}

void DesktopNotifications::withdraw(const QString &subject)
{
    for (auto it = m_subjects.begin(); it != m_subjects.end();) {
        if (it.value() != subject) {
            ++it;
            continue;
        }
        QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface,
                                                           QStringLiteral("CloseNotification"));
        call << it.key();
        m_bus.call(call, QDBus::NoBlock);
        it = m_subjects.erase(it);
    }
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
