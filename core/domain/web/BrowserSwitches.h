#pragma once

#include <QStringList>

namespace veetbot {

// The command-line switches every agent browser starts with, whichever engine carries it (Qt
// WebEngine through QTWEBENGINE_CHROMIUM_FLAGS, Debian's Chromium on its command line): none of
// Chromium's own background requests (updates, sync, reporting, pings), HTTP/1.1 only, no
// QUIC, no GPU, and WebRTC held to proxied UDP, so the egress proxy sees the page's requests
// and nothing else.
QStringList agentBrowserSwitches();

} // namespace veetbot
