// `veetbot grants` end to end: the real program on SQLite metadata under a temporary data
// directory, with the profile and its sign-in records written by this process, and the grants
// read back (and authorized) from the same store. The profile service is never needed.

#include "ProgramRun.h"
#include "domain/authority/StandingGrant.h"
#include "domain/profile/BrowserProfile.h"
#include "profiles/SqlStores.h"
#include "tools/ToolPolicy.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;

class TestGrantsCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void usageErrors_data();
    void usageErrors();
    void createListRevoke();
    void policyOptionsPinTheirVersion();
    void refusalsAreStableAndContentFree_data();
    void refusalsAreStableAndContentFree();
    void creationWaitsForAnOpenSignIn();

private:
    using Run = veetbot::testing::ProgramRun;
    Run run(const QStringList &arguments);
    // The store the program writes, opened in this process, and its owner.
    std::unique_ptr<SqlStores> openStore();
    ProfileScope owner();
    // A READY profile of the owner on the shop and the news site, signed in through one
    // recorded ceremony; with openSignIn, a second sign-in is begun and left open.
    BrowserProfile signedInProfile(bool openSignIn = false);
    QStringList createArguments(const BrowserProfile &profile) const;

    static QString shop() { return QStringLiteral("https://www.acme-shop.com"); }
    static QString news() { return QStringLiteral("https://www.acme-news.com"); }
    // On a host that must never show up in any output.
    static QString privateSite() { return QStringLiteral("https://www.private-tutor.com"); }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
};

void TestGrantsCli::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_dataDir = m_dir->path() + QStringLiteral("/data");
    // The first command writes the configuration and migrates the store.
    QCOMPARE(run({QStringLiteral("list")}).exitCode, 0);
}

TestGrantsCli::Run TestGrantsCli::run(const QStringList &arguments)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_DATA_DIR"), m_dataDir);
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_RUNTIME_DIR"), m_dir->path() + QStringLiteral("/run"));
    return testing::runProgram(QStringLiteral("veetbot"),
                               QStringList{QStringLiteral("grants")} + arguments, env, 30000);
}

std::unique_ptr<SqlStores> TestGrantsCli::openStore()
{
    Result<std::unique_ptr<SqlStores>> store =
        SqlStores::openSqlite(m_dataDir + QStringLiteral("/profiles.sqlite"));
    if (!store)
        return nullptr;
    return std::move(store).value();
}

