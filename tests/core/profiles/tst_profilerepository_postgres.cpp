// The shared repository contract against the PostgreSQL adapter, plus what only the
// PostgreSQL store has to prove: tenant row-level security (enabled, forced, and holding
// against raw SQL from the application role), an unprivileged application role, schema
// constraints, schema versioning (a version-1 database migrates), the ceremony admission
// lock across two connections and its 5-second wait, and the absence of any secret-shaped
// column.
//
// Needs a PostgreSQL server and a superuser login in VEETBOT_TEST_PG_HOST, _PORT, _USER, _DB
// (and _PASSWORD), as scripts/with-postgres.sh provides. Without them the test FAILS: a
// missing database must never turn into a silently skipped isolation proof. The test creates
// its own owner role, application role and database (random names) and drops them again.

#include "ActivityTimelineChecks.h"
#include "ScheduleChecks.h"
#include "StandingGrantContract.h"
#include "TaskRunChecks.h"
#include "profiles/ProfileSchema.h"
#include "profiles/SqlStores.h"
#include "storage/SqlDatabase.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>
#include <thread>

using namespace veetbot;

class PostgresProfileRepositoryTest : public StandingGrantContract
{
    Q_OBJECT

protected:
    void initAdapter() override;
    void cleanupAdapter() override;
    MetadataPorts createRepository(ProfileClock clock) override;

private Q_SLOTS:
    void rowLevelSecurityIsEnabledAndForced();
    void appRoleIsNotOwnerAndCannotBypassRls();
    void privilegedRolesAreRefused();
    void rlsIsolatesTenantsInRawSql();
    void withoutTenantSettingNothingIsVisible();
    void schemaConstraintsAreEnforced();
    void removeCascadesToOrigins();
    void secondInstanceSeesGenerationGuard();
    void concurrentCeremonyBeginsAdmitOne();
    void ceremonyBeginWaitsAtMostFiveSeconds();
    void version1DatabaseMigrates();
    void migrateIsIdempotent();
    void newerSchemaVersionFailsStartUp();
    void missingSchemaFailsStartUp();
    void unreachableServerIsUnavailable();
    void secretCanaryHasNoSecretColumns();
    void concurrentFirstScopeSavesAdmitOne();
    void concurrentScopeEditsAdmitOne();
    void scopeEditWaitsForTheListLock();
    void taskScopeAuditIsAppendOnly();
    void rlsIsolatesTaskScopesInRawSql();
    void concurrentGrantUsesAdmitOne();
    void activityTimeline();
    void taskRuns();
    void schedules();
    void standingGrantsAreTenantScopedAndNeverWidenedInPlace();

private:
    // Opens connection as user on database (this test's database unless named).
    bool connect(ScopedConnection &connection, const QString &user, const QString &password,
                 const QString &database = QString()) const;
    PostgresProfileStoreSettings settingsFor(const QString &user, const QString &password,
                                             const QString &database = QString()) const;
    static QVariant scalar(QSqlDatabase &db, const QString &sql);
    static bool exec(QSqlDatabase &db, const QString &sql);
    static bool setTenant(QSqlDatabase &db, const QString &tenant);
    static QString randomSecret();

    QString m_host;
    int m_port = 0;
    QString m_adminUser;
    QString m_adminPassword;
    QString m_adminDatabase;

    QString m_suffix;
    QString m_database;
    QString m_ownerRole;
    QString m_ownerPassword;
    QString m_appRole;
    QString m_appPassword;
    QStringList m_extraRoles;
    std::unique_ptr<ScopedConnection> m_admin;
    std::unique_ptr<ScopedConnection> m_owner;
};

QString PostgresProfileRepositoryTest::randomSecret()
{
    return QString::fromLatin1(BrowserProfile::newId().toRfc4122().toHex() +
                               BrowserProfile::newId().toRfc4122().toHex());
}

PostgresProfileStoreSettings
PostgresProfileRepositoryTest::settingsFor(const QString &user, const QString &password,
                                           const QString &database) const
{
    PostgresProfileStoreSettings settings;
    settings.host = m_host;
    settings.port = m_port;
    settings.database = database.isEmpty() ? m_database : database;
    settings.user = user;
    settings.password = password;
    return settings;
}

bool PostgresProfileRepositoryTest::connect(ScopedConnection &connection, const QString &user,
                                            const QString &password, const QString &database) const
{
    QSqlDatabase &db = connection.db();
    db.setHostName(m_host);
    db.setPort(m_port);
    db.setDatabaseName(database.isEmpty() ? m_database : database);
    db.setUserName(user);
    db.setPassword(password);
    if (!db.open()) {
        qWarning("connection as %s failed: %s", qPrintable(user),
                 qPrintable(db.lastError().text()));
        return false;
    }
    return true;
}

QVariant PostgresProfileRepositoryTest::scalar(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QVariant();
    return query.value(0);
}

bool PostgresProfileRepositoryTest::exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    return query.exec(sql);
}

bool PostgresProfileRepositoryTest::setTenant(QSqlDatabase &db, const QString &tenant)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT set_config('veetbot.tenant', :tenant, true)"));
    query.bindValue(QStringLiteral(":tenant"), tenant);
    return query.exec();
}

