// veetbot-workbench: the desktop GUI. It opens on Website Access: the owner's websites, each
// signed in once in the workbench's own sign-in view and verified by the profile service.
// `--sign-in ID` opens the sign-in view for one profile (what `veetbot profiles sign-in ID`
// starts when there is a display). `--preview` keeps the developer preview, whose page still
// runs in this process.

#include "BrowserEnvironment.h"
#include "ProfilesCommand.h"
#include "SignInWindow.h"
#include "WebsiteAccessWindow.h"
#include "WorkbenchWindow.h"
#include "domain/TestOverrides.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include <cstring>

using namespace veetbot;

namespace {

// The developer preview hosts an agent's page: it needs the agent browser's flags.
bool wantsPreview(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--preview") == 0)
            return true;
    }
    return false;
}

int signInOnce(const QString &idText, const TestOverrides &overrides)
{
    const QUuid id = QUuid::fromString(idText);
    const Result<QList<BrowserProfile>> profiles = listProfiles();
    if (!profiles) {
        QTextStream(stderr) << "veetbot-workbench: " << profiles.error().message << '\n';
        return 3;
    }
    for (const BrowserProfile &profile : *profiles) {
        if (profile.id != id || id.isNull())
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
    // Chromium's flags and sandbox set-up must be in place before the QApplication exists.
    const bool preview = wantsPreview(argc, argv);
    BrowserEnvironment::configureProcess(preview ? BrowserEnvironment::Use::Agent
                                                 : BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Veetbot Workbench: the websites your agents may use as you, each signed "
                       "in once here (Website Access)."));
    parser.addHelpOption();
    const QCommandLineOption signInOption(
        QStringLiteral("sign-in"), QStringLiteral("Open the sign-in view for this profile id."),
        QStringLiteral("id"));
    const QCommandLineOption previewOption(
        QStringLiteral("preview"),
        QStringLiteral("The developer preview: open an allowed page in this process and show "
                       "its bounded observation."));
    const QCommandLineOption originOption(
        QStringLiteral("allow-origin"),
        QStringLiteral("With --preview: an exact HTTPS origin the browser may open. Repeat for "
                       "more origins."),
        QStringLiteral("origin"));
    parser.addOptions({signInOption, previewOption, originOption});
    parser.addPositionalArgument(
        QStringLiteral("url"),
        QStringLiteral("With --preview: a public HTTPS address to open at start."),
        QStringLiteral("[url]"));
    parser.process(app);

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1 ||
        (!preview && (!positional.isEmpty() || parser.isSet(originOption)))) {
        QTextStream(stderr) << "veetbot-workbench: an address and --allow-origin are for "
                               "--preview\n";
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
    const EgressProxy *proxy = WorkbenchWindow::startEgressProxy(*overrides, &app);
    if (!proxy) {
        QTextStream(stderr) << "veetbot-workbench: the egress proxy could not start\n";
        return 1;
    }

    if (parser.isSet(signInOption))
        return signInOnce(parser.value(signInOption), *overrides);
    if (preview) {
        const QStringList origins = parser.values(originOption);
        const QString address = positional.value(0);
        WorkbenchWindow window(proxy, *overrides, origins, address);
        window.show();
        if (!address.isEmpty() && !origins.isEmpty())
            window.open();
        return app.exec();
    }
    WebsiteAccessWindow window(*overrides);
    window.show();
    return app.exec();
}
