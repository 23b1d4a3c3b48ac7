// `veetbot scopes` end to end: the real program on SQLite metadata under a temporary data
// directory, the owner's list read back from the store in this process, and the one-time seed
// from VEETBOT_TASK_SCOPES. The profile service is never needed.

#include "ProgramRun.h"
#include "domain/authority/TaskScope.h"
#include "domain/profile/BrowserProfile.h"
#include "profiles/SqlStores.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;

class TestScopesCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void usageErrors_data();
    void usageErrors();
    void listAddRemove();
    void refusalsAreStableAndContentFree_data();
    void refusalsAreStableAndContentFree();
    void limitOfSixteen();
    void staleRevisionConflicts();
    void setReplayAnswersWithoutSecondAudit();
    void seedAppliesOnce();
    void seedNeverOverwritesASavedEmptyList();
    void invalidSeedIsReportedAndNotApplied();

private:
    struct Run : veetbot::testing::ProgramRun
    {
        QStringList scopes() const
        {
            QStringList list;
            for (const QJsonValue &value : json().value(QStringLiteral("scopes")).toArray())
                list << value.toString();
            return list;
        }
        qint64 revision() const { return json().value(QStringLiteral("revision")).toInteger(-1); }
    };
    Run run(const QStringList &arguments, const QString &seed = QString());
    // The owner's audit records, read from the store the program wrote.
    QList<TaskScopeAuditRecord> audit();
    static QString scope(const QString &segment)
    {
        return QStringLiteral("https://www.acme-school.com/") + segment;
    }
    // On a host that must never show up in any output.
    static QString privateScope(const QString &segment)
    {
        return QStringLiteral("https://www.private-tutor.com/") + segment;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
};

void TestScopesCli::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_dataDir = m_dir->path() + QStringLiteral("/data");
}

TestScopesCli::Run TestScopesCli::run(const QStringList &arguments, const QString &seed)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_DATA_DIR"), m_dataDir);
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_RUNTIME_DIR"), m_dir->path() + QStringLiteral("/run"));
    env.remove(QStringLiteral("VEETBOT_TASK_SCOPES"));
    if (!seed.isNull())
        env.insert(QStringLiteral("VEETBOT_TASK_SCOPES"), seed);
    return {testing::runProgram(QStringLiteral("veetbot"),
                                QStringList{QStringLiteral("scopes")} + arguments, env, 30000)};
}

QList<TaskScopeAuditRecord> TestScopesCli::audit()
{
    QFile config(m_dataDir + QStringLiteral("/config.json"));
    if (!config.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject owner = QJsonDocument::fromJson(config.readAll()).object();
    Result<std::unique_ptr<SqlStores>> store =
        SqlStores::openSqlite(m_dataDir + QStringLiteral("/profiles.sqlite"));
    if (!store)
        return {};
    const Result<QList<TaskScopeAuditRecord>> records = (*store)->profiles().taskScopeAudit(
        ProfileScope{owner.value(QStringLiteral("tenant")).toString(),
                     owner.value(QStringLiteral("principal")).toString()});
    return records ? *records : QList<TaskScopeAuditRecord>();
}

void TestScopesCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("no action") << QStringList{};
    QTest::newRow("unknown action") << QStringList{QStringLiteral("frob")};
    QTest::newRow("list with a url") << QStringList{QStringLiteral("list"), scope("lesson")};
    QTest::newRow("list with a revision")
        << QStringList{QStringLiteral("list"), QStringLiteral("--revision"), QStringLiteral("0")};
    QTest::newRow("add without url") << QStringList{QStringLiteral("add")};
    QTest::newRow("add two urls") << QStringList{QStringLiteral("add"), scope("a"), scope("b")};
    QTest::newRow("remove without url") << QStringList{QStringLiteral("remove")};
    QTest::newRow("set without revision") << QStringList{QStringLiteral("set"), scope("a")};
    QTest::newRow("negative revision")
        << QStringList{QStringLiteral("add"), scope("a"), QStringLiteral("--revision=-1")};
    QTest::newRow("revision not a number") << QStringList{
        QStringLiteral("add"), scope("a"), QStringLiteral("--revision"), QStringLiteral("one")};
}

void TestScopesCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    const Run result = run(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY(result.out.isEmpty());
    QVERIFY(result.err.startsWith("veetbot scopes: "));
}

void TestScopesCli::listAddRemove()
{
    const Run empty = run({QStringLiteral("list")});
    QCOMPARE(empty.exitCode, 0);
    QCOMPARE(empty.json(), (QJsonObject{{QStringLiteral("scopes"), QJsonArray()},
                                        {QStringLiteral("revision"), 0}}));

    const Run first = run({QStringLiteral("add"), scope("lesson/")});
    QCOMPARE(first.exitCode, 0);
    QCOMPARE(first.scopes(), QStringList{scope("lesson")});
    QCOMPARE(first.revision(), 1);

    // Kept in canonical order, whatever order they were added in.
    const Run second =
        run({QStringLiteral("add"), QStringLiteral("https://Learn.Acme-School.org/course")});
    QCOMPARE(second.exitCode, 0);
    QCOMPARE(second.scopes(), (QStringList{QStringLiteral("https://learn.acme-school.org/course"),
                                           scope("lesson")}));
    QCOMPARE(second.revision(), 2);

    const Run removed = run({QStringLiteral("remove"), scope("lesson"),
                             QStringLiteral("--revision"), QStringLiteral("2")});
    QCOMPARE(removed.exitCode, 0);
    QCOMPARE(removed.scopes(), QStringList{QStringLiteral("https://learn.acme-school.org/course")});
    QCOMPARE(removed.revision(), 3);

    const Run listed = run({QStringLiteral("list")});
    QCOMPARE(listed.exitCode, 0);
    QCOMPARE(listed.json(), removed.json());

    // One record per change, each holding the list it left.
    const QList<TaskScopeAuditRecord> records = audit();
    QCOMPARE(records.size(), qsizetype(3));
    for (qsizetype i = 0; i < records.size(); ++i) {
        QCOMPARE(records.at(i).kind, QStringLiteral("browser.task_scopes.updated"));
        QCOMPARE(records.at(i).revision, qint64(i + 1));
        QCOMPARE(records.at(i).source, TaskScopeSource::Owner);
    }
    QCOMPARE(records.at(2).entries, removed.scopes());
}

void TestScopesCli::refusalsAreStableAndContentFree_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("code");
    QTest::newRow("http") << QStringList{QStringLiteral("add"),
                                         QStringLiteral("http://www.private-tutor.com/lesson")}
                          << "scope.invalid";
    QTest::newRow("query") << QStringList{QStringLiteral("add"),
                                          privateScope("lesson?token=s3cr3t")}
                           << "scope.invalid";
    QTest::newRow("two segments") << QStringList{QStringLiteral("add"),
                                                 privateScope("lesson/s3cr3t")}
                                  << "scope.invalid";
    QTest::newRow("ip literal") << QStringList{QStringLiteral("add"),
                                               QStringLiteral("https://10.0.0.1/s3cr3t")}
                                << "scope.invalid";
    QTest::newRow("sensitive") << QStringList{QStringLiteral("add"), privateScope("sign-in")}
                               << "scope.sensitive";
    QTest::newRow("sensitive in set")
        << QStringList{QStringLiteral("set"), QStringLiteral("--revision"), QStringLiteral("0"),
                       privateScope("checkout")}
        << "scope.sensitive";
    QTest::newRow("not in the list")
        << QStringList{QStringLiteral("remove"), privateScope("s3cr3t")} << "scope.not_found";
    QTest::newRow("duplicate in set")
        << QStringList{QStringLiteral("set"), QStringLiteral("--revision"), QStringLiteral("0"),
                       privateScope("s3cr3t"), privateScope("s3cr3t/")}
        << "scope.duplicate";
}

