#pragma once

#include "domain/Result.h"
#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"

#include <QString>

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

// The empty document a state operation loads at an origin.
inline constexpr char kEmptyDocument[] = "<!doctype html><title></title>";

} // namespace veetbot::StorageScripts