void PostgresProfileRepositoryTest::initAdapter()
{
    m_host = qEnvironmentVariable("VEETBOT_TEST_PG_HOST");
    const QString port = qEnvironmentVariable("VEETBOT_TEST_PG_PORT");
    m_adminUser = qEnvironmentVariable("VEETBOT_TEST_PG_USER");
    m_adminDatabase = qEnvironmentVariable("VEETBOT_TEST_PG_DB");
    m_adminPassword = qEnvironmentVariable("VEETBOT_TEST_PG_PASSWORD");
    if (m_host.isEmpty() || port.isEmpty() || m_adminUser.isEmpty() || m_adminDatabase.isEmpty())
        QFAIL("VEETBOT_TEST_PG_HOST, VEETBOT_TEST_PG_PORT, VEETBOT_TEST_PG_USER and "
              "VEETBOT_TEST_PG_DB are not set: run the tests under scripts/with-postgres.sh "
              "(e.g. scripts/with-postgres.sh ctest --test-dir build). This test fails rather "
              "than skips without a database.");
    bool portOk = false;
    m_port = port.toInt(&portOk);
    QVERIFY2(portOk && m_port > 0 && m_port < 65536, "VEETBOT_TEST_PG_PORT is not a port");
    QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")),
             "the Qt PostgreSQL driver is missing (Debian package libqt6sql6-psql)");

    m_admin = std::make_unique<ScopedConnection>(QStringLiteral("QPSQL"));
    QVERIFY2(connect(*m_admin, m_adminUser, m_adminPassword, m_adminDatabase),
             "cannot connect to the server named by VEETBOT_TEST_PG_*");
    QVERIFY2(scalar(m_admin->db(), QStringLiteral("SELECT rolsuper FROM pg_roles"
                                                  " WHERE rolname = current_user"))
                 .toBool(),
             "VEETBOT_TEST_PG_USER must be a superuser (it creates roles and a database)");

    m_suffix = randomSecret().left(12);
    m_database = QStringLiteral("veetbot_profiles_") + m_suffix;
    m_ownerRole = QStringLiteral("veetbot_owner_") + m_suffix;
    m_appRole = QStringLiteral("veetbot_app_") + m_suffix;
    m_ownerPassword = randomSecret();
    m_appPassword = randomSecret();
    QVERIFY(exec(m_admin->db(), QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'"
                                               " NOSUPERUSER NOBYPASSRLS NOCREATEROLE")
                                    .arg(m_ownerRole, m_ownerPassword)));
    QVERIFY(exec(m_admin->db(), QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'"
                                               " NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB")
                                    .arg(m_appRole, m_appPassword)));
    QVERIFY(exec(m_admin->db(),
                 QStringLiteral("CREATE DATABASE %1 OWNER %2").arg(m_database, m_ownerRole)));

    // Migrations run as the owner; the application role only gets DML.
    m_owner = std::make_unique<ScopedConnection>(QStringLiteral("QPSQL"));
    QVERIFY(connect(*m_owner, m_ownerRole, m_ownerPassword));
    const Result<int> migrated = SqlStores::migrate(m_owner->db());
    VERIFY_OK(migrated);
    QCOMPARE(*migrated, ProfileSchema::kLatestVersion);
    VERIFY_OK(SqlStores::grantApplicationRole(m_owner->db(), m_appRole));
}

void PostgresProfileRepositoryTest::cleanupAdapter()
{
    m_owner.reset();
    if (!m_admin)
        return;
    if (!m_database.isEmpty())
        exec(m_admin->db(),
             QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(m_database));
    for (const QString &role : m_extraRoles + QStringList{m_appRole, m_ownerRole}) {
        if (!role.isEmpty())
            exec(m_admin->db(), QStringLiteral("DROP ROLE IF EXISTS %1").arg(role));
    }
    m_admin.reset();
}

MetadataPorts PostgresProfileRepositoryTest::createRepository(ProfileClock clock)
{
    Result<std::unique_ptr<SqlStores>> opened =
        SqlStores::openPostgres(settingsFor(m_appRole, m_appPassword), std::move(clock));
    if (!opened) {
        qWarning("openPostgres failed: %s", qPrintable(opened.error().code));
        return {};
    }
    return portsOfStores(std::move(opened).value());
}

