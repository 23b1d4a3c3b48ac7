#pragma once

#include "domain/Result.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace veetbot {

// The database plumbing the SQL stores (the profile repository, the effect ledger) share:
// an owned connection, the SQLite file and its durability settings, a transaction that rolls
// back unless committed, and the schema_version table. Nothing here returns or logs database
// text: failures are bool, or the caller's own fixed errors.

enum class SqlDialect
{
    Sqlite,
    Postgres
};

// One uniquely named QSqlDatabase connection ("<namePrefix>.<n>"), closed and removed when
// this object goes. Use it from the thread that created it.
class SqlConnection
{
public:
    SqlConnection(SqlDialect dialect, const QString &namePrefix);
    ~SqlConnection();
    SqlConnection(const SqlConnection &) = delete;
    SqlConnection &operator=(const SqlConnection &) = delete;

    static bool isDriverAvailable(SqlDialect dialect);

    SqlDialect dialect() const { return m_dialect; }
    const QString &name() const { return m_name; }
    QSqlDatabase database() const;

    // SQLite only: creates the file owner-only (and its directory) when missing, opens it
    // with a 10 s busy timeout and turns on foreign keys, the WAL journal and
    // synchronous=FULL (every commit is on disk before it returns), reading each back.
    // False on any failure.
    [[nodiscard]] bool openSqliteFile(const QString &path);

private:
    SqlDialect m_dialect;
    QString m_name;
};

// A transaction that rolls back when it goes out of scope without a successful commit().
// SQLite write transactions take the write lock up front (BEGIN IMMEDIATE) so a
// read-modify-write cannot be interleaved; PostgreSQL reads run at REPEATABLE READ so they
// see one snapshot (its writers lock rows with SELECT ... FOR UPDATE instead).
class SqlTransaction
{
public:
    enum class Access
    {
        Read,
        Write
    };

    SqlTransaction(const QSqlDatabase &db, SqlDialect dialect);
    ~SqlTransaction();
    SqlTransaction(const SqlTransaction &) = delete;
    SqlTransaction &operator=(const SqlTransaction &) = delete;

    [[nodiscard]] bool begin(Access access);
    // False when the commit failed; the transaction is then rolled back.
    [[nodiscard]] bool commit();
    void rollback();
    bool isActive() const { return m_active; }

private:
    QSqlDatabase m_db;
    SqlDialect m_dialect;
    bool m_active = false;
};

// One schema version: statements applied together, never edited once released.
struct SqlMigration
{
    int version = 0;
    QStringList statements;
};

// The fixed errors a store reports for its database; each store keeps its own codes.
struct SqlStoreErrors
{
    Error unavailable;   // the database cannot be reached, read or written
    Error schemaUnknown; // a missing, unknown or newer schema version
    // The schema_version table cannot be created (for PostgreSQL: a role that may not create
    // tables is not the one to migrate the store).
    Error versionTableRefused;
};

// The schema_version table: one row per (component, version) applied, so several
// components can share a database.
namespace SqlSchemaVersion {

QString createTableStatement(SqlDialect dialect);

// The version applied for `component`. The recorded versions must be exactly 1..n with n at
// most `latest` (else schemaUnknown); a database without the table is schemaUnknown too.
Result<int> applied(QSqlDatabase &db, SqlDialect dialect, const QString &component, int latest,
                    const SqlStoreErrors &errors);

// Inside the caller's write transaction: creates the table when missing, checks the applied
// versions and applies the missing migrations (ordered by version, 1..n) with their rows.
// Returns the newest version; on an error the caller rolls back and the store is unchanged.
Result<int> migrate(QSqlDatabase &db, SqlDialect dialect, const QString &component,
                    const QList<SqlMigration> &migrations, const SqlStoreErrors &errors);

} // namespace SqlSchemaVersion

} // namespace veetbot
