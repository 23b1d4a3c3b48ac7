// The shared repository contract against the SQLite adapter (a temporary file), plus what
// only the SQLite store has to prove: its location, file mode, pragmas, schema constraints,
// schema versioning and the absence of any secret-shaped column.

#include "ProfileRepositoryContract.h"
#include "profiles/ProfileSchema.h"
#include "profiles/SqlProfileRepository.h"
#include "storage/SqlDatabase.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>

using namespace veetbot;

class SqliteProfileRepositoryTest : public ProfileRepositoryContract
{
    Q_OBJECT

protected:
    void initAdapter() override
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("profiles.sqlite"));
    }

    std::unique_ptr<BrowserProfileRepository> createRepository(ProfileClock clock) override
    {
        return open(m_path, std::move(clock));
    }

private Q_SLOTS:
    void defaultPathIsUnderXdgDataHome();
    void fileIsOwnerOnlyInWalMode();
    void schemaVersionIsRecorded();
    void schemaConstraintsAreEnforced();
    void removeCascadesToOrigins();
    void timestampsAreUtcText();
    void dataSurvivesReopening();
    void secondInstanceSeesGenerationGuard();
    void newerSchemaVersionFailsStartUp();
    void unknownSchemaVersionFailsStartUp();
    void otherComponentsVersionsAreIgnored();
    void secretCanaryHasNoSecretColumns();

private:
    static std::unique_ptr<SqlProfileRepository> open(const QString &path, ProfileClock clock = {});
    // Opens a raw connection to path with foreign keys on.
    static bool openRaw(ScopedConnection &connection, const QString &path);
    static QVariant scalar(QSqlDatabase &db, const QString &sql);
    static bool insertVersion(const QString &path, const QString &component, int version);

    QTemporaryDir m_dir;
    QString m_path;
};

std::unique_ptr<SqlProfileRepository> SqliteProfileRepositoryTest::open(const QString &path,
                                                                        ProfileClock clock)
{
    Result<std::unique_ptr<SqlProfileRepository>> opened =
        SqlProfileRepository::openSqlite(path, std::move(clock));
    if (!opened) {
        qWarning("openSqlite failed: %s", qPrintable(opened.error().code));
        return nullptr;
    }
    return std::move(opened).value();
}

bool SqliteProfileRepositoryTest::openRaw(ScopedConnection &connection, const QString &path)
{
    connection.db().setDatabaseName(path);
    if (!connection.db().open())
        return false;
    QSqlQuery pragma(connection.db());
    return pragma.exec(QStringLiteral("PRAGMA foreign_keys = ON"));
}

QVariant SqliteProfileRepositoryTest::scalar(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QVariant();
    return query.value(0);
}

bool SqliteProfileRepositoryTest::insertVersion(const QString &path, const QString &component,
                                                int version)
{
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    if (!openRaw(raw, path))
        return false;
    QSqlQuery query(raw.db());
    query.prepare(QStringLiteral("INSERT INTO schema_version (component, version, applied_at)"
                                 " VALUES (:component, :version, '2030-01-01T00:00:00.000Z')"));
    query.bindValue(QStringLiteral(":component"), component);
    query.bindValue(QStringLiteral(":version"), version);
    return query.exec();
}

void SqliteProfileRepositoryTest::defaultPathIsUnderXdgDataHome()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray saved = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", QFile::encodeName(home.path()));
    const QString expected = home.path() + QStringLiteral("/veetbot/profiles.sqlite");
    QCOMPARE(SqlProfileRepository::defaultSqlitePath(), expected);
    {
        const std::unique_ptr<SqlProfileRepository> repository = open(QString());
        QVERIFY(repository);
        QCOMPARE(repository->dialect(), SqlProfileRepository::Dialect::Sqlite);
    }
    QVERIFY(QFileInfo::exists(expected));
    if (saved.isNull())
        qunsetenv("XDG_DATA_HOME");
    else
        qputenv("XDG_DATA_HOME", saved);
}

void SqliteProfileRepositoryTest::fileIsOwnerOnlyInWalMode()
{
    const QFileDevice::Permissions mode = QFileInfo(m_path).permissions();
    QVERIFY(mode & QFileDevice::ReadOwner);
    QVERIFY(mode & QFileDevice::WriteOwner);
    QVERIFY(!(mode & (QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ReadOther |
                      QFileDevice::WriteOther)));
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("PRAGMA journal_mode")).toString(),
             QStringLiteral("wal"));
}

void SqliteProfileRepositoryTest::schemaVersionIsRecorded()
{
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT max(version) FROM schema_version"
                                             " WHERE component = 'browser_profiles'"))
                 .toInt(),
             ProfileSchema::kLatestVersion);
    // Opening an up-to-date store again applies nothing twice.
    QVERIFY(open(m_path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM schema_version")).toInt(),
             ProfileSchema::kLatestVersion);
}

void SqliteProfileRepositoryTest::schemaConstraintsAreEnforced()
{
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    {
        QSqlQuery begin(raw.db());
        QVERIFY(begin.exec(QStringLiteral("BEGIN")));
    }
    ProfileStoreChecks::verifyConstraints(raw.db(), newScope().tenant);
    QSqlQuery rollback(raw.db());
    QVERIFY(rollback.exec(QStringLiteral("ROLLBACK")));
}

void SqliteProfileRepositoryTest::removeCascadesToOrigins()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    const QString countSql =
        QStringLiteral("SELECT count(*) FROM browser_profile_origins WHERE profile_id = '%1'")
            .arg(revoked->id.toString(QUuid::WithoutBraces));
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QCOMPARE(scalar(raw.db(), countSql).toInt(), 2);
    VERIFY_OK(repository().remove(scope, revoked->id, revoked->generation));
    QCOMPARE(scalar(raw.db(), countSql).toInt(), 0);
}

