// The SQL stores' shared database code (storage/SqlDatabase.h) on SQLite: the owned
// connection, the file and its pragmas, the transaction guard and the schema_version rules.
// (PostgreSQL runs through the same code in tst_profilerepository_postgres.)

#include "storage/SqlDatabase.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;

class TestSqlDatabase : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void connectionIsUniqueAndRemoved();
    void sqliteFileIsOwnerOnlyAndDurable();
    void openRefusesWhatIsNotADatabase();
    void transactionRollsBackUnlessCommitted();
    void commitEndsTheTransaction();
    void migrateAppliesMissingVersionsOnce();
    void newerOrGappedVersionsAreUnknown_data();
    void newerOrGappedVersionsAreUnknown();
    void missingVersionTableIsUnknown();
    void failedMigrationRecordsNothing();
    void otherComponentsAreIgnored();

private:
    static SqlStoreErrors errors();
    static QList<SqlMigration> twoMigrations();
    static QVariant scalar(const QSqlDatabase &db, const QString &sql);
    std::unique_ptr<SqlConnection> openFile();
    // Component "c" of the database at m_path.
    Result<int> migrate(const QList<SqlMigration> &migrations = twoMigrations());
    Result<int> applied();

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
    std::unique_ptr<SqlConnection> m_connection; // open on m_path
    QSqlDatabase m_db;
};

SqlStoreErrors TestSqlDatabase::errors()
{
    return SqlStoreErrors{Error{QStringLiteral("test.unavailable"), QStringLiteral("u")},
                          Error{QStringLiteral("test.schema_unknown"), QStringLiteral("s")},
                          Error{QStringLiteral("test.version_table"), QStringLiteral("v")}};
}

QList<SqlMigration> TestSqlDatabase::twoMigrations()
{
    return {SqlMigration{1, {QStringLiteral("CREATE TABLE first (a INTEGER) STRICT")}},
            SqlMigration{2,
                         {QStringLiteral("CREATE TABLE second (b INTEGER) STRICT"),
                          QStringLiteral("CREATE INDEX second_b ON second (b)")}}};
}

QVariant TestSqlDatabase::scalar(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QVariant();
    return query.value(0);
}

std::unique_ptr<SqlConnection> TestSqlDatabase::openFile()
{
    auto connection = std::make_unique<SqlConnection>(SqlDialect::Sqlite, QStringLiteral("test"));
    if (!connection->openSqliteFile(m_path))
        return nullptr;
    return connection;
}

Result<int> TestSqlDatabase::migrate(const QList<SqlMigration> &migrations)
{
    return SqlSchemaVersion::migrate(m_db, SqlDialect::Sqlite, QStringLiteral("c"), migrations,
                                     errors());
}

Result<int> TestSqlDatabase::applied()
{
    return SqlSchemaVersion::applied(m_db, SqlDialect::Sqlite, QStringLiteral("c"), 2, errors());
}

void TestSqlDatabase::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath(QStringLiteral("nested/store.sqlite"));
    m_connection = openFile();
    QVERIFY(m_connection);
    m_db = m_connection->database();
}

void TestSqlDatabase::cleanup()
{
    m_db = QSqlDatabase();
    m_connection.reset();
}

void TestSqlDatabase::connectionIsUniqueAndRemoved()
{
    QString firstName;
    {
        const SqlConnection first(SqlDialect::Sqlite, QStringLiteral("test"));
        const SqlConnection second(SqlDialect::Sqlite, QStringLiteral("test"));
        firstName = first.name();
        QVERIFY(firstName.startsWith(QStringLiteral("test.")));
        QVERIFY(first.name() != second.name());
        QVERIFY(QSqlDatabase::contains(firstName));
        QCOMPARE(first.database().driverName(), QStringLiteral("QSQLITE"));
    }
    QVERIFY(!QSqlDatabase::contains(firstName));
}

