#pragma once

#include "HttpApi.h"
#include "ServiceClient.h"
#include "domain/Result.h"
#include "domain/observation/LiveFrame.h"
#include "domain/profile/BrowserProfile.h"

#include <QRegularExpression>

#include <optional>
#include <variant>

namespace veetbot {

// The owner's live view of an agent's page (docs/workbench.md#live-view, decision 0011):
//
//   POST /v1/runs/{run_id}:frame   {"tenant_id","principal_id"}   (the owner), at most 4 KiB
//        200 {"png":"<base64>","width":W,"height":H}   one viewport, at most 1 MiB of PNG
//        404 live_view.not_running   no live lease of this run and owner
//        429 live_view.too_soon      a frame of this run was asked for less than a second ago
//        409 tool.browser.provider_unavailable   the browser could not take one now
//
// Keyed by the run, never by a lease reference: the agent's capability names its browser
// for its own operations only, and this route takes none. Only the workbench asks, and only
// while the owner watches; the service keeps no frame.
namespace LiveViewApi {

inline constexpr qint64 kMaxBody = 4 * 1024;

// The route's path pattern; its one capture is the run id ([A-Za-z0-9._-], 1–128).
QRegularExpression pattern();
QByteArray path(const QString &runId);
// The owner in a request body, or the fixed 400.
std::variant<ProfileScope, HttpResponse> parse(const QByteArray &body);
QByteArray requestBody(const ProfileScope &owner);

HttpResponse notRunning();
HttpResponse tooSoon();
HttpResponse frameBody(const LiveFrame &frame);

Error notRunningError();
Error tooSoonError();
// A frame of `runId`, asked for as `owner`: the frame, live_view.not_running,
// live_view.too_soon, or the service's own failure. Blocking (a worker thread).
Result<LiveFrame> requestFrame(const ServiceClient &client, const ProfileScope &owner,
                               const QString &runId);

} // namespace LiveViewApi
} // namespace veetbot
