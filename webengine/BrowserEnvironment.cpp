#include "BrowserEnvironment.h"

#include "domain/web/BrowserSwitches.h"
#include "domain/web/TestOverrides.h"
#include "net/EgressProxy.h"

#include <QByteArray>
#include <QNetworkProxy>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace veetbot::BrowserEnvironment {

QStringList chromiumFlags()
{
    return agentBrowserSwitches();
}

bool configureProcess(Use use)
{
    // Nothing inherited may configure the browser: no debugging port, no extra flags.
    ::unsetenv("QTWEBENGINE_REMOTE_DEBUGGING");
    ::unsetenv("QTWEBENGINE_DICTIONARIES_PATH");
    ::unsetenv("QTWEBENGINE_DISABLE_SANDBOX");
    QStringList flags = use == Use::Agent ? chromiumFlags() : QStringList();
    const bool root = ::geteuid() == 0;
    if (root) {
        flags.append(QStringLiteral("--no-sandbox"));
        std::fputs("veetbot: running as root, so the Chromium sandbox is disabled\n", stderr);
    }
    ::setenv("QTWEBENGINE_CHROMIUM_FLAGS", flags.join(QLatin1Char(' ')).toLocal8Bit().constData(),
             1);
    return root;
}

EgressProxy *startEgressProxy(const TestOverrides &overrides, QObject *parent)
{
    auto *proxy = new EgressProxy(overrides, parent);
    if (!proxy->listenTcp()) {
        delete proxy;
        return nullptr;
    }
    QNetworkProxy::setApplicationProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), proxy->tcpPort()));
    return proxy;
}

} // namespace veetbot::BrowserEnvironment