void SqliteProfileRepositoryTest::timestampsAreUtcText()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    VERIFY_OK(repository().touchLastUsed(scope, ready->id));
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QSqlQuery query(raw.db());
    QVERIFY(query.exec(QStringLiteral("SELECT created_at, updated_at, last_used_at FROM"
                                      " browser_profiles WHERE id = '%1'")
                           .arg(ready->id.toString(QUuid::WithoutBraces))));
    QVERIFY(query.next());
    static const QRegularExpression utc(
        QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)"));
    for (int i = 0; i < 3; ++i)
        QVERIFY2(utc.match(query.value(i).toString()).hasMatch(),
                 qPrintable(query.value(i).toString()));
    QCOMPARE(query.value(0).toString(), ready->createdAt.toString(Qt::ISODateWithMs));
}

void SqliteProfileRepositoryTest::dataSurvivesReopening()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    resetRepository();
    const std::unique_ptr<SqlProfileRepository> reopened = open(m_path);
    QVERIFY(reopened);
    const Result<BrowserProfile> read = reopened->get(scope, ready->id);
    VERIFY_OK(read);
    QCOMPARE(*read, *ready);
}

void SqliteProfileRepositoryTest::secondInstanceSeesGenerationGuard()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const std::unique_ptr<SqlProfileRepository> other = open(m_path, clock());
    QVERIFY(other);
    // Two processes read the same generation; the second writer loses.
    VERIFY_OK(other->transition(scope, ready->id, ready->generation, ProfileStatus::Revoked));
    VERIFY_PROFILE_FAILURE(repository().advanceGeneration(scope, ready->id, ready->generation),
                           ProfileFailure::StaleGeneration);
    const Result<BrowserProfile> read = repository().get(scope, ready->id);
    VERIFY_OK(read);
    QCOMPARE(read->status, ProfileStatus::Revoked);
}

void SqliteProfileRepositoryTest::newerSchemaVersionFailsStartUp()
{
    const QString path = m_dir.filePath(QStringLiteral("newer.sqlite"));
    QVERIFY(open(path));
    QVERIFY(
        insertVersion(path, QStringLiteral("browser_profiles"), ProfileSchema::kLatestVersion + 1));
    const Result<std::unique_ptr<SqlProfileRepository>> opened =
        SqlProfileRepository::openSqlite(path);
    VERIFY_PROFILE_FAILURE(opened, ProfileFailure::SchemaUnknown);

    // Nothing was changed or re-applied.
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM schema_version")).toInt(),
             ProfileSchema::kLatestVersion + 1);
    QVERIFY2(SqlProfileRepository::migrate(raw.db()).error().code ==
                 profileFailureString(ProfileFailure::SchemaUnknown),
             "migrate must refuse a newer store too");
}

void SqliteProfileRepositoryTest::unknownSchemaVersionFailsStartUp()
{
    // A store whose recorded versions are not 1..n (here only a version 7) is unknown.
    const QString path = m_dir.filePath(QStringLiteral("unknown.sqlite"));
    {
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, path));
        QSqlQuery query(raw.db());
        QVERIFY(query.exec(SqlSchemaVersion::createTableStatement(SqlDialect::Sqlite)));
    }
    QVERIFY(insertVersion(path, QStringLiteral("browser_profiles"), 7));
    VERIFY_PROFILE_FAILURE(SqlProfileRepository::openSqlite(path), ProfileFailure::SchemaUnknown);
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, path));
    QVERIFY(!scalar(raw.db(), QStringLiteral("SELECT count(*) FROM sqlite_master"
                                             " WHERE name = 'browser_profiles'"))
                 .toBool());
}

void SqliteProfileRepositoryTest::otherComponentsVersionsAreIgnored()
{
    const QString path = m_dir.filePath(QStringLiteral("shared.sqlite"));
    QVERIFY(open(path));
    QVERIFY(insertVersion(path, QStringLiteral("another_component"), 42));
    QVERIFY(open(path));
}

void SqliteProfileRepositoryTest::secretCanaryHasNoSecretColumns()
{
    // The repository is never given secret bytes; its store has nowhere to keep any.
    const ProfileScope scope = newScope();
    VERIFY_OK(createIn(scope, ProfileStatus::Ready));
    resetRepository(); // checkpoints the WAL into the file
    QList<std::pair<QString, QString>> columns;
    {
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, m_path));
        QStringList tables;
        {
            QSqlQuery query(raw.db());
            QVERIFY(query.exec(QStringLiteral("SELECT name FROM sqlite_master"
                                              " WHERE type = 'table'")));
            while (query.next())
                tables << query.value(0).toString();
        }
        QVERIFY(tables.contains(QStringLiteral("browser_profiles")));
        QVERIFY(tables.contains(QStringLiteral("browser_profile_origins")));
        for (const QString &table : std::as_const(tables)) {
            QSqlQuery info(raw.db());
            QVERIFY(info.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table)));
            while (info.next())
                columns.append({table + u'.' + info.value(1).toString(), info.value(2).toString()});
        }
    }
    ProfileStoreChecks::verifyNoSecretColumns(columns);

    QFile file(m_path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll().toLower();
    for (const char *word : {"cookie", "token", "password", "material", "storage_state"})
        QVERIFY2(!bytes.contains(word), word);
}

QTEST_GUILESS_MAIN(SqliteProfileRepositoryTest)
#include "tst_profilerepository_sqlite.moc"
