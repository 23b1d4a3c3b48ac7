#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ElementFacts.h"
#include "domain/observation/LiveFrame.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/profile/SessionState.h"
#include "domain/signin/OwnerInput.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QSize>
#include <QString>

#include <optional>

namespace veetbot {

// The line protocol between the core and veetbot-browser-host: one compact JSON object per
// line.
//
// Core to host: {"id":N,"op":"navigate","url":"..."}, {"id":N,"op":"observe","mode":M} with M
// an ObserveRequest ({}, {"after":ref}, {"cursor":token}, ...), {"id":N,"op":"act","act":A}
// with A a browser.act argument object (ActRequest::fromJson), the dispatch gate's answer
// {"id":N,"op":"dispatch","open":bool} for the act N in flight, and for a profile's lease
// browser {"id":N,"op":"restore","state":S} (S a SessionState) and
// {"id":N,"op":"export","origins":[...]}. A device verification's browser (started with
// --observe-network) also takes navigate with "until":"content_loaded" and
// {"id":N,"op":"idle","bound_ms":B,"quiet_ms":Q} (BrowserProvider::waitForNetworkIdle).
// {"id":N,"op":"frame"} asks for one frame of the owner's live view (captureFrame).
// The owner's remote view (the remote sign-in): {"id":N,"op":"view","start":true,
// "max_width":W,"max_height":H} or {"id":N,"op":"view","start":false}, and
// {"id":N,"op":"input","input":I} with I an OwnerInput's wire form; neither is answered.
//
// Host to core: {"event":"ready"} once its browser is up; {"id":N,"event":"dispatch"} when the
// act N is about to send its first input (the host waits for the gate's answer and sends
// nothing unless it is open); the result {"id":N,"observation":{...}} with, optionally,
// "facts":{ref:{...}} (the private approval sidecar of the observation's elements, which never
// enters the observation) and "page":{"challenge_frames":N} (the page's, likewise), or
// "engine":{"name":...,"version":...} (the browser's engine, once it knows), or
// {"id":N,"error":{"code":"...","message":"..."}}; while the owner's view runs,
// {"event":"screen","jpeg":"<base64>","width":W,"height":H,"page":"..."} (OwnerViewFrame) for
// each frame; a frame's answer is
// {"id":N,"frame":{"png":"<base64>","width":W,"height":H}} (LiveFrame). Only canonical
// observations, bounded facts and fixed error codes cross it: the host's responses are validated
// like any provider output.
namespace HostProtocol {

inline constexpr qsizetype kMaxLineBytes = 16 * 1024 * 1024;

struct Request
{
    quint64 id = 0;
    // "navigate" | "observe" | "act" | "dispatch" | "restore" | "export" | "idle" | "frame"
    // | "view" | "input"
    QString op;
    QString url;                                  // navigate only
    ObserveRequest observe;                       // observe only
    std::optional<ActRequest> act;                // act only
    std::optional<DispatchConstraint> constraint; // act only: ordinary interaction, a grant
    bool open = false;                 // dispatch only: whether the act may send its first input
    std::optional<SessionState> state; // restore only: the state the browser starts from
    QList<Origin> origins;             // export only: what the exported state is scoped to
    NavigateRequest::Until until = NavigateRequest::Until::Settled; // navigate only
    bool guarded = false;            // navigate only: NavigateRequest::guarded ("guarded": true)
    bool discardUnsaved = false;     // navigate only: ("discard_unsaved": true)
    NetworkIdleRequest idle;         // idle only
    bool start = false;              // view only: start (with `viewMax`) or stop
    QSize viewMax;                   // view only
    std::optional<OwnerInput> input; // input only
};

using FactsByRef = QHash<QString, ElementFacts>;
// Facts cross the protocol for at most this many elements, each within the bounds the
// collector's own hold (withinBounds; role, name and disabled state as in the observation). A
// navigation target crosses only as its summary (NavigationTarget), never as a URL.
inline constexpr qsizetype kMaxFactsElements = 1024;

QByteArray encodeRequest(const Request &request);
// Strict: unknown ops, fields or types, an observe without its mode or with a mode that
// ObserveRequest::fromJson refuses, are nullopt.
// `overrides` decide which origins a restore or export may name (tests' host names).
std::optional<Request> decodeRequest(const QByteArray &line,
                                     const TestOverrides &overrides = TestOverrides());

QByteArray encodeReady();
QByteArray encodeDispatchGate(quint64 id);
// `page`: the page's private facts, as "page":{"challenge_frames":N}, only beside an
// observation; likewise `engine`, the browser's engine and version, as
// "engine":{"name":...,"version":...} (EngineIdentity).
QByteArray encodeResult(quint64 id, const Result<BrowserObservation> &result,
                        const FactsByRef &facts = {},
                        const std::optional<PageEvidence> &page = std::nullopt,
                        const std::optional<EngineIdentity> &engine = std::nullopt);
// The facts `provider` recorded for the elements of `result` (none for a failure or no
// provider): what goes beside an observation in a result.
FactsByRef factsFor(const BrowserProvider *provider, const Result<BrowserObservation> &result);
// Likewise the page's facts.
std::optional<PageEvidence> pageEvidenceFor(const BrowserProvider *provider,
                                            const Result<BrowserObservation> &result);
// The answers of restore ({"id":N,"restored":true}) and export ({"id":N,"state":{...}}); a
// failure of either is encodeResult()'s error form.
QByteArray encodeRestored(quint64 id);
QByteArray encodeState(quint64 id, const SessionState &state);
// The answer of idle: {"id":N,"idle":bool}; its failure is encodeResult()'s error form.
QByteArray encodeIdle(quint64 id, bool idle);
// The answer of frame: {"id":N,"frame":{...}}; its failure is encodeResult()'s error form.
QByteArray encodeFrame(quint64 id, const LiveFrame &frame);
// One frame of the owner's remote view: {"event":"screen",...}.
QByteArray encodeScreen(const OwnerViewFrame &frame);

struct Response
{
    bool ready = false;
    bool dispatchGate = false; // the act `id` asks whether it may send its first input
    quint64 id = 0;
    Result<BrowserObservation> result = ReasonCode::ProviderUnavailable;
    FactsByRef facts;                     // only for refs of the observation's elements
    std::optional<PageEvidence> page;     // only beside an observation
    std::optional<EngineIdentity> engine; // likewise
    bool restored = false;                // a restore's success
    std::optional<SessionState> state;    // an export's state
    std::optional<bool> idle;             // an idle wait's answer
    std::optional<LiveFrame> frame;       // a frame's answer, within LiveFrame's bounds
    std::optional<OwnerViewFrame> screen; // a frame of the owner's remote view (no id)
};
// Validates the observation (BrowserObservation::fromJson), the facts (strings, bounded, each
// for one of the observation's element refs) and the error code (a known tool.browser.* code;
// its message is replaced by our own fixed text). nullopt on anything malformed.
std::optional<Response> decodeResponse(const QByteArray &line, const TestOverrides &overrides);

} // namespace HostProtocol
} // namespace veetbot