void TestSqlDatabase::sqliteFileIsOwnerOnlyAndDurable()
{
    const QFileDevice::Permissions mode = QFileInfo(m_path).permissions();
    QVERIFY(mode.testFlags(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    QVERIFY(!(mode & (QFileDevice::ExeOwner | QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                      QFileDevice::ExeGroup | QFileDevice::ReadOther | QFileDevice::WriteOther |
                      QFileDevice::ExeOther)));
    QCOMPARE(scalar(m_db, QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    QCOMPARE(scalar(m_db, QStringLiteral("PRAGMA synchronous")).toInt(), 2); // FULL
    QCOMPARE(scalar(m_db, QStringLiteral("PRAGMA foreign_keys")).toInt(), 1);
    QCOMPARE(scalar(m_db, QStringLiteral("PRAGMA busy_timeout")).toInt(), 10000);
}

void TestSqlDatabase::openRefusesWhatIsNotADatabase()
{
    const QString garbage = m_dir->filePath(QStringLiteral("garbage.sqlite"));
    {
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(QByteArray(4096, 'x')) == 4096);
    }
    SqlConnection connection(SqlDialect::Sqlite, QStringLiteral("test"));
    QVERIFY(!connection.openSqliteFile(garbage));
    SqlConnection postgres(SqlDialect::Postgres, QStringLiteral("test"));
    QVERIFY(!postgres.openSqliteFile(m_dir->filePath(QStringLiteral("other.sqlite"))));
}

void TestSqlDatabase::transactionRollsBackUnlessCommitted()
{
    QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("CREATE TABLE t (a INTEGER)")));
    {
        SqlTransaction transaction(m_db, SqlDialect::Sqlite);
        QVERIFY(transaction.begin(SqlTransaction::Access::Write));
        QVERIFY(transaction.isActive());
        QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("INSERT INTO t VALUES (1)")));
        QCOMPARE(scalar(m_db, QStringLiteral("SELECT count(*) FROM t")).toInt(), 1);
    }
    QCOMPARE(scalar(m_db, QStringLiteral("SELECT count(*) FROM t")).toInt(), 0);
    {
        SqlTransaction transaction(m_db, SqlDialect::Sqlite);
        QVERIFY(transaction.begin(SqlTransaction::Access::Read));
        QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("INSERT INTO t VALUES (2)")));
        transaction.rollback();
        QVERIFY(!transaction.isActive());
    }
    QCOMPARE(scalar(m_db, QStringLiteral("SELECT count(*) FROM t")).toInt(), 0);
}

void TestSqlDatabase::commitEndsTheTransaction()
{
    QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("CREATE TABLE t (a INTEGER)")));
    {
        SqlTransaction transaction(m_db, SqlDialect::Sqlite);
        QVERIFY(transaction.begin(SqlTransaction::Access::Write));
        QVERIFY(!transaction.begin(SqlTransaction::Access::Write)); // no nesting
        QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("INSERT INTO t VALUES (1)")));
        QVERIFY(transaction.commit());
        QVERIFY(!transaction.isActive());
        QVERIFY(!transaction.commit());
    }
    QCOMPARE(scalar(m_db, QStringLiteral("SELECT count(*) FROM t")).toInt(), 1);
    // The write lock was taken at BEGIN and is free again: another connection can write.
    const std::unique_ptr<SqlConnection> other = openFile();
    QVERIFY(other);
    QVERIFY(QSqlQuery(other->database()).exec(QStringLiteral("INSERT INTO t VALUES (2)")));
}

void TestSqlDatabase::migrateAppliesMissingVersionsOnce()
{
    {
        SqlTransaction transaction(m_db, SqlDialect::Sqlite);
        QVERIFY(transaction.begin(SqlTransaction::Access::Write));
        const Result<int> first = migrate(twoMigrations().mid(0, 1));
        QVERIFY(first);
        QCOMPARE(*first, 1);
        QVERIFY(transaction.commit());
    }
    const Result<int> both = migrate();
    QVERIFY(both);
    QCOMPARE(*both, 2);
    const Result<int> again = migrate();
    QVERIFY(again);
    QCOMPARE(*again, 2);
    QCOMPARE(scalar(m_db, QStringLiteral("SELECT group_concat(version) FROM"
                                         " (SELECT version FROM schema_version"
                                         " WHERE component = 'c' ORDER BY version)"))
                 .toString(),
             QStringLiteral("1,2"));
    QCOMPARE(scalar(m_db, QStringLiteral("SELECT count(*) FROM sqlite_master"
                                         " WHERE name IN ('first', 'second', 'second_b')"))
                 .toInt(),
             3);
    const Result<int> version = applied();
    QVERIFY(version);
    QCOMPARE(*version, 2);
    const QString appliedAt =
        scalar(m_db, QStringLiteral("SELECT applied_at FROM schema_version WHERE version = 2"))
            .toString();
    QVERIFY2(appliedAt.endsWith(u'Z'), qPrintable(appliedAt));
}