void TestScopesCli::refusalsAreStableAndContentFree()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, code);
    const Run refused = run(arguments);
    QCOMPARE(refused.exitCode, 3);
    QCOMPARE(refused.errorCode(), code);
    // The fixed message of that code.
    const QString message = refused.json()
                                .value(QStringLiteral("error"))
                                .toObject()
                                .value(QStringLiteral("message"))
                                .toString();
    bool known = false;
    for (const TaskScopeFailure failure :
         {TaskScopeFailure::Invalid, TaskScopeFailure::Sensitive, TaskScopeFailure::Limit,
          TaskScopeFailure::Duplicate, TaskScopeFailure::NotFound, TaskScopeFailure::Conflict}) {
        if (taskScopeFailureString(failure) == code) {
            QCOMPARE(message, taskScopeFailureMessage(failure));
            known = true;
        }
    }
    QVERIFY(known);
    // Nothing the owner typed comes back.
    for (const QByteArray &stream : {refused.out, refused.err}) {
        QVERIFY(!stream.contains("s3cr3t"));
        QVERIFY(!stream.contains("private-tutor"));
    }
    // And nothing was stored.
    QCOMPARE(run({QStringLiteral("list")}).revision(), 0);
    QVERIFY(audit().isEmpty());
}

void TestScopesCli::limitOfSixteen()
{
    for (int i = 0; i < TaskScopePolicy::kMaxEntries; ++i) {
        const Run added = run({QStringLiteral("add"), scope(QStringLiteral("part%1").arg(i))});
        QCOMPARE(added.exitCode, 0);
        QCOMPARE(added.revision(), i + 1);
    }
    const Run seventeenth = run({QStringLiteral("add"), scope(QStringLiteral("part16"))});
    QCOMPARE(seventeenth.exitCode, 3);
    QCOMPARE(seventeenth.errorCode(), QStringLiteral("scope.limit"));
    QStringList seventeen{QStringLiteral("set"), QStringLiteral("--revision"),
                          QStringLiteral("16")};
    for (int i = 0; i <= TaskScopePolicy::kMaxEntries; ++i)
        seventeen << scope(QStringLiteral("other%1").arg(i));
    const Run set = run(seventeen);
    QCOMPARE(set.exitCode, 3);
    QCOMPARE(set.errorCode(), QStringLiteral("scope.limit"));

    const Run listed = run({QStringLiteral("list")});
    QCOMPARE(listed.scopes().size(), qsizetype(16));
    QCOMPARE(listed.revision(), 16);
    // Removing one makes room again.
    QCOMPARE(run({QStringLiteral("remove"), scope(QStringLiteral("part3"))}).exitCode, 0);
    QCOMPARE(run({QStringLiteral("add"), scope(QStringLiteral("part16"))}).revision(), 18);
}

void TestScopesCli::staleRevisionConflicts()
{
    QCOMPARE(run({QStringLiteral("add"), scope("a")}).revision(), 1);
    QCOMPARE(run({QStringLiteral("add"), scope("b")}).revision(), 2);
    // Each of these was read at an older revision, or one that never was.
    const QList<QStringList> stale = {
        {QStringLiteral("add"), scope("c"), QStringLiteral("--revision"), QStringLiteral("1")},
        {QStringLiteral("remove"), scope("a"), QStringLiteral("--revision"), QStringLiteral("0")},
        {QStringLiteral("remove"), scope("a"), QStringLiteral("--revision"), QStringLiteral("9")},
        {QStringLiteral("set"), QStringLiteral("--revision"), QStringLiteral("1"), scope("c")},
        {QStringLiteral("set"), QStringLiteral("--revision"), QStringLiteral("3")},
    };
    for (const QStringList &arguments : stale) {
        const Run refused = run(arguments);
        QCOMPARE(refused.exitCode, 3);
        QCOMPARE(refused.errorCode(), QStringLiteral("scope.conflict"));
    }
    const Run listed = run({QStringLiteral("list")});
    QCOMPARE(listed.scopes(), (QStringList{scope("a"), scope("b")}));
    QCOMPARE(listed.revision(), 2);
    QCOMPARE(audit().size(), qsizetype(2));
}

