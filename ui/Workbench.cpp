#include "Workbench.h"

#include "ApprovalCard.h"
#include "DesktopNotifications.h"
#include "GettingStarted.h"
#include "GrantBanner.h"
#include "MainWindow.h"
#include "NewTask.h"
#include "RunsWindow.h"
#include "SchedulesView.h"
#include "SettingsWindow.h"
#include "SignInNotices.h"
#include "WebsiteAccessWindow.h"
#include "approval/WorkbenchChannel.h"
#include "client/ServiceAccess.h"
#include "profiles/RunPresence.h"

#include <QCoreApplication>
#include <QSettings>
#include <QTextStream>

namespace veetbot {

namespace {

constexpr int kNoticeReadMs = 2000;

// What a notification is about: a card (by its broker key) or a sign-in notice (by profile).
QString cardSubject(quint64 key)
{
    return QStringLiteral("card:") + QString::number(key);
}

QString noticeSubject(const QUuid &profileId)
{
    return QStringLiteral("notice:") + profileId.toString(QUuid::WithoutBraces);
}

} // namespace

Workbench::Workbench(TestOverrides overrides, QDBusConnection bus, QObject *parent)
    : QObject(parent), m_overrides(std::move(overrides)),
      // The metadata store first: the windows below read it, and go before it.
      m_metadata(openMetadataStore(QString())), m_broker(std::make_unique<ApprovalBroker>()),
      m_desktop(std::make_unique<DesktopNotifications>(std::move(bus))),
      m_launcher(std::make_unique<TaskLauncher>())
{
    if (m_metadata)
        m_settings = std::make_unique<QSettings>(settingsPath(), QSettings::IniFormat);
    m_main = std::make_unique<MainWindow>(m_settings.get());
    connect(m_main.get(), &MainWindow::quitRequested, this, &Workbench::quitRequested);

    // The owner answers every local agent's approval questions here, over a private socket
    // in the runtime directory (docs/workbench.md#approvals).
    const Result<QString> socket = workbenchSocketPath();
    if (socket && m_broker->listen(*socket)) {
        m_approvals = new ApprovalsWindow(*m_broker);
        m_main->addSection(MainWindow::Section::Approvals, m_approvals);
        m_main->setAgentsConnected([this] { return m_broker->connectedAgents() > 0; });
        // Active task grants, counting down, with Revoke, above the cards.
        if (m_metadata)
            m_approvals->setBanner(
                new GrantBanner(m_metadata->repository->taskGrants(), m_metadata->scope()));
        connect(m_approvals, &ApprovalsWindow::waitingChanged, this, &Workbench::countWaiting);
        connect(m_broker.get(), &ApprovalBroker::asked, this,
                [this](const ApprovalBroker::Question &question) {
                    onQuestion(question.key,
                               question.view.value(QStringLiteral("host")).toString());
                });
        connect(m_approvals, &ApprovalsWindow::cardGone, m_desktop.get(),
                [this](quint64 key) { m_desktop->withdraw(cardSubject(key)); });
    } else {
        QTextStream(stderr) << "veetbot-workbench: approvals are not served here (another "
                               "workbench serves them, or the runtime directory is unusable)\n";
    }

    m_websites = new WebsiteAccessWindow(m_overrides);
    m_main->addSection(MainWindow::Section::Websites, m_websites);
    m_start = new GettingStarted;
    m_main->addSection(MainWindow::Section::Start, m_start);
    connect(m_start, &GettingStarted::websitesRequested, this,
            [this] { m_main->showSection(MainWindow::Section::Websites); });
    connect(m_start, &GettingStarted::tasksRequested, this,
            [this] { m_main->showSection(MainWindow::Section::Tasks); });
    // First run: with no website yet, the window opens on the three steps.
    connect(m_websites, &WebsiteAccessWindow::refreshed, this, [this] {
        m_start->setProfiles(m_websites->profiles());
        if (m_firstList && m_websites->profiles().isEmpty())
            m_main->showSection(MainWindow::Section::Start);
        m_firstList = false;
    });
    connect(m_desktop.get(), &DesktopNotifications::opened, this, &Workbench::openSubject);

    if (!m_metadata)
        return;
    const ProfileScope owner = m_metadata->scope();
    const auto runsView = [this, owner] {
        auto *view = new RunsWindow(m_metadata->repository->timeline(), owner,
                                    &m_metadata->repository->taskGrants(),
                                    [overrides = m_overrides, owner](const QUuid &run) {
                                        return liveFrame(overrides, owner, run);
                                    });
        view->setTaskRuns(&m_metadata->repository->taskRuns());
        // A run whose agent died without ending it shows as ended, "interrupted".
        view->setBeforeRefresh([this] {
            RunPresence::endAbandonedRuns(m_metadata->repository->timeline(), m_metadata->scope(),
                                          m_metadata->config.dataDirectory());
        });
        return view;
    };
    // Activity: every agent's runs and their timelines.
    m_runs = runsView();
    m_main->addSection(MainWindow::Section::Activity, m_runs);
    // Tasks: the task runs, and New task (child processes, their model endpoint remembered in
    // the workbench's settings file) with Stop.
    m_tasks = runsView();
    m_tasks->setTasksOnly(true);
    m_tasks->setTaskLauncher(
        m_launcher.get(),
        [] {
            QList<BrowserProfile> ready;
            const Result<QList<BrowserProfile>> profiles = listProfiles();
            for (const BrowserProfile &profile : profiles ? *profiles : ready)
                if (profile.status == ProfileStatus::Ready)
                    ready.append(profile);
            return ready;
        },
        m_settings.get());
    m_main->addSection(MainWindow::Section::Tasks, m_tasks);
    connect(m_main.get(), &MainWindow::sectionChanged, this, [this](MainWindow::Section section) {
        if (section == MainWindow::Section::Activity)
            m_runs->refresh();
        else if (section == MainWindow::Section::Tasks)
            m_tasks->refresh();
    });

    // Schedules: each one's calendar, state, next and last occurrence; pause, resume, delete.
    auto *schedules =
        new SchedulesView(*m_metadata->repository, owner,
                          QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"));
    m_main->addSection(MainWindow::Section::Schedules, schedules);
    connect(m_main.get(), &MainWindow::sectionChanged, schedules,
            [schedules](MainWindow::Section section) {
                if (section == MainWindow::Section::Schedules)
                    schedules->refresh();
            });

    auto *settings = new SettingsWindow(*m_metadata->repository, owner, m_overrides);
    settings->setWorkbenchSettings(m_settings.get());
    m_main->addSection(MainWindow::Section::Settings, settings);
    connect(m_main.get(), &MainWindow::sectionChanged, settings,
            [settings](MainWindow::Section section) {
                if (section == MainWindow::Section::Settings)
                    settings->refresh();
            });

    // "Sign in to <site> again": one notice per website whose run waits at a sign-in wall,
    // read from the metadata store every two seconds.
    m_notices = std::make_unique<SignInNotices>(
        [this] { return m_metadata->repository->profiles().list(m_metadata->scope()); });
    connect(m_notices.get(), &SignInNotices::signInRequested, this, [this](const QUuid &id) {
        m_main->showSection(MainWindow::Section::Websites);
        m_main->bringForward();
        m_websites->signInAgain(id);
    });
    // A new notice is a notification too while the owner is elsewhere.
    connect(m_notices.get(), &SignInNotices::noticeShown, this,
            [this](const QUuid &profileId, const QString &site) {
                if (m_main->isVisible() && m_main->isActiveWindow())
                    return;
                m_desktop->notify(noticeSubject(profileId), tr("Sign in to %1 again").arg(site),
                                  tr("The website asked to sign in again. Agents cannot use it "
                                     "until you do."));
            });
    connect(m_notices.get(), &SignInNotices::noticeGone, m_desktop.get(),
            [this](const QUuid &profileId) { m_desktop->withdraw(noticeSubject(profileId)); });
    connect(m_notices.get(), &SignInNotices::noticeShown, this, &Workbench::countWaiting);
    connect(m_notices.get(), &SignInNotices::noticeGone, this, &Workbench::countWaiting);
    connect(&m_noticeReads, &QTimer::timeout, m_notices.get(), &SignInNotices::refresh);
    m_noticeReads.start(kNoticeReadMs);
}

Workbench::~Workbench() = default;

QString Workbench::settingsPath() const
{
    return m_metadata ? m_metadata->config.configDirectory() + QStringLiteral("/workbench.ini")
                      : QString();
}

void Workbench::show(bool background)
{
    m_main->restoreState(MainWindow::Section::Websites);
    if (!background || !m_main->hasTray())
        m_main->show();
    if (m_notices)
        m_notices->refresh();
    countWaiting();
}

void Workbench::countWaiting()
{
    m_main->setWaiting(m_approvals ? m_approvals->waiting() : 0,
                       m_notices ? int(m_notices->notices().size()) : 0);
}

void Workbench::onQuestion(quint64 key, const QString &host)
{
    // In front, the card shows at once; otherwise a desktop notification opens it. Approving
    // always needs the card itself.
    if (m_main->isVisible() && !m_main->isMinimized())
        m_main->showSection(MainWindow::Section::Approvals);
    if (m_main->isVisible() && m_main->isActiveWindow())
        return;
    m_desktop->notify(cardSubject(key), tr("An agent is waiting for your approval"),
                      host.isEmpty() ? tr("Open Veetbot Workbench to answer.")
                                     : tr("On %1. Open Veetbot Workbench to answer.").arg(host));
}

void Workbench::openSubject(const QString &subject)
{
    if (subject.startsWith(QLatin1String("card:")) && m_approvals) {
        m_approvals->showCard(subject.mid(5).toULongLong());
        m_main->showSection(MainWindow::Section::Approvals);
        m_main->bringForward();
    } else if (subject.startsWith(QLatin1String("notice:")) && m_notices) {
        // The notice itself, whose button starts the sign-in.
        m_main->bringForward();
        m_notices->window()->show();
        m_notices->window()->raise();
        m_notices->window()->activateWindow();
    }
}

} // namespace veetbot
