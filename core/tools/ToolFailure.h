#pragma once

#include "domain/Result.h"

#include <QLatin1String>

namespace veetbot {

// The tool pipeline's own failures, outside the tool.browser.* family like
// ToolArguments::invalidArguments(): each is decided before any provider dispatch, and each
// has one fixed message that never carries arguments, page text or approver input.
namespace ToolFailure {

// Deterministic policy refused the call (no bound provider, an unknown tool or version, a
// classification mismatch, arguments that cannot be classified).
inline constexpr QLatin1String kPolicyDeniedCode("tool.policy_denied");
inline constexpr QLatin1String kPolicyDeniedMessage("Policy does not allow this tool call.");
// The owner did not approve the action: declined, cancelled, an approver error or timeout.
inline constexpr QLatin1String kApprovalDeniedCode("tool.approval_denied");
inline constexpr QLatin1String kApprovalDeniedMessage("The action was not approved.");
// The approval offered does not cover this call: it was used already, or it was given for
// other arguments, another element or another revision.
inline constexpr QLatin1String kApprovalRequiredCode("tool.approval_required");
inline constexpr QLatin1String
    kApprovalRequiredMessage("This action needs its own fresh approval.");

// A page asked its visitor to sign in (SignInChallenge): only the owner can go on. A read
// answers it as tool.browser.needs_user; an act that was sent before the page asked answers
// tool.browser.outcome_unknown with the sign-in message, and its ledger record carries
// kSignInMarker. Nothing of the page is offered (its refs are retired).
inline constexpr QLatin1String kSignInMarker("interruption.sign_in");
inline constexpr QLatin1String
    kSignInRequiredMessage("The website asks to sign in. Only the owner can sign in, and they "
                           "have been asked to; nothing of this page is offered.");
inline constexpr QLatin1String kSentThenSignInMessage(
    "The action was sent, then the website asked to sign in: whether it took effect is "
    "unknown, and it is never sent again. Only the owner can sign in, and they have been "
    "asked to.");

Error policyDenied();
Error approvalDenied();
Error approvalRequired();
Error signInRequired();
Error sentThenSignIn();

} // namespace ToolFailure

} // namespace veetbot
