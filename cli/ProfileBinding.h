#pragma once

#include "domain/Result.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "profiles/SqlStores.h"
#include "service/client/ServiceProvider.h"

#include <QString>

#include <memory>

namespace veetbot {

// `--profile ID` for the commands that browse as a signed-in profile: the profile's metadata
// decides whether it may be used (READY only: AUTHENTICATION_REQUIRED is
// tool.browser.authentication_required, NEEDS_USER tool.browser.needs_user, anything else or
// an unknown id tool.browser.profile_unavailable), its allowed origins are the policy, and
// the browser is the profile service's (started on demand) behind a ServiceProvider whose
// run is this process: `run`, the id its activity timeline records (and the owner's live view
// asks for), or a new one.
struct BoundProfile
{
    OriginPolicy policy;
    std::unique_ptr<ServiceProvider> provider;
    // The profile as bound (its id and generation pin a task grant), its owner, and the
    // metadata store it was read from (task scopes and grants live there too).
    BrowserProfile profile;
    ProfileScope owner;
    std::unique_ptr<SqlStores> repository;
};
Result<BoundProfile> bindProfile(const QString &idText, const TestOverrides &overrides,
                                 const QUuid &run = QUuid());

} // namespace veetbot
