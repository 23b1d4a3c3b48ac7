// veetbot-workbench: the desktop GUI. Developer preview: the page runs in this process
// (through the egress proxy) until the isolated profile service exists.

#include "BrowserEnvironment.h"
#include "WorkbenchWindow.h"
#include "domain/TestOverrides.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

using namespace veetbot;

int main(int argc, char **argv)
{
    // Chromium's flags and sandbox set-up must be in place before the QApplication exists.
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Veetbot Workbench (developer preview): open an allowed public HTTPS page "
                       "in an embedded browser and show its bounded observation. The page runs "
                       "in this process; agent-operated browsers run isolated in the veetbot "
                       "CLI."));
    parser.addHelpOption();
    const QCommandLineOption originOption(
        QStringLiteral("allow-origin"),
        QStringLiteral("An exact HTTPS origin the browser may open, such as "
                       "https://shop.example. Repeat for more origins."),
        QStringLiteral("origin"));
    parser.addOption(originOption);
    parser.addPositionalArgument(
        QStringLiteral("url"),
        QStringLiteral("Optional public HTTPS address to open at start (needs --allow-origin)."),
        QStringLiteral("[url]"));
    parser.process(app);

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        QTextStream(stderr) << "veetbot-workbench: at most one address may be given\n";
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

    const QStringList origins = parser.values(originOption);
    const QString address = positional.value(0);
    WorkbenchWindow window(proxy, *overrides, origins, address);
    window.show();
    if (!address.isEmpty() && !origins.isEmpty())
        window.open();
    return app.exec();
}