ProfileScope TestGrantsCli::owner()
{
    QFile config(m_dataDir + QStringLiteral("/config.json"));
    if (!config.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject json = QJsonDocument::fromJson(config.readAll()).object();
    return ProfileScope{json.value(QStringLiteral("tenant")).toString(),
                        json.value(QStringLiteral("principal")).toString()};
}

BrowserProfile TestGrantsCli::signedInProfile(bool openSignIn)
{
    const std::unique_ptr<SqlStores> store = openStore();
    const ProfileScope scope = owner();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Result<BrowserProfile> profile = BrowserProfile::reserve(
        scope, {*Origin::parse(shop(), TestOverrides()), *Origin::parse(news(), TestOverrides())},
        now);
    if (!store || !profile)
        qFatal("cannot prepare a profile");
    profile = store->profiles().create(scope, *profile);
    if (profile)
        profile = store->profiles().bind(
            scope, profile->id, profile->generation, QStringLiteral("hosted"),
            BrowserProfile::newProviderReference(), QStringLiteral("k1"));
    const auto launch = [now](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
        return CeremonyLaunchRecord{BrowserProfile::newId().toString(QUuid::WithoutBraces),
                                    now.addSecs(300)};
    };
    Result<CeremonyBegun> begun = store->profiles().beginCeremony(
        scope, profile->id, profile->generation, QStringLiteral("device"), launch);
    if (!begun)
        qFatal("cannot begin a sign-in");
    const Result<CeremonyFinished> finished = store->profiles().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
    if (!finished)
        qFatal("cannot finish a sign-in");
    if (!openSignIn)
        return finished->profile;
    begun = store->profiles().beginCeremony(scope, profile->id, finished->profile.generation,
                                            QStringLiteral("device"), launch);
    if (!begun)
        qFatal("cannot begin a second sign-in");
    return begun->profile;
}

QStringList TestGrantsCli::createArguments(const BrowserProfile &profile) const
{
    return {QStringLiteral("create"),
            QStringLiteral("--profile"),
            profile.id.toString(QUuid::WithoutBraces),
            QStringLiteral("--origin"),
            shop(),
            QStringLiteral("--action"),
            QStringLiteral("click"),
            QStringLiteral("--expires-in"),
            QStringLiteral("12h")};
}

void TestGrantsCli::usageErrors_data()
{
    const QString id = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("no action") << QStringList{};
    QTest::newRow("unknown action") << QStringList{QStringLiteral("grant")};
    QTest::newRow("list with an id") << QStringList{QStringLiteral("list"), id};
    QTest::newRow("list with an origin")
        << QStringList{QStringLiteral("list"), QStringLiteral("--origin"), shop()};
    QTest::newRow("revoke without id") << QStringList{QStringLiteral("revoke")};
    QTest::newRow("revoke two") << QStringList{QStringLiteral("revoke"), id, id};
    QTest::newRow("revoke with a profile")
        << QStringList{QStringLiteral("revoke"), id, QStringLiteral("--profile"), id};
    QTest::newRow("create without expiry") << QStringList{QStringLiteral("create"),
                                                          QStringLiteral("--profile"),
                                                          id,
                                                          QStringLiteral("--origin"),
                                                          shop(),
                                                          QStringLiteral("--action"),
                                                          QStringLiteral("click")};
    QTest::newRow("create without action") << QStringList{QStringLiteral("create"),
                                                          QStringLiteral("--profile"),
                                                          id,
                                                          QStringLiteral("--origin"),
                                                          shop(),
                                                          QStringLiteral("--expires-in"),
                                                          QStringLiteral("1h")};
    QTest::newRow("ordinary interaction maybe")
        << QStringList{QStringLiteral("create"),
                       QStringLiteral("--profile"),
                       id,
                       QStringLiteral("--origin"),
                       shop(),
                       QStringLiteral("--action"),
                       QStringLiteral("click"),
                       QStringLiteral("--expires-in"),
                       QStringLiteral("1h"),
                       QStringLiteral("--ordinary-interaction"),
                       QStringLiteral("maybe")};
}

void TestGrantsCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    const Run result = run(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY(result.out.isEmpty());
    QVERIFY(result.err.contains("veetbot grants:"));
}

void TestGrantsCli::createListRevoke()
{
    const BrowserProfile profile = signedInProfile();
    QStringList arguments = createArguments(profile);
    arguments << QStringLiteral("--action") << QStringLiteral("scroll") << QStringLiteral("--role")
              << QStringLiteral("button") << QStringLiteral("--name") << QStringLiteral("Next")
              << QStringLiteral("--purpose") << QStringLiteral("Morning digest")
              << QStringLiteral("--origin") << news();
    const Run created = run(arguments);
    QCOMPARE(created.exitCode, 0);
    const QJsonObject grant = created.json();
    const QString id = grant.value(QStringLiteral("id")).toString();
    QVERIFY(!QUuid::fromString(id).isNull());
    QCOMPARE(grant.value(QStringLiteral("profile_id")).toString(),
             profile.id.toString(QUuid::WithoutBraces));
    QCOMPARE(grant.value(QStringLiteral("status")).toString(), QStringLiteral("active"));
    QCOMPARE(grant.value(QStringLiteral("origins")).toArray(), (QJsonArray{news(), shop()}));
    QCOMPARE(grant.value(QStringLiteral("actions")).toArray(),
             (QJsonArray{QStringLiteral("click"), QStringLiteral("scroll")}));
    QCOMPARE(grant.value(QStringLiteral("role")).toString(), QStringLiteral("button"));
    QCOMPARE(grant.value(QStringLiteral("name")).toString(), QStringLiteral("Next"));
    QCOMPARE(grant.value(QStringLiteral("purpose")).toString(), QStringLiteral("Morning digest"));
    QCOMPARE(grant.value(QStringLiteral("approver")).toString(), owner().principal);
    QVERIFY(grant.value(QStringLiteral("revoked_at")).isNull());
    QCOMPARE(grant.value(QStringLiteral("policy_version")).toString(), PolicySettings{}.version());
    // The program's own version, as --version prints it on its first line (the engines follow,
    // the default marked).
    QProcess version;
    version.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                  {QStringLiteral("--version")});
    QVERIFY(version.waitForFinished(30000));
    const QStringList lines =
        QString::fromUtf8(version.readAllStandardOutput()).split(QLatin1Char('\n'));
    QCOMPARE(grant.value(QStringLiteral("agent_version")).toString(), lines.value(0));
    static const QRegularExpression chromiumLine(
        QStringLiteral("^engine chromium: Chromium \\d+\\.\\d+\\.\\d+\\.\\d+ \\(default\\)$"));
    QVERIFY2(chromiumLine.match(lines.value(1)).hasMatch(), qPrintable(lines.value(1)));
    QVERIFY2(lines.value(2).startsWith(QLatin1String("engine qtwebengine: Qt WebEngine 6.")),
             qPrintable(lines.value(2)));
    const QDateTime startsAt = QDateTime::fromString(
        grant.value(QStringLiteral("starts_at")).toString(), Qt::ISODateWithMs);
    const QDateTime expiresAt = QDateTime::fromString(
        grant.value(QStringLiteral("expires_at")).toString(), Qt::ISODateWithMs);
    QCOMPARE(startsAt.msecsTo(expiresAt), qint64(12) * 3600 * 1000);

    const Run listed = run({QStringLiteral("list")});
    QCOMPARE(listed.exitCode, 0);
    const QJsonArray grants = listed.json().value(QStringLiteral("grants")).toArray();
    QCOMPARE(grants.size(), 1);
    QCOMPARE(grants.at(0).toObject(), grant);
    const Run byProfile = run({QStringLiteral("list"), QStringLiteral("--profile"),
                               profile.id.toString(QUuid::WithoutBraces)});
    QCOMPARE(byProfile.json().value(QStringLiteral("grants")).toArray().size(), 1);
    const Run otherProfile = run({QStringLiteral("list"), QStringLiteral("--profile"),
                                  BrowserProfile::newId().toString(QUuid::WithoutBraces)});
    QCOMPARE(otherProfile.exitCode, 0);
    QVERIFY(otherProfile.json().value(QStringLiteral("grants")).toArray().isEmpty());

    // The grant the program stored stands in for an approval in this process...
    const std::unique_ptr<SqlStores> store = openStore();
    QVERIFY(store);
    ElementFacts facts;
    facts.role = QStringLiteral("button");
    facts.accessibleName = facts.visibleText = QStringLiteral("Next");
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const StandingGrantUse use{
        .scope = owner(),
        .profileId = profile.id,
        .profileGeneration = profile.generation,
        .agentVersion = grant.value(QStringLiteral("agent_version")).toString(),
        .policyVersion = PolicySettings{}.version(),
        .pageOrigin = *Origin::parse(shop(), TestOverrides()),
        .pageUrl = QUrl(shop() + QStringLiteral("/catalogue")),
        .request = *ActRequest::click(QStringLiteral("r1"), QStringLiteral("e1")),
        .facts = facts,
        .purpose = QStringLiteral("Morning digest"),
        .actionDeadline = now.addSecs(60),
        .now = now};
    QCOMPARE(store->standingGrants().authorize(owner(), QUuid::fromString(id), use).reason(),
             QStringLiteral("allowed"));

    // ... until the owner revokes it: the next use is denied.
    const Run revoked = run({QStringLiteral("revoke"), id});
    QCOMPARE(revoked.exitCode, 0);
    QCOMPARE(revoked.json().value(QStringLiteral("status")).toString(), QStringLiteral("revoked"));
    QVERIFY(revoked.json().value(QStringLiteral("revoked_at")).isString());
    QCOMPARE(store->standingGrants().authorize(owner(), QUuid::fromString(id), use).reason(),
             QStringLiteral("revoked"));
    const Run again = run({QStringLiteral("revoke"), id});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(again.json(), revoked.json());

    const Result<QList<StandingGrantAuditRecord>> audit =
        store->standingGrants().standingGrantAudit(owner());
    QVERIFY(audit);
    QCOMPARE(audit->size(), 2);
    QCOMPARE(audit->at(0).kind, QStringLiteral("browser.grant.created"));
    QCOMPARE(audit->at(1).kind, QStringLiteral("browser.grant.revoked"));
}