void PostgresProfileRepositoryTest::rowLevelSecurityIsEnabledAndForced()
{
    QSqlQuery tables(m_owner->db());
    QVERIFY(tables.exec(
        QStringLiteral("SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
                       " WHERE relname IN ('browser_profiles', 'browser_profile_origins',"
                       " 'browser_authentication_ceremonies', 'browser_task_scope_policies',"
                       " 'browser_task_scopes', 'browser_policy_audit') AND relkind = 'r'")));
    int seen = 0;
    while (tables.next()) {
        ++seen;
        QVERIFY2(tables.value(1).toBool(), qPrintable(tables.value(0).toString()));
        QVERIFY2(tables.value(2).toBool(), qPrintable(tables.value(0).toString()));
    }
    QCOMPARE(seen, 6);

    QSqlQuery policies(m_owner->db());
    QVERIFY(policies.exec(
        QStringLiteral("SELECT tablename, qual, with_check FROM pg_policies"
                       " WHERE tablename IN ('browser_profiles', 'browser_profile_origins',"
                       " 'browser_authentication_ceremonies', 'browser_task_scope_policies',"
                       " 'browser_task_scopes', 'browser_policy_audit')")));
    QSet<QString> covered;
    while (policies.next()) {
        covered.insert(policies.value(0).toString());
        for (int column : {1, 2}) {
            const QString expression = policies.value(column).toString();
            QVERIFY2(expression.contains(QLatin1String("current_setting('veetbot.tenant'")) &&
                         expression.contains(QLatin1String("true")),
                     qPrintable(expression));
        }
    }
    QCOMPARE(covered, (QSet<QString>{QStringLiteral("browser_profiles"),
                                     QStringLiteral("browser_profile_origins"),
                                     QStringLiteral("browser_authentication_ceremonies"),
                                     QStringLiteral("browser_task_scope_policies"),
                                     QStringLiteral("browser_task_scopes"),
                                     QStringLiteral("browser_policy_audit")}));
}

void PostgresProfileRepositoryTest::appRoleIsNotOwnerAndCannotBypassRls()
{
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QSqlQuery role(app.db());
    QVERIFY(role.exec(QStringLiteral("SELECT rolsuper, rolbypassrls FROM pg_roles"
                                     " WHERE rolname = current_user")));
    QVERIFY(role.next());
    QVERIFY(!role.value(0).toBool());
    QVERIFY(!role.value(1).toBool());
    role.finish();
    QCOMPARE(
        scalar(app.db(),
               QStringLiteral("SELECT count(*) FROM pg_class"
                              " WHERE relname IN ('browser_profiles', 'browser_profile_origins',"
                              " 'browser_authentication_ceremonies')"
                              " AND pg_has_role(current_user, relowner, 'USAGE')"))
            .toInt(),
        0);
    QCOMPARE(scalar(app.db(), QStringLiteral("SELECT tableowner FROM pg_tables"
                                             " WHERE tablename = 'browser_profiles'"))
                 .toString(),
             m_ownerRole);
    // It cannot switch the policies off, nor read around them.
    QVERIFY(
        !exec(app.db(), QStringLiteral("ALTER TABLE browser_profiles DISABLE ROW LEVEL SECURITY")));
    QVERIFY(!exec(app.db(),
                  QStringLiteral("ALTER TABLE browser_profiles NO FORCE ROW LEVEL SECURITY")));
    QVERIFY(!exec(app.db(), QStringLiteral("DROP POLICY browser_profiles_tenant"
                                           " ON browser_profiles")));
    QVERIFY(!exec(app.db(), QStringLiteral("ALTER TABLE browser_authentication_ceremonies"
                                           " NO FORCE ROW LEVEL SECURITY")));
    QVERIFY(exec(app.db(), QStringLiteral("SET row_security = off")));
    QVERIFY(!exec(app.db(), QStringLiteral("SELECT count(*) FROM browser_profiles")));
}

void PostgresProfileRepositoryTest::privilegedRolesAreRefused()
{
    // The owner, a superuser, a BYPASSRLS role and a member of the owner role can each see
    // past row-level security; the repository refuses to run as any of them.
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settingsFor(m_ownerRole, m_ownerPassword)),
                           ProfileFailure::PrivilegedRole);
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settingsFor(m_adminUser, m_adminPassword)),
                           ProfileFailure::PrivilegedRole);

    const QString bypass = QStringLiteral("veetbot_bypass_") + m_suffix;
    const QString member = QStringLiteral("veetbot_member_") + m_suffix;
    const QString password = randomSecret();
    m_extraRoles << bypass << member;
    QVERIFY(
        exec(m_admin->db(),
             QStringLiteral("CREATE ROLE %1 LOGIN BYPASSRLS PASSWORD '%2'").arg(bypass, password)));
    QVERIFY(exec(m_admin->db(),
                 QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(member, password)));
    QVERIFY(exec(m_admin->db(), QStringLiteral("GRANT %1 TO %2").arg(m_ownerRole, member)));
    VERIFY_OK(SqlStores::grantApplicationRole(m_owner->db(), bypass));
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settingsFor(bypass, password)),
                           ProfileFailure::PrivilegedRole);
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settingsFor(member, password)),
                           ProfileFailure::PrivilegedRole);

    // Role names are identifiers, never SQL.
    VERIFY_PROFILE_FAILURE(
        SqlStores::grantApplicationRole(m_owner->db(), QStringLiteral("app; DROP TABLE x")),
        ProfileFailure::Invalid);
}

