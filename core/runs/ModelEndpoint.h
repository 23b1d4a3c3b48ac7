#pragma once

#include "domain/Result.h"

#include <QUrl>

namespace veetbot {

// Where a task run's model answers: an OpenAI-compatible chat-completions endpoint.
//
// `--model-url` is the URL as given when its path ends in /chat/completions, and otherwise
// that URL with /chat/completions appended to its path (http://127.0.0.1:8080/v1 ->
// http://127.0.0.1:8080/v1/chat/completions). HTTPS anywhere; plain HTTP only to a loopback
// address (127.0.0.0/8, ::1 or "localhost"), where nothing leaves the machine. Anything else
// (another scheme, plain HTTP to any other host, credentials in the URL, a fragment) is
// model.url_refused, whose fixed message never repeats the URL.
namespace ModelEndpoint {

Result<QUrl> parse(const QString &text);
Error urlRefused();

} // namespace ModelEndpoint

} // namespace veetbot
