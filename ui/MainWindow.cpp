#include "MainWindow.h"

#include "Autostart.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QSystemTrayIcon>

namespace veetbot {

namespace {

constexpr auto kGeometryKey = "window/geometry";
constexpr auto kSectionKey = "window/section";
constexpr auto kTrayNoteKey = "window/trayNoteShown";

const QList<MainWindow::Section> kOrder = {
    MainWindow::Section::Start,    MainWindow::Section::Websites, MainWindow::Section::Approvals,
    MainWindow::Section::Activity, MainWindow::Section::Tasks,    MainWindow::Section::Schedules,
    MainWindow::Section::Settings};

QIcon workbenchIcon()
{
    return QIcon(QStringLiteral(":/veetbot/icons/org.veetbot.Workbench.png"));
}

// The workbench's icon with the number of what waits drawn on it (none: the plain icon).
QIcon badgedIcon(int count)
{
    if (count <= 0)
        return workbenchIcon();
    QPixmap pixmap = workbenchIcon().pixmap(64, 64);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF badge(28, 28, 36, 36);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0xc0, 0x1c, 0x28));
    painter.drawEllipse(badge);
    QFont font = painter.font();
    font.setPixelSize(count > 9 ? 18 : 24);
    font.setBold(true);
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(badge, Qt::AlignCenter,
                     count > 99 ? QStringLiteral("99+") : QString::number(count));
    painter.end();
    return QIcon(pixmap);
}

} // namespace

MainWindow::MainWindow(QSettings *settings, QWidget *parent)
    : QMainWindow(parent), m_settings(settings)
{
    setWindowIcon(workbenchIcon());
    auto *central = new QWidget(this);
    auto *row = new QHBoxLayout(central);
    row->setContentsMargins(0, 0, 0, 0);
    m_sidebar = new QListWidget(central);
    m_sidebar->setAccessibleName(tr("Sections"));
    m_sidebar->setSelectionMode(QAbstractItemView::SingleSelection);
    m_sidebar->setFixedWidth(m_sidebar->fontMetrics().horizontalAdvance(QLatin1Char('M')) * 12);
    m_sidebar->setSpacing(3);
    m_sidebar->setFrameShape(QFrame::NoFrame);
    m_pages = new QStackedWidget(central);
    m_pages->setAccessibleName(tr("Section"));
    row->addWidget(m_sidebar);
    row->addWidget(m_pages, 1);
    setCentralWidget(central);
    connect(m_sidebar, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || row >= m_sections.size())
            return;
        m_pages->setCurrentIndex(row);
        updateAttention(); // the title names the section
        Q_EMIT sectionChanged(m_sections.at(row));
    });

    QMenu *file = menuBar()->addMenu(tr("&File"));
    // The XDG autostart entry, as the file system has it now.
    QAction *autostart = file->addAction(tr("Start with my &session"));
    autostart->setCheckable(true);
    autostart->setChecked(Autostart::isEnabled());
    autostart->setObjectName(QStringLiteral("autostart"));
    connect(autostart, &QAction::toggled, this, [this, autostart](bool on) {
        const Result<Unit> done =
            Autostart::setEnabled(on, QCoreApplication::applicationFilePath());
        if (!done) {
            const QSignalBlocker block(autostart);
            autostart->setChecked(!on);
            statusBar()->showMessage(done.error().message, 10000);
            return;
        }
        statusBar()->showMessage(on ? tr("Veetbot Workbench will start with your session.")
                                    : tr("Veetbot Workbench will not start with your session."),
                                 10000);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, [this] { Q_EMIT quitRequested(); });
    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < kOrder.size(); ++i) {
        const Section section = kOrder.at(i);
        QAction *action =
            view->addAction(sectionName(section), this, [this, section] { showSection(section); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }

    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(workbenchIcon(), this);
        auto *menu = new QMenu(this);
        menu->addAction(tr("&Open Veetbot Workbench"), this, &MainWindow::bringForward);
        menu->addAction(tr("&Approvals"), this, [this] {
            showSection(Section::Approvals);
            bringForward();
        });
        menu->addSeparator();
        menu->addAction(tr("&Quit"), this, [this] { Q_EMIT quitRequested(); });
        m_tray->setContextMenu(menu);
        connect(m_tray, &QSystemTrayIcon::activated, this,
                [this](QSystemTrayIcon::ActivationReason reason) {
                    if (reason == QSystemTrayIcon::Trigger ||
                        reason == QSystemTrayIcon::DoubleClick)
                        bringForward();
                });
        m_tray->show();
    }
    resize(1100, 720);
    updateAttention();
}

MainWindow::~MainWindow()
{
    if (m_settings) {
        m_settings->setValue(QLatin1String(kGeometryKey), saveGeometry());
        m_settings->setValue(QLatin1String(kSectionKey),
                             m_sections.isEmpty() ? QString() : sectionName(currentSection()));
    }
}

