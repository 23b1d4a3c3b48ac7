#include "RunsWindow.h"

#include <QAbstractButton>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace veetbot {

namespace {

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

QTableWidget *table(const QStringList &headers, const QString &name, QWidget *parent)
{
    auto *widget = new QTableWidget(0, int(headers.size()), parent);
    widget->setHorizontalHeaderLabels(headers);
    widget->setAccessibleName(name);
    widget->setEditTriggers(QAbstractItemView::NoEditTriggers);
    widget->setSelectionBehavior(QAbstractItemView::SelectRows);
    widget->setSelectionMode(QAbstractItemView::SingleSelection);
    widget->verticalHeader()->setVisible(false);
    widget->horizontalHeader()->setStretchLastSection(true);
    // The corner button selects every row; say so to assistive technology too.
    for (QAbstractButton *corner : widget->findChildren<QAbstractButton *>())
        corner->setAccessibleName(QStringLiteral("Select all rows"));
    return widget;
}

void setRow(QTableWidget *widget, int row, const QStringList &cells)
{
    for (int column = 0; column < cells.size(); ++column)
        widget->setItem(row, column, new QTableWidgetItem(cells.at(column)));
}

} // namespace

RunsWindow::RunsWindow(ActivityTimeline &timeline, ProfileScope owner, TaskGrantStore *grants,
                       QWidget *parent)
    : QWidget(parent), m_timeline(timeline), m_grants(grants), m_owner(std::move(owner))
{
    setWindowTitle(QStringLiteral("Runs — Veetbot Workbench"));
    setAccessibleName(QStringLiteral("Runs"));
    auto *layout = new QVBoxLayout(this);
    m_runTable = table(
        {QStringLiteral("Website"), QStringLiteral("Status"), QStringLiteral("Calls"),
         QStringLiteral("Acts"), QStringLiteral("Last approval"), QStringLiteral("Grant left"),
         QStringLiteral("Started"), QStringLiteral("Elapsed"), QStringLiteral("Why it stopped")},
        QStringLiteral("Runs"), this);
    layout->addWidget(m_runTable, 1);
    auto *timelineLabel = new QLabel(QStringLiteral("Timeline of the selected run:"), this);
    timelineLabel->setAccessibleName(QStringLiteral("Timeline heading"));
    layout->addWidget(timelineLabel);
    m_eventTable =
        table({QStringLiteral("Time"), QStringLiteral("Event"), QStringLiteral("Tool"),
               QStringLiteral("Action"), QStringLiteral("Element"), QStringLiteral("Approval"),
               QStringLiteral("Outcome"), QStringLiteral("Page"), QStringLiteral("Elapsed")},
              QStringLiteral("Timeline"), this);
    layout->addWidget(m_eventTable, 2);
    m_status = new QLabel(this);
    m_status->setAccessibleName(QStringLiteral("Status"));
    layout->addWidget(m_status);
    resize(980, 560);
    connect(m_runTable, &QTableWidget::itemSelectionChanged, this, &RunsWindow::showEvents);
    m_refresh.setInterval(2000);
    connect(&m_refresh, &QTimer::timeout, this, &RunsWindow::refresh);
    refresh();
}

void RunsWindow::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_refresh.start();
}

void RunsWindow::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_refresh.stop();
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
    const Result<QList<ActivityRun>> runs = m_timeline.runs(m_owner, 200);
    if (!runs) {
        m_status->setText(
            QStringLiteral("The timeline cannot be read now (%1).").arg(runs.error().code));
        return;
    }
    const QUuid selected = m_runTable->currentRow() >= 0 && m_runTable->currentRow() < m_runs.size()
                               ? m_runs.at(m_runTable->currentRow()).id
                               : QUuid();
    m_runs = *runs;
    m_runTable->setRowCount(int(m_runs.size()));
    int keep = -1;
    const QDateTime now = QDateTime::currentDateTimeUtc();
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
        setRow(m_runTable, row,
               {run.website.isEmpty() ? QStringLiteral("(no profile)") : run.website,
                run.isRunning() ? QStringLiteral("running") : QStringLiteral("ended"),
                QString::number(run.toolCalls), QString::number(run.acts), run.lastApprovalSource,
                grantLeft, timeOf(run.startedAt),
                run.endedAt ? elapsedOf(run.startedAt.msecsTo(*run.endedAt))
                            : elapsedOf(run.startedAt.msecsTo(now)),
                run.endReason});
        if (run.id == selected)
            keep = row;
    }
    m_runTable->resizeColumnsToContents();
    m_status->setText(m_runs.isEmpty()     ? QStringLiteral("No agent has run yet.")
                      : m_runs.size() == 1 ? QStringLiteral("1 run.")
                                           : QStringLiteral("%1 runs.").arg(m_runs.size()));
    if (keep >= 0)
        m_runTable->selectRow(keep);
    showEvents();
}

void RunsWindow::selectRun(int row)
{
    m_runTable->selectRow(row);
    showEvents();
}

void RunsWindow::showEvents()
{
    const int row = m_runTable->currentRow();
    if (row < 0 || row >= m_runs.size()) {
        m_eventTable->setRowCount(0);
        return;
    }
    const auto shown = m_timeline.runWithEvents(m_owner, m_runs.at(row).id);
    if (!shown) {
        m_eventTable->setRowCount(0);
        return;
    }
    const QList<ActivityEvent> &events = shown->second;
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
            outcome =
                QStringLiteral("%1 elements, %2 regions").arg(event.elements).arg(event.regions);
        if (event.ordinal > 0)
            outcome = QStringLiteral("use %1 of 200").arg(event.ordinal);
        setRow(m_eventTable, i,
               {timeOf(event.at), event.kind, event.tool, event.actionKind, event.targetRole,
                event.approvalSource, outcome, page, elapsedOf(event.elapsedMs)});
    }
    m_eventTable->resizeColumnsToContents();
}

} // namespace veetbot
