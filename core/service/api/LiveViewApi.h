#pragma once

#include "domain/Result.h"
#include "domain/observation/LiveFrame.h"
#include "domain/profile/BrowserProfile.h"
#include "service/api/HttpApi.h"

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
// The frame's JSON: base64 of at most LiveFrame::kMaxPngBytes and two numbers.
inline constexpr qsizetype kMaxAnswerBytes = (LiveFrame::kMaxPngBytes + 2) / 3 * 4 + 256;
// A 200 answer's frame, or nullopt for a malformed one.
std::optional<LiveFrame> parseFrame(const QByteArray &body);

} // namespace LiveViewApi
} // namespace veetbot
