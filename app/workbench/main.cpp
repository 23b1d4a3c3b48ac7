// veetbot-workbench: the desktop GUI. It opens on Website Access: the owner's websites, each
// signed in once in the workbench's own sign-in view and verified by the profile service.
// `--sign-in ID` opens the sign-in view for one profile (what `veetbot profiles sign-in ID`
// starts when there is a display). No agent's page ever runs in this process: agents'
// browsers run isolated in the profile service.

#include "ApprovalCard.h"
#include "BrowserEnvironment.h"
#include "GrantBanner.h"
#include "NewTask.h"
#include "RunsWindow.h"
#include "SettingsWindow.h"
#include "SignInNotices.h"
#include "SignInWindow.h"
#include "WebsiteAccessWindow.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"
#include "domain/web/TestOverrides.h"
#include "net/EgressProxy.h"
#include "profiles/RunPresence.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTextStream>
#include <QTimer>

#include <memory>

using namespace veetbot;

namespace {

int signInOnce(const QString &idText, const TestOverrides &overrides)
{
    const QUuid id = QUuid::fromString(idText);
    const Result<QList<BrowserProfile>> profiles = listProfiles();
    if (!profiles) {
        QTextStream(stderr) << "veetbot-workbench: " << profiles.error().message << '\n';
        return 3;
    }
    for (const BrowserProfile &profile : *profiles) {
        if (profile.id != id || id.isNull() || profile.allowedOrigins.isEmpty())
            continue;
        auto *window = new SignInWindow(profile, overrides,
                                        QUrl(profile.allowedOrigins.constFirst().toString() + '/'));
        window->setAttribute(Qt::WA_DeleteOnClose);
        bool ready = false;
        QObject::connect(window, &SignInWindow::finished, qApp,
                         [&ready](bool isReady, const QString &) { ready = isReady; });
        window->show();
        qApp->exec();
        return ready ? 0 : 3;
    }
    QTextStream(stderr) << "veetbot-workbench: " << profileError(ProfileFailure::NotFound).message
                        << '\n';
    return 3;
}

} // namespace

