#pragma once

#include <QString>

namespace veetbot {

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

} // namespace veetbot
