#include "ToolPolicy.h"

#include "domain/ActRequest.h"
#include "domain/Sha256.h"

namespace veetbot {

namespace {
// Advances whenever a rule that decides what runs without a fresh approval changes (the
// classifier's vocabulary, coverage, the scroll bound), so grants made under the old rules end.
constexpr QLatin1String kPolicyRules{"veetbot-policy-rules-1"};
} // namespace

QString PolicySettings::version() const
{
    const QString text = QStringLiteral("%1\nallow_scroll=%2\nordinary_interaction=%3\n"
                                        "task_grants=%4\n")
                             .arg(kPolicyRules)
                             .arg(int(allowScroll))
                             .arg(int(ordinaryInteraction))
                             .arg(int(taskGrants));
    return Sha256::hex(text.toUtf8());
}

QString agentVersion(const QString &programVersion)
{
    return QStringLiteral("veetbot ") + programVersion;
}

} // namespace veetbot

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

bool allowsOrdinaryInteraction(const PolicySettings &settings, const PolicyContext &context)
{
    return settings.ordinaryInteraction && context.providerBound && context.isolatedProvider &&
           context.readyProfile && context.turn == TurnSource::Owner;
}

} // namespace veetbot::ToolPolicy
