#pragma once

#include <QString>

namespace veetbot::AgentConfiguration {

// What an MCP client needs to use one website through this installation: it starts
// `veetbot mcp --profile ID --approver workbench --trust-turns owner` (the acts wait for this
// workbench's cards; the owner states that only they write to the agent). Start here and
// Settings show the same.

// The `veetbot` program beside this one when there is one, else `veetbot` on the PATH.
QString program();
// The JSON `mcpServers` block desktop and editor clients read, indented; an empty id names
// PROFILE-ID where the id goes.
QString mcpServersJson(const QString &program, const QString &profileId);
// The one-line form command-line agents take after their own `mcp add`.
QString commandLine(const QString &program, const QString &profileId);

} // namespace veetbot::AgentConfiguration
