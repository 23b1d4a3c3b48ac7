#include "CalendarSpec.h"

#include <QRegularExpression>

#include <algorithm>

namespace veetbot {

namespace {

constexpr int kSearchYears = 8;

const QStringList &dayNames()
{
    static const QStringList names{
        QStringLiteral("Mon"), QStringLiteral("Tue"), QStringLiteral("Wed"), QStringLiteral("Thu"),
        QStringLiteral("Fri"), QStringLiteral("Sat"), QStringLiteral("Sun")};
    return names;
}

// 1 (Monday) to 7, from "mon" or "monday" in any case; 0 when it is neither.
int weekdayOf(const QString &word)
{
    static const QStringList full{QStringLiteral("monday"),    QStringLiteral("tuesday"),
                                  QStringLiteral("wednesday"), QStringLiteral("thursday"),
                                  QStringLiteral("friday"),    QStringLiteral("saturday"),
                                  QStringLiteral("sunday")};
    const QString lower = word.toLower();
    for (int i = 0; i < 7; ++i) {
        if (lower == full.at(i) || lower == dayNames().at(i).toLower())
            return i + 1;
    }
    return 0;
}

// "*" (any: an empty list) or a comma list of numbers within [low, high], each at most
// `digits` digits; sorted, without repeats. nullopt when anything else is there.
std::optional<QList<int>> numbers(const QString &part, int low, int high, int digits,
                                  bool anyAllowed = true)
{
    if (part == QLatin1String("*"))
        return anyAllowed ? std::optional<QList<int>>(QList<int>()) : std::nullopt;
    QList<int> values;
    for (const QString &item : part.split(u',')) {
        if (item.isEmpty() || item.size() > digits)
            return std::nullopt;
        for (const QChar c : item)
            if (c < u'0' || c > u'9')
                return std::nullopt;
        const int value = item.toInt();
        if (value < low || value > high)
            return std::nullopt;
        if (!values.contains(value))
            values.append(value);
    }
    std::sort(values.begin(), values.end());
    return values;
}

QString listed(const QList<int> &values, int width)
{
    if (values.isEmpty())
        return QStringLiteral("*");
    QStringList parts;
    for (const int value : values)
        parts << QStringLiteral("%1").arg(value, width, 10, QLatin1Char('0'));
    return parts.join(u',');
}

bool matches(const QList<int> &values, int value)
{
    return values.isEmpty() || values.contains(value);
}

QList<int> orAll(const QList<int> &values, int low, int high)
{
    if (!values.isEmpty())
        return values;
    QList<int> all;
    for (int value = low; value <= high; ++value)
        all.append(value);
    return all;
}

} // namespace

Error CalendarSpec::invalid()
{
    return Error{QStringLiteral("schedule.invalid_calendar"),
                 QStringLiteral("The calendar is not one a schedule takes: weekdays, a date "
                                "(YYYY-MM-DD or MM-DD) and a time (HH:MM), such as "
                                "\"Mon..Fri 08:00\", or hourly, daily, weekly, monthly, "
                                "yearly.")};
}

Result<CalendarSpec> CalendarSpec::parse(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty() || trimmed.size() > kMaxLength)
        return invalid();
    for (const QChar c : trimmed)
        if (c.unicode() < 0x20 || c.unicode() > 0x7e)
            return invalid();
    const QString lower = trimmed.toLower();
    if (lower == QLatin1String("hourly"))
        return parse(QStringLiteral("*-*-* *:00:00"));
    if (lower == QLatin1String("daily"))
        return parse(QStringLiteral("*-*-* 00:00:00"));
    if (lower == QLatin1String("weekly"))
        return parse(QStringLiteral("Mon *-*-* 00:00:00"));
    if (lower == QLatin1String("monthly"))
        return parse(QStringLiteral("*-*-01 00:00:00"));
    if (lower == QLatin1String("yearly") || lower == QLatin1String("annually"))
        return parse(QStringLiteral("*-01-01 00:00:00"));

