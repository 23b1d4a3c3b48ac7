#include "RunsWindow.h"
#include "Tables.h"

#include "domain/run/RunExport.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QJsonDocument>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QTime>
#include <QVBoxLayout>

namespace veetbot {

namespace {

// The live view's width on screen; frames are scaled to it.
constexpr int kLiveWidth = 400;

QString timeOf(const QDateTime &time)
{
    return time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString elapsedOf(qint64 ms)
{
    if (ms < 0)
        return QString();
    const qint64 seconds = ms / 1000;
    return seconds >= 60 ? QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60)
                         : QStringLiteral("%1.%2 s").arg(seconds).arg((ms % 1000) / 100);
}

// "1 element", "2 elements".
QString counted(int count, const QString &word)
{
    return QStringLiteral("%1 %2%3").arg(count).arg(word,
                                                    count == 1 ? QString() : QStringLiteral("s"));
}

QString observedCounts(const ActivityEvent &event)
{
    return counted(event.elements, QStringLiteral("element")) + QStringLiteral(", ") +
           counted(event.regions, QStringLiteral("region"));
}

// A task run's last verified progress: when its evidence last showed the page changed after
// an act, or why it cannot say.
QString progressOf(const TaskRunRecord &task)
{
    switch (task.outcome) {
    case RunOutcome::Verified:
        return QStringLiteral("verified, %1")
            .arg(task.updatedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")));
    case RunOutcome::Unverified:
        return QStringLiteral("none seen after the last act");
    case RunOutcome::ReadOnly:
        return QStringLiteral("read only");
    case RunOutcome::OutcomeUnknown:
        return QStringLiteral("uncertain: an act may have reached the site");
    case RunOutcome::None:
        break;
    }
    return QString();
}

} // namespace

RunsWindow::RunsWindow(ActivityTimeline &timeline, ProfileScope owner, TaskGrantStore *grants,
                       FrameSource frames, QWidget *parent)
    : QWidget(parent), m_timeline(timeline), m_grants(grants), m_owner(std::move(owner)),
      m_frames(std::move(frames)), m_client(new WebsiteAccessClient(this))
{
    setWindowTitle(QStringLiteral("Runs — Veetbot Workbench"));
    setAccessibleName(QStringLiteral("Runs"));
    auto *layout = new QVBoxLayout(this);
    // Task runs started here: hidden until a launcher is set.
    auto *actions = new QHBoxLayout;
    m_newTask = new QPushButton(QStringLiteral("&New task…"), this);
    m_newTask->setAccessibleName(QStringLiteral("New task"));
    m_newTask->setShortcut(QKeySequence(QStringLiteral("Ctrl+N")));
    m_newTask->hide();
    m_stop = new QPushButton(QStringLiteral("&Stop"), this);
    m_stop->setAccessibleName(QStringLiteral("Stop the selected run"));
    m_stop->setEnabled(false);
    m_stop->hide();
    actions->addWidget(m_newTask);
    actions->addWidget(m_stop);
    actions->addSpacing(12);
    // Which runs show: by website, status and how recent.
    const auto filter = [this, actions](const QString &label, const QString &name,
                                        const QStringList &items) {
        auto *caption = new QLabel(label, this);
        caption->setAccessibleName(QString(label).remove(u'&').chopped(1));
        auto *combo = new QComboBox(this);
        combo->setAccessibleName(name);
        combo->addItems(items);
        caption->setBuddy(combo);
        actions->addWidget(caption);
        actions->addWidget(combo);
        connect(combo, &QComboBox::currentIndexChanged, this, &RunsWindow::refresh);
        return combo;
    };
    m_websiteFilter = filter(QStringLiteral("&Website:"), QStringLiteral("Show runs of website"),
                             {QStringLiteral("All websites")});
    m_websiteFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_statusFilter =
        filter(QStringLiteral("Stat&us:"), QStringLiteral("Show runs by status"),
               {QStringLiteral("All"), QStringLiteral("Running"), QStringLiteral("Ended")});
    m_whenFilter = filter(QStringLiteral("Starte&d:"), QStringLiteral("Show runs started"),
                          {QStringLiteral("Any time"), QStringLiteral("Last 24 hours"),
                           QStringLiteral("Last 3 days")});
    actions->addStretch(1);
    m_export = new QPushButton(QStringLiteral("E&xport…"), this);
    m_export->setAccessibleName(QStringLiteral("Export the selected run's timeline"));
    m_export->setToolTip(QStringLiteral("Save the selected run and its timeline as JSON or CSV: "
                                        "the same closed fields as veetbot runs show."));
    m_export->setEnabled(false);
    actions->addWidget(m_export);
    layout->addLayout(actions);
    connect(m_export, &QPushButton::clicked, this, &RunsWindow::chooseExportFile);
    connect(m_newTask, &QPushButton::clicked, this, &RunsWindow::newTask);
    connect(m_stop, &QPushButton::clicked, this, &RunsWindow::stopSelected);
    m_runTable = makeTable(
        {QStringLiteral("Website"), QStringLiteral("Status"), QStringLiteral("Calls"),
         QStringLiteral("Acts"), QStringLiteral("Last approval"), QStringLiteral("Grant left"),
         QStringLiteral("Step"), QStringLiteral("Last verified progress"),
         QStringLiteral("Started"), QStringLiteral("Elapsed"), QStringLiteral("Why it stopped")},
        QStringLiteral("Runs"), this);
    layout->addWidget(m_runTable, 1);
    auto *timelineLabel = new QLabel(QStringLiteral("Timeline of the selected run:"), this);
    timelineLabel->setAccessibleName(QStringLiteral("Timeline heading"));
    layout->addWidget(timelineLabel);
    m_eventTable =
        makeTable({QStringLiteral("Time"), QStringLiteral("Event"), QStringLiteral("Tool"),
                   QStringLiteral("Action"), QStringLiteral("Element"), QStringLiteral("Approval"),
                   QStringLiteral("Outcome"), QStringLiteral("Page"), QStringLiteral("Elapsed")},
                  QStringLiteral("Timeline"), this);
    // The events, and beside them the live view of a running run.
    auto *below = new QHBoxLayout;
    below->addWidget(m_eventTable, 3);
    auto *live = new QGroupBox(QStringLiteral("Live view"), this);
    live->setAccessibleName(QStringLiteral("Live view"));
    auto *liveLayout = new QVBoxLayout(live);
    m_liveFrame = new QLabel(live);
    m_liveFrame->setAccessibleName(QStringLiteral("The agent's page"));
    m_liveFrame->setMinimumSize(kLiveWidth * 4 / 5, kLiveWidth / 2);
    m_liveFrame->setAlignment(Qt::AlignCenter);
    m_liveFrame->setFrameShape(QFrame::StyledPanel);
    liveLayout->addWidget(m_liveFrame, 1);
    m_liveCaption = new QLabel(live);
    m_liveCaption->setAccessibleName(QStringLiteral("Live view status"));
    m_liveCaption->setWordWrap(true);
    liveLayout->addWidget(m_liveCaption);
    m_latestObservation = new QLabel(live);
    m_latestObservation->setAccessibleName(QStringLiteral("Latest observation"));
    m_latestObservation->setWordWrap(true);
    // Room for its three lines (time and counts, then the page): the layout does not ask a
    // wrapped label for its height, and the frame above gives way instead.
    m_latestObservation->setMinimumHeight(3 * m_latestObservation->fontMetrics().lineSpacing());
    m_latestObservation->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    liveLayout->addWidget(m_latestObservation);
    below->addWidget(live, 2);
    layout->addLayout(below, 2);
    m_status = new QLabel(this);
    m_status->setAccessibleName(QStringLiteral("Status"));
    layout->addWidget(m_status);
    resize(1240, 640);
    connect(m_runTable, &QTableWidget::itemSelectionChanged, this, &RunsWindow::showEvents);
    m_refresh.setInterval(2000);
    connect(&m_refresh, &QTimer::timeout, this, &RunsWindow::refresh);
    m_liveTimer.setInterval(LiveFrame::kMinIntervalMs);
    connect(&m_liveTimer, &QTimer::timeout, this, &RunsWindow::askForFrame);
    clearLiveView(QString());
    refresh();
}

void RunsWindow::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_refresh.start();
    m_liveTimer.start();
    askForFrame();
}

void RunsWindow::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_refresh.stop();
    // Nobody watches: no frame is asked for, and none is kept.
    m_liveTimer.stop();
    clearLiveView(QString());
}

