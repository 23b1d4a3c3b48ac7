#include "BrowserSwitches.h"

namespace veetbot {

QStringList agentBrowserSwitches()
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

} // namespace veetbot
