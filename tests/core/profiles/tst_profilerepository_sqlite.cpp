// The shared repository contract against the SQLite adapter (a temporary file), plus what
// only the SQLite store has to prove: its location, file mode, pragmas, schema constraints,
// schema versioning (a version-1 store migrates), the ceremony admission lock across two
// connections and its 5-second wait, and the absence of any secret-shaped column.

#include "ActivityTimelineChecks.h"
#include "ScheduleChecks.h"
#include "StandingGrantContract.h"
#include "TaskRunChecks.h"
#include "profiles/ProfileSchema.h"
#include "profiles/SqlStores.h"
#include "storage/SqlDatabase.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>

using namespace veetbot;

class SqliteProfileRepositoryTest : public StandingGrantContract
{
    Q_OBJECT

protected:
    void initAdapter() override
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("profiles.sqlite"));
    }

    MetadataPorts createRepository(ProfileClock clock) override
    {
        return portsOfStores(open(m_path, std::move(clock)));
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
    void concurrentCeremonyBeginsAdmitOne();
    void ceremonyBeginWaitsAtMostFiveSeconds();
    void version1StoreMigrates();
    void version9SignInRecordsSurviveVersion10();
    void newerSchemaVersionFailsStartUp();
    void unknownSchemaVersionFailsStartUp();
    void otherComponentsVersionsAreIgnored();
    void secretCanaryHasNoSecretColumns();
    void concurrentFirstScopeSavesAdmitOne();
    void concurrentScopeEditsAdmitOne();
    void taskScopeRowsSurviveReopening();
    void damagedTaskScopeRowFailsClosed();
    void concurrentGrantUsesAdmitOne();
    void activityTimeline();
    void taskRuns();
    void schedules();

private:
    static std::unique_ptr<SqlStores> open(const QString &path, ProfileClock clock = {});
    // Opens a raw connection to path with foreign keys on.
    static bool openRaw(ScopedConnection &connection, const QString &path);
    static QVariant scalar(QSqlDatabase &db, const QString &sql);
    static bool insertVersion(const QString &path, const QString &component, int version);

    QTemporaryDir m_dir;
    QString m_path;
};

std::unique_ptr<SqlStores> SqliteProfileRepositoryTest::open(const QString &path,
                                                             ProfileClock clock)
{
    Result<std::unique_ptr<SqlStores>> opened = SqlStores::openSqlite(path, std::move(clock));
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
    QCOMPARE(SqlStores::defaultSqlitePath(), expected);
    {
        const std::unique_ptr<SqlStores> repository = open(QString());
        QVERIFY(repository);
        QCOMPARE(repository->dialect(), SqlStores::Dialect::Sqlite);
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
    ProfileStoreChecks::verifyCeremonyConstraints(raw.db(), newScope().tenant);
    ProfileStoreChecks::verifyTaskScopeConstraints(raw.db(), newScope().tenant);
    ProfileStoreChecks::verifyTaskGrantConstraints(raw.db(), newScope().tenant);
    StandingGrantStoreChecks::verifyConstraints(raw.db(), newScope().tenant);
    QSqlQuery rollback(raw.db());
    QVERIFY(rollback.exec(QStringLiteral("ROLLBACK")));
}

void SqliteProfileRepositoryTest::removeCascadesToOrigins()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const Result<CeremonyBegun> begun = beginFor(scope, *ready);
    VERIFY_OK(begun);
    const Result<BrowserProfile> revoked = repository().transition(
        scope, ready->id, begun->profile.generation, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    const QString id = revoked->id.toString(QUuid::WithoutBraces);
    const QString originsSql =
        QStringLiteral("SELECT count(*) FROM browser_profile_origins WHERE profile_id = '%1'")
            .arg(id);
    const QString ceremoniesSql = QStringLiteral("SELECT count(*) FROM"
                                                 " browser_authentication_ceremonies"
                                                 " WHERE profile_id = '%1'")
                                      .arg(id);
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QCOMPARE(scalar(raw.db(), originsSql).toInt(), 2);
    QCOMPARE(scalar(raw.db(), ceremoniesSql).toInt(), 1);
    VERIFY_OK(repository().remove(scope, revoked->id, revoked->generation));
    QCOMPARE(scalar(raw.db(), originsSql).toInt(), 0);
    QCOMPARE(scalar(raw.db(), ceremoniesSql).toInt(), 0);
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
    const std::unique_ptr<SqlStores> reopened = open(m_path);
    QVERIFY(reopened);
    const Result<BrowserProfile> read = reopened->profiles().get(scope, ready->id);
    VERIFY_OK(read);
    QCOMPARE(*read, *ready);
}

void SqliteProfileRepositoryTest::secondInstanceSeesGenerationGuard()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const std::unique_ptr<SqlStores> other = open(m_path, clock());
    QVERIFY(other);
    // Two processes read the same generation; the second writer loses.
    VERIFY_OK(
        other->profiles().transition(scope, ready->id, ready->generation, ProfileStatus::Revoked));
    VERIFY_PROFILE_FAILURE(repository().advanceGeneration(scope, ready->id, ready->generation),
                           ProfileFailure::StaleGeneration);
    const Result<BrowserProfile> read = repository().get(scope, ready->id);
    VERIFY_OK(read);
    QCOMPARE(read->status, ProfileStatus::Revoked);
}

