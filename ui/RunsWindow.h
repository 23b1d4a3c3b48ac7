#pragma once

#include "NewTask.h"
#include "client/WebsiteAccessClient.h"
#include "domain/observation/LiveFrame.h"
#include "domain/profile/BrowserProfile.h"
#include "ports/ActivityTimeline.h"
#include "ports/TaskGrantStore.h"
#include "ports/TaskRunStore.h"

#include <QTimer>
#include <QUuid>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QComboBox;
class QSettings;
class QTableWidget;

namespace veetbot {

// The runs view: every agent session on the timeline (website, status, calls, acts, the last
// act's approval source, the task grant it holds, a task run's step and last verified
// progress, started, elapsed, why it stopped), newest first, and the selected run's events below.
// Content-free like the timeline itself (docs/timeline.md). It reads the store every two seconds
// while shown.
//
// Beside the events, the live view of a running run: one frame of its agent's page a second,
// asked for only while this window shows that run, next to the run's latest observation.
// A frame is only shown: the view holds the latest one while the run stays selected and drops
// it when the window hides or another run is chosen.
class RunsWindow : public QWidget
{
    Q_OBJECT
public:
    // Asks the profile service for a frame of a run (blocking; called on a worker thread).
    using FrameSource = std::function<Result<LiveFrame>(const QUuid &run)>;

    // With `grants`, a running session's active task grant shows as "Grant left"; with
    // `frames`, a running run's live view shows.
    RunsWindow(ActivityTimeline &timeline, ProfileScope owner, TaskGrantStore *grants = nullptr,
               FrameSource frames = nullptr, QWidget *parent = nullptr);

    void refresh();
    // With a launcher: "New task…" (NewTaskDialog, over the READY websites `ready` lists, the
    // model endpoint remembered in `settings`) starts a task run, and Stop asks a running one
    // started here to stop.
    void setTaskLauncher(TaskLauncher *launcher, std::function<QList<BrowserProfile>()> ready,
                         QSettings *settings);
    // With task runs (`veetbot run`), their status, step and last verified progress show.
    void setTaskRuns(const TaskRunStore *taskRuns) { m_taskRuns = taskRuns; }
    // Called before each refresh: ends runs whose process died (RunPresence).
    void setBeforeRefresh(std::function<void()> sweep) { m_beforeRefresh = std::move(sweep); }
    int runCount() const;
    int eventCount() const;
    // Only task runs (`veetbot run` and New task): the workbench's Tasks section.
    void setTasksOnly(bool tasksOnly);
    // Writes the selected run and its timeline to `path`: CSV when it ends in .csv (the events),
    // else JSON (the run, its events and a task run's record), as `veetbot runs show` prints
    // them. False with the reason shown when nothing is selected or the file cannot be written.
    bool exportSelected(const QString &path);
    // Selects a run's row (as a click on it does) and shows its events.
    void selectRun(int row);
    // The live view (tests): frames shown since the window was made, and the one shown now.
    int framesShown() const { return m_framesShown; }
    QSize liveFrameSize() const;

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void showEvents();
    void chooseExportFile();
    bool passesFilter(const ActivityRun &run, const QDateTime &now) const;
    void newTask();
    void stopSelected();
    // The process of the selected run's open attempt when it is a task run started here.
    qint64 selectedOwnPid() const;
    // The selected run when it is running, else a null id.
    QUuid watchedRun() const;
    void askForFrame();
    void showFrame(const QUuid &run, const Result<LiveFrame> &frame);
    void clearLiveView(const QString &why);

    ActivityTimeline &m_timeline;
    TaskGrantStore *m_grants = nullptr;
    ProfileScope m_owner;
    QList<ActivityRun> m_runs;
    QTableWidget *m_runTable = nullptr;
    QTableWidget *m_eventTable = nullptr;
    QLabel *m_status = nullptr;
    QTimer m_refresh;
    FrameSource m_frames;
    const TaskRunStore *m_taskRuns = nullptr;
    TaskLauncher *m_launcher = nullptr;
    std::function<QList<BrowserProfile>()> m_ready;
    QSettings *m_settings = nullptr;
    QPushButton *m_newTask = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_export = nullptr;
    QComboBox *m_websiteFilter = nullptr;
    QComboBox *m_statusFilter = nullptr;
    QComboBox *m_whenFilter = nullptr;
    bool m_tasksOnly = false;
    std::function<void()> m_beforeRefresh;
    QLabel *m_liveFrame = nullptr;
    QLabel *m_liveCaption = nullptr;
    QLabel *m_latestObservation = nullptr;
    QTimer m_liveTimer;
    QUuid m_liveRun;           // the run the shown frame is of
    bool m_frameAsked = false; // one request at a time
    int m_framesShown = 0;
    WebsiteAccessClient *m_client = nullptr; // the frames are asked through it
};

} // namespace veetbot
