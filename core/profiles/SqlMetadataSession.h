#pragma once

#include "ProfileSchema.h"
#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProfileRepository.h"
#include "storage/SqlDatabase.h"
#include "storage/SqlQueries.h"

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariantMap>

#include <functional>

namespace veetbot {

// Where the PostgreSQL profile store is. The role must be the application role: not the
// owner of the tables, not a superuser, without BYPASSRLS.
struct PostgresProfileStoreSettings
{
    QString host;
    int port = 5432;
    QString database;
    QString user;
    QString password;
};

// The one connection every SQL store of the owner's metadata shares (profiles, task grants,
// standing grants, the activity timeline, task runs), and the unit of work they all run in:
// a transaction scoped to the tenant. PostgreSQL: every transaction first sets
// veetbot.tenant locally, so row-level security (enabled and forced on every table) sees only
// that tenant; the connection's role is checked to be unable to bypass it. Every statement
// also names the tenant and principal (runScoped()), so visibility does not depend on
// row-level security alone. Database error text is never passed on: failures are the fixed
// ProfileFailure errors. Used from the thread that opened it.
class SqlMetadataSession
{
public:
    using Dialect = ProfileSchema::Dialect;
    template <typename T> using Work = std::function<Result<T>(QSqlDatabase &)>;

    SqlMetadataSession(Dialect dialect, ProfileClock clock, TestOverrides overrides);
    SqlMetadataSession(const SqlMetadataSession &) = delete;
    SqlMetadataSession &operator=(const SqlMetadataSession &) = delete;

    // Opens (creating, owner-only) the SQLite file and migrates it forward; then checks the
    // schema.
    Result<Unit> openSqlite(const QString &path);
    // Connects as the application role, checks the schema and the role; never migrates.
    Result<Unit> openPostgres(const PostgresProfileStoreSettings &settings);

    Dialect dialect() const { return m_dialect; }
    // The connection; statements on it belong inside inTransaction()'s work.
    QSqlDatabase database() const { return m_connection.database(); }
    const TestOverrides &overrides() const { return m_overrides; }
    // The store's clock, in UTC.
    QDateTime now() const;

    // Runs work in one transaction scoped to the tenant; rolls back on any failure.
    // PostgreSQL reconnects once (checking the schema and role again) when the server dropped
    // the connection.
    template <typename T>
    Result<T> inTransaction(const ProfileScope &scope, bool write, const Work<T> &work) const
    {
        if (!scope.validate())
            return profileError(ProfileFailure::Invalid);
        QSqlDatabase db = m_connection.database();
        SqlTransaction transaction(db, m_dialect);
        if (!beginScoped(db, transaction, scope, write))
            return profileError(ProfileFailure::RepositoryUnavailable);
        Result<T> result = work(db);
        if (!result)
            return result;
        if (!transaction.commit())
            return profileError(ProfileFailure::RepositoryUnavailable);
        return result;
    }

    // Applies the missing migrations on an open connection (PostgreSQL: as the owner role)
    // in one transaction and returns the resulting version. repository.schema_unknown
    // when the store already has an unknown or newer version; it is then left unchanged.
    static Result<int> migrate(const QSqlDatabase &ownerConnection);
    // The dialect of an open connection's driver (profile.invalid for another driver).
    static Result<Dialect> dialectOf(const QSqlDatabase &db);

    // Runs sql and :principal bound to the scope's, and the other bindings.
    static bool runScoped(QSqlQuery &query, const QString &sql, const ProfileScope &scope,
                          const QVariantMap &bindings = {});

    // Selects `columns` FROM `table`: the scope's rows (tenant and principal) that meet
    // `condition` (SQL over the table's columns with its own bindings; empty: every row),
    // PostgreSQL locking them FOR UPDATE when forUpdate (a SQLite write transaction already
    // holds the whole store). False on any failure.
    bool selectScoped(QSqlQuery &query, const QString &columns, const QString &table,
                      const ProfileScope &scope, const QString &condition,
                      const QVariantMap &bindings, bool forUpdate) const;

private:
    // Begins the transaction on db and sets the tenant (PostgreSQL).
    bool beginScoped(QSqlDatabase &db, SqlTransaction &transaction, const ProfileScope &scope,
                     bool write) const;
    Result<Unit> checkSchema(QSqlDatabase &db) const;
    Result<Unit> checkPostgresRole(QSqlDatabase &db) const;

    Dialect m_dialect;
    ProfileClock m_clock;
    TestOverrides m_overrides;
    SqlConnection m_connection;
};

} // namespace veetbot