void RunsWindow::setTaskLauncher(TaskLauncher *launcher,
                                 std::function<QList<BrowserProfile>()> ready, QSettings *settings)
{
    m_launcher = launcher;
    m_ready = std::move(ready);
    m_settings = settings;
    m_newTask->setVisible(m_launcher && m_settings);
    m_stop->setVisible(m_launcher && m_settings);
    if (m_launcher)
        connect(m_launcher, &TaskLauncher::finished, this, &RunsWindow::refresh);
}

void RunsWindow::newTask()
{
    if (!m_launcher || !m_settings)
        return;
    auto *dialog =
        new NewTaskDialog(m_ready ? m_ready() : QList<BrowserProfile>(), *m_settings, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_status->setText(m_launcher->start(dialog->launch())
                              ? QStringLiteral("The task started; it shows here in a moment.")
                              : QStringLiteral("The task could not start (veetbot is missing)."));
        QTimer::singleShot(1000, this, &RunsWindow::refresh);
    });
    dialog->open();
}

qint64 RunsWindow::selectedOwnPid() const
{
    const int row = m_runTable->currentRow();
    if (!m_launcher || !m_taskRuns || row < 0 || row >= m_runs.size() ||
        !m_runs.at(row).isRunning() || m_runs.at(row).kind != QLatin1String("task"))
        return 0;
    const Result<QList<TaskRunAttempt>> attempts =
        m_taskRuns->taskRunAttempts(m_owner, m_runs.at(row).id);
    if (!attempts || attempts->isEmpty() || attempts->constLast().endedAt)
        return 0;
    const qint64 pid = attempts->constLast().pid;
    return m_launcher->isOurs(pid) ? pid : 0;
}

