#include "Schedule.h"

#include "CalendarSpec.h"
#include "domain/authority/StandingGrant.h"

#include <QUrl>

namespace veetbot {

QString scheduleStateString(ScheduleState state)
{
    return state == ScheduleState::Paused ? QStringLiteral("paused") : QStringLiteral("active");
}

std::optional<ScheduleState> scheduleStateFromString(const QString &text)
{
    if (text == QLatin1String("active"))
        return ScheduleState::Active;
    if (text == QLatin1String("paused"))
        return ScheduleState::Paused;
    return std::nullopt;
}

QString Schedule::unitName() const
{
    return QStringLiteral("veetbot-schedule-") + id.toString(QUuid::WithoutBraces);
}

std::optional<QDateTime> Schedule::nextOccurrence(const QDateTime &after) const
{
    if (state != ScheduleState::Active)
        return std::nullopt;
    const Result<CalendarSpec> spec = CalendarSpec::parse(calendar);
    return spec ? spec->next(after) : std::nullopt;
}

bool isStorable(const Schedule &schedule)
{
    const Result<CalendarSpec> calendar = CalendarSpec::parse(schedule.calendar);
    // The endpoint without a query, user information or fragment: nothing there can be a key.
    const QUrl endpoint(schedule.modelUrl, QUrl::StrictMode);
    const bool plainEndpoint = endpoint.isValid() && !endpoint.host().isEmpty() &&
                               !endpoint.hasQuery() && !endpoint.hasFragment() &&
                               endpoint.userInfo().isEmpty();
    return !schedule.id.isNull() && !schedule.profileId.isNull() &&
           schedule.profileGeneration >= 1 && !schedule.task.trimmed().isEmpty() &&
           schedule.task.size() <= Schedule::kMaxTaskCharacters && calendar.ok() &&
           calendar->normalized() == schedule.calendar &&
           (!schedule.standingGrant || !schedule.standingGrant->isNull()) && plainEndpoint &&
           schedule.modelUrl.size() <= 2048 && !schedule.model.isEmpty() &&
           schedule.model.size() <= 128 && schedule.budget >= 1024 &&
           schedule.budget <= 1024 * 1024 && schedule.deadlineMinutes >= 1 &&
           schedule.deadlineMinutes <= Schedule::kMaxDeadlineMinutes &&
           !schedule.agentVersion.isEmpty() && schedule.agentVersion.size() <= 128 &&
           isPolicyVersion(schedule.policyVersion) && schedule.lastStatus.size() <= 32 &&
           schedule.lastCode.size() <= 64;
}

Error scheduleError(ScheduleFailure failure)
{
    switch (failure) {
    case ScheduleFailure::NotFound:
        return {QStringLiteral("schedule.not_found"), QStringLiteral("No such schedule.")};
    case ScheduleFailure::Invalid:
        return {QStringLiteral("schedule.invalid"),
                QStringLiteral("The schedule is not one that can be kept.")};
    case ScheduleFailure::TooMany:
        return {QStringLiteral("schedule.too_many"),
                QStringLiteral("At most 64 schedules are kept; delete one first.")};
    case ScheduleFailure::ProfileNotReady:
        return {QStringLiteral("schedule.profile_not_ready"),
                QStringLiteral("The schedule's website needs you to sign in again.")};
    case ScheduleFailure::ProfileGone:
        return {QStringLiteral("schedule.profile_gone"),
                QStringLiteral("The schedule's website was revoked or deleted; delete the "
                               "schedule.")};
    case ScheduleFailure::ProfileChanged:
        return {QStringLiteral("schedule.profile_changed"),
                QStringLiteral("The schedule's website was signed in again since the schedule "
                               "was made; resume the schedule to use the new sign-in.")};
    case ScheduleFailure::GrantUnusable:
        return {QStringLiteral("schedule.grant_unusable"),
                QStringLiteral("The schedule's standing grant no longer holds.")};
    case ScheduleFailure::Paused:
        return {QStringLiteral("schedule.paused"), QStringLiteral("The schedule is paused.")};
    }
    return {QStringLiteral("schedule.invalid"),
            QStringLiteral("The schedule is not one that can be kept.")};
}

} // namespace veetbot