void TestScopesCli::setReplayAnswersWithoutSecondAudit()
{
    const QStringList request{QStringLiteral("set"), QStringLiteral("--revision"),
                              QStringLiteral("0"), scope("b"), scope("a")};
    const Run first = run(request);
    QCOMPARE(first.exitCode, 0);
    QCOMPARE(first.scopes(), (QStringList{scope("a"), scope("b")}));
    QCOMPARE(first.revision(), 1);
    // The same request again (an answer lost on the way): the saved result, nothing stored.
    const Run replay = run(request);
    QCOMPARE(replay.exitCode, 0);
    QCOMPARE(replay.out, first.out);
    QCOMPARE(audit().size(), qsizetype(1));
    // After another change it is stale.
    QCOMPARE(run({QStringLiteral("remove"), scope("a")}).revision(), 2);
    QCOMPARE(run(request).errorCode(), QStringLiteral("scope.conflict"));
    QCOMPARE(audit().size(), qsizetype(2));
}

void TestScopesCli::seedAppliesOnce()
{
    const QString seed = scope("b") + QStringLiteral(" , ") + scope("a");
    const Run seeded = run({QStringLiteral("list")}, seed);
    QCOMPARE(seeded.exitCode, 0);
    QCOMPARE(seeded.scopes(), (QStringList{scope("a"), scope("b")}));
    QCOMPARE(seeded.revision(), 1);
    QVERIFY(seeded.err.contains("seeded the task scopes from VEETBOT_TASK_SCOPES"));
    QVERIFY(!seeded.err.contains("acme-school"));

    // The owner's edit stands; the seed, still set, never applies again.
    QCOMPARE(run({QStringLiteral("remove"), scope("a")}, seed).revision(), 2);
    const Run again = run({QStringLiteral("list")}, seed);
    QCOMPARE(again.scopes(), QStringList{scope("b")});
    QCOMPARE(again.revision(), 2);
    QVERIFY(!again.err.contains("seeded"));
    const Run another = run({QStringLiteral("list")}, scope("c"));
    QCOMPARE(another.json(), again.json());

    const QList<TaskScopeAuditRecord> records = audit();
    QCOMPARE(records.size(), qsizetype(2));
    QCOMPARE(records.at(0).source, TaskScopeSource::Seed);
    QCOMPARE(records.at(0).entries, (QStringList{scope("a"), scope("b")}));
    QCOMPARE(records.at(1).source, TaskScopeSource::Owner);
}

void TestScopesCli::seedNeverOverwritesASavedEmptyList()
{
    const Run emptied =
        run({QStringLiteral("set"), QStringLiteral("--revision"), QStringLiteral("0")});
    QCOMPARE(emptied.exitCode, 0);
    QCOMPARE(emptied.revision(), 1);
    QVERIFY(emptied.scopes().isEmpty());
    const Run listed = run({QStringLiteral("list")}, scope("a"));
    QCOMPARE(listed.exitCode, 0);
    QVERIFY(listed.scopes().isEmpty());
    QCOMPARE(listed.revision(), 1);
    QCOMPARE(audit().size(), qsizetype(1));
}

void TestScopesCli::invalidSeedIsReportedAndNotApplied()
{
    // A refused entry, an empty one, a sensitive one, a repeated one.
    const QStringList seeds = {
        QString(privateScope("a") + QStringLiteral(",http://www.private-tutor.com/s3cr3t")),
        QString(privateScope("a") + QStringLiteral(",,") + privateScope("b")),
        privateScope("admin"),
        QString(privateScope("a") + u',' + privateScope("a")),
    };
    for (const QString &seed : seeds) {
        const Run listed = run({QStringLiteral("list")}, seed);
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(listed.revision(), 0);
        QVERIFY(listed.scopes().isEmpty());
        QVERIFY2(listed.err.contains("VEETBOT_TASK_SCOPES was not applied (scope."),
                 listed.err.constData());
        QVERIFY(!listed.err.contains("s3cr3t"));
        QVERIFY(!listed.err.contains("private-tutor"));
    }
    QVERIFY(audit().isEmpty());
    // A blank value seeds nothing and says nothing.
    const Run blank = run({QStringLiteral("list")}, QStringLiteral("  "));
    QCOMPARE(blank.revision(), 0);
    QVERIFY(blank.err.isEmpty());
}

QTEST_GUILESS_MAIN(TestScopesCli)
#include "tst_scopes_cli.moc"
