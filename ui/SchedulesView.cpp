#include "SchedulesView.h"

#include "Tables.h"
#include "client/ScheduleControl.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace veetbot {

namespace {

QString localTime(const std::optional<QDateTime> &time)
{
    if (!time)
        return QString();
    return QLocale().toString(time->toLocalTime(), QLocale::ShortFormat);
}

// What the last occurrence did, in the workbench's words.
QString lastText(const Schedule &schedule)
{
    if (!schedule.lastOccurrenceAt)
        return QStringLiteral("not yet");
    QString what = schedule.lastStatus;
    what.replace(u'_', u' ');
    if (schedule.lastCode == QLatin1String("schedule.profile_not_ready"))
        what = QStringLiteral("needs you to sign in");
    else if (schedule.lastCode == QLatin1String("schedule.profile_gone"))
        what = QStringLiteral("its website is gone: delete it");
    else if (schedule.lastCode == QLatin1String("schedule.cards_unanswered"))
        what = QStringLiteral("completed, but no workbench was open to ask you");
    else if (schedule.lastCode == QLatin1String("schedule.profile_changed"))
        what = QStringLiteral("signed in again since: resume it");
    else if (schedule.lastCode == QLatin1String("schedule.grant_unusable"))
        what = QStringLiteral("its grant no longer holds");
    return localTime(schedule.lastOccurrenceAt) + QStringLiteral(", ") + what;
}

} // namespace

SchedulesView::SchedulesView(SqlStores &store, ProfileScope owner, QString program, QWidget *parent)
    : QWidget(parent), m_store(store), m_owner(std::move(owner)), m_program(std::move(program))
{
    setWindowTitle(QStringLiteral("Schedules"));
    setAccessibleName(QStringLiteral("Schedules"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        QStringLiteral("Recurring tasks, started by your own systemd timers. Make one with "
                       "<code>veetbot schedules create</code>; each occurrence runs under the "
                       "scheduler's authority and never uses a task grant."),
        this);
    intro->setWordWrap(true);
    intro->setAccessibleName(QStringLiteral("About schedules"));
    layout->addWidget(intro);
    m_table = makeTable({QStringLiteral("Website"), QStringLiteral("When"), QStringLiteral("State"),
                         QStringLiteral("Next"), QStringLiteral("Last")},
                        QStringLiteral("Schedules"), this);
    layout->addWidget(m_table, 1);
    auto *buttons = new QHBoxLayout;
    m_pause = new QPushButton(QStringLiteral("&Pause"), this);
    m_pause->setAccessibleName(QStringLiteral("Pause the selected schedule"));
    m_resume = new QPushButton(QStringLiteral("&Resume"), this);
    m_resume->setAccessibleName(QStringLiteral("Resume the selected schedule"));
    m_delete = new QPushButton(QStringLiteral("&Delete…"), this);
    m_delete->setAccessibleName(QStringLiteral("Delete the selected schedule"));
    buttons->addWidget(m_pause);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_delete);
    buttons->addStretch();
    layout->addLayout(buttons);
    m_status = new QLabel(this);
    m_status->setAccessibleName(QStringLiteral("Status"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    connect(m_pause, &QPushButton::clicked, this, [this] { setState(ScheduleState::Paused); });
    connect(m_resume, &QPushButton::clicked, this, [this] { setState(ScheduleState::Active); });
    connect(m_delete, &QPushButton::clicked, this, &SchedulesView::deleteSelected);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &SchedulesView::updateButtons);
    updateButtons();
}

void SchedulesView::refresh()
{
    const QUuid keep = selected() ? selected()->id : QUuid();
    const Result<QList<Schedule>> schedules = m_store.schedules().schedules(m_owner);
    if (!schedules) {
        m_status->setText(
            QStringLiteral("The schedules could not be read (%1).").arg(schedules.error().code));
        return;
    }
    m_schedules = *schedules;
    QHash<QUuid, QString> websites;
    if (const Result<QList<BrowserProfile>> profiles = m_store.profiles().list(m_owner)) {
        for (const BrowserProfile &profile : *profiles)
            websites.insert(profile.id, profile.allowedOrigins.isEmpty()
                                            ? QString()
                                            : profile.allowedOrigins.constFirst().host());
    }
    m_table->setRowCount(int(m_schedules.size()));
    int reselect = -1;
    for (int row = 0; row < m_schedules.size(); ++row) {
        const Schedule &schedule = m_schedules.at(row);
        setRow(m_table, row,
               {websites.value(schedule.profileId, QStringLiteral("(website removed)")),
                schedule.calendar, scheduleStateString(schedule.state),
                localTime(schedule.nextOccurrence(QDateTime::currentDateTime())),
                lastText(schedule)});
        if (schedule.id == keep)
            reselect = row;
    }
    m_table->resizeColumnsToContents();
    if (reselect >= 0)
        m_table->selectRow(reselect);
    m_status->setText(
        m_schedules.isEmpty()
            ? QStringLiteral("No schedules yet: make one with veetbot schedules create.")
            : QStringLiteral("%1 schedule%2.")
                  .arg(m_schedules.size())
                  .arg(m_schedules.size() == 1 ? "" : "s"));
    updateButtons();
}

void SchedulesView::selectSchedule(int row)
{
    m_table->selectRow(row);
}

QString SchedulesView::statusText() const
{
    return m_status->text();
}

const Schedule *SchedulesView::selected() const
{
    const QList<QTableWidgetItem *> items = m_table->selectedItems();
    if (items.isEmpty())
        return nullptr;
    const int row = items.first()->row();
    return row >= 0 && row < m_schedules.size() ? &m_schedules.at(row) : nullptr;
}

void SchedulesView::updateButtons()
{
    const Schedule *schedule = selected();
    m_pause->setEnabled(schedule && schedule->state == ScheduleState::Active);
    m_resume->setEnabled(schedule && schedule->state == ScheduleState::Paused);
    m_delete->setEnabled(schedule != nullptr);
}

void SchedulesView::setState(ScheduleState state)
{
    const Schedule *schedule = selected();
    if (!schedule)
        return;
    const Result<Schedule> changed =
        ScheduleControl::setState(m_store, m_owner, schedule->id, state, m_program);
    refresh();
    if (!changed)
        m_status->setText(changed.error().message);
    else
        m_status->setText(state == ScheduleState::Paused
                              ? QStringLiteral("Paused: its timer starts nothing until resumed.")
                              : QStringLiteral("Resumed, with the website's current sign-in."));
}

void SchedulesView::deleteSelected()
{
    const Schedule *schedule = selected();
    if (!schedule)
        return;
    const QUuid id = schedule->id;
    QMessageBox ask(QMessageBox::Question, QStringLiteral("Delete schedule"),
                    QStringLiteral("Delete this schedule and its timer? Runs it made stay on "
                                   "the activity timeline."),
                    QMessageBox::Cancel, this);
    QPushButton *remove = ask.addButton(QStringLiteral("&Delete"), QMessageBox::DestructiveRole);
    ask.setDefaultButton(QMessageBox::Cancel);
    ask.exec();
    if (ask.clickedButton() != remove)
        return;
    const Result<Unit> removed = ScheduleControl::remove(m_store, m_owner, id);
    refresh();
    m_status->setText(removed ? QStringLiteral("Deleted.") : removed.error().message);
}

} // namespace veetbot
