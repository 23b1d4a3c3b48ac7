#pragma once

#include <QString>

#include <optional>

namespace veetbot {

// The stable browser failure family (tool.browser.*).
// Each code has one fixed wire string and one fixed message; neither ever carries browser,
// site or provider text.
enum class ReasonCode
{
    UrlDisallowed,
    ProviderUnavailable,
    NavigationCancelled,
    ProfileUnavailable,
    AuthenticationRequired,
    NeedsUser,
    PageChanged,
    ElementNotFound,
    RegionNotActionable,
    FocusRequired,
    ActionNotAllowed,
    GrantNotApplicable,
    WriteRequiresApproval,
    OutputInvalid,
    OutcomeUnknown,
    AccountMismatch,
};

inline constexpr ReasonCode kAllReasonCodes[] = {
    ReasonCode::UrlDisallowed,
    ReasonCode::ProviderUnavailable,
    ReasonCode::NavigationCancelled,
    ReasonCode::ProfileUnavailable,
    ReasonCode::AuthenticationRequired,
    ReasonCode::NeedsUser,
    ReasonCode::PageChanged,
    ReasonCode::ElementNotFound,
    ReasonCode::RegionNotActionable,
    ReasonCode::FocusRequired,
    ReasonCode::ActionNotAllowed,
    ReasonCode::GrantNotApplicable,
    ReasonCode::WriteRequiresApproval,
    ReasonCode::OutputInvalid,
    ReasonCode::OutcomeUnknown,
    ReasonCode::AccountMismatch,
};

// "tool.browser.url_disallowed" and so on.
QString reasonCodeString(ReasonCode code);
// The fixed, content-free message shown with the code.
QString reasonCodeMessage(ReasonCode code);
std::optional<ReasonCode> reasonCodeFromString(const QString &wire);

} // namespace veetbot
