#pragma once

#include "domain/BrowserObservation.h"
#include "domain/ObserveRequest.h"
#include "domain/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace veetbot {

class TestOverrides;

// The line protocol between the core and veetbot-browser-host: one compact JSON object per
// line. Requests {"id":N,"op":"navigate","url":"..."} / {"id":N,"op":"observe","mode":M} with
// M one of {}, {"after":ref}, {"cursor":token} (ObserveRequest::fromJson); responses
// {"id":N,"observation":{...}} or {"id":N,"error":{"code":"...","message":"..."}}; the host
// announces {"event":"ready"} once its browser is up. Only canonical observations and fixed
// error codes cross it: the host's responses are validated like any provider output.
namespace HostProtocol {

inline constexpr qsizetype kMaxLineBytes = 16 * 1024 * 1024;

struct Request
{
    quint64 id = 0;
    QString op; // "navigate" | "observe"
    QString url;            // navigate only
    ObserveRequest observe; // observe only
};

QByteArray encodeRequest(const Request &request);
// Strict: unknown ops, fields or types, an observe without its mode or with a mode that
// ObserveRequest::fromJson refuses, are nullopt.
std::optional<Request> decodeRequest(const QByteArray &line);

QByteArray encodeReady();
QByteArray encodeResult(quint64 id, const Result<BrowserObservation> &result);

struct Response
{
    bool ready = false;
    quint64 id = 0;
    Result<BrowserObservation> result = ReasonCode::ProviderUnavailable;
};
// Validates the observation (BrowserObservation::fromJson) and the error code (a known
// tool.browser.* code; its message is replaced by our own fixed text). nullopt on anything
// malformed.
std::optional<Response> decodeResponse(const QByteArray &line, const TestOverrides &overrides);

} // namespace HostProtocol
} // namespace veetbot
