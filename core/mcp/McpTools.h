#pragma once

#include "domain/OriginPolicy.h"
#include "domain/Result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLatin1String>

namespace veetbot::mcp {

// The MCP face of the browser tools: names, descriptions and closed input schemas of
// browser.navigate, browser.observe and browser.act 1.7.0. Names are veetbot_*, never
// browser_* (Playwright MCP's unconfined tools use those). Descriptions name the accepted
// origins and nothing from a page.
namespace McpTools {

inline constexpr QLatin1String kNavigate("veetbot_navigate");
inline constexpr QLatin1String kObserve("veetbot_observe");
inline constexpr QLatin1String kAct("veetbot_act");

// The tools/list entries for a bound policy (empty without one: no browser tool exists).
QJsonArray definitions(const OriginPolicy &policy);

// {url}: one public HTTPS URL on an accepted origin.
QJsonObject navigateInputSchema();
// Exactly the modes ObserveRequest::fromJson accepts, one branch of oneOf each.
QJsonObject observeInputSchema();
// {kind, expected_revision, ref, ...} per kind, plus an optional postcondition.
QJsonObject actInputSchema();

// The keys browser.act's press accepts (no modifiers).
const QStringList &pressKeys();

// A structural check of browser.act arguments against actInputSchema(): the closed shape, the
// per-kind fields and their bounds. ToolArguments::invalidArguments() otherwise. It decides
// nothing about refs or revisions.
Result<Unit> checkActArguments(const QJsonObject &arguments);

} // namespace McpTools

// The approval failure of the tool pipeline: outside tool.browser.* because it is decided
// before any provider sees the call.
namespace ToolApproval {
inline constexpr QLatin1String kDeniedCode("tool.approval.denied");
inline constexpr QLatin1String kDeniedMessage("The action was not approved.");
Error denied();
} // namespace ToolApproval

} // namespace veetbot::mcp