int main(int argc, char **argv)
{
    // Chromium's set-up must be in place before the QApplication exists. The sign-in view
    // runs Chromium as it is (as root only without its sandbox).
    BrowserEnvironment::configureProcess(BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-workbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(VEETBOT_VERSION));
    // The desktop entry's name (installers/), so a Wayland compositor matches the window.
    QGuiApplication::setDesktopFileName(QStringLiteral("org.veetbot.Workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Veetbot Workbench: the websites your agents may use as you, each signed "
                       "in once here (Website Access)."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption signInOption(
        QStringLiteral("sign-in"), QStringLiteral("Open the sign-in view for this profile id."),
        QStringLiteral("id"));
    parser.addOption(signInOption);
    parser.process(app);
    if (!parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << "veetbot-workbench: no address is taken; add a website in "
                               "Website Access\n";
        return 2;
    }

    // Test-only settings come from the environment and are announced on stderr.
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides) {
        QTextStream(stderr) << "veetbot-workbench: " << overrides.error().message << '\n';
        return 2;
    }

    // Before the first browser profile exists: all of Chromium's traffic goes through the
    // egress proxy.
    if (!BrowserEnvironment::startEgressProxy(*overrides, &app)) {
        QTextStream(stderr) << "veetbot-workbench: the egress proxy could not start\n";
        return 1;
    }

    if (parser.isSet(signInOption))
        return signInOnce(parser.value(signInOption), *overrides);
    // The metadata store first: the windows below read it, and go before it.
    Result<MetadataStore> metadata = openMetadataStore(QString());
    // The owner answers every local agent's approval questions here, over a private socket
    // in the runtime directory (docs/workbench.md#approvals).
    ApprovalBroker broker;
    std::unique_ptr<ApprovalsWindow> approvals;
    const Result<QString> socket = workbenchSocketPath();
    if (socket && broker.listen(*socket)) {
        approvals = std::make_unique<ApprovalsWindow>(broker);
        approvals->hide(); // it shows itself with the first card
    }
    // Active task grants, counting down, with Revoke, above the cards.
    if (approvals && metadata) {
        auto *banner = new GrantBanner(metadata->repository->taskGrants(), metadata->scope());
        approvals->setBanner(banner);
        QObject::connect(banner, &GrantBanner::activeChanged, approvals.get(),
                         [window = approvals.get()](int count) {
                             if (count > 0)
                                 window->show();
                         });
    } else {
        QTextStream(stderr) << "veetbot-workbench: approvals are not served here (another "
                               "workbench serves them, or the runtime directory is unusable)\n";
    }
    WebsiteAccessWindow window(*overrides);
    std::unique_ptr<RunsWindow> runs;
    if (metadata)
        runs = std::make_unique<RunsWindow>(
            metadata->repository->timeline(), metadata->scope(),
            &metadata->repository->taskGrants(),
            [overrides = *overrides, owner = metadata->scope()](const QUuid &run) {
                return liveFrame(overrides, owner, run);
            });
    // "New task" in the runs view: task runs as child processes, their model endpoint
    // remembered in the workbench's settings file.
    TaskLauncher launcher;
    std::unique_ptr<QSettings> workbenchSettings;
    if (runs) {
        workbenchSettings = std::make_unique<QSettings>(metadata->config.configDirectory() +
                                                            QStringLiteral("/workbench.ini"),
                                                        QSettings::IniFormat);
        runs->setTaskLauncher(
            &launcher,
            [] {
                QList<BrowserProfile> ready;
                const Result<QList<BrowserProfile>> profiles = listProfiles();
                for (const BrowserProfile &profile : profiles ? *profiles : ready)
                    if (profile.status == ProfileStatus::Ready)
                        ready.append(profile);
                return ready;
            },
            workbenchSettings.get());
        runs->setTaskRuns(&metadata->repository->taskRuns());
        // A run whose agent died without ending it shows as ended, "interrupted".
        runs->setBeforeRefresh([&metadata] {
            RunPresence::endAbandonedRuns(metadata->repository->timeline(), metadata->scope(),
                                          metadata->config.dataDirectory());
        });
    }
    QObject::connect(&window, &WebsiteAccessWindow::runsRequested, &window, [&runs] {
        if (!runs)
            return;
        runs->refresh();
        runs->show();
        runs->raise();
    });
    std::unique_ptr<SettingsWindow> settings;
    if (metadata) {
        settings =
            std::make_unique<SettingsWindow>(*metadata->repository, metadata->scope(), *overrides);
        settings->setWorkbenchSettings(workbenchSettings.get());
    }
    QObject::connect(&window, &WebsiteAccessWindow::settingsRequested, &window, [&settings] {
        if (!settings)
            return;
        settings->refresh();
        settings->show();
        settings->raise();
    });
    QObject::connect(&window, &WebsiteAccessWindow::approvalsRequested, &window, [&approvals] {
        if (approvals) {
            approvals->show();
            approvals->raise();
        }
    });
    // "Sign in to <site> again": one notice per website whose run waits at a sign-in wall,
    // read from the metadata store every two seconds.
    std::unique_ptr<SignInNotices> notices;
    QTimer noticeReads;
    if (metadata) {
        notices = std::make_unique<SignInNotices>(
            [&metadata] { return metadata->repository->profiles().list(metadata->scope()); });
        QObject::connect(notices.get(), &SignInNotices::signInRequested, &window,
                         &WebsiteAccessWindow::signInAgain);
        QObject::connect(&noticeReads, &QTimer::timeout, notices.get(), &SignInNotices::refresh);
        noticeReads.start(2000);
    }
    window.show();
    if (notices)
        notices->refresh();
    return app.exec();
}
