#pragma once

#include <QStringList>

class QObject;

namespace veetbot {

class EgressProxy;
class TestOverrides;

// Process-wide Chromium set-up for a browser-owning process. Call before the
// QApplication exists. Replaces any inherited Chromium flags (so a stray
// QTWEBENGINE_CHROMIUM_FLAGS or remote-debugging port never reaches the browser), disables
// background networking, QUIC and non-proxied WebRTC UDP, and disables the Chromium sandbox
// only when running as root, saying so on stderr.
namespace BrowserEnvironment {

// The fixed Chromium flags (without the sandbox switch).
QStringList chromiumFlags();
enum class Use
{
    Agent,  // the agent's browser: the fixed flags above
    SignIn, // the owner's sign-in view: Chromium as it is, but for the sandbox switch as root
};
// Applies the flags and environment to this process. Returns true when the sandbox was
// disabled because the process runs as root.
bool configureProcess(Use use = Use::Agent);
// Starts the process's egress proxy on loopback TCP and makes it the application proxy, which
// Qt WebEngine hands to Chromium: every browser of the process (the workbench's sign-in
// views) goes through it. Call once, before the first browser profile exists. nullptr when it
// cannot listen; then no browser may be created.
EgressProxy *startEgressProxy(const TestOverrides &overrides, QObject *parent);

} // namespace BrowserEnvironment
} // namespace veetbot