void TestGrantsCli::policyOptionsPinTheirVersion()
{
    const BrowserProfile profile = signedInProfile();
    QStringList arguments = createArguments(profile);
    arguments << QStringLiteral("--allow-scroll") << QStringLiteral("--ordinary-interaction")
              << QStringLiteral("off") << QStringLiteral("--task-grants") << QStringLiteral("off");
    const Run created = run(arguments);
    QCOMPARE(created.exitCode, 0);
    const PolicySettings settings{
        .allowScroll = true, .ordinaryInteraction = false, .taskGrants = false};
    QCOMPARE(created.json().value(QStringLiteral("policy_version")).toString(), settings.version());
    QVERIFY(settings.version() != PolicySettings{}.version());
}

void TestGrantsCli::refusalsAreStableAndContentFree_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("secret"); // must not appear in the output
    QTest::newRow("an origin the profile does not allow")
        << QStringList{QStringLiteral("--origin"), privateSite()}
        << QStringLiteral("grant.origin_not_allowed") << QStringLiteral("private-tutor");
    QTest::newRow("not an origin")
        << QStringList{QStringLiteral("--origin"), privateSite() + QStringLiteral("/lesson")}
        << QStringLiteral("grant.invalid") << QStringLiteral("private-tutor");
    QTest::newRow("thirty-one days")
        << QStringList{QStringLiteral("--expires-in"), QStringLiteral("31d")}
        << QStringLiteral("grant.invalid") << QStringLiteral("31d");
    QTest::newRow("seconds") << QStringList{QStringLiteral("--expires-in"), QStringLiteral("90s")}
                             << QStringLiteral("grant.invalid") << QStringLiteral("90s");
    QTest::newRow("an unknown kind")
        << QStringList{QStringLiteral("--action"), QStringLiteral("purchase")}
        << QStringLiteral("grant.invalid") << QStringLiteral("purchase");
    QTest::newRow("an unknown role")
        << QStringList{QStringLiteral("--role"), QStringLiteral("alertdialog")}
        << QStringLiteral("grant.invalid") << QStringLiteral("alertdialog");
    QTest::newRow("a long name") << QStringList{QStringLiteral("--name"), QString(129, u'q')}
                                 << QStringLiteral("grant.invalid") << QString(129, u'q');
    QTest::newRow("a purpose with a control character")
        << QStringList{QStringLiteral("--purpose"), QStringLiteral("secret\tpurpose")}
        << QStringLiteral("grant.invalid") << QStringLiteral("secret");
}

