#include "BrowserEnvironment.h"

#include "domain/TestOverrides.h"
#include "net/EgressProxy.h"

#include <QByteArray>
#include <QNetworkProxy>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace veetbot::BrowserEnvironment {

QStringList chromiumFlags()
{
    return {
        QStringLiteral("--disable-background-networking"),
        QStringLiteral("--disable-component-update"),
        QStringLiteral("--disable-sync"),
        QStringLiteral("--disable-domain-reliability"),
        QStringLiteral("--disable-breakpad"),
        QStringLiteral("--disable-quic"),
        // HTTP/1.1 only (docs/decisions/0005): an act's write never rides a reused HTTP/2
        // session that Chromium would resend it on.
        QStringLiteral("--disable-http2"),
        QStringLiteral("--disable-smooth-scrolling"),
        QStringLiteral("--disable-gpu"),
        QStringLiteral("--no-pings"),
        QStringLiteral("--webrtc-ip-handling-policy=disable_non_proxied_udp"),
        QStringLiteral("--force-webrtc-ip-handling-policy"),
        QStringLiteral("--log-level=3"),
    };
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