void PostgresProfileRepositoryTest::rlsIsolatesTenantsInRawSql()
{
    const ProfileScope tenantA = newScope();
    const ProfileScope tenantB = otherTenant(tenantA);
    const Result<BrowserProfile> readyA = createIn(tenantA, ProfileStatus::Ready);
    const Result<BrowserProfile> readyB = createIn(tenantB, ProfileStatus::Ready);
    VERIFY_OK(readyA);
    VERIFY_OK(readyB);
    const Result<CeremonyBegun> ceremonyA = beginFor(tenantA, *readyA);
    const Result<CeremonyBegun> ceremonyB = beginFor(tenantB, *readyB);
    VERIFY_OK(ceremonyA);
    VERIFY_OK(ceremonyB);
    const BrowserProfile *a = &ceremonyA->profile;
    const BrowserProfile *b = &ceremonyB->profile;
    const QString idA = a->id.toString(QUuid::WithoutBraces);
    const QString idB = b->id.toString(QUuid::WithoutBraces);

    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QSqlDatabase &db = app.db();
    {
        // Raw SQL without any tenant or principal predicate: the policy alone confines it.
        QVERIFY(db.transaction());
        QVERIFY(setTenant(db, tenantA.tenant));
        {
            QSqlQuery visible(db);
            QVERIFY(visible.exec(QStringLiteral("SELECT CAST(id AS text) FROM browser_profiles")));
            QStringList ids;
            while (visible.next())
                ids << visible.value(0).toString();
            QCOMPARE(ids, QStringList{idA});
        }
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_profile_origins")).toInt(),
                 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_profile_origins"
                                           " WHERE profile_id = '%1'")
                                .arg(idB))
                     .toInt(),
                 0);
        {
            QSqlQuery visible(db);
            QVERIFY(visible.exec(
                QStringLiteral("SELECT CAST(id AS text) FROM browser_authentication_ceremonies")));
            QStringList ids;
            while (visible.next())
                ids << visible.value(0).toString();
            QCOMPARE(ids, QStringList{ceremonyA->ceremony.id});
        }
        for (const QString &sql :
             {QStringLiteral("UPDATE browser_profiles SET generation = generation + 100"
                             " WHERE id = '%1'"),
              QStringLiteral("UPDATE browser_profiles SET status = 'revoked' WHERE id = '%1'"),
              QStringLiteral("UPDATE browser_profile_origins SET origin = 'https://evil.de'"
                             " WHERE profile_id = '%1'"),
              QStringLiteral("UPDATE browser_authentication_ceremonies SET status = 'cancelled',"
                             " finished_at = now() WHERE profile_id = '%1'"),
              QStringLiteral("DELETE FROM browser_authentication_ceremonies"
                             " WHERE profile_id = '%1'"),
              QStringLiteral("DELETE FROM browser_profile_origins WHERE profile_id = '%1'"),
              QStringLiteral("DELETE FROM browser_profiles WHERE id = '%1'")}) {
            QSqlQuery write(db);
            QVERIFY2(write.exec(sql.arg(idB)), qPrintable(write.lastError().text()));
            QCOMPARE(write.numRowsAffected(), 0);
        }
        QVERIFY(db.rollback());
    }
    {
        // Rows cannot be written into, or moved to, another tenant.
        QVERIFY(db.transaction());
        QVERIFY(setTenant(db, tenantA.tenant));
        QVERIFY(!exec(db, QStringLiteral("UPDATE browser_profiles SET tenant = '%1'"
                                         " WHERE id = '%2'")
                              .arg(tenantB.tenant, idA)));
        QVERIFY(db.rollback());
        QVERIFY(db.transaction());
        QVERIFY(setTenant(db, tenantA.tenant));
        QSqlQuery insert(db);
        insert.prepare(QStringLiteral(
            "INSERT INTO browser_profiles (id, tenant, principal, status, generation,"
            " created_at, updated_at) VALUES (:id, :tenant, 'p', 'provisioning', 0,"
            " now(), now())"));
        insert.bindValue(QStringLiteral(":id"),
                         BrowserProfile::newId().toString(QUuid::WithoutBraces));
        insert.bindValue(QStringLiteral(":tenant"), tenantB.tenant);
        QVERIFY(!insert.exec());
        QCOMPARE(insert.lastError().nativeErrorCode(), QStringLiteral("42501"));
        insert.finish();
        QVERIFY(db.rollback());
    }
    // Both profiles and their sign-ins are untouched.
    QCOMPARE(*repository().get(tenantA, a->id), *a);
    QCOMPARE(*repository().get(tenantB, b->id), *b);
    QCOMPARE(*repository().ceremony(tenantB, ceremonyB->ceremony.id), ceremonyB->ceremony);
}

void PostgresProfileRepositoryTest::withoutTenantSettingNothingIsVisible()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> created = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(created);
    const Result<CeremonyBegun> begun = beginFor(scope, *created);
    VERIFY_OK(begun);
    const BrowserProfile *ready = &begun->profile;

    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QSqlDatabase &db = app.db();
    const auto verifyNothingVisible = [&] {
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_profiles")).toInt(), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_profile_origins")).toInt(),
                 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM"
                                           " browser_authentication_ceremonies"))
                     .toInt(),
                 0);
        QSqlQuery write(db);
        QVERIFY(write.exec(QStringLiteral("UPDATE browser_profiles SET generation = 0")));
        QCOMPARE(write.numRowsAffected(), 0);
    };
    // Never set in this session: current_setting(..., true) is null.
    verifyNothingVisible();
    if (QTest::currentTestFailed())
        return;
    // Set locally in a finished transaction: the setting is back to '' and matches nothing.
    QVERIFY(db.transaction());
    QVERIFY(setTenant(db, scope.tenant));
    QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_profiles")).toInt(), 1);
    QVERIFY(db.commit());
    verifyNothingVisible();
    QCOMPARE(*repository().get(scope, ready->id), *ready);
}

