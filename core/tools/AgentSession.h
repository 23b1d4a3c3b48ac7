#pragma once

#include "ToolPipeline.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <functional>
#include <optional>

namespace veetbot {

class EffectLedger;

// What the owner composed for one agent session (a `veetbot mcp` process or a task run): the
// policy, the authority settings, the stores and the records that every ToolPipeline of the
// session is built from. One composition for every agent surface, so a task run cannot drift
// from what `veetbot mcp` allows.
struct AgentSession
{
    std::optional<OriginPolicy> policy; // none: no browser tool
    TestOverrides overrides;
    bool allowScroll = false;
    // Who opens the agent's turns, as the owner stated it (`--trust-turns owner`; a task run's
    // only owner-authored message is the owner's task): the session itself cannot see it.
    // Without that statement every turn counts as opened by untrusted content.
    TurnSource turns = TurnSource::UntrustedContent;
    // The provider serves a READY browser profile the owner chose (`--profile`).
    bool readyProfile = false;
    // Ordinary interaction and task grants (PolicySettings), on unless the owner turned them
    // off; task grants need the store, the owner's scope and this session's pins.
    bool ordinaryInteraction = true;
    bool taskGrants = true;
    TaskGrantStore *taskGrantStore = nullptr; // must outlive the session
    ProfileScope owner;
    TaskGrantPins pins;
    // The standing grant the owner pinned this session to (`--grant ID`), its store, and the
    // session's purpose (`--purpose`).
    StandingGrantStore *standingGrantStore = nullptr; // must outlive the session
    std::optional<QUuid> standingGrant;
    std::optional<QString> purpose;
    // The owner's activity timeline for this session's events.
    std::function<void(const ActivityEvent &)> activity;
    // A page asked to sign in (ToolPipeline::Options::signInWall): the profile needs its owner.
    std::function<void()> signInWall;
    EffectLedger *ledger = nullptr; // must outlive the session; none: every act refused
    // The provider is the isolated browser provider (diagnostics' placement and the bounded
    // scroll permission depend on it).
    bool isolatedProvider = true;

    // The pipeline options of this session.
    ToolPipeline::Options pipelineOptions() const;
};

} // namespace veetbot
