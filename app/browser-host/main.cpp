// veetbot-browser-host: the browser-owning process. Started by the core
// (IsolatedBrowserProvider) inside its own network namespace; never meant to be run by hand.

#include "BrowserEnvironment.h"
#include "ChromiumProvider.h"
#include "HostServer.h"
#include "WebEngineProvider.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "isolation/NetworkNamespace.h"
#include "net/LocalForwarder.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QNetworkProxy>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

using namespace veetbot;

int main(int argc, char **argv)
{
    // The protocol keeps a private copy of stdout; fd 1 becomes stderr because Chromium's
    // child processes inherit it and must never write into the protocol.
    const int protocolFd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocolFd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return 3;

    // Fail closed: the browser starts only inside an empty network namespace.
    if (!NetworkNamespace::bringUpLoopback() || !NetworkNamespace::isIsolated()) {
        std::fputs("veetbot: the browser host is not network-isolated; refusing to start\n",
                   stderr);
        return 3;
    }

    const bool sandboxOff = BrowserEnvironment::configureProcess();
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-browser-host"));

    QCommandLineParser parser;
    const QCommandLineOption socketOption(QStringLiteral("egress-socket"),
                                          QStringLiteral("Egress proxy socket."),
                                          QStringLiteral("path"));
    const QCommandLineOption originOption(QStringLiteral("allow-origin"),
                                          QStringLiteral("Allowed origin."),
                                          QStringLiteral("origin"));
    // A device verification's browser: its pages' own requests are observed
    // (WebEngineProvider::observeNetwork).
    const QCommandLineOption observeOption(QStringLiteral("observe-network"),
                                           QStringLiteral("Observe the page's requests."));
    // The engine of this host's browser: Qt WebEngine in this process, or Debian's Chromium
    // as a child of it (inside the same network namespace, behind the same forwarder).
    const QCommandLineOption engineOption(QStringLiteral("engine"),
                                          QStringLiteral("Browser engine."), QStringLiteral("name"),
                                          QStringLiteral("qtwebengine"));
    parser.addOption(observeOption);
    parser.addOption(engineOption);
    parser.addOption(socketOption);
    parser.addOption(originOption);
    parser.process(app);

    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return 3;
    const Result<QList<Origin>> origins = Origin::parseAll(parser.values(originOption), *overrides);
    if (!origins)
        return 3;
    const Result<OriginPolicy> policy = OriginPolicy::create(*origins);
    const std::optional<BrowserEngine> engine = browserEngineFromName(parser.value(engineOption));
    if (!policy || !engine || parser.value(socketOption).isEmpty())
        return 3;

    LocalForwarder forwarder(parser.value(socketOption));
    if (!forwarder.listen())
        return 3;
    // Every browser connection goes to the forwarder, the namespace's only way out.
    QNetworkProxy::setApplicationProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), forwarder.port()));

    std::unique_ptr<BrowserProvider> provider;
    if (*engine == BrowserEngine::Chromium) {
        chromium::ChromiumProcess::Options options;
        options.noSandbox = sandboxOff;
        options.proxy = QStringLiteral("127.0.0.1:%1").arg(forwarder.port());
        auto chromium = std::make_unique<chromium::ChromiumProvider>(*policy, *overrides, options);
        if (parser.isSet(observeOption))
            chromium->observeNetwork();
        // Only the tunnels its request stage let a request through may leave the namespace.
        forwarder.setAdmission([browser = chromium.get()](const QString &host, quint16 port) {
            return browser->admitsTunnel(host, port);
        });
        provider = std::move(chromium);
    } else {
        auto webengine = std::make_unique<WebEngineProvider>(*policy, *overrides);
        if (parser.isSet(observeOption))
            webengine->observeNetwork();
        provider = std::move(webengine);
    }
    HostServer server(provider.get(), protocolFd, *overrides);
    // The owner retired the idle egress tunnels when it opened an act's gate; Chromium sees
    // those connections closed before the act's request picks one (docs/decisions/0005).
    server.setGateOpenedHook([&forwarder] { forwarder.propagateProxyCloses(); });
    server.announceReady();
    return app.exec();
}
