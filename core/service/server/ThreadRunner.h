#pragma once

#include "service/api/HttpApi.h"

#include <QObject>

#include <functional>

namespace veetbot {

// Runs `work` on `context`'s thread (the Qt thread that owns the service's state) and waits
// for the answer it gives through its reply (at once or later, from that thread), at most
// `timeoutMs`; a context that is gone or does not answer in time is the generic 500. A reply
// after that is dropped. Called from the HTTP server's worker threads, never from `context`'s
// own.
HttpResponse runOnThread(QObject *context, std::function<void(HttpRoute::Reply)> work,
                         int timeoutMs);

} // namespace veetbot