QString MainWindow::sectionName(Section section)
{
    switch (section) {
    case Section::Start:
        return tr("Start here");
    case Section::Websites:
        return tr("Websites");
    case Section::Approvals:
        return tr("Approvals");
    case Section::Activity:
        return tr("Activity");
    case Section::Tasks:
        return tr("Tasks");
    case Section::Schedules:
        return tr("Schedules");
    case Section::Settings:
        return tr("Settings");
    }
    return QString();
}

void MainWindow::addSection(Section section, QWidget *page)
{
    int row = 0;
    while (row < m_sections.size() && kOrder.indexOf(m_sections.at(row)) < kOrder.indexOf(section))
        ++row;
    m_sections.insert(row, section);
    // A window of its own becomes a page: its frame and title go.
    page->setWindowFlags(Qt::Widget);
    m_pages->insertWidget(row, page);
    auto *item = new QListWidgetItem(sectionName(section));
    item->setData(Qt::AccessibleTextRole, sectionName(section));
    m_sidebar->insertItem(row, item);
    updateAttention();
}

int MainWindow::rowOf(Section section) const
{
    return int(m_sections.indexOf(section));
}

void MainWindow::showSection(Section section)
{
    const int row = rowOf(section);
    if (row >= 0)
        m_sidebar->setCurrentRow(row);
}

MainWindow::Section MainWindow::currentSection() const
{
    const int row = m_sidebar->currentRow();
    return row >= 0 && row < m_sections.size() ? m_sections.at(row) : Section::Start;
}

QStringList MainWindow::sectionTitles() const
{
    QStringList titles;
    for (int row = 0; row < m_sidebar->count(); ++row)
        titles << m_sidebar->item(row)->text();
    return titles;
}

void MainWindow::restoreState(Section fallback)
{
    Section section = fallback;
    if (m_settings) {
        restoreGeometry(m_settings->value(QLatin1String(kGeometryKey)).toByteArray());
        const QString last = m_settings->value(QLatin1String(kSectionKey)).toString();
        for (const Section candidate : kOrder) {
            if (sectionName(candidate) == last && rowOf(candidate) >= 0)
                section = candidate;
        }
    }
    showSection(section);
}

void MainWindow::setWaiting(int approvals, int notices)
{
    m_approvals = approvals;
    m_notices = notices;
    updateAttention();
}

QString MainWindow::trayToolTip() const
{
    QStringList parts;
    if (m_approvals > 0)
        parts << (m_approvals == 1 ? tr("1 approval waiting")
                                   : tr("%1 approvals waiting").arg(m_approvals));
    if (m_notices > 0)
        parts << (m_notices == 1 ? tr("1 website to sign in to again")
                                 : tr("%1 websites to sign in to again").arg(m_notices));
    return parts.isEmpty() ? tr("Veetbot Workbench — nothing waits for you")
                           : tr("Veetbot Workbench — %1").arg(parts.join(QStringLiteral(", ")));
}

void MainWindow::updateAttention()
{
    const int row = rowOf(Section::Approvals);
    if (row >= 0) {
        const QString name = sectionName(Section::Approvals);
        m_sidebar->item(row)->setText(attention() > 0 ? tr("%1 (%2)").arg(name).arg(attention())
                                                      : name);
        m_sidebar->item(row)->setData(
            Qt::AccessibleTextRole,
            attention() > 0 ? tr("%1, %2 waiting").arg(name).arg(attention()) : name);
    }
    const QString section = m_sections.isEmpty() ? QString() : sectionName(currentSection());
    const QString title =
        section.isEmpty() ? tr("Veetbot Workbench") : tr("%1 — Veetbot Workbench").arg(section);
    setWindowTitle(attention() > 0 ? tr("(%1) %2").arg(attention()).arg(title) : title);
    if (m_tray) {
        m_tray->setIcon(badgedIcon(attention()));
        m_tray->setToolTip(trayToolTip());
    }
}

bool MainWindow::hasTray() const
{
    return m_tray && m_tray->isVisible();
}

void MainWindow::bringForward()
{
    if (isMinimized())
        showNormal();
    else
        show();
    raise();
    activateWindow();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    const bool agents = m_connected && m_connected();
    if (hasTray() && agents) {
        // Agents are connected: their approvals still need somewhere to go.
        hide();
        event->ignore();
        if (m_settings && !m_settings->value(QLatin1String(kTrayNoteKey)).toBool()) {
            m_settings->setValue(QLatin1String(kTrayNoteKey), true);
            m_tray->showMessage(tr("Veetbot Workbench is still running"),
                                tr("Agents are connected, so their approvals still come here. "
                                   "Open the workbench from its icon; Quit ends it."),
                                QSystemTrayIcon::Information, 10000);
        }
        return;
    }
    event->accept();
    Q_EMIT quitRequested();
}

} // namespace veetbot
