#pragma once

#include "ProfileSchema.h"
#include "domain/profile/BrowserProfile.h"
#include "storage/SqlQueries.h"

#include <QDateTime>
#include <QString>
#include <QUuid>
#include <QVariant>

#include <optional>

// The row formats every table of the metadata store shares (the stores of SqlStores: profiles,
// grants, and activity tables beside it): ids as lower-case hyphenated text, times as UTC ISO 8601
// text with milliseconds (SQLite; PostgreSQL reads it into timestamptz exactly and its reads
// select epoch milliseconds), NULL as a typed null.
namespace veetbot::SqlRowFormat {

using Dialect = ProfileSchema::Dialect;
using SqlQueries::run;

// The stores' fixed failures: database error text is never passed on.
inline Error failure(ProfileFailure f)
{
    return profileError(f);
}

inline Error unavailable()
{
    return failure(ProfileFailure::RepositoryUnavailable);
}

inline QString idText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}

// "2030-01-02T03:04:05.678Z": in SQLite it sorts in time order.
inline QString timeText(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

inline QVariant nullText()
{
    return QVariant(QMetaType::fromType<QString>());
}

inline QVariant optionalText(const std::optional<QString> &value)
{
    return value ? QVariant(*value) : nullText();
}

inline QVariant optionalTime(const std::optional<QDateTime> &value)
{
    return value ? QVariant(timeText(*value)) : nullText();
}

// A time column as the dialect reads it back (PostgreSQL: epoch milliseconds).
inline QString timeColumn(const QString &column, ProfileSchema::Dialect dialect)
{
    if (dialect == ProfileSchema::Dialect::Postgres)
        return QStringLiteral("CAST(EXTRACT(EPOCH FROM %1) * 1000 AS bigint)").arg(column);
    return column;
}

// An id column as text in either dialect.
inline QString idColumn(const QString &column, ProfileSchema::Dialect dialect)
{
    if (dialect == ProfileSchema::Dialect::Postgres)
        return QStringLiteral("CAST(%1 AS text)").arg(column);
    return column;
}

// nullopt for NULL; an invalid time for a value that is not a stored time.
inline std::optional<QDateTime> decodeTime(const QVariant &value, ProfileSchema::Dialect dialect)
{
    if (value.isNull())
        return std::nullopt;
    if (dialect == ProfileSchema::Dialect::Postgres) {
        bool ok = false;
        const qint64 ms = value.toLongLong(&ok);
        return ok ? QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC) : QDateTime();
    }
    const QString text = value.toString();
    if (!text.endsWith(u'Z'))
        return QDateTime();
    return QDateTime::fromString(text, Qt::ISODateWithMs).toUTC();
}

inline std::optional<QString> decodeText(const QVariant &value)
{
    if (value.isNull())
        return std::nullopt;
    return value.toString();
}

} // namespace veetbot::SqlRowFormat
