#pragma once

#include "domain/schedule/Schedule.h"
#include "profiles/SqlStores.h"

#include <QList>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace veetbot {

// The workbench's Schedules section (docs/schedules.md): every schedule with its website, its
// calendar, its state, its next occurrence and what its last one did; Pause, Resume and
// Delete act on the selected one through the same use cases as `veetbot schedules`
// (ScheduleControl), units and all. Schedules are made with `veetbot schedules create`.
class SchedulesView : public QWidget
{
    Q_OBJECT
public:
    // `program` runs the occurrences (the `veetbot` beside the workbench).
    SchedulesView(SqlStores &store, ProfileScope owner, QString program, QWidget *parent = nullptr);

    void refresh();
    void selectSchedule(int row);
    QString statusText() const;

private:
    void setState(ScheduleState state);
    void deleteSelected();
    void updateButtons();
    const Schedule *selected() const;

    SqlStores &m_store;
    ProfileScope m_owner;
    QString m_program;
    QList<Schedule> m_schedules;
    QTableWidget *m_table = nullptr;
    QPushButton *m_pause = nullptr;
    QPushButton *m_resume = nullptr;
    QPushButton *m_delete = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace veetbot
