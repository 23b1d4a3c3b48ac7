#pragma once

#include "domain/Result.h"
#include "domain/observation/LiveFrame.h"
#include "domain/profile/BrowserProfile.h"
#include "service/client/ServiceClient.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace veetbot::ServiceCalls {

// The client side of the service's key and live-view routes (service/api: KeysApi,
// LiveViewApi). Blocking: a CLI command, or a worker thread.

// Reseals one record under the current key: the version it is sealed under now, nullopt when
// its material is already gone.
Result<std::optional<QString>> rotateKey(const ServiceClient &client, const QString &reference);
Result<QStringList> keyVersionsInUse(const ServiceClient &client);
// A frame of `runId`, asked for as `owner`: the frame, live_view.not_running,
// live_view.too_soon, or the service's own failure.
Result<LiveFrame> liveFrame(const ServiceClient &client, const ProfileScope &owner,
                            const QString &runId);

} // namespace veetbot::ServiceCalls
