#pragma once

#include "client/WebsiteAccess.h"
#include "domain/Result.h"
#include "domain/web/TestOverrides.h"

#include <QDBusConnection>
#include <QObject>
#include <QTimer>

#include <memory>

class QSettings;

namespace veetbot {

class ApprovalBroker;
class ApprovalsWindow;
class DesktopNotifications;
class GettingStarted;
class MainWindow;
class RunsWindow;
class SignInNotices;
class TaskLauncher;
class WebsiteAccessWindow;

// The workbench as the owner has it: the main window and its sections (Start here, Websites,
// Approvals, Activity, Settings), the approval cards served on the runtime directory's socket,
// the sign-in notices, and the desktop notifications and tray count that make a waiting card
// seen. One of these per process (app/workbench/main.cpp); tests build it the same way.
class Workbench : public QObject
{
    Q_OBJECT
public:
    // Desktop notifications go to the notification server on `bus`.
    explicit Workbench(TestOverrides overrides, QDBusConnection bus = QDBusConnection::sessionBus(),
                       QObject *parent = nullptr);
    ~Workbench() override;

    // Shows the window on its last section (first run: Start here, once the websites are read);
    // `background` (the autostart entry) keeps it in the tray where there is one.
    void show(bool background = false);

    MainWindow &window() { return *m_main; }
    ApprovalsWindow *approvals() const { return m_approvals; }
    ApprovalBroker &broker() { return *m_broker; }
    WebsiteAccessWindow *websites() const { return m_websites; }
    GettingStarted *start() const { return m_start; }
    RunsWindow *runs() const { return m_runs; }
    RunsWindow *tasks() const { return m_tasks; }
    DesktopNotifications &notifications() { return *m_desktop; }
    SignInNotices *notices() const { return m_notices.get(); }
    // The settings file's path (the window's geometry and section, the model endpoint).
    QString settingsPath() const;

Q_SIGNALS:
    void quitRequested();

private:
    void countWaiting();
    void onQuestion(quint64 key, const QString &host);
    // A notification was clicked: its card, or its sign-in notice, comes forward.
    void openSubject(const QString &subject);

    TestOverrides m_overrides;
    Result<MetadataStore> m_metadata;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<ApprovalBroker> m_broker;
    std::unique_ptr<DesktopNotifications> m_desktop;
    std::unique_ptr<TaskLauncher> m_launcher;
    std::unique_ptr<SignInNotices> m_notices;
    std::unique_ptr<MainWindow> m_main;
    ApprovalsWindow *m_approvals = nullptr;
    WebsiteAccessWindow *m_websites = nullptr;
    GettingStarted *m_start = nullptr;
    RunsWindow *m_runs = nullptr;
    RunsWindow *m_tasks = nullptr;
    QTimer m_noticeReads;
    bool m_firstList = true;
};

} // namespace veetbot
