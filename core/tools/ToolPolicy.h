#pragma once

#include "ToolRegistry.h"

#include <QJsonObject>

namespace veetbot {

// What deterministic policy says about one tool call, before any grant or approval.
enum class PolicyDecision
{
    Allow,           // run without asking (a read; or a permitted bounded scroll)
    RequireApproval, // run only with a fresh, single-use approval of this exact call
    Deny             // never run
};

// The owner's settings that policy reads. Only the owner's composition sets them; nothing in
// tool arguments, page content or conversation text can.
struct PolicySettings
{
    // The owner's bounded scroll permission (`--allow-scroll`): a validated scroll of
    // 1-2,000 pixels through the isolated browser provider runs without approval.
    bool allowScroll = false;
    // Ordinary interaction (on by default; `veetbot mcp --ordinary-interaction off`): in a
    // turn the owner opened, on a READY profile the owner chose, routine and unknown controls
    // run without a card when GrantCoverage::refuseAct() finds nothing; a named consequence
    // still needs approval.
    bool ordinaryInteraction = true;
    // Task grants (on by default; `veetbot mcp --task-grants off`): an approval card may
    // offer one, and a session's active one stands in for approval inside its scope.
    bool taskGrants = true;

    // The policy version: the 64 hex digits of SHA-256 over the version of the policy rules
    // and these settings. A grant is pinned to the version in force when it was made; a
    // session under other settings (or a program with other rules) cannot use it.
    QString version() const;
};

// The agent version a grant pins: "veetbot " and the program's version (e.g.
// "veetbot 0.9.0"; task runs add their model name). A grant made by one release is not used
// by another.
QString agentVersion(const QString &programVersion);

// Who opened the current model turn: the newest user message's trust, supplied by the
// pipeline separately from the taint of page results (reading a feed does not remove the
// owner's permission; a turn opened by untrusted content still needs approval).
enum class TurnSource
{
    Owner,
    Schedule,
    UntrustedContent
};

// Facts from trusted composition about the call's binding.
struct PolicyContext
{
    // A trusted browser provider is bound and its binding enforces the origin policy.
    bool providerBound = false;
    // That provider is the isolated browser provider (network namespace, egress proxy).
    bool isolatedProvider = false;
    TurnSource turn = TurnSource::UntrustedContent;
    // The provider serves a browser profile the owner chose and the service found READY
    // (its signed-in session), not an anonymous browser.
    bool readyProfile = false;
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
// Whether ordinary interaction may stand in for an approval the decision above required: the
// owner's setting is on, the turn is the owner's, and the isolated provider serves a READY
// profile. The act itself must then be covered (GrantCoverage::refuseAct) on the facts of the
// observation that named its element.
bool allowsOrdinaryInteraction(const PolicySettings &settings, const PolicyContext &context);
// Whether a task grant may be offered or used in this session: the owner's setting is on, the
// turn is the owner's, and the isolated provider serves a READY profile. The act must then be
// covered inside the grant's scope (DispatchConstraint::covers with its prefix).
bool allowsTaskGrants(const PolicySettings &settings, const PolicyContext &context);
} // namespace ToolPolicy

} // namespace veetbot
