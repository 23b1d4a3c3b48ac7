#pragma once

#include <QByteArray>
#include <QDBusConnection>
#include <QProcess>
#include <QString>

#include <memory>

namespace veetbot::testing {

// A real desktop notification server for a test: an X server of its own (Xvfb), a private
// D-Bus session bus, and dunst on them. The owner's click on a notification is dunst's own
// (`dunstctl action`), which performs the notification's default action.
class NotificationServer
{
public:
    ~NotificationServer();
    bool start(QString *error);
    QDBusConnection bus() const;
    // The private session bus's address, for a program this test starts.
    QString address() const { return m_address; }
    // Clicks the newest notification shown (performs its default action); false on failure.
    bool clickNewest();
    // How many notifications dunst shows now.
    int displayed();
    // The summaries and bodies of every notification shown or in the history, as dunst keeps
    // them: what a notification server may write down.
    QByteArray keptText();
    // How many notifications dunst has shown since it started: those shown now and those in its
    // history (-1 when it does not answer).
    int kept();

private:
    QByteArray ctl(const QStringList &arguments);
    QProcessEnvironment environment() const;

    std::unique_ptr<QProcess> m_xvfb;
    std::unique_ptr<QProcess> m_bus;
    std::unique_ptr<QProcess> m_dunst;
    QString m_display;
    QString m_address;
};

} // namespace veetbot::testing
