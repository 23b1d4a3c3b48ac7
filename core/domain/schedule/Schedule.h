#pragma once

#include "domain/Result.h"

#include <QDateTime>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// A schedule (docs/schedules.md): recurring work the owner stated once, started by the
// desktop's own scheduler (a systemd user timer) as a `veetbot run` of its own. It pins what
// every occurrence runs under: the owner (its store scope), the profile and its generation,
// an optional standing grant, the agent and policy versions, the model, the budget and a
// deadline. It holds no credential and no cookie: the task is the owner's words, and the
// model's key stays in the keyring.
enum class ScheduleState
{
    Active,
    Paused
};

QString scheduleStateString(ScheduleState state);
std::optional<ScheduleState> scheduleStateFromString(const QString &text);

struct Schedule
{
    static constexpr int kMaxTaskCharacters = 16 * 1024;
    static constexpr int kMaxDeadlineMinutes = 24 * 60;
    static constexpr int kDefaultDeadlineMinutes = 30;
    static constexpr int kMaxSchedules = 64; // per owner

    QUuid id;
    QUuid profileId;
    qint64 profileGeneration = 0;
    QString task;
    QString calendar; // CalendarSpec's normalized form
    std::optional<QUuid> standingGrant;
    QString modelUrl; // as ModelEndpoint::parse() took it, without a query
    QString model;
    int budget = 0; // each tool result's projection, in bytes
    int deadlineMinutes = kDefaultDeadlineMinutes;
    QString agentVersion;
    QString policyVersion; // 64 hex digits
    ScheduleState state = ScheduleState::Active;
    QDateTime createdAt;
    QDateTime updatedAt;
    // The last occurrence: when it began, its run (none when it was refused before a run was
    // recorded) and how it ended (a run status, or "refused" with its code).
    std::optional<QDateTime> lastOccurrenceAt;
    std::optional<QUuid> lastRun;
    QString lastStatus;
    QString lastCode;

    // The unit names systemd knows it by: veetbot-schedule-<id>.timer / .service.
    QString unitName() const;
    // When its timer fires next after `after` (local time, as systemd reads the calendar);
    // none while paused.
    std::optional<QDateTime> nextOccurrence(const QDateTime &after) const;
};

// Whether every field is within its bounds (the store refuses anything else).
bool isStorable(const Schedule &schedule);

enum class ScheduleFailure
{
    NotFound,        // schedule.not_found
    Invalid,         // schedule.invalid
    TooMany,         // schedule.too_many
    ProfileNotReady, // schedule.profile_not_ready
    ProfileGone,     // schedule.profile_gone: the website was revoked or deleted
    ProfileChanged,  // schedule.profile_changed
    GrantUnusable,   // schedule.grant_unusable
    Paused,          // schedule.paused
};

Error scheduleError(ScheduleFailure failure);

} // namespace veetbot
