#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace veetbot {

// The versioned, additive schema of the profile metadata store, as embedded SQL for each
// dialect. A migration is never edited once released; changes append a new version.
// The tables have deliberately no material, cookie, token, storage-state, credential,
// header or encrypted-blob column.
namespace ProfileSchema {

enum class Dialect
{
    Sqlite,
    Postgres
};

struct Migration
{
    int version = 0;
    QStringList statements;
};

// The component name recorded in schema_version.
inline constexpr char16_t kComponent[] = u"browser_profiles";
// The newest version this program knows.
inline constexpr int kLatestVersion = 1;

// The schema_version table itself (created before any migration runs).
QString schemaVersionTable(Dialect dialect);
// Migrations 1..kLatestVersion in order.
QList<Migration> migrations(Dialect dialect);

} // namespace ProfileSchema

} // namespace veetbot