void RunsWindow::stopSelected()
{
    const qint64 pid = selectedOwnPid();
    if (pid != 0 && m_launcher->stop(pid)) {
        m_status->setText(QStringLiteral("Stopping the run: an action it may have sent is "
                                         "reported as uncertain, never as not done."));
        m_stop->setEnabled(false);
    }
}

QUuid RunsWindow::watchedRun() const
{
    const int row = m_runTable->currentRow();
    if (row < 0 || row >= m_runs.size() || !m_runs.at(row).isRunning())
        return {};
    return m_runs.at(row).id;
}

QSize RunsWindow::liveFrameSize() const
{
    return m_liveRun.isNull() ? QSize() : m_liveFrame->pixmap().size();
}

void RunsWindow::clearLiveView(const QString &why)
{
    m_liveRun = QUuid();
    m_liveFrame->clear();
    m_liveFrame->setText(QStringLiteral("No page to show."));
    m_liveCaption->setText(
        why.isEmpty() ? (m_frames ? QStringLiteral("Select a running run to watch its page.")
                                  : QStringLiteral("The live view needs the profile service."))
                      : why);
}

void RunsWindow::askForFrame()
{
    const QUuid run = watchedRun();
    if (run != m_liveRun && !m_liveRun.isNull())
        clearLiveView(QString());
    if (!m_frames || run.isNull() || !isVisible() || m_frameAsked)
        return;
    m_frameAsked = true;
    m_client->call<LiveFrame>([frames = m_frames, run] { return frames(run); }, this,
                              [this, run](const Result<LiveFrame> &frame) {
                                  m_frameAsked = false;
                                  showFrame(run, frame);
                              });
}

