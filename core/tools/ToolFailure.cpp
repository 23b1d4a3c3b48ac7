#include "ToolFailure.h"

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

} // namespace veetbot::ToolFailure
