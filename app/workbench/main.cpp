// veetbot-workbench: the desktop GUI, one per user (a second launch brings the first forward).
// Its main window (ui/Workbench) holds the owner's websites, each signed in once and verified
// by the profile service, the agents' approval cards, their activity and the settings.
// `--sign-in ID` opens the sign-in view for one profile (what `veetbot profiles sign-in ID`
// starts when there is a display). No agent's page ever runs in this process: agents'
// browsers run isolated in the profile service.

#include "BrowserEnvironment.h"
#include "MainWindow.h"
#include "SignInWindow.h"
#include "SingleInstance.h"
#include "Workbench.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"
#include "domain/web/TestOverrides.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

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
    const QCommandLineOption backgroundOption(
        QStringLiteral("background"),
        QStringLiteral("Start in the tray where the desktop has one (the autostart entry's way)."));
    parser.addOption(backgroundOption);
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
    // One workbench per user: a second launch brings the running one forward and ends.
    const Result<QString> socket = workbenchSocketPath();
    std::unique_ptr<SingleInstance> instance;
    if (socket) {
        instance = std::make_unique<SingleInstance>(SingleInstance::besideApprovals(*socket));
        if (instance->handOff()) {
            QTextStream(stdout) << "veetbot-workbench: the running workbench came forward\n";
            return 0;
        }
        if (!instance->listen())
            QTextStream(stderr) << "veetbot-workbench: later launches will not find this one "
                                   "(the runtime directory is unusable)\n";
    }
    Workbench workbench(*overrides);
    app.setQuitOnLastWindowClosed(false); // the window may stay in the tray; Quit ends it
    QObject::connect(&workbench, &Workbench::quitRequested, &app, &QCoreApplication::quit);
    if (instance)
        QObject::connect(instance.get(), &SingleInstance::raiseRequested, &workbench.window(),
                         &MainWindow::bringForward);
    workbench.show(parser.isSet(backgroundOption));
    return app.exec();
}
