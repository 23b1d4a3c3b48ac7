#include "NotificationServer.h"

#include "EventWait.h"

#include <QDBusConnectionInterface>
#include <QDBusReply>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <unistd.h>

namespace veetbot::testing {

namespace {

const QString kConnection = QStringLiteral("veetbot-test-notifications");

void stop(std::unique_ptr<QProcess> &process)
{
    if (!process)
        return;
    if (process->state() != QProcess::NotRunning) {
        process->terminate();
        if (!process->waitForFinished(3000)) {
            process->kill();
            process->waitForFinished(3000);
        }
    }
    process.reset();
}

} // namespace

NotificationServer::~NotificationServer()
{
    QDBusConnection::disconnectFromBus(kConnection);
    stop(m_dunst);
    stop(m_bus);
    stop(m_xvfb);
}

QProcessEnvironment NotificationServer::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DISPLAY"), m_display);
    env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), m_address);
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    return env;
}

bool NotificationServer::start(QString *error)
{
    // Xvfb picks a free display and writes its number to the descriptor it is given.
    int fds[2];
    if (::pipe(fds) != 0) {
        *error = QStringLiteral("pipe failed");
        return false;
    }
    m_xvfb = std::make_unique<QProcess>();
    m_xvfb->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_xvfb->setStandardOutputFile(QProcess::nullDevice());
    const int writeEnd = fds[1];
    m_xvfb->setChildProcessModifier([writeEnd] { ::dup2(writeEnd, 3); });
    m_xvfb->start(QStringLiteral("Xvfb"),
                  {QStringLiteral("-displayfd"), QStringLiteral("3"), QStringLiteral("-screen"),
                   QStringLiteral("0"), QStringLiteral("1024x768x24"), QStringLiteral("-nolisten"),
                   QStringLiteral("tcp")});
    ::close(writeEnd);
    QByteArray number;
    if (m_xvfb->waitForStarted(10000)) {
        char c = 0;
        while (::read(fds[0], &c, 1) == 1 && c != '\n')
            number += c;
    }
    ::close(fds[0]);
    if (number.isEmpty()) {
        *error = QStringLiteral("Xvfb did not start");
        return false;
    }
    m_display = QLatin1Char(':') + QString::fromLatin1(number);

    m_bus = std::make_unique<QProcess>();
    m_bus->start(QStringLiteral("dbus-daemon"),
                 {QStringLiteral("--session"), QStringLiteral("--nofork"),
                  QStringLiteral("--print-address=1")});
    if (!m_bus->waitForStarted(10000) ||
        !runEventsUntil([this] { return m_bus->canReadLine(); }, 10000)) {
        *error = QStringLiteral("dbus-daemon did not start");
        return false;
    }
    m_address = QString::fromUtf8(m_bus->readLine().trimmed());

    m_dunst = std::make_unique<QProcess>();
    m_dunst->setProcessEnvironment(environment());
    // dunst's own notes (an icon name it cannot find in the test's theme) are not the test's.
    m_dunst->setStandardOutputFile(QProcess::nullDevice());
    m_dunst->setStandardErrorFile(QProcess::nullDevice());
    m_dunst->start(QStringLiteral("dunst"), {});
    if (!m_dunst->waitForStarted(10000)) {
        *error = QStringLiteral("dunst did not start");
        return false;
    }
    const QDBusConnection connection = QDBusConnection::connectToBus(m_address, kConnection);
    if (!connection.isConnected()) {
        *error = QStringLiteral("the private bus does not answer");
        return false;
    }
    const bool registered = runEventsUntil(
        [&connection] {
            const QDBusReply<bool> there = connection.interface()->isServiceRegistered(
                QStringLiteral("org.freedesktop.Notifications"));
            return there.isValid() && there.value();
        },
        10000);
    if (!registered)
        *error = QStringLiteral("dunst did not take org.freedesktop.Notifications");
    return registered;
}

QDBusConnection NotificationServer::bus() const
{
    return QDBusConnection(kConnection);
}

QByteArray NotificationServer::ctl(const QStringList &arguments)
{
    QProcess process;
    process.setProcessEnvironment(environment());
    process.start(QStringLiteral("dunstctl"), arguments);
    // Not a blocking wait: dunst answers over the bus this process also serves.
    if (!process.waitForStarted(10000) ||
        !runEventsUntil([&process] { return process.state() == QProcess::NotRunning; }, 10000))
        return QByteArray();
    return process.exitCode() == 0 ? process.readAllStandardOutput() : QByteArray();
}

bool NotificationServer::clickNewest()
{
    QProcess process;
    process.setProcessEnvironment(environment());
    process.start(QStringLiteral("dunstctl"), {QStringLiteral("action"), QStringLiteral("0")});
    return process.waitForStarted(10000) &&
           runEventsUntil([&process] { return process.state() == QProcess::NotRunning; }, 10000) &&
           process.exitCode() == 0;
}

int NotificationServer::displayed()
{
    const QRegularExpression shown(QStringLiteral("Currently displayed:\\s*(\\d+)"));
    const QRegularExpressionMatch match =
        shown.match(QString::fromUtf8(ctl({QStringLiteral("count")})));
    return match.hasMatch() ? match.captured(1).toInt() : -1;
}

QByteArray NotificationServer::keptText()
{
    (void)ctl({QStringLiteral("close-all")}); // what is shown goes to the history too
    return ctl({QStringLiteral("history")});
}

int NotificationServer::kept()
{
    (void)ctl({QStringLiteral("close-all")}); // what is shown goes to the history too
    // {"type": "aa{sv}", "data": [[{...}, ...]]}: one object per notification.
    const QJsonDocument history = QJsonDocument::fromJson(ctl({QStringLiteral("history")}));
    const QJsonArray data = history.object().value(QLatin1String("data")).toArray();
    return data.isEmpty() ? -1 : int(data.first().toArray().size());
}

} // namespace veetbot::testing
