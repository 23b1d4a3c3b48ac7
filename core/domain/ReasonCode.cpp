#include "ReasonCode.h"

namespace veetbot {

QString reasonCodeString(ReasonCode code)
{
    switch (code) {
    case ReasonCode::UrlDisallowed:
        return QStringLiteral("tool.browser.url_disallowed");
    case ReasonCode::ProviderUnavailable:
        return QStringLiteral("tool.browser.provider_unavailable");
    case ReasonCode::NavigationCancelled:
        return QStringLiteral("tool.browser.navigation_cancelled");
    case ReasonCode::ProfileUnavailable:
        return QStringLiteral("tool.browser.profile_unavailable");
    case ReasonCode::AuthenticationRequired:
        return QStringLiteral("tool.browser.authentication_required");
    case ReasonCode::NeedsUser:
        return QStringLiteral("tool.browser.needs_user");
    case ReasonCode::PageChanged:
        return QStringLiteral("tool.browser.page_changed");
    case ReasonCode::ElementNotFound:
        return QStringLiteral("tool.browser.element_not_found");
    case ReasonCode::RegionNotActionable:
        return QStringLiteral("tool.browser.region_not_actionable");
    case ReasonCode::FocusRequired:
        return QStringLiteral("tool.browser.focus_required");
    case ReasonCode::ActionNotAllowed:
        return QStringLiteral("tool.browser.action_not_allowed");
    case ReasonCode::GrantNotApplicable:
        return QStringLiteral("tool.browser.grant_not_applicable");
    case ReasonCode::WriteRequiresApproval:
        return QStringLiteral("tool.browser.write_requires_approval");
    case ReasonCode::OutputInvalid:
        return QStringLiteral("tool.browser.output_invalid");
    case ReasonCode::OutcomeUnknown:
        return QStringLiteral("tool.browser.outcome_unknown");
    case ReasonCode::AccountMismatch:
        return QStringLiteral("tool.browser.account_mismatch");
    }
    Q_UNREACHABLE();
    return QString();
}

QString reasonCodeMessage(ReasonCode code)
{
    switch (code) {
    case ReasonCode::UrlDisallowed:
        return QStringLiteral("The destination is not an allowed public HTTPS origin.");
    case ReasonCode::ProviderUnavailable:
        return QStringLiteral("The browser could not complete the operation.");
    case ReasonCode::NavigationCancelled:
        return QStringLiteral("The page cancelled the navigation; the current page remains open. "
                              "If it holds unsaved input, navigate with discard_unsaved: true to "
                              "leave it; nothing is sent.");
    case ReasonCode::ProfileUnavailable:
        return QStringLiteral("The browser profile is not available.");
    case ReasonCode::AuthenticationRequired:
        return QStringLiteral("The browser profile needs the owner to sign in.");
    case ReasonCode::NeedsUser:
        return QStringLiteral("The site needs the owner's attention.");
    case ReasonCode::PageChanged:
        return QStringLiteral("The page changed; observe it again and use the new references.");
    case ReasonCode::ElementNotFound:
        return QStringLiteral("The element is not available for this action.");
    case ReasonCode::RegionNotActionable:
        return QStringLiteral("A region reference cannot be used for this operation.");
    case ReasonCode::FocusRequired:
        return QStringLiteral("Text continuation needs the matching region focus.");
    case ReasonCode::ActionNotAllowed:
        return QStringLiteral("This action is not allowed.");
    case ReasonCode::GrantNotApplicable:
        return QStringLiteral("No grant covers this action.");
    case ReasonCode::WriteRequiresApproval:
        return QStringLiteral("The action would have sent a change to the site; nothing was sent. "
                              "It needs the owner's approval.");
    case ReasonCode::OutputInvalid:
        return QStringLiteral("The browser result could not be represented within its bounds.");
    case ReasonCode::OutcomeUnknown:
        return QStringLiteral("The action may have reached the site; it will not be repeated.");
    case ReasonCode::AccountMismatch:
        return QStringLiteral("The website shows another account than the profile is for; the "
                              "owner needs to sign in with that account.");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<ReasonCode> reasonCodeFromString(const QString &wire)
{
    for (ReasonCode code : kAllReasonCodes) {
        if (reasonCodeString(code) == wire)
            return code;
    }
    return std::nullopt;
}

} // namespace veetbot