void PostgresProfileRepositoryTest::schemaConstraintsAreEnforced()
{
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    const QString tenant = newScope().tenant;
    QVERIFY(app.db().transaction());
    QVERIFY(setTenant(app.db(), tenant));
    ProfileStoreChecks::verifyConstraints(app.db(), tenant);
    ProfileStoreChecks::verifyCeremonyConstraints(app.db(), tenant);
    ProfileStoreChecks::verifyTaskScopeConstraints(app.db(), tenant);
    ProfileStoreChecks::verifyTaskGrantConstraints(app.db(), tenant);
    StandingGrantStoreChecks::verifyConstraints(app.db(), tenant);
    QVERIFY(app.db().rollback());
}

void PostgresProfileRepositoryTest::removeCascadesToOrigins()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const Result<CeremonyBegun> begun = beginFor(scope, *ready);
    VERIFY_OK(begun);
    const Result<BrowserProfile> revoked = repository().transition(
        scope, ready->id, begun->profile.generation, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    const QString id = revoked->id.toString(QUuid::WithoutBraces);
    const auto count = [&](const QString &table) {
        QSqlDatabase &db = app.db();
        if (!db.transaction() || !setTenant(db, scope.tenant))
            return -1;
        const int n =
            scalar(db,
                   QStringLiteral("SELECT count(*) FROM %1 WHERE profile_id = '%2'").arg(table, id))
                .toInt();
        db.rollback();
        return n;
    };
    const QString origins = QStringLiteral("browser_profile_origins");
    const QString ceremonies = QStringLiteral("browser_authentication_ceremonies");
    QCOMPARE(count(origins), 2);
    QCOMPARE(count(ceremonies), 1);
    VERIFY_OK(repository().remove(scope, revoked->id, revoked->generation));
    QCOMPARE(count(origins), 0);
    QCOMPARE(count(ceremonies), 0);
}

void PostgresProfileRepositoryTest::secondInstanceSeesGenerationGuard()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const MetadataPorts other = createRepository(clock());
    QVERIFY(other);
    // Two workers read the same generation; the second writer loses.
    VERIFY_OK(other->transition(scope, ready->id, ready->generation, ProfileStatus::Revoked));
    VERIFY_PROFILE_FAILURE(repository().advanceGeneration(scope, ready->id, ready->generation),
                           ProfileFailure::StaleGeneration);
    VERIFY_PROFILE_FAILURE(repository().remove(scope, ready->id, ready->generation),
                           ProfileFailure::StaleGeneration);
    const Result<BrowserProfile> read = repository().get(scope, ready->id);
    VERIFY_OK(read);
    QCOMPARE(read->status, ProfileStatus::Revoked);
}

void PostgresProfileRepositoryTest::concurrentCeremonyBeginsAdmitOne()
{
    // Two application connections (two workers, in effect): the second waits on the
    // profile's row lock until the first has recorded its ceremony.
    verifyConcurrentBeginsAdmitOne([this] { return createRepository(clock()); });
}

void PostgresProfileRepositoryTest::ceremonyBeginWaitsAtMostFiveSeconds()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    // Another connection holds the profile's row, as a begin does through its launch.
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QVERIFY(app.db().transaction());
    QVERIFY(setTenant(app.db(), scope.tenant));
    QVERIFY(exec(app.db(), QStringLiteral("SELECT 1 FROM browser_profiles WHERE id = '%1'"
                                          " FOR UPDATE")
                               .arg(profile->id.toString(QUuid::WithoutBraces))));
    int launches = 0;
    QElapsedTimer timer;
    timer.start();
    VERIFY_PROFILE_FAILURE(beginFor(scope, *profile, &launches), ProfileFailure::CeremonyConflict);
    const qint64 waited = timer.elapsed();
    QVERIFY2(waited >= 4500 && waited < 15000, qPrintable(QString::number(waited)));
    QCOMPARE(launches, 0);
    QVERIFY(app.db().rollback());

    QCOMPARE(*repository().get(scope, profile->id), *profile);
    VERIFY_OK(beginFor(scope, *profile, &launches));
    QCOMPARE(launches, 1);
}

