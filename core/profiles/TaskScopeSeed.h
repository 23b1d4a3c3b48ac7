#pragma once

#include "domain/Result.h"
#include "domain/authority/TaskScope.h"
#include "domain/profile/BrowserProfile.h"
#include "ports/BrowserProfileRepository.h"

#include <QList>
#include <QString>

#include <optional>

namespace veetbot {

class TestOverrides;

// The one-time bootstrap seed of the configured owner's task scopes: VEETBOT_TASK_SCOPES
// holds comma-separated scope URLs ("https://www.acme-school.com/lesson,https://..."). It
// is stored only when the owner's list was never saved, so it never overwrites an edit or a
// saved empty list; other principals start empty. Never logs or returns the value.
namespace TaskScopeSeed {

inline constexpr char kVariable[] = "VEETBOT_TASK_SCOPES";

// The entries of a seed value: each comma-separated part, trimmed, as TaskScope::parse
// reads it, and the whole as a list (at most sixteen, no repeats). An empty part is
// scope.invalid. A value that is empty or only white space seeds nothing (nullopt).
Result<std::optional<QList<TaskScope>>> parse(const QString &value, const TestOverrides &overrides);

// Reads the variable and, when it is set and valid, seeds owner's list through
// BrowserProfileRepository::seedTaskScopes. Answers the change (Changed when it applied,
// Unchanged when a list was already saved), nothing when the variable is unset or blank,
// or the failure (a malformed value stores nothing).
Result<std::optional<TaskScopeChange>> applyFromEnvironment(BrowserProfileRepository &repository,
                                                            const ProfileScope &owner,
                                                            const TestOverrides &overrides);

} // namespace TaskScopeSeed

} // namespace veetbot
