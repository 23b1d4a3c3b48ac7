#pragma once

#include "domain/action/ActRequest.h"

#include <functional>

namespace veetbot {

// The dispatch gate (docs/actions.md "Dispatch"): asked with the act about to be dispatched,
// right before its first input, it answers once. Open: dispatch_started is durable and the act
// may send; closed: nothing may be sent. The answer may come later (from the owner's process
// over the host protocol, from the service's client over HTTP), so the one shape is
// asynchronous: the tool pipeline, the providers, the isolated host, the isolated provider,
// the service and its client all ask and answer it. GateQuestion (ports) keeps an answer to
// one, and closes a question nobody answered in time.
using GateAnswer = std::function<void(bool open)>;
using DispatchGate = std::function<void(const ActRequest &act, GateAnswer answer)>;

} // namespace veetbot
