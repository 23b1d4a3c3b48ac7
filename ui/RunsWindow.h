#pragma once

#include "domain/BrowserProfile.h"
#include "ports/ActivityTimeline.h"
#include "ports/TaskGrantStore.h"

#include <QTimer>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace veetbot {

// The runs view: every agent session on the timeline (website, status, calls, acts, the last
// act's approval source, the task grant it holds, started, elapsed, why it stopped), newest
// first, and the selected
// run's events below. Content-free like the timeline itself (docs/timeline.md). It reads the
// store every two seconds while shown.
class RunsWindow : public QWidget
{
    Q_OBJECT
public:
    // With `grants`, a running session's active task grant shows as "Grant left".
    RunsWindow(ActivityTimeline &timeline, ProfileScope owner, TaskGrantStore *grants = nullptr,
               QWidget *parent = nullptr);

    void refresh();
    int runCount() const;
    int eventCount() const;
    // Selects a run's row (as a click on it does) and shows its events.
    void selectRun(int row);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void showEvents();

    ActivityTimeline &m_timeline;
    TaskGrantStore *m_grants = nullptr;
    ProfileScope m_owner;
    QList<ActivityRun> m_runs;
    QTableWidget *m_runTable = nullptr;
    QTableWidget *m_eventTable = nullptr;
    QLabel *m_status = nullptr;
    QTimer m_refresh;
};

} // namespace veetbot
