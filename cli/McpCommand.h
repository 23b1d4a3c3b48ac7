#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot mcp [--allow-origin ORIGIN]... [--approver deny|elicitation] [--allow-scroll]
// [--trust-turns owner|untrusted] [--budget N]`: a Model Context Protocol server on stdin/stdout
// (newline-delimited JSON-RPC). Before anything else starts, file descriptor 1 is duplicated for
// the protocol and pointed at stderr, so only protocol bytes ever reach stdout. Without
// --allow-origin it offers no browser tool and never starts a browser; with origins, the isolated
// browser starts on the first browser tool call. Exits 0 when stdin ends, 2 on a usage error, 3
// when an origin is refused ({"error":{...}} on stderr; stdout stays empty). Never opens the vault.
int runMcpCommand(const QStringList &arguments);

} // namespace veetbot