void PostgresProfileRepositoryTest::version1DatabaseMigrates()
{
    // A database as the previous release left it: version 1, granted to the application role
    // as that release did, with one profile in it.
    const QString database = m_database + QStringLiteral("_v1");
    QVERIFY(exec(m_admin->db(),
                 QStringLiteral("CREATE DATABASE %1 OWNER %2").arg(database, m_ownerRole)));
    const auto drop = qScopeGuard([&] {
        exec(m_admin->db(),
             QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(database));
    });
    const ProfileScope scope = newScope();
    const QUuid id = BrowserProfile::newId();
    const QString reference = BrowserProfile::newProviderReference();
    ScopedConnection owner(QStringLiteral("QPSQL"));
    QVERIFY(connect(owner, m_ownerRole, m_ownerPassword, database));
    QSqlDatabase &db = owner.db();
    {
        QVERIFY(db.transaction());
        const SqlStoreErrors errors{profileError(ProfileFailure::RepositoryUnavailable),
                                    profileError(ProfileFailure::SchemaUnknown),
                                    profileError(ProfileFailure::SchemaUnknown)};
        const Result<int> version = SqlSchemaVersion::migrate(
            db, SqlDialect::Postgres, QStringLiteral("browser_profiles"),
            {ProfileSchema::migrations(SqlDialect::Postgres).constFirst()}, errors);
        VERIFY_OK(version);
        QCOMPARE(*version, 1);
        QVERIFY(exec(db, QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE ON"
                                        " browser_profiles, browser_profile_origins TO %1")
                             .arg(m_appRole)));
        QVERIFY(exec(db, QStringLiteral("GRANT SELECT ON schema_version TO %1").arg(m_appRole)));
        QVERIFY(setTenant(db, scope.tenant));
        QSqlQuery insert(db);
        insert.prepare(QStringLiteral(
            "INSERT INTO browser_profiles (id, tenant, principal, provider_name,"
            " provider_reference, status, generation, key_version, created_at, updated_at)"
            " VALUES (:id, :tenant, :principal, 'hosted', :reference, 'needs_user', 4, 'k1',"
            " '2030-01-02T03:04:05.678Z', '2030-01-02T03:04:06.678Z')"));
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
    const PostgresProfileStoreSettings settings = settingsFor(m_appRole, m_appPassword, database);
    // The application role never migrates: an old schema stops it until the owner has.
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settings), ProfileFailure::SchemaUnknown);

    const Result<int> migrated = SqlStores::migrate(db);
    VERIFY_OK(migrated);
    QCOMPARE(*migrated, ProfileSchema::kLatestVersion);
    VERIFY_OK(SqlStores::grantApplicationRole(db, m_appRole));
    Result<std::unique_ptr<SqlStores>> opened = SqlStores::openPostgres(settings, clock());
    VERIFY_OK(opened);
    SqlStores &store = **opened;
    const Result<BrowserProfile> read = store.profiles().get(scope, id);
    VERIFY_OK(read);
    QCOMPARE(read->status, ProfileStatus::NeedsUser);
    QCOMPARE(read->generation, qint64(4));
    QCOMPARE(read->providerReference, std::optional<QString>(reference));
    QCOMPARE(read->allowedOrigins, QList<Origin>{origin(QStringLiteral("https://shop.de"))});
    QVERIFY(!read->lastVerifiedAt);

    // And the migrated database takes sign-ins.
    const Result<CeremonyBegun> begun = store.profiles().beginCeremony(
        scope, id, read->generation, QStringLiteral("device"), launcher());
    VERIFY_OK(begun);
    const Result<CeremonyFinished> finished = store.profiles().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(finished);
    QCOMPARE(finished->profile.status, ProfileStatus::Ready);
    QCOMPARE(finished->profile.lastVerifiedAt, std::optional<QDateTime>(now()));
    QCOMPARE(*store.profiles().get(scope, id), finished->profile);
    // And task scopes, which start unsaved.
    QCOMPARE(*store.profiles().taskScopes(scope), TaskScopePolicy{});
    VERIFY_OK(store.profiles().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("lesson"))}));
}

void PostgresProfileRepositoryTest::migrateIsIdempotent()
{
    const Result<int> again = SqlStores::migrate(m_owner->db());
    VERIFY_OK(again);
    QCOMPARE(*again, ProfileSchema::kLatestVersion);
    QCOMPARE(scalar(m_owner->db(), QStringLiteral("SELECT count(*) FROM schema_version"
                                                  " WHERE component = 'browser_profiles'"))
                 .toInt(),
             ProfileSchema::kLatestVersion);
}

void PostgresProfileRepositoryTest::newerSchemaVersionFailsStartUp()
{
    const QString insert = QStringLiteral("INSERT INTO schema_version (component, version) VALUES"
                                          " ('browser_profiles', %1)")
                               .arg(ProfileSchema::kLatestVersion + 1);
    QVERIFY(exec(m_owner->db(), insert));
    const auto restore = qScopeGuard([this] {
        exec(m_owner->db(), QStringLiteral("DELETE FROM schema_version"
                                           " WHERE component = 'browser_profiles'"
                                           " AND version > %1")
                                .arg(ProfileSchema::kLatestVersion));
    });
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settingsFor(m_appRole, m_appPassword)),
                           ProfileFailure::SchemaUnknown);
    VERIFY_PROFILE_FAILURE(SqlStores::migrate(m_owner->db()), ProfileFailure::SchemaUnknown);
    // Other components' versions in the shared table do not matter.
    QVERIFY(exec(m_owner->db(), QStringLiteral("DELETE FROM schema_version"
                                               " WHERE component = 'browser_profiles'"
                                               " AND version > %1")
                                    .arg(ProfileSchema::kLatestVersion)));
    QVERIFY(exec(m_owner->db(), QStringLiteral("INSERT INTO schema_version (component, version)"
                                               " VALUES ('another_component', 42)")));
    VERIFY_OK(SqlStores::openPostgres(settingsFor(m_appRole, m_appPassword)));
    QVERIFY(exec(m_owner->db(), QStringLiteral("DELETE FROM schema_version"
                                               " WHERE component = 'another_component'")));
}

