#pragma once

#include "HttpApi.h"

#include <QObject>

#include <functional>

namespace veetbot {

// Runs `work` on `context`'s thread (the Qt thread that owns the service's state) and waits
// for its answer, at most `timeoutMs`; a context that is gone or does not answer in time is
// the generic 500. Called from the HTTP server's worker threads, never from `context`'s own.
HttpResponse runOnThread(QObject *context, std::function<HttpResponse()> work, int timeoutMs);

} // namespace veetbot