void RunsWindow::showFrame(const QUuid &run, const Result<LiveFrame> &frame)
{
    // Only for the run still watched, while the window still shows.
    if (run != watchedRun() || !isVisible())
        return;
    if (!frame) {
        if (frame.error().code == QLatin1String("live_view.too_soon"))
            return; // the next tick brings one
        m_liveRun = run;
        m_liveFrame->clear();
        m_liveFrame->setText(QStringLiteral("No page to show."));
        m_liveCaption->setText(
            frame.error().code == QLatin1String("live_view.not_running")
                ? QStringLiteral("The agent has no browser open now (it opens with its first "
                                 "browser call).")
                : QStringLiteral("The page cannot be shown now (%1).").arg(frame.error().code));
        return;
    }
    QImage image;
    if (!image.loadFromData(frame->png, "PNG") ||
        image.size() != QSize(frame->width, frame->height)) {
        m_liveCaption->setText(QStringLiteral("The page cannot be shown now (live_view.invalid)."));
        return;
    }
    m_liveRun = run;
    m_liveFrame->setPixmap(QPixmap::fromImage(image).scaled(
        m_liveFrame->contentsRect().size(), Qt::KeepAspectRatio, Qt::SmoothTransformation));
    ++m_framesShown;
    m_liveCaption->setText(
        QStringLiteral("The agent's page at %1, %2 × %3 (a frame a second while you watch; "
                       "never kept, never shown to a model).")
            .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")))
            .arg(frame->width)
            .arg(frame->height));
}

int RunsWindow::runCount() const
{
    return m_runTable->rowCount();
}

int RunsWindow::eventCount() const
{
    return m_eventTable->rowCount();
}

void RunsWindow::refresh()
{
    if (m_beforeRefresh)
        m_beforeRefresh();
    const Result<QList<ActivityRun>> runs = m_timeline.runs(m_owner, 200);
    if (!runs) {
        m_status->setText(
            QStringLiteral("The timeline cannot be read now (%1).").arg(runs.error().code));
        return;
    }
    const QUuid selected = m_runTable->currentRow() >= 0 && m_runTable->currentRow() < m_runs.size()
                               ? m_runs.at(m_runTable->currentRow()).id
                               : QUuid();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // The runs of this view's kind (Tasks: task runs only), before the owner's filters.
    QList<ActivityRun> ofKind;
    for (const ActivityRun &run : *runs)
        if (!m_tasksOnly || run.kind == QLatin1String("task"))
            ofKind.append(run);
    // The website filter offers every website among them, keeping the choice.
    QStringList websites;
    for (const ActivityRun &run : ofKind)
        if (!run.website.isEmpty() && !websites.contains(run.website))
            websites << run.website;
    websites.sort();
    const QString chosen =
        m_websiteFilter->currentIndex() > 0 ? m_websiteFilter->currentText() : QString();
    {
        const QSignalBlocker block(m_websiteFilter);
        m_websiteFilter->clear();
        m_websiteFilter->addItem(QStringLiteral("All websites"));
        m_websiteFilter->addItems(websites);
        m_websiteFilter->setCurrentIndex(
            chosen.isEmpty() ? 0 : qMax(0, m_websiteFilter->findText(chosen)));
        if (!chosen.isEmpty() && m_websiteFilter->currentIndex() == 0) {
            m_websiteFilter->addItem(chosen); // no run of it now; the choice stays
            m_websiteFilter->setCurrentIndex(m_websiteFilter->count() - 1);
        }
    }
    m_runs.clear();
    for (const ActivityRun &run : ofKind)
        if (passesFilter(run, now))
            m_runs.append(run);
    m_runTable->setRowCount(int(m_runs.size()));
    int keep = -1;
    for (int row = 0; row < m_runs.size(); ++row) {
        const ActivityRun &run = m_runs.at(row);
        // A session's task grant is bound to its id, which is the run's.
        QString grantLeft;
        if (m_grants && run.isRunning()) {
            const Result<std::optional<TaskGrant>> grant =
                m_grants->activeTaskGrant(m_owner, run.id);
            if (grant && *grant && (*grant)->expiresAt > now)
                grantLeft = QStringLiteral("%1 actions, %2 min")
                                .arg((*grant)->actionsLeft())
                                .arg((now.secsTo((*grant)->expiresAt) + 59) / 60);
        }
        // A task run's own record: its status word, its step of the ceiling, and what its
        // evidence says about progress.
        QString status = run.isRunning() ? QStringLiteral("running") : QStringLiteral("ended");
        QString step;
        QString progress;
        if (m_taskRuns && run.kind == QLatin1String("task")) {
            const Result<TaskRunRecord> task = m_taskRuns->taskRun(m_owner, run.id);
            if (task) {
                status = runStatusString(task->status);
                // Still held by its process: it waits for the owner's sign-in.
                if (task->status == RunStatus::NeedsUser && run.isRunning())
                    status = QStringLiteral("waiting for sign-in");
                step = QStringLiteral("%1 of %2").arg(task->usage.steps).arg(RunCeilings::kSteps);
                progress = progressOf(*task);
            }
        }
        setRow(m_runTable, row,
               {run.website.isEmpty() ? QStringLiteral("(no profile)") : run.website, status,
                QString::number(run.toolCalls), QString::number(run.acts), run.lastApprovalSource,
                grantLeft, step, progress, timeOf(run.startedAt),
                run.endedAt ? elapsedOf(run.startedAt.msecsTo(*run.endedAt))
                            : elapsedOf(run.startedAt.msecsTo(now)),
                run.endReason});
        if (run.id == selected)
            keep = row;
    }
    m_runTable->resizeColumnsToContents();
    const qsizetype all = ofKind.size();
    const bool filtered = m_runs.size() != all;
    m_status->setText(all == 0 && m_tasksOnly ? QStringLiteral("No task has run yet.")
                      : all == 0              ? QStringLiteral("No agent has run yet.")
                      : m_runs.isEmpty()      ? QStringLiteral("No run matches the filter.")
                      : m_runs.size() == 1    ? QStringLiteral("1 run.")
                                              : QStringLiteral("%1 runs.").arg(m_runs.size()));
    if (filtered && !m_runs.isEmpty())
        m_status->setText(m_status->text() + QStringLiteral(" (%1 in all)").arg(all));
    if (keep >= 0)
        m_runTable->selectRow(keep);
    showEvents();
}