void PostgresProfileRepositoryTest::missingSchemaFailsStartUp()
{
    // The administrative database was never migrated.
    VERIFY_PROFILE_FAILURE(
        SqlStores::openPostgres(settingsFor(m_appRole, m_appPassword, m_adminDatabase)),
        ProfileFailure::SchemaUnknown);
}

void PostgresProfileRepositoryTest::unreachableServerIsUnavailable()
{
    PostgresProfileStoreSettings settings = settingsFor(m_appRole, m_appPassword);
    settings.password = QStringLiteral("wrong-") + randomSecret();
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settings),
                           ProfileFailure::RepositoryUnavailable);
    settings = settingsFor(m_appRole, m_appPassword);
    settings.host = QStringLiteral("127.0.0.1");
    settings.port = 1; // nothing listens there
    VERIFY_PROFILE_FAILURE(SqlStores::openPostgres(settings),
                           ProfileFailure::RepositoryUnavailable);
}

void PostgresProfileRepositoryTest::secretCanaryHasNoSecretColumns()
{
    QSqlQuery query(m_owner->db());
    QVERIFY(query.exec(
        QStringLiteral("SELECT table_name, column_name, data_type FROM information_schema.columns"
                       " WHERE table_schema = current_schema()"
                       " AND table_name IN ('browser_profiles', 'browser_profile_origins',"
                       " 'browser_authentication_ceremonies', 'browser_task_scope_policies',"
                       " 'browser_task_scopes', 'browser_policy_audit', 'schema_version')")));
    QList<std::pair<QString, QString>> columns;
    while (query.next())
        columns.append({query.value(0).toString() + u'.' + query.value(1).toString(),
                        query.value(2).toString()});
    ProfileStoreChecks::verifyNoSecretColumns(columns);
}

void PostgresProfileRepositoryTest::concurrentFirstScopeSavesAdmitOne()
{
    // Two application connections save a list never saved before: the policy row's primary
    // key decides, the loser inserts nothing.
    verifyConcurrentScopeEditsAdmitOne([this] { return createRepository(clock()); }, true);
}

void PostgresProfileRepositoryTest::concurrentScopeEditsAdmitOne()
{
    // The second waits on the policy row lock, then sees the first one's revision.
    verifyConcurrentScopeEditsAdmitOne([this] { return createRepository(clock()); }, false);
}

void PostgresProfileRepositoryTest::schedules()
{
    auto *store = ports().schedules;
    QVERIFY(store);
    const ProfileScope scope = newScope();
    ScheduleChecks::verifySchedules(*store, scope, otherPrincipal(scope));
}

void PostgresProfileRepositoryTest::taskRuns()
{
    auto *store = ports().taskRuns;
    auto *timeline = ports().timeline;
    QVERIFY(store && timeline);
    const ProfileScope scope = newScope();
    TaskRunChecks::verifyTaskRuns(*store, *timeline, scope, otherPrincipal(scope));
}

void PostgresProfileRepositoryTest::activityTimeline()
{
    auto *timeline = ports().timeline;
    QVERIFY(timeline);
    const ProfileScope scope = newScope();
    ActivityTimelineChecks::verifyTimeline(*timeline, scope, otherPrincipal(scope),
                                           [this](qint64 seconds) { advance(seconds); });
}

void PostgresProfileRepositoryTest::concurrentGrantUsesAdmitOne()
{
    // The second waits on the list's and the grant's row locks, then sees the grant ended.
    verifyConcurrentGrantUsesAdmitOne([this] { return createRepository(clock()); });
}

void PostgresProfileRepositoryTest::scopeEditWaitsForTheListLock()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {a}));
    // Another connection holds the policy row, as a grant creation or use will.
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QVERIFY(app.db().transaction());
    QVERIFY(setTenant(app.db(), scope.tenant));
    QVERIFY(exec(app.db(), QStringLiteral("SELECT 1 FROM browser_task_scope_policies"
                                          " WHERE tenant = '%1' FOR UPDATE")
                               .arg(scope.tenant)));
    std::optional<Result<TaskScopeChange>> edited;
    std::atomic<bool> done{false};
    std::thread editor([&] {
        const MetadataPorts store = createRepository(clock());
        if (store)
            edited = store->replaceTaskScopes(scope, 1, {});
        done = true;
    });
    QTest::qWait(500);
    const bool finishedWhileLocked = done;
    QVERIFY(app.db().commit());
    editor.join();
    QVERIFY(!finishedWhileLocked);
    QVERIFY(edited);
    VERIFY_OK(*edited);
    QCOMPARE((*edited)->removed, QList<TaskScope>{a});
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {}, .revision = 2}));
}

