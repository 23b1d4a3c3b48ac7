#pragma once

#include <QStringList>

namespace veetbot {

// Process-wide Chromium set-up for a browser-owning process. Call before the
// QApplication exists. Replaces any inherited Chromium flags (so a stray
// QTWEBENGINE_CHROMIUM_FLAGS or remote-debugging port never reaches the browser), disables
// background networking, QUIC and non-proxied WebRTC UDP, and disables the Chromium sandbox
// only when running as root, saying so on stderr.
namespace BrowserEnvironment {

// The fixed Chromium flags (without the sandbox switch).
QStringList chromiumFlags();
// Applies the flags and environment to this process. Returns true when the sandbox was
// disabled because the process runs as root.
bool configureProcess();

} // namespace BrowserEnvironment
} // namespace veetbot