void SqliteProfileRepositoryTest::concurrentCeremonyBeginsAdmitOne()
{
    // Two connections (two processes, in effect) to one file.
    verifyConcurrentBeginsAdmitOne([this] { return portsOfStores(open(m_path, clock())); });
}

void SqliteProfileRepositoryTest::ceremonyBeginWaitsAtMostFiveSeconds()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    {
        QSqlQuery hold(raw.db());
        QVERIFY(hold.exec(QStringLiteral("BEGIN IMMEDIATE")));
    }
    int launches = 0;
    QElapsedTimer timer;
    timer.start();
    // Any other writer holds the store's write lock: the begin gives up after 5 s, not the
    // store's usual 10 s, and launches nothing.
    VERIFY_PROFILE_FAILURE(beginFor(scope, *profile, &launches),
                           ProfileFailure::RepositoryUnavailable);
    const qint64 waited = timer.elapsed();
    QVERIFY2(waited >= 4500 && waited < 9000, qPrintable(QString::number(waited)));
    QCOMPARE(launches, 0);
    {
        QSqlQuery release(raw.db());
        QVERIFY(release.exec(QStringLiteral("ROLLBACK")));
    }
    QCOMPARE(*repository().get(scope, profile->id), *profile);
    VERIFY_OK(beginFor(scope, *profile, &launches));
    QCOMPARE(launches, 1);
}

