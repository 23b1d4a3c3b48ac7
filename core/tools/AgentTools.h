#pragma once

#include "domain/Result.h"
#include "domain/web/OriginPolicy.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLatin1String>

namespace veetbot {

// The agent face of the browser tools, one for every agent: the MCP server lists them, the
// model loop offers them as chat-completions functions. Names, descriptions and closed input
// schemas of browser.navigate, browser.observe and browser.act 1.7.0. Names are veetbot_*,
// never browser_* (Playwright MCP's unconfined tools use those). Descriptions name the
// accepted origins and nothing from a page.
namespace AgentTools {

inline constexpr QLatin1String kNavigate("veetbot_navigate");
inline constexpr QLatin1String kObserve("veetbot_observe");
inline constexpr QLatin1String kAct("veetbot_act");

// The tools/list entries for a bound policy (empty without one: no browser tool exists).
QJsonArray definitions(const OriginPolicy &policy);
// The same tools as chat-completions functions ({"type":"function","function":{name,
// description, parameters}}), for the model loop.
QJsonArray chatFunctions(const OriginPolicy &policy);
// The browser tool (BrowserTools::kNavigate, ...) an agent tool name stands for; empty for
// any other name.
QString browserToolOf(const QString &agentTool);

// The tools' closed input schemas: the tool registry's (BrowserTools), one source for every
// surface. {url}; exactly the modes ObserveRequest::fromJson accepts; exactly what
// ActRequest::fromJson accepts.
QJsonObject navigateInputSchema();
QJsonObject observeInputSchema();
QJsonObject actInputSchema();

// browser.act's closed schema check (ActRequest::fromJson): the closed shape, the per-kind
// fields and their bounds. ToolArguments::invalidArguments() otherwise. It decides nothing
// about refs or revisions.
Result<Unit> checkActArguments(const QJsonObject &arguments);

} // namespace AgentTools

} // namespace veetbot