void TestGrantsCli::refusalsAreStableAndContentFree()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, code);
    QFETCH(QString, secret);
    const BrowserProfile profile = signedInProfile();
    QStringList arguments = createArguments(profile);
    // A repeated --expires-in takes the last value.
    arguments << extra;
    const Run result = run(arguments);
    QCOMPARE(result.exitCode, 3);
    QCOMPARE(result.errorCode(), code);
    QVERIFY(!result.out.contains(secret.toUtf8()));
    QVERIFY(!result.err.contains(secret.toUtf8()));
    QVERIFY(
        run({QStringLiteral("list")}).json().value(QStringLiteral("grants")).toArray().isEmpty());

    const Run unknown = run({QStringLiteral("revoke"), profile.id.toString(QUuid::WithoutBraces)});
    QCOMPARE(unknown.exitCode, 3);
    QCOMPARE(unknown.errorCode(), QStringLiteral("grant.not_found"));
}

void TestGrantsCli::creationWaitsForAnOpenSignIn()
{
    const BrowserProfile profile = signedInProfile(true);
    const Run pending = run(createArguments(profile));
    QCOMPARE(pending.exitCode, 3);
    QCOMPARE(pending.errorCode(), QStringLiteral("grant.ceremony_pending"));

    QStringList unknown = createArguments(profile);
    unknown[2] = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    const Run notFound = run(unknown);
    QCOMPARE(notFound.exitCode, 3);
    QCOMPARE(notFound.errorCode(), QStringLiteral("profile.not_found"));
}

QTEST_GUILESS_MAIN(TestGrantsCli)
#include "tst_grants_cli.moc"
