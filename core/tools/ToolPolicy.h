#pragma once

#include "ToolRegistry.h"
#include "policy/OwnerPolicy.h"

#include <QJsonObject>

namespace veetbot {

// What deterministic policy says about one tool call, before any grant or approval.
enum class PolicyDecision
{
    Allow,           // run without asking (a read; or a permitted bounded scroll)
    RequireApproval, // run only with a fresh, single-use approval of this exact call
    Deny             // never run
};

// Deterministic policy, deny-biased:
//  - anything but browser.navigate / browser.observe / browser.act at version 1.7.0, or a
//    descriptor whose classification differs from the specified one, is denied;
//  - with no bound provider every browser tool is denied;
//  - navigate and observe are NETWORK_READ: allowed;
//  - act is EXTERNAL_WRITE / HIGH / NON_IDEMPOTENT: it requires a fresh approval, except a
//    scroll when the owner enabled the bounded scroll permission, the provider is the isolated
//    one, the turn was not opened by untrusted content, and the arguments parse as exactly
//    {kind: scroll, expected_revision, ref, delta, postcondition?} (any other kind, unknown
//    field or out-of-bound delta cannot use the permission);
//  - act arguments that do not parse are denied (the pipeline reports them as
//    tool.invalid_arguments before asking policy).
// Hardline checks that follow (origin, revision, serial dispatch, effect recording) apply to
// an allowed scroll exactly as to an approved action.
namespace ToolPolicy {
PolicyDecision decide(const ToolDescriptor &tool, const QJsonObject &arguments,
                      const PolicySettings &settings, const PolicyContext &context);
} // namespace ToolPolicy

} // namespace veetbot