void PostgresProfileRepositoryTest::taskScopeAuditIsAppendOnly()
{
    const ProfileScope scope = newScope();
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("a"))}));
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QSqlDatabase &db = app.db();
    for (const QString &sql : {QStringLiteral("UPDATE browser_policy_audit SET entries = '[]'"),
                               QStringLiteral("DELETE FROM browser_policy_audit"),
                               QStringLiteral("TRUNCATE browser_policy_audit")}) {
        QVERIFY(db.transaction());
        QVERIFY(setTenant(db, scope.tenant));
        {
            QSqlQuery write(db);
            QVERIFY2(!write.exec(sql), qPrintable(sql));
            QCOMPARE(write.lastError().nativeErrorCode(), QStringLiteral("42501"));
        }
        QVERIFY(db.rollback());
    }
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(1));
}

void PostgresProfileRepositoryTest::rlsIsolatesTaskScopesInRawSql()
{
    const ProfileScope tenantA = newScope();
    const ProfileScope tenantB = otherTenant(tenantA);
    VERIFY_OK(repository().replaceTaskScopes(tenantA, 0, {taskScope(QStringLiteral("a"))}));
    VERIFY_OK(repository().replaceTaskScopes(tenantB, 0, {taskScope(QStringLiteral("b"))}));
    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    QSqlDatabase &db = app.db();
    // Nothing at all without the tenant setting.
    for (const QString &table :
         {QStringLiteral("browser_task_scope_policies"), QStringLiteral("browser_task_scopes"),
          QStringLiteral("browser_policy_audit")})
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM %1").arg(table)).toInt(), 0);
    QVERIFY(db.transaction());
    QVERIFY(setTenant(db, tenantA.tenant));
    // Raw SQL without a tenant predicate sees tenant A's rows only, and writes none of B's.
    QCOMPARE(scalar(db, QStringLiteral("SELECT string_agg(segment, ',') FROM browser_task_scopes"))
                 .toString(),
             QStringLiteral("a"));
    QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM browser_policy_audit")).toInt(), 1);
    for (const QString &sql :
         {QStringLiteral("UPDATE browser_task_scope_policies SET revision = revision + 10"
                         " WHERE tenant = '%1'"),
          QStringLiteral("DELETE FROM browser_task_scopes WHERE tenant = '%1'")}) {
        QSqlQuery write(db);
        QVERIFY2(write.exec(sql.arg(tenantB.tenant)), qPrintable(write.lastError().text()));
        QCOMPARE(write.numRowsAffected(), 0);
    }
    QVERIFY(db.rollback());
    QCOMPARE(*repository().taskScopes(tenantB),
             (TaskScopePolicy{.entries = {taskScope(QStringLiteral("b"))}, .revision = 1}));
}

void PostgresProfileRepositoryTest::standingGrantsAreTenantScopedAndNeverWidenedInPlace()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);
    const QString id = grant->id.toString(QUuid::WithoutBraces);

    ScopedConnection app(QStringLiteral("QPSQL"));
    QVERIFY(connect(app, m_appRole, m_appPassword));
    const auto inTenant = [&](const QString &tenant, const QString &sql) {
        QSqlDatabase &db = app.db();
        if (!db.transaction() || !setTenant(db, tenant))
            return QVariant();
        QVariant value;
        {
            QSqlQuery query(db);
            if (query.exec(sql))
                value = query.next() ? query.value(0) : QVariant(query.numRowsAffected());
        }
        db.rollback();
        return value;
    };
    for (const char *table : {"browser_standing_grants", "browser_grant_audit"}) {
        const QString count = QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(table));
        QCOMPARE(inTenant(scope.tenant, count).toInt(), 1);
        QCOMPARE(inTenant(otherTenant(scope).tenant, count).toInt(), 0);
    }
    // Only the revocation time may change; the audit only grows.
    QCOMPARE(inTenant(scope.tenant,
                      QStringLiteral("UPDATE browser_standing_grants SET revoked_at = created_at"
                                     " WHERE id = '%1'")
                          .arg(id))
                 .toInt(),
             1);
    for (const QString &sql :
         {QStringLiteral("UPDATE browser_standing_grants SET expires_at = expires_at"
                         " + interval '1 day' WHERE id = '%1'"),
          QStringLiteral("UPDATE browser_standing_grants SET origins ="
                         " '[\"https://www.elsewhere.com\"]' WHERE id = '%1'"),
          QStringLiteral("DELETE FROM browser_standing_grants WHERE id = '%1'"),
          QStringLiteral("UPDATE browser_grant_audit SET kind = 'browser.grant.revoked'"
                         " WHERE grant_id = '%1'"),
          QStringLiteral("DELETE FROM browser_grant_audit WHERE grant_id = '%1'")})
        QVERIFY2(!inTenant(scope.tenant, sql.arg(id)).isValid(), qPrintable(sql));
    QVERIFY(!grants().standingGrant(scope, grant->id)->isRevoked());
}

QTEST_GUILESS_MAIN(PostgresProfileRepositoryTest)
#include "tst_profilerepository_postgres.moc"