    static const QRegularExpression spaces(QStringLiteral("\\s+"));
    const QStringList tokens = trimmed.split(spaces);
    CalendarSpec spec;
    spec.m_seconds = {0};
    bool hours = false; // a time was given
    int stage = 0;      // 1 weekdays, 2 date, 3 time: each once, in this order
    for (const QString &token : tokens) {
        if (token.front().isLetter()) {
            if (stage >= 1)
                return invalid();
            stage = 1;
            for (const QString &item : token.split(u',')) {
                const QStringList ends = item.split(QStringLiteral(".."));
                if (ends.size() > 2)
                    return invalid();
                const int from = weekdayOf(ends.first());
                const int to = weekdayOf(ends.last());
                if (from == 0 || to == 0 || from > to)
                    return invalid();
                for (int day = from; day <= to; ++day)
                    if (!spec.m_weekdays.contains(day))
                        spec.m_weekdays.append(day);
            }
            std::sort(spec.m_weekdays.begin(), spec.m_weekdays.end());
        } else if (token.contains(u':')) {
            if (stage >= 3)
                return invalid();
            stage = 3;
            const QStringList parts = token.split(u':');
            if (parts.size() < 2 || parts.size() > 3)
                return invalid();
            const auto hour = numbers(parts.at(0), 0, 23, 2);
            // A minute must be given: a schedule runs at most every minute it names.
            const auto minute = numbers(parts.at(1), 0, 59, 2, false);
            const auto second =
                parts.size() == 3 ? numbers(parts.at(2), 0, 59, 2, false) : QList<int>{0};
            if (!hour || !minute || !second)
                return invalid();
            spec.m_hours = *hour;
            spec.m_minutes = *minute;
            spec.m_seconds = *second;
            hours = true;
        } else if (token.contains(u'-')) {
            if (stage >= 2)
                return invalid();
            stage = 2;
            QStringList parts = token.split(u'-');
            if (parts.size() == 2)
                parts.prepend(QStringLiteral("*"));
            if (parts.size() != 3)
                return invalid();
            const auto year = numbers(parts.at(0), 1970, 2199, 4);
            const auto month = numbers(parts.at(1), 1, 12, 2);
            const auto day = numbers(parts.at(2), 1, 31, 2);
            if (!year || !month || !day)
                return invalid();
            spec.m_years = *year;
            spec.m_months = *month;
            spec.m_days = *day;
        } else {
            return invalid();
        }
    }
    if (!hours) {
        spec.m_hours = {0};
        spec.m_minutes = {0};
    }
    return spec;
}

QString CalendarSpec::normalized() const
{
    QStringList words;
    if (!m_weekdays.isEmpty()) {
        // Runs of three days or more as a range, as systemd writes them.
        QStringList groups;
        for (qsizetype i = 0; i < m_weekdays.size();) {
            qsizetype end = i;
            while (end + 1 < m_weekdays.size() && m_weekdays.at(end + 1) == m_weekdays.at(end) + 1)
                ++end;
            if (end - i >= 2) {
                groups << dayNames().at(m_weekdays.at(i) - 1) + QStringLiteral("..") +
                              dayNames().at(m_weekdays.at(end) - 1);
            } else {
                for (qsizetype k = i; k <= end; ++k)
                    groups << dayNames().at(m_weekdays.at(k) - 1);
            }
            i = end + 1;
        }
        words << groups.join(u',');
    }
    words << listed(m_years, 4) + u'-' + listed(m_months, 2) + u'-' + listed(m_days, 2);
    words << listed(m_hours, 2) + u':' + listed(m_minutes, 2) + u':' + listed(m_seconds, 2);
    return words.join(u' ');
}

std::optional<QDateTime> CalendarSpec::next(const QDateTime &after, const QTimeZone &zone) const
{
    const QDateTime from = after.toTimeZone(zone);
    const QList<int> hours = orAll(m_hours, 0, 23);
    const QList<int> minutes = orAll(m_minutes, 0, 59);
    const QDate last = from.date().addYears(kSearchYears);
    for (QDate day = from.date(); day <= last; day = day.addDays(1)) {
        if (!matches(m_years, day.year()) || !matches(m_months, day.month()) ||
            !matches(m_days, day.day()) || !matches(m_weekdays, day.dayOfWeek()))
            continue;
        for (const int hour : hours)
            for (const int minute : minutes)
                for (const int second : m_seconds) {
                    const QDateTime at(day, QTime(hour, minute, second), zone);
                    // A time the zone skips (a daylight-saving gap) does not occur.
                    if (at.isValid() && at.time() == QTime(hour, minute, second) && at > from)
                        return at;
                }
    }
    return std::nullopt;
}

} // namespace veetbot
