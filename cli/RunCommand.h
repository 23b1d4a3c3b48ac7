#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QStringList>

#include <functional>

namespace veetbot {

// `veetbot run`: the owner's task carried out by a model loop (docs/runs.md).
// Exit codes: 0 completed, 1 failed, 2 usage, 3 refused, 4 budget exhausted, 5 cancelled,
// 6 needs the owner.
namespace RunExit {
inline constexpr int kCompleted = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;
inline constexpr int kRefused = 3;
inline constexpr int kBudgetExhausted = 4;
inline constexpr int kCancelled = 5;
inline constexpr int kNeedsUser = 6;
} // namespace RunExit

// Reads the model API key from the owner's keyring: the key, an empty one when none is
// stored, or a keyring failure. (The CLI library links no keyring: main() supplies it.)
using ModelKeyReader = std::function<Result<SecretBytes>()>;

int runRunCommand(const QStringList &arguments, const ModelKeyReader &readKey);

} // namespace veetbot