void SqliteProfileRepositoryTest::version1StoreMigrates()
{
    // A store as the previous release left it: version 1 only, one profile in it.
    const QString path = m_dir.filePath(QStringLiteral("version1.sqlite"));
    const ProfileScope scope = newScope();
    const QUuid id = BrowserProfile::newId();
    const QString reference = BrowserProfile::newProviderReference();
    {
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, path));
        QSqlDatabase &db = raw.db();
        QVERIFY(db.transaction());
        const SqlStoreErrors errors{profileError(ProfileFailure::RepositoryUnavailable),
                                    profileError(ProfileFailure::SchemaUnknown),
                                    profileError(ProfileFailure::SchemaUnknown)};
        const Result<int> version = SqlSchemaVersion::migrate(
            db, SqlDialect::Sqlite, QStringLiteral("browser_profiles"),
            {ProfileSchema::migrations(SqlDialect::Sqlite).constFirst()}, errors);
        VERIFY_OK(version);
        QCOMPARE(*version, 1);
        QSqlQuery insert(db);
        insert.prepare(QStringLiteral(
            "INSERT INTO browser_profiles (id, tenant, principal, provider_name,"
            " provider_reference, status, generation, key_version, created_at, updated_at,"
            " last_used_at) VALUES (:id, :tenant, :principal, 'hosted', :reference, 'ready', 3,"
            " 'k1', '2030-01-02T03:04:05.678Z', '2030-01-02T03:04:06.678Z',"
            " '2030-01-02T03:04:07.678Z')"));
        insert.bindValue(QStringLiteral(":id"), id.toString(QUuid::WithoutBraces));
        insert.bindValue(QStringLiteral(":tenant"), scope.tenant);
        insert.bindValue(QStringLiteral(":principal"), scope.principal);
        insert.bindValue(QStringLiteral(":reference"), reference);
        QVERIFY2(insert.exec(), qPrintable(insert.lastError().text()));
        insert.finish();
        QSqlQuery origin(db);
        origin.prepare(
            QStringLiteral("INSERT INTO browser_profile_origins (profile_id, tenant, principal,"
                           " origin) VALUES (:id, :tenant, :principal, 'https://shop.de')"));
        origin.bindValue(QStringLiteral(":id"), id.toString(QUuid::WithoutBraces));
        origin.bindValue(QStringLiteral(":tenant"), scope.tenant);
        origin.bindValue(QStringLiteral(":principal"), scope.principal);
        QVERIFY2(origin.exec(), qPrintable(origin.lastError().text()));
        origin.finish();
        QVERIFY(db.commit());
    }

    const std::unique_ptr<SqlStores> migrated = open(path, clock());
    QVERIFY(migrated);
    const Result<BrowserProfile> read = migrated->profiles().get(scope, id);
    VERIFY_OK(read);
    QCOMPARE(read->status, ProfileStatus::Ready);
    QCOMPARE(read->generation, qint64(3));
    QCOMPARE(read->providerReference, std::optional<QString>(reference));
    QCOMPARE(read->allowedOrigins, QList<Origin>{origin(QStringLiteral("https://shop.de"))});
    QCOMPARE(read->lastUsedAt,
             std::optional<QDateTime>(QDateTime(QDate(2030, 1, 2), QTime(3, 4, 7, 678), Qt::UTC)));
    QVERIFY(!read->lastVerifiedAt);
    {
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, path));
        QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT max(version) FROM schema_version"
                                                 " WHERE component = 'browser_profiles'"))
                     .toInt(),
                 ProfileSchema::kLatestVersion);
    }
    // And the migrated store takes sign-ins.
    const Result<CeremonyBegun> begun = migrated->profiles().beginCeremony(
        scope, id, read->generation, QStringLiteral("device"), launcher());
    VERIFY_OK(begun);
    const Result<CeremonyFinished> finished = migrated->profiles().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(finished);
    QCOMPARE(finished->profile.lastVerifiedAt, std::optional<QDateTime>(now()));
    QCOMPARE(*migrated->profiles().get(scope, id), finished->profile);
    // And task scopes, which start unsaved.
    QCOMPARE(*migrated->profiles().taskScopes(scope), TaskScopePolicy{});
    VERIFY_OK(
        migrated->profiles().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("lesson"))}));
}

