#pragma once

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include <initializer_list>
#include <utility>

namespace veetbot::SqlQueries {

// Named bindings for one prepared statement.
using Bindings = std::initializer_list<std::pair<QString, QVariant>>;

// Prepares `sql` on `query`, binds every named value and executes it. False on any failure
// (the driver's text stays in the query; callers map it to their own stable error).
inline bool run(QSqlQuery &query, const QString &sql, Bindings bindings)
{
    if (!query.prepare(sql))
        return false;
    for (const auto &[name, value] : bindings)
        query.bindValue(name, value);
    return query.exec();
}

// Executes a statement without parameters (BEGIN, COMMIT, PRAGMA, DDL).
inline bool runPlain(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    return query.exec(sql);
}

} // namespace veetbot::SqlQueries