void TestSqlDatabase::newerOrGappedVersionsAreUnknown_data()
{
    QTest::addColumn<QList<int>>("recorded");
    QTest::newRow("newer") << QList<int>{1, 2, 3};
    QTest::newRow("gap") << QList<int>{1, 3};
    QTest::newRow("not from one") << QList<int>{2};
    QTest::newRow("zero") << QList<int>{0};
}

void TestSqlDatabase::newerOrGappedVersionsAreUnknown()
{
    QFETCH(QList<int>, recorded);
    // The table without its CHECK, so that a damaged version 0 can be recorded too.
    QVERIFY(QSqlQuery(m_db).exec(QStringLiteral(
        "CREATE TABLE schema_version (component TEXT, version INTEGER, applied_at TEXT)")));
    for (int version : recorded)
        QVERIFY(QSqlQuery(m_db).exec(
            QStringLiteral("INSERT INTO schema_version VALUES ('c', %1, 'x')").arg(version)));

    const Result<int> version = applied();
    QVERIFY(!version);
    QCOMPARE(version.error(), errors().schemaUnknown);
    const Result<int> migrated = migrate();
    QVERIFY(!migrated);
    QCOMPARE(migrated.error(), errors().schemaUnknown);
    QVERIFY(!scalar(m_db, QStringLiteral("SELECT count(*) FROM sqlite_master"
                                         " WHERE name IN ('first', 'second')"))
                 .toBool());
}

void TestSqlDatabase::missingVersionTableIsUnknown()
{
    const Result<int> version = applied();
    QVERIFY(!version);
    QCOMPARE(version.error(), errors().schemaUnknown);

    // A database the table cannot be created in reports the store's own error for that.
    QVERIFY(QSqlQuery(m_db).exec(QStringLiteral("PRAGMA query_only = ON")));
    const Result<int> migrated = migrate();
    QVERIFY(!migrated);
    QCOMPARE(migrated.error(), errors().versionTableRefused);
}

void TestSqlDatabase::failedMigrationRecordsNothing()
{
    QList<SqlMigration> broken = twoMigrations();
    broken[1].statements.append(QStringLiteral("CREATE TABLE first (a INTEGER)")); // exists
    {
        SqlTransaction transaction(m_db, SqlDialect::Sqlite);
        QVERIFY(transaction.begin(SqlTransaction::Access::Write));
        const Result<int> migrated = migrate(broken);
        QVERIFY(!migrated);
        // The fixed error only: never the database's own text.
        QCOMPARE(migrated.error(), errors().unavailable);
    }
    QVERIFY(!scalar(m_db, QStringLiteral("SELECT count(*) FROM sqlite_master"
                                         " WHERE name IN ('first', 'second', 'schema_version')"))
                 .toBool());
}

void TestSqlDatabase::otherComponentsAreIgnored()
{
    QVERIFY(QSqlQuery(m_db).exec(SqlSchemaVersion::createTableStatement(SqlDialect::Sqlite)));
    QVERIFY(QSqlQuery(m_db).exec(
        QStringLiteral("INSERT INTO schema_version VALUES ('another', 42, 'x')")));
    const Result<int> migrated = migrate();
    QVERIFY(migrated);
    QCOMPARE(*migrated, 2);
}

QTEST_GUILESS_MAIN(TestSqlDatabase)
#include "tst_sqldatabase.moc"