// Version 10 builds the sign-in records' table again (SQLite alters no check): a version-9
// store's records are all there afterwards, and the new failure codes are taken.
void SqliteProfileRepositoryTest::version9SignInRecordsSurviveVersion10()
{
    const QString path = m_dir.filePath(QStringLiteral("version9.sqlite"));
    const ProfileScope scope = newScope();
    QUuid profileId;
    QString ceremonyId;
    {
        const std::unique_ptr<SqlStores> store = open(path, clock());
        QVERIFY(store);
        Result<BrowserProfile> profile = store->profiles().create(scope, reservation(scope));
        VERIFY_OK(profile);
        profile = store->profiles().bind(
            scope, profile->id, profile->generation, QStringLiteral("hosted"),
            BrowserProfile::newProviderReference(), QStringLiteral("k1"));
        VERIFY_OK(profile); // bound: authentication_required
        profileId = profile->id;
        const Result<CeremonyBegun> begun = store->profiles().beginCeremony(
            scope, profile->id, profile->generation, QStringLiteral("device"), launcher());
        VERIFY_OK(begun);
        ceremonyId = begun->ceremony.id;
        VERIFY_OK(store->profiles().finishCeremony(scope, ceremonyId, CeremonyStatus::Failed,
                                                   QStringLiteral("session_unconfirmed"), {}));
    }
    {
        // Back to version 9: the table as version 2 made it, version 11's column gone, the
        // version records lowered.
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, path));
        QSqlQuery query(raw.db());
        const QStringList back{
            QStringLiteral("ALTER TABLE browser_authentication_ceremonies RENAME TO c10"),
            QStringLiteral("DROP INDEX browser_authentication_ceremonies_profile"),
            QStringLiteral("DROP INDEX browser_authentication_ceremonies_open"),
            ProfileSchema::migrations(SqlDialect::Sqlite).at(1).statements.at(1),
            QStringLiteral("INSERT INTO browser_authentication_ceremonies SELECT * FROM c10"),
            QStringLiteral("DROP TABLE c10"),
            QStringLiteral("ALTER TABLE browser_profiles DROP COLUMN verified_account"),
            QStringLiteral("DELETE FROM schema_version WHERE component = 'browser_profiles'"
                           " AND version >= 10")};
        for (const QString &statement : back)
            QVERIFY2(query.exec(statement), qPrintable(query.lastError().text()));
        // Version 9's checks refuse the new codes.
        QVERIFY(!query.exec(QStringLiteral("UPDATE browser_authentication_ceremonies"
                                           " SET failure_code = 'session_wrong_account'")));
    }
    const std::unique_ptr<SqlStores> migrated = open(path, clock());
    QVERIFY(migrated);
    const Result<AuthenticationCeremony> kept = migrated->profiles().ceremony(scope, ceremonyId);
    VERIFY_OK(kept);
    QCOMPARE(kept->status, CeremonyStatus::Failed);
    QCOMPARE(kept->failureCode, std::optional(CeremonyFailureCode::SessionUnconfirmed));
    const Result<BrowserProfile> profile = migrated->profiles().get(scope, profileId);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> again = migrated->profiles().beginCeremony(
        scope, profileId, profile->generation, QStringLiteral("device"), launcher());
    VERIFY_OK(again);
    const Result<CeremonyFinished> wrong =
        migrated->profiles().finishCeremony(scope, again->ceremony.id, CeremonyStatus::Failed,
                                            QStringLiteral("session_wrong_account"), {});
    VERIFY_OK(wrong);
    QCOMPARE(wrong->ceremony.failureCode, std::optional(CeremonyFailureCode::SessionWrongAccount));
}

