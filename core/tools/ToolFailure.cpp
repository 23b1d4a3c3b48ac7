#include "ToolFailure.h"

#include "domain/ReasonCode.h"

namespace veetbot::ToolFailure {

Error policyDenied()
{
    return Error{QString(kPolicyDeniedCode), QString(kPolicyDeniedMessage)};
}

Error approvalDenied()
{
    return Error{QString(kApprovalDeniedCode), QString(kApprovalDeniedMessage)};
}

Error approvalRequired()
{
    return Error{QString(kApprovalRequiredCode), QString(kApprovalRequiredMessage)};
}

Error signInRequired()
{
    return Error{reasonCodeString(ReasonCode::NeedsUser), QString(kSignInRequiredMessage)};
}

Error sentThenSignIn()
{
    return Error{reasonCodeString(ReasonCode::OutcomeUnknown), QString(kSentThenSignInMessage)};
}

} // namespace veetbot::ToolFailure
