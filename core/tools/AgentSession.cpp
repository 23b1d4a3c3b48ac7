#include "AgentSession.h"

namespace veetbot {

ToolPipeline::Options AgentSession::pipelineOptions() const
{
    ToolPipeline::Options options;
    options.settings.allowScroll = allowScroll;
    options.context.isolatedProvider = isolatedProvider;
    // Whether a page opened the agent's current turn is not visible here: only the owner's
    // own statement makes a turn the owner's.
    options.context.turn = turns;
    options.context.readyProfile = readyProfile;
    options.settings.ordinaryInteraction = ordinaryInteraction;
    options.settings.taskGrants = taskGrants;
    options.taskGrants = taskGrantStore;
    options.owner = owner;
    options.pins = pins;
    options.overrides = overrides;
    options.standingGrants = standingGrantStore;
    options.standingGrant = standingGrant;
    options.purpose = purpose;
    options.activity = activity;
    options.signInWall = signInWall;
    return options;
}

} // namespace veetbot
