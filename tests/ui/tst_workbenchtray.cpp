// The workbench's tray icon on a real system tray: an X server of the test's own (Xvfb) with
// trayer, the freedesktop XEmbed tray, and the workbench's window on the xcb platform (not the
// offscreen one, which has no tray). The icon's count and tooltip follow what waits, a click
// on the icon brings the window forward, closing the window keeps the workbench in the tray
// while agents are connected (the note once) and quits it when none is.

#include "EventWait.h"
#include "MainWindow.h"

#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace veetbot;

namespace {

pid_t g_xvfb = 0;
pid_t g_tray = 0;

pid_t spawn(const std::vector<std::string> &argv, int keepFd = -1)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (keepFd >= 0)
            ::dup2(keepFd, 3);
        std::vector<char *> args;
        for (const std::string &arg : argv)
            args.push_back(const_cast<char *>(arg.c_str()));
        args.push_back(nullptr);
        ::execvp(args.front(), args.data());
        ::_exit(127);
    }
    return pid;
}

void stopAll()
{
    for (pid_t *pid : {&g_tray, &g_xvfb}) {
        if (*pid > 0) {
            ::kill(*pid, SIGTERM);
            ::waitpid(*pid, nullptr, 0);
            *pid = 0;
        }
    }
}

// Xvfb on a free display (its number read from the descriptor it writes it to), then trayer.
bool startDisplayWithTray()
{
    int fds[2];
    if (::pipe(fds) != 0)
        return false;
    g_xvfb = spawn({"Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp"},
                   fds[1]);
    ::close(fds[1]);
    std::string number;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n')
        number += c;
    ::close(fds[0]);
    if (number.empty())
        return false;
    ::setenv("DISPLAY", (":" + number).c_str(), 1);
    g_tray = spawn({"trayer", "--edge", "top", "--align", "right", "--width", "10"});
    return g_tray > 0;
}

} // namespace

class TestWorkbenchTray : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void theIconCountsAndItsClickBringsTheWindow();
    void closingKeepsItInTheTrayWhileAgentsAreConnected();

private:
    QTemporaryDir m_dir;
};

void TestWorkbenchTray::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
    // trayer takes the tray selection a moment after it starts.
    QVERIFY(
        testing::runEventsUntil([] { return QSystemTrayIcon::isSystemTrayAvailable(); }, 20000));
}

void TestWorkbenchTray::theIconCountsAndItsClickBringsTheWindow()
{
    QSettings settings(m_dir.filePath(QStringLiteral("count.ini")), QSettings::IniFormat);
    MainWindow window(&settings);
    window.addSection(MainWindow::Section::Approvals, new QLabel(QStringLiteral("cards")));
    QVERIFY(window.hasTray());
    QSystemTrayIcon *tray = window.trayIcon();
    const QImage plain = tray->icon().pixmap(64, 64).toImage();
    window.setWaiting(2, 1);
    QCOMPARE(tray->toolTip(),
             QStringLiteral("Veetbot Workbench — 2 approvals waiting, 1 website to sign in to "
                            "again"));
    QVERIFY(tray->icon().pixmap(64, 64).toImage() != plain); // the badge
    window.setWaiting(0, 0);
    QCOMPARE(tray->icon().pixmap(64, 64).toImage(), plain);
    QCOMPARE(tray->toolTip(), QStringLiteral("Veetbot Workbench — nothing waits for you"));

    // The icon is a widget the tray embedded (XEmbed) at the screen's top right; the owner
    // clicks it.
    QWidget *icon = nullptr;
    QVERIFY(testing::runEventsUntil(
        [&icon] {
            for (QWidget *candidate : QApplication::topLevelWidgets())
                if (candidate->inherits("QSystemTrayIconSys") && candidate->isVisible())
                    icon = candidate;
            return icon != nullptr;
        },
        10000));
    QVERIFY(!window.isVisible());
    QTest::mouseClick(icon, Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&window] { return window.isVisible(); }, 10000));
}

void TestWorkbenchTray::closingKeepsItInTheTrayWhileAgentsAreConnected()
{
    QSettings settings(m_dir.filePath(QStringLiteral("close.ini")), QSettings::IniFormat);
    MainWindow window(&settings);
    window.addSection(MainWindow::Section::Approvals, new QLabel(QStringLiteral("cards")));
    bool agents = true;
    window.setAgentsConnected([&agents] { return agents; });
    QSignalSpy quit(&window, &MainWindow::quitRequested);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Agents are connected: the window goes to the tray, with the note the first time only.
    window.close();
    QVERIFY(!window.isVisible());
    QCOMPARE(quit.size(), 0);
    QVERIFY(settings.value(QStringLiteral("window/trayNoteShown")).toBool());
    const auto noteShown = [] {
        for (QWidget *widget : QApplication::topLevelWidgets())
            if (widget->inherits("QBalloonTip") && widget->isVisible())
                return true;
        return false;
    };
    QVERIFY(testing::runEventsUntil(noteShown, 5000)); // the tray's own balloon here
    window.bringForward();
    QVERIFY(testing::runEventsUntil([&window] { return window.isVisible(); }, 5000));
    window.close();
    QVERIFY(!window.isVisible());
    QCOMPARE(quit.size(), 0);
    // None is: closing quits.
    window.bringForward();
    QVERIFY(testing::runEventsUntil([&window] { return window.isVisible(); }, 5000));
    agents = false;
    window.close();
    QCOMPARE(quit.size(), 1);
}

int main(int argc, char **argv)
{
    // The X server and its tray come before the application, which connects to the display
    // as it starts. No session bus: the tray is trayer's (XEmbed), not a StatusNotifierItem.
    if (!startDisplayWithTray()) {
        std::fprintf(stderr, "tst_workbenchtray: Xvfb and trayer did not start\n");
        stopAll();
        return 1;
    }
    ::setenv("QT_QPA_PLATFORM", "xcb", 1);
    ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
    int result = 0;
    {
        QApplication app(argc, argv);
        TestWorkbenchTray test;
        result = QTest::qExec(&test, argc, argv);
    }
    stopAll();
    return result;
}

#include "tst_workbenchtray.moc"