void RunsWindow::setTasksOnly(bool tasksOnly)
{
    m_tasksOnly = tasksOnly;
    setAccessibleName(tasksOnly ? QStringLiteral("Task runs") : QStringLiteral("Runs"));
    refresh();
}

bool RunsWindow::passesFilter(const ActivityRun &run, const QDateTime &now) const
{
    if (m_websiteFilter->currentIndex() > 0 && run.website != m_websiteFilter->currentText())
        return false;
    if (m_statusFilter->currentIndex() == 1 && !run.isRunning())
        return false;
    if (m_statusFilter->currentIndex() == 2 && run.isRunning())
        return false;
    constexpr qint64 kDaySecs = 24 * 60 * 60;
    const int days = m_whenFilter->currentIndex() == 1   ? 1
                     : m_whenFilter->currentIndex() == 2 ? 3
                                                         : 0;
    return days == 0 || run.startedAt.secsTo(now) <= days * kDaySecs;
}

void RunsWindow::chooseExportFile()
{
    const int row = m_runTable->currentRow();
    if (row < 0 || row >= m_runs.size())
        return;
    auto *dialog = new QFileDialog(this, QStringLiteral("Export the run's timeline"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilters({QStringLiteral("JSON (*.json)"), QStringLiteral("CSV (*.csv)")});
    dialog->setDefaultSuffix(QStringLiteral("json"));
    dialog->selectFile(QStringLiteral("veetbot-run-%1.json")
                           .arg(m_runs.at(row).id.toString(QUuid::WithoutBraces).left(8)));
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog](const QString &filter) {
        dialog->setDefaultSuffix(filter.startsWith(QLatin1String("CSV")) ? QStringLiteral("csv")
                                                                         : QStringLiteral("json"));
    });
    connect(dialog, &QFileDialog::fileSelected, this,
            [this](const QString &path) { exportSelected(path); });
    dialog->open();
}