void SqliteProfileRepositoryTest::newerSchemaVersionFailsStartUp()
{
    const QString path = m_dir.filePath(QStringLiteral("newer.sqlite"));
    QVERIFY(open(path));
    QVERIFY(
        insertVersion(path, QStringLiteral("browser_profiles"), ProfileSchema::kLatestVersion + 1));
    const Result<std::unique_ptr<SqlStores>> opened = SqlStores::openSqlite(path);
    VERIFY_PROFILE_FAILURE(opened, ProfileFailure::SchemaUnknown);

    // Nothing was changed or re-applied.
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT count(*) FROM schema_version")).toInt(),
             ProfileSchema::kLatestVersion + 1);
    QVERIFY2(SqlStores::migrate(raw.db()).error().code ==
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
    VERIFY_PROFILE_FAILURE(SqlStores::openSqlite(path), ProfileFailure::SchemaUnknown);
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
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    VERIFY_OK(beginFor(scope, *ready));
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
        QVERIFY(tables.contains(QStringLiteral("browser_authentication_ceremonies")));
        QVERIFY(tables.contains(QStringLiteral("browser_task_scope_policies")));
        QVERIFY(tables.contains(QStringLiteral("browser_task_scopes")));
        QVERIFY(tables.contains(QStringLiteral("browser_policy_audit")));
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

void SqliteProfileRepositoryTest::concurrentFirstScopeSavesAdmitOne()
{
    // Two connections (two processes, in effect) save a list never saved before.
    verifyConcurrentScopeEditsAdmitOne([this] { return portsOfStores(open(m_path, clock())); },
                                       true);
}

void SqliteProfileRepositoryTest::concurrentScopeEditsAdmitOne()
{
    verifyConcurrentScopeEditsAdmitOne([this] { return portsOfStores(open(m_path, clock())); },
                                       false);
}

void SqliteProfileRepositoryTest::schedules()
{
    auto *store = ports().schedules;
    QVERIFY(store);
    const ProfileScope scope = newScope();
    ScheduleChecks::verifySchedules(*store, scope, otherPrincipal(scope));
}

void SqliteProfileRepositoryTest::taskRuns()
{
    auto *store = ports().taskRuns;
    auto *timeline = ports().timeline;
    QVERIFY(store && timeline);
    const ProfileScope scope = newScope();
    TaskRunChecks::verifyTaskRuns(*store, *timeline, scope, otherPrincipal(scope));
}

void SqliteProfileRepositoryTest::activityTimeline()
{
    auto *timeline = ports().timeline;
    QVERIFY(timeline);
    const ProfileScope scope = newScope();
    ActivityTimelineChecks::verifyTimeline(*timeline, scope, otherPrincipal(scope),
                                           [this](qint64 seconds) { advance(seconds); });
}

void SqliteProfileRepositoryTest::concurrentGrantUsesAdmitOne()
{
    // Two connections (two processes, in effect) take a grant's 200th use at once.
    verifyConcurrentGrantUsesAdmitOne([this] { return portsOfStores(open(m_path, clock())); });
}

void SqliteProfileRepositoryTest::taskScopeRowsSurviveReopening()
{
    const ProfileScope scope = newScope();
    const QList<TaskScope> entries = {taskScope(QStringLiteral("b")),
                                      taskScope(QStringLiteral("a"))};
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, entries));
    resetRepository();
    const std::unique_ptr<SqlStores> reopened = open(m_path);
    QVERIFY(reopened);
    const Result<TaskScopePolicy> read = reopened->profiles().taskScopes(scope);
    VERIFY_OK(read);
    QCOMPARE(read->revision, qint64(1));
    QCOMPARE(read->entries, (QList<TaskScope>{entries.at(1), entries.at(0)}));
    ScopedConnection raw(QStringLiteral("QSQLITE"));
    QVERIFY(openRaw(raw, m_path));
    QCOMPARE(scalar(raw.db(), QStringLiteral("SELECT entries FROM browser_policy_audit"
                                             " WHERE tenant = '%1'")
                                  .arg(scope.tenant))
                 .toString(),
             QStringLiteral("[\"https://www.acme-school.com/a\","
                            "\"https://www.acme-school.com/b\"]"));
}

void SqliteProfileRepositoryTest::damagedTaskScopeRowFailsClosed()
{
    const ProfileScope scope = newScope();
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("a"))}));
    {
        ScopedConnection raw(QStringLiteral("QSQLITE"));
        QVERIFY(openRaw(raw, m_path));
        QSqlQuery damage(raw.db());
        QVERIFY(damage.exec(QStringLiteral("UPDATE browser_task_scopes SET segment = 'a/b'"
                                           " WHERE tenant = '%1'")
                                .arg(scope.tenant)));
    }
    // Read as unavailable, never as a wider or an empty list.
    VERIFY_PROFILE_FAILURE(repository().taskScopes(scope), ProfileFailure::RepositoryUnavailable);
    VERIFY_PROFILE_FAILURE(repository().replaceTaskScopes(scope, 1, {}),
                           ProfileFailure::RepositoryUnavailable);
}

QTEST_GUILESS_MAIN(SqliteProfileRepositoryTest)
#include "tst_profilerepository_sqlite.moc"
