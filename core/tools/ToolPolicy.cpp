#include "ToolPolicy.h"

#include "domain/action/ActRequest.h"

namespace veetbot::ToolPolicy {

PolicyDecision decide(const ToolDescriptor &tool, const QJsonObject &arguments,
                      const PolicySettings &settings, const PolicyContext &context)
{
    const std::optional<ToolClassification> specified =
        BrowserTools::specifiedClassification(tool.name);
    if (!specified || tool.version != BrowserTools::kVersion || tool.classification != *specified ||
        !context.providerBound)
        return PolicyDecision::Deny;
    if (tool.name != BrowserTools::kAct)
        return PolicyDecision::Allow; // NETWORK_READ through a bound provider

    const Result<ActRequest> request = ActRequest::fromJson(arguments);
    if (!request)
        return PolicyDecision::Deny;
    const bool boundedScroll = request->kind() == ActRequest::Kind::Scroll &&
                               settings.allowScroll && context.isolatedProvider &&
                               context.turn != TurnSource::UntrustedContent;
    return boundedScroll ? PolicyDecision::Allow : PolicyDecision::RequireApproval;
}

} // namespace veetbot::ToolPolicy