bool RunsWindow::exportSelected(const QString &path)
{
    const int row = m_runTable->currentRow();
    if (row < 0 || row >= m_runs.size()) {
        m_status->setText(QStringLiteral("Select a run to export."));
        return false;
    }
    const ActivityRun &run = m_runs.at(row);
    const auto shown = m_timeline.runWithEvents(m_owner, run.id);
    if (!shown) {
        m_status->setText(
            QStringLiteral("The timeline cannot be read now (%1).").arg(shown.error().code));
        return false;
    }
    const bool csv = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive);
    QByteArray bytes;
    if (csv) {
        bytes = RunExport::eventsCsv(shown->second);
    } else {
        std::optional<TaskRunRecord> task;
        if (m_taskRuns && run.kind == QLatin1String("task")) {
            const Result<TaskRunRecord> record = m_taskRuns->taskRun(m_owner, run.id);
            if (record)
                task = *record;
        }
        bytes = QJsonDocument(RunExport::document(shown->first, shown->second, task))
                    .toJson(QJsonDocument::Indented);
    }
    // Whole or not at all: a failed write leaves no half file and keeps what was there.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        m_status->setText(QStringLiteral("The file could not be written; nothing was saved."));
        return false;
    }
    m_status->setText(QStringLiteral("Exported %1 events of the run as %2.")
                          .arg(shown->second.size())
                          .arg(csv ? QStringLiteral("CSV") : QStringLiteral("JSON")));
    return true;
}

void RunsWindow::selectRun(int row)
{
    m_runTable->selectRow(row);
    showEvents();
}

void RunsWindow::showEvents()
{
    const int row = m_runTable->currentRow();
    m_stop->setEnabled(selectedOwnPid() != 0);
    m_export->setEnabled(row >= 0 && row < m_runs.size());
    if (watchedRun() != m_liveRun)
        askForFrame();
    if (row < 0 || row >= m_runs.size()) {
        m_eventTable->setRowCount(0);
        m_latestObservation->clear();
        return;
    }
    const auto shown = m_timeline.runWithEvents(m_owner, m_runs.at(row).id);
    if (!shown) {
        m_eventTable->setRowCount(0);
        m_latestObservation->clear();
        return;
    }
    const QList<ActivityEvent> &events = shown->second;
    // The run's latest observation, as the timeline keeps it (counts and the page's origin and
    // first path segment), beside the live view.
    m_latestObservation->setText(QStringLiteral("No observation yet."));
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (it->kind != QLatin1String("observation"))
            continue;
        QString page = it->origin;
        if (!it->pathSegment.isEmpty())
            page += u'/' + it->pathSegment;
        m_latestObservation->setText(
            QStringLiteral("Latest observation at %1: %2 on %3.")
                .arg(it->at.toLocalTime().toString(QStringLiteral("HH:mm:ss")), observedCounts(*it),
                     page.isEmpty() ? QStringLiteral("the page") : page));
        break;
    }
    m_eventTable->setRowCount(int(events.size()));
    for (int i = 0; i < events.size(); ++i) {
        const ActivityEvent &event = events.at(i);
        QString page = event.origin;
        if (!event.pathSegment.isEmpty())
            page += u'/' + event.pathSegment;
        QString outcome = event.outcome;
        if (!event.code.isEmpty())
            outcome += QStringLiteral(" (%1)").arg(event.code);
        if (event.elements >= 0)
            outcome = observedCounts(event);
        if (event.ordinal > 0)
            outcome = QStringLiteral("use %1 of 200").arg(event.ordinal);
        setRow(m_eventTable, i,
               {timeOf(event.at), event.kind, event.tool, event.actionKind, event.targetRole,
                event.approvalSource, outcome, page, elapsedOf(event.elapsedMs)});
    }
    m_eventTable->resizeColumnsToContents();
}

} // namespace veetbot
