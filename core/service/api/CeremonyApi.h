#pragma once

#include "domain/profile/SessionState.h"
#include "domain/signin/OwnerViewFrame.h"
#include "domain/web/TestOverrides.h"
#include "service/api/CeremonyRecord.h"
#include "service/api/HttpApi.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QUrl>

#include <optional>
#include <variant>

namespace veetbot {

// The sign-in routes of the profile service (docs/signin.md):
//
//   POST /v1/authentication-ceremonies:begin   {"owner","login_url"[,"mode"]}
//        mode "remote" (the default) or "device"
//        201 {"ceremony_id","expires_at_ms","status":"open","launch_path"}
//            launch_path is /authentication/<id>/handoff#<capability> (device) or
//            /authentication/<id>/view#<capability> (remote): the one place the capability
//            ever appears. A remote begin answers once the service's browser has loaded the
//            login address; a redirect off the profile's origins is 400 malformed_request
//            (redirectedOffOrigins) and leaves no ceremony.
//   POST /v1/authentication-ceremonies:status  {"owner","ceremony_id"}
//   POST /v1/authentication-ceremonies:cancel  {"owner","ceremony_id"}
//        200 {"ceremony_id","status"[,"code"]}
//   POST /v1/authentication-ceremonies:cancel  {"owner"}
//        204: every ceremony of the owner still in progress ends cancelled
//   POST /authentication/<id>/handoff  X-Browser-Ceremony-Capability: <capability>
//        {"confirmed_url","cookies","origins"} (Playwright's storage-state names), at most
//        1 MiB; 200 {"status":"ready"}, or a fixed error: 400 invalid_request, 401,
//        422 session_empty | session_signed_out | session_unconfirmed |
//            session_wrong_account | session_public_page,
//        409 tool.browser.provider_unavailable | tool.browser.profile_unavailable
//
//
// The owner's view of a remote ceremony, on its capability (X-Browser-Ceremony-Capability) and
// only while it is open; never a model's:
//   POST /authentication/<id>/frame   {"after":N,"max_width":W,"max_height":H}  (at most 4 KiB)
//        200 {"seq":M,"jpeg":"<base64>","width","height","page"} (OwnerViewFrame), the first
//        frame newer than N, waiting up to kFrameWaitMs for one; 204 when none came. The
//        service's browser sends frames only while these are asked for.
//   POST /authentication/<id>/input   one OwnerInput ({"type":...}), at most 64 KiB; 204
//   POST /authentication/<id>/finish  no body: spends the capability; the service reads its
//        browser's page and state and verifies them like a hand-off: the hand-off's answers.
//
// "owner" is {"profile_id","tenant_id","principal_id","provider_reference"}. The first three
// are credential routes with closed bodies of at most 64 KiB.
namespace CeremonyApi {

inline constexpr qint64 kMaxBody = 64 * 1024;
inline constexpr qint64 kMaxHandoffBody = 1024 * 1024;
inline constexpr char kCapabilityHeader[] = "X-Browser-Ceremony-Capability";

enum class Operation
{
    Begin,
    Status,
    Cancel
};
QByteArray path(Operation operation);
// The hand-off path: a lowercase hyphenated ceremony id, and nothing after "handoff".
QRegularExpression handoffPattern();
QByteArray handoffPath(const QString &ceremonyId);

// The owner's view routes of a remote ceremony.
enum class ViewOperation
{
    Frame,
    Input,
    Finish
};
QRegularExpression viewPattern(ViewOperation operation);
QByteArray viewPath(const QString &ceremonyId, ViewOperation operation);
inline constexpr qint64 kMaxFrameRequest = 4 * 1024;
inline constexpr qint64 kMaxInputBody = 64 * 1024;
inline constexpr int kFrameWaitMs = 2000;
// How long a client waits for a remote begin: the service starts its browser and loads the
// login address, each bounded by 30 s there.
inline constexpr int kRemoteBeginWaitMs = 75000;

struct Call
{
    Operation operation = Operation::Begin;
    ServiceCeremony::Owner owner;
    QString ceremonyId; // status and cancel (empty: cancel every one of the owner)
    QUrl loginUrl;      // begin
    ServiceCeremony::Mode mode = ServiceCeremony::Mode::Remote; // begin
};
std::variant<Call, HttpResponse> parse(Operation operation, const QByteArray &body,
                                       const TestOverrides &overrides);
QByteArray requestBody(const Call &call);

struct Launch
{
    QString ceremonyId;
    QDateTime expiresAt;
    QString launchPath; // secret: carries the capability in its fragment
    // The capability of the launch path (secret).
    QByteArray capability() const;
};
QByteArray begunBody(const ServiceCeremony::Begun &begun);
std::optional<Launch> parseBegun(const QByteArray &body);

struct Status
{
    QString ceremonyId;
    QString status; // open, verifying, ready, failed, cancelled, expired
    QString code;   // failed only
    // ready only: the masked account a site verification definition confirmed
    // (BrowserProfile::verifiedAccount), or none
    std::optional<QString> account;
};
QByteArray statusBody(const ServiceCeremony::Record &ceremony);
std::optional<Status> parseStatus(const QByteArray &body);

// The login URL is not on one of the profile's exact origins (the route answers it as 400).
Error loginUrlMismatch();
// A remote begin whose login address the website redirected off the profile's origins (400).
Error redirectedOffOrigins();

// The frame route's request and answer.
struct FrameRequest
{
    quint64 after = 0; // the newest frame the view has (0: none)
    QSize max;         // the view's size, 64..4096 each way
};
std::optional<FrameRequest> parseFrameRequest(const QByteArray &body);
QByteArray frameRequestBody(const FrameRequest &request);
struct ViewFrame
{
    quint64 seq = 0;
    OwnerViewFrame frame;
};
QByteArray viewFrameBody(const ViewFrame &frame);
std::optional<ViewFrame> parseViewFrame(const QByteArray &body);

struct Handoff
{
    QUrl confirmedUrl;
    SessionState state; // as the client sent it: not yet filtered
};
// The closed hand-off body, or the fixed 400 invalid_request.
std::variant<Handoff, HttpResponse> parseHandoff(const QByteArray &body,
                                                 const TestOverrides &overrides);
QByteArray handoffBody(const QUrl &confirmedUrl, const SessionState &state);
// The fixed 400 invalid_request of a hand-off.
HttpResponse invalidHandoff();
// A hand-off's outcome: 200 {"status":"ready"} or the fixed error of `code`.
HttpResponse handoffAnswer(const QString &code);
// The outcome codes a hand-off may end with.
inline constexpr char kReady[] = "ready";
inline constexpr char kSessionEmpty[] = "session_empty";
inline constexpr char kSignedOut[] = "session_signed_out";
inline constexpr char kUnconfirmed[] = "session_unconfirmed";
// With a site verification definition for the profile (docs/signin.md "Which account").
inline constexpr char kWrongAccount[] = "session_wrong_account";
inline constexpr char kPublicPage[] = "session_public_page";

} // namespace CeremonyApi

} // namespace veetbot
