#pragma once

#include "domain/OriginPolicy.h"
#include "domain/Result.h"
#include "domain/TestOverrides.h"
#include "service/ServiceProvider.h"

#include <QString>

#include <memory>

namespace veetbot {

// `--profile ID` for the commands that browse as a signed-in profile: the profile's metadata
// decides whether it may be used (READY only: AUTHENTICATION_REQUIRED is
// tool.browser.authentication_required, NEEDS_USER tool.browser.needs_user, anything else or
// an unknown id tool.browser.profile_unavailable), its allowed origins are the policy, and
// the browser is the profile service's (started on demand) behind a ServiceProvider whose
// run is this process.
struct BoundProfile
{
    OriginPolicy policy;
    std::unique_ptr<ServiceProvider> provider;
};
Result<BoundProfile> bindProfile(const QString &idText, const TestOverrides &overrides);

} // namespace veetbot
