#include "SqlDatabase.h"

#include "storage/SqlQueries.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <atomic>

namespace veetbot {

namespace {

constexpr int kBusyTimeoutMs = 10000;

using SqlQueries::run;
using SqlQueries::runPlain;

QString driverName(SqlDialect dialect)
{
    return dialect == SqlDialect::Postgres ? QStringLiteral("QPSQL") : QStringLiteral("QSQLITE");
}

// Runs a pragma and reads its value back: the driver accepts unknown or refused pragmas
// silently, so only the read-back shows that it took effect.
bool setPragma(QSqlDatabase &db, const QString &assignment, const QString &query,
               const QString &expected)
{
    QSqlQuery pragma(db);
    // Switching a new database to WAL needs a moment of exclusive access, and SQLite answers
    // "database is locked" at once there instead of waiting its busy timeout: processes that
    // open one new file together (several agents' ledgers) retry, briefly, for as long.
    QElapsedTimer waited;
    waited.start();
    while (!pragma.exec(assignment)) {
        if (pragma.lastError().nativeErrorCode() != QLatin1String("5") ||
            waited.elapsed() > kBusyTimeoutMs)
            return false;
        QThread::msleep(10);
    }
    // journal_mode answers its new value directly.
    if (!query.isEmpty() && !pragma.exec(query))
        return false;
    return pragma.next() && pragma.value(0).toString().compare(expected, Qt::CaseInsensitive) == 0;
}

bool isUndefinedTable(const QSqlError &error, SqlDialect dialect)
{
    if (dialect == SqlDialect::Postgres)
        return error.nativeErrorCode() == QLatin1String("42P01");
    return error.databaseText().contains(QLatin1String("no such table"));
}

} // namespace

SqlConnection::SqlConnection(SqlDialect dialect, const QString &namePrefix) : m_dialect(dialect)
{
    static std::atomic<quint64> counter{0};
    m_name = namePrefix + u'.' + QString::number(++counter);
    QSqlDatabase::addDatabase(driverName(dialect), m_name);
}

SqlConnection::~SqlConnection()
{
    {
        QSqlDatabase db = database();
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

bool SqlConnection::isDriverAvailable(SqlDialect dialect)
{
    return QSqlDatabase::isDriverAvailable(driverName(dialect));
}

QSqlDatabase SqlConnection::database() const
{
    return QSqlDatabase::database(m_name, false);
}

bool SqlConnection::openSqliteFile(const QString &path)
{
    if (m_dialect != SqlDialect::Sqlite || path.isEmpty())
        return false;
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return false;
    if (!info.exists()) {
        // Created owner-only before SQLite ever opens it. Another process opening the same new
        // file may have created it first: then it is that process's file, already owner-only.
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly,
                       QFileDevice::ReadOwner | QFileDevice::WriteOwner) &&
            !QFileInfo::exists(path))
            return false;
    }
    QSqlDatabase db = database();
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs));
    return db.open() &&
           setPragma(db, QStringLiteral("PRAGMA foreign_keys = ON"),
                     QStringLiteral("PRAGMA foreign_keys"), QStringLiteral("1")) &&
           setPragma(db, QStringLiteral("PRAGMA journal_mode = WAL"), QString(),
                     QStringLiteral("wal")) &&
           setPragma(db, QStringLiteral("PRAGMA synchronous = FULL"),
                     QStringLiteral("PRAGMA synchronous"), QStringLiteral("2"));
}

SqlTransaction::SqlTransaction(const QSqlDatabase &db, SqlDialect dialect)
    : m_db(db), m_dialect(dialect)
{
}

SqlTransaction::~SqlTransaction()
{
    rollback();
}

bool SqlTransaction::begin(Access access)
{
    if (m_active)
        return false;
    if (m_dialect == SqlDialect::Sqlite) {
        m_active = runPlain(m_db, access == Access::Write ? QStringLiteral("BEGIN IMMEDIATE")
                                                          : QStringLiteral("BEGIN"));
        return m_active;
    }
    m_active = m_db.transaction();
    if (m_active && access == Access::Read &&
        !runPlain(m_db, QStringLiteral("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")))
        rollback();
    return m_active;
}

bool SqlTransaction::commit()
{
    if (!m_active)
        return false;
    const bool committed =
        m_dialect == SqlDialect::Sqlite ? runPlain(m_db, QStringLiteral("COMMIT")) : m_db.commit();
    if (!committed) {
        rollback();
        return false;
    }
    m_active = false;
    return true;
}

void SqlTransaction::rollback()
{
    if (!m_active)
        return;
    m_active = false;
    // Nothing to report: a failed rollback leaves nothing committed either.
    if (m_dialect == SqlDialect::Sqlite)
        static_cast<void>(runPlain(m_db, QStringLiteral("ROLLBACK")));
    else
        static_cast<void>(m_db.rollback());
}

namespace SqlSchemaVersion {

QString createTableStatement(SqlDialect dialect)
{
    if (dialect == SqlDialect::Postgres) {
        return QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version ("
                              "component text NOT NULL,"
                              "version integer NOT NULL CHECK (version > 0),"
                              "applied_at timestamptz NOT NULL DEFAULT now(),"
                              "PRIMARY KEY (component, version))");
    }
    return QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version ("
                          "component TEXT NOT NULL,"
                          "version INTEGER NOT NULL CHECK (version > 0),"
                          "applied_at TEXT NOT NULL,"
                          "PRIMARY KEY (component, version)) STRICT");
}

Result<int> applied(QSqlDatabase &db, SqlDialect dialect, const QString &component, int latest,
                    const SqlStoreErrors &errors)
{
    QSqlQuery query(db);
    if (!run(query,
             QStringLiteral("SELECT version FROM schema_version WHERE component = :component"
                            " ORDER BY version"),
             {{QStringLiteral(":component"), component}})) {
        return isUndefinedTable(query.lastError(), dialect) ? errors.schemaUnknown
                                                            : errors.unavailable;
    }
    int version = 0;
    while (query.next()) {
        bool ok = false;
        if (query.value(0).toInt(&ok) != version + 1 || !ok)
            return errors.schemaUnknown;
        ++version;
    }
    if (version > latest)
        return errors.schemaUnknown;
    return version;
}

Result<int> migrate(QSqlDatabase &db, SqlDialect dialect, const QString &component,
                    const QList<SqlMigration> &migrations, const SqlStoreErrors &errors)
{
    const int latest = migrations.isEmpty() ? 0 : migrations.constLast().version;
    if (!runPlain(db, createTableStatement(dialect)))
        return errors.versionTableRefused;
    const Result<int> current = applied(db, dialect, component, latest, errors);
    if (!current)
        return current.error();
    for (const SqlMigration &migration : migrations) {
        if (migration.version <= *current)
            continue;
        for (const QString &statement : migration.statements) {
            if (!runPlain(db, statement))
                return errors.unavailable;
        }
        QSqlQuery record(db);
        if (!run(record,
                 QStringLiteral("INSERT INTO schema_version (component, version, applied_at)"
                                " VALUES (:component, :version, :applied_at)"),
                 {{QStringLiteral(":component"), component},
                  {QStringLiteral(":version"), migration.version},
                  {QStringLiteral(":applied_at"),
                   QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}}))
            return errors.unavailable;
    }
    return latest;
}

} // namespace SqlSchemaVersion

} // namespace veetbot
