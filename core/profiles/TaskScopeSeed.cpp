#include "TaskScopeSeed.h"

#include "domain/web/TestOverrides.h"

#include <QStringList>

namespace veetbot::TaskScopeSeed {

Result<std::optional<QList<TaskScope>>> parse(const QString &value, const TestOverrides &overrides)
{
    if (value.trimmed().isEmpty())
        return std::optional<QList<TaskScope>>();
    // Bounded before splitting: sixteen entries of at most kMaxTextLength and their commas.
    if (value.size() > (TaskScope::kMaxTextLength + 1) * (TaskScopePolicy::kMaxEntries + 1))
        return taskScopeError(TaskScopeFailure::Limit);
    QList<TaskScope> entries;
    for (const QString &part : value.split(u',')) {
        Result<TaskScope> entry = TaskScope::parse(part.trimmed(), overrides);
        if (!entry)
            return entry.error();
        entries << std::move(entry).value();
    }
    Result<QList<TaskScope>> normalized = TaskScopePolicy::normalize(std::move(entries));
    if (!normalized)
        return normalized.error();
    return std::optional<QList<TaskScope>>(std::move(normalized).value());
}

Result<std::optional<TaskScopeChange>> applyFromEnvironment(BrowserProfileRepository &repository,
                                                            const ProfileScope &owner,
                                                            const TestOverrides &overrides)
{
    const Result<std::optional<QList<TaskScope>>> entries =
        parse(qEnvironmentVariable(kVariable), overrides);
    if (!entries)
        return entries.error();
    if (!*entries)
        return std::optional<TaskScopeChange>();
    Result<TaskScopeChange> change = repository.seedTaskScopes(owner, **entries);
    if (!change)
        return change.error();
    return std::optional<TaskScopeChange>(std::move(change).value());
}

} // namespace veetbot::TaskScopeSeed
