#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QStringList>
#include <QUrl>
#include <QUuid>

#include <functional>
#include <optional>

namespace veetbot {

// `veetbot run`: the owner's task carried out by a model loop, or by the reviewed recipe whose
// intent it is (docs/runs.md, docs/recipes.md).
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
// `veetbot recipes run ID ...`: the recipe, as `veetbot run` runs it with the recipe's first
// intent as its task (`arguments` are the run's options, the program's name first).
int runRecipe(const QString &recipeId, const QStringList &arguments, const ModelKeyReader &readKey);

// What became of a run: its exit code, its run (none when it was refused before one was
// recorded), its status word (a run status) and its stop or refusal code, and how many of its
// cards no owner could answer (with --approver workbench: no workbench was running).
struct RunReport
{
    int exitCode = RunExit::kFailed;
    std::optional<QUuid> run;
    QString status;
    QString code;
    int unansweredCards = 0;
};

// One occurrence of a schedule, as its pins say (docs/schedules.md).
struct ScheduledRun
{
    QUuid schedule;
    QUuid profileId;
    qint64 generation = 0;
    QString task;
    QUrl endpoint;
    QString model;
    std::optional<QUuid> grant;
    int budget = 0;
    int deadlineMinutes = 0;
};

// Runs it like `veetbot run`, under the scheduler's authority.
RunReport runScheduledOccurrence(const ScheduledRun &occurrence, const ModelKeyReader &readKey);

} // namespace veetbot
