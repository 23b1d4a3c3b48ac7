#pragma once

#include "domain/observation/LiveFrame.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "service/client/ServiceConnection.h"

namespace veetbot {

// The CLI's way to the profile service of its data directory: veetbot-profile-service next
// to this program, started on demand when asked, which is said once on stderr.
Result<ServiceConnection> connectToService(const LocalConfiguration &configuration,
                                           const TestOverrides &overrides,
                                           ServiceConnection::Start start);

// Where the workbench of this data directory serves its approval cards (WorkbenchChannel):
// approvals.sock in the service's runtime directory, which is created (private) when missing.
Result<QString> workbenchSocketPath();

// One frame of a running run's page for the owner's live view (the workbench's runs view),
// from the profile service already running (never started for it). Blocking.
Result<LiveFrame> liveFrame(const TestOverrides &overrides, const ProfileScope &owner,
                            const QUuid &run);

} // namespace veetbot
