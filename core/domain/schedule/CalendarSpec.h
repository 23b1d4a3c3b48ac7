#pragma once

#include "domain/Result.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QTimeZone>

#include <optional>

namespace veetbot {

// When a schedule's occurrences fall: a bounded subset of systemd's calendar events
// (systemd.time(7), "Calendar Events"), the syntax its timers take in OnCalendar=.
//
//   [WEEKDAYS] [DATE] [TIME]      at least one of them
//   WEEKDAYS  Mon, Tuesday, mon..fri, Sat,Sun   (names in English, any case; lists and ranges)
//   DATE      YYYY-MM-DD or MM-DD; each part * or a number or a comma list (2027-1,7-1)
//   TIME      HH:MM[:SS]; the hour and minute * or a number or a comma list; seconds a number
//   hourly, daily, weekly, monthly, yearly, annually
//
// Not taken (schedule.invalid_calendar): repetitions (/), ranges in a date or time, the last
// days of a month (~), time zones, fractions, and anything longer than 64 characters. The
// normalized form is systemd's own (`systemd-analyze calendar` prints the same), and next()
// is the next elapse it computes.
class CalendarSpec
{
public:
    static constexpr int kMaxLength = 64;

    static Result<CalendarSpec> parse(const QString &text);
    static Error invalid();

    // As systemd normalizes it: "Mon..Fri *-*-* 08:00:00".
    QString normalized() const;
    // The first occurrence strictly after `after`, in `zone`; nullopt when none comes within
    // the next eight years (a date that never occurs, such as 02-30).
    std::optional<QDateTime> next(const QDateTime &after,
                                  const QTimeZone &zone = QTimeZone::systemTimeZone()) const;

    friend bool operator==(const CalendarSpec &, const CalendarSpec &) = default;

private:
    // Empty: any. Weekdays 1 (Monday) to 7; the others as written, sorted, without repeats.
    QList<int> m_weekdays;
    QList<int> m_years;
    QList<int> m_months;
    QList<int> m_days;
    QList<int> m_hours;
    QList<int> m_minutes;
    QList<int> m_seconds; // never empty
};

} // namespace veetbot
