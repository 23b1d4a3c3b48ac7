#pragma once

#include <QMainWindow>
#include <QPointer>

#include <functional>

class QListWidget;
class QSettings;
class QStackedWidget;
class QSystemTrayIcon;

namespace veetbot {

// The workbench's one window: a sidebar of sections (Start here, Websites, Approvals,
// Activity, Tasks, Schedules, Settings) beside the section shown. Each section is a page the
// composition (ui/Workbench) hands in; Ctrl+1 … Ctrl+7 and the sidebar's arrow keys reach each one.
//
// Attention: the waiting approvals and sign-in notices are counted on the Approvals entry, in
// the title, and on the tray icon where the desktop has a tray. Closing the window while
// agents are connected keeps the workbench in the tray (a one-time note says so); otherwise
// closing quits. The geometry and the last section are kept in the workbench's settings.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Section
    {
        Start,
        Websites,
        Approvals,
        Activity,
        Tasks,
        Schedules,
        Settings
    };

    // `settings` (may be null) keeps the geometry, the last section and whether the tray note
    // was shown.
    explicit MainWindow(QSettings *settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Adds `page` (it becomes this window's) under `section`; sections show in the order of
    // Section whatever the order they are added in.
    void addSection(Section section, QWidget *page);
    void showSection(Section section);
    Section currentSection() const;
    // The sidebar's entries as shown (the Approvals entry with its count).
    QStringList sectionTitles() const;

    // Restores the geometry and the last section (or `fallback` the first time).
    void restoreState(Section fallback);

    // What waits for the owner: cards and sign-in notices.
    void setWaiting(int approvals, int notices);
    int attention() const { return m_approvals + m_notices; }
    // The tray icon's tooltip (also when the desktop has no tray).
    QString trayToolTip() const;
    QSystemTrayIcon *trayIcon() const { return m_tray; }

    // Asked when the window closes: whether agents are connected (they keep it in the tray).
    void setAgentsConnected(std::function<bool()> connected) { m_connected = std::move(connected); }

    // Shows, raises and activates the window (a second launch, a notification, the tray).
    void bringForward();
    // Whether closing can keep the workbench in the tray (a tray is shown).
    bool hasTray() const;

    static QString sectionName(Section section);

Q_SIGNALS:
    void sectionChanged(veetbot::MainWindow::Section section);
    // The window closed and nothing keeps the workbench running: it should quit.
    void quitRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void updateAttention();
    int rowOf(Section section) const;

    QPointer<QSettings> m_settings;
    QListWidget *m_sidebar = nullptr;
    QStackedWidget *m_pages = nullptr;
    QList<Section> m_sections; // in sidebar order
    QSystemTrayIcon *m_tray = nullptr;
    std::function<bool()> m_connected;
    int m_approvals = 0;
    int m_notices = 0;
};

} // namespace veetbot
