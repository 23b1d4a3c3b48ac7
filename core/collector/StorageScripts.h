#pragma once

#include "domain/Result.h"
#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"

#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace veetbot::StorageScripts {

// A lease browser's localStorage in and out (docs/vault.md "Material"), the same for every
// engine: each script runs in a private world of an empty document at the origin, which the
// engine answers itself (no request leaves), and answers a string.

// Replaces the origin's localStorage with `storage`'s items; answers "ok".
QString write(const OriginStorage &storage);
// Answers the origin's items as a JSON array of [name, value] pairs, sorted by name.
QString read();
// The items `read()` answered, for `origin`: tool.output_invalid past SessionState's item bound
// or for anything but pairs of strings (nothing of such a state is ever sealed).
Result<OriginStorage> parse(const Origin &origin, const QString &answer);

// Runs `script` in a private world of the empty document at `origin` (a normalized origin, as
// OriginStorage keeps it); `done` gets its string answer, or nullopt.
using RunAtOrigin = std::function<void(const QString &origin, const QString &script,
                                       std::function<void(std::optional<QString>)> done)>;
// Writes each origin's items in turn; the first failure is tool.browser.provider_unavailable.
void writeAll(RunAtOrigin run, QList<OriginStorage> remaining,
              std::function<void(Result<Unit>)> done);
// Reads each origin's items in turn into `state` (an origin without items adds nothing); the
// first failure ends it (tool.browser.provider_unavailable, or parse()'s).
void readAll(RunAtOrigin run, QList<Origin> remaining, SessionState state,
             std::function<void(Result<SessionState>)> done);

// The empty document a state operation loads at an origin.
inline constexpr char kEmptyDocument[] = "<!doctype html><title></title>";

} // namespace veetbot::StorageScripts
