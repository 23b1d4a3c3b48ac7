// A session file for a headless sign-in as `veetbot profiles sign-in --session-file` reads it:
// only a regular file of the caller with mode 0600 or stricter, never through a link (each
// rule its own invalid_request); what is not the profile's — localStorage of another origin,
// partitioned cookies, cookies for no site of the profile — dropped and counted, never fatal.

#include "service/client/SessionFile.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace veetbot;

namespace {

const QString kConfirmed = QStringLiteral("https://shop.de/account");

QList<Origin> profileOrigins()
{
    return {*Origin::parse(QStringLiteral("https://shop.de"), TestOverrides())};
}

QJsonObject cookie(const QString &name, const QString &domain)
{
    return {
        {QStringLiteral("name"), name},     {QStringLiteral("value"), QStringLiteral("v")},
        {QStringLiteral("domain"), domain}, {QStringLiteral("path"), QStringLiteral("/")},
        {QStringLiteral("expires"), -1},    {QStringLiteral("httpOnly"), true},
        {QStringLiteral("secure"), true},   {QStringLiteral("sameSite"), QStringLiteral("Lax")}};
}

QJsonObject storage(const QString &origin)
{
    return {{QStringLiteral("origin"), origin},
            {QStringLiteral("localStorage"),
             QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("k")},
                                    {QStringLiteral("value"), QStringLiteral("v")}}}}};
}

QByteArray storageState(const QJsonArray &cookies, const QJsonArray &origins)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("cookies"), cookies},
                                     {QStringLiteral("origins"), origins}})
        .toJson();
}

const QDateTime kNow = QDateTime::fromMSecsSinceEpoch(1'800'000'000'000, Qt::UTC);

} // namespace

class TestSessionFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void fileRules_data();
    void fileRules();
    void whatIsNotTheProfilesIsDroppedAndCounted();
    void aPartitionKeyIsAccepted();
    void aBrokenFileIsStillInvalid();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestSessionFile::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestSessionFile::fileRules_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("code"); // "": read
    QTest::addColumn<QString>("rule"); // a word of the rule's sentence
    QTest::newRow("0600") << QStringLiteral("0600") << QString() << QString();
    QTest::newRow("0400") << QStringLiteral("0400") << QString() << QString();
    QTest::newRow("0640") << QStringLiteral("0640") << QStringLiteral("invalid_request")
                          << QStringLiteral("0600");
    QTest::newRow("0604") << QStringLiteral("0604") << QStringLiteral("invalid_request")
                          << QStringLiteral("0600");
    QTest::newRow("0700") << QStringLiteral("0700") << QStringLiteral("invalid_request")
                          << QStringLiteral("0600");
    QTest::newRow("a link to a private file")
        << QStringLiteral("link") << QStringLiteral("invalid_request")
        << QStringLiteral("symbolic link");
    QTest::newRow("a directory") << QStringLiteral("directory") << QStringLiteral("invalid_request")
                                 << QStringLiteral("regular file");
    QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("invalid_request")
                            << QStringLiteral("regular file");
    QTest::newRow("missing") << QStringLiteral("missing")
                             << QStringLiteral("session_file.unreadable") << QString();
    if (::geteuid() == 0) // only root can give a file away
        QTest::newRow("another owner")
            << QStringLiteral("owner") << QStringLiteral("invalid_request")
            << QStringLiteral("belong to you");
}

void TestSessionFile::fileRules()
{
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QFETCH(QString, rule);
    const QByteArray contents =
        storageState({cookie(QStringLiteral("s"), QStringLiteral("shop.de"))}, {});
    const QString real = m_dir->path() + QStringLiteral("/real.json");
    QString path = m_dir->path() + QStringLiteral("/state.json");
    const auto writeFile = [&contents](const QString &at, mode_t mode) {
        QFile file(at);
        return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size() &&
               ::chmod(QFile::encodeName(at).constData(), mode) == 0;
    };
    if (kind == QLatin1String("link")) {
        QVERIFY(writeFile(real, 0600));
        QCOMPARE(
            ::symlink(QFile::encodeName(real).constData(), QFile::encodeName(path).constData()), 0);
    } else if (kind == QLatin1String("directory")) {
        QCOMPARE(::mkdir(QFile::encodeName(path).constData(), 0700), 0);
    } else if (kind == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    } else if (kind == QLatin1String("owner")) {
        QVERIFY(writeFile(path, 0600));
        QCOMPARE(::chown(QFile::encodeName(path).constData(), 65534, 65534), 0);
    } else if (kind != QLatin1String("missing")) {
        QVERIFY(writeFile(path, mode_t(kind.toUInt(nullptr, 8))));
    }
    const Result<SessionFile::Contents> read =
        SessionFile::read(path, kConfirmed, profileOrigins(), TestOverrides());
    if (code.isEmpty()) {
        QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().message));
        QCOMPARE(read->handoff.state.cookies.size(), 1);
        return;
    }
    QVERIFY(!read.ok());
    QCOMPARE(read.error().code, code);
    QVERIFY2(read.error().message.contains(rule), qPrintable(read.error().message));
    QVERIFY(!read.error().message.contains(path));
}

void TestSessionFile::whatIsNotTheProfilesIsDroppedAndCounted()
{
    // localStorage of plain HTTP, of an address and of another site, and a cookie of another
    // site, beside what is the profile's.
    const QByteArray state = storageState(
        {cookie(QStringLiteral("session"), QStringLiteral("shop.de")),
         cookie(QStringLiteral("tracker"), QStringLiteral("evil.example"))},
        {storage(QStringLiteral("https://shop.de")), storage(QStringLiteral("http://shop.de")),
         storage(QStringLiteral("https://127.0.0.1")),
         storage(QStringLiteral("http://10.0.0.1:8080")),
         storage(QStringLiteral("https://other.example"))});
    const Result<SessionFile::Contents> read =
        SessionFile::parse(state, kConfirmed, profileOrigins(), kNow, TestOverrides());
    QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().message));
    QCOMPARE(read->dropped, (SessionFile::Dropped{.cookies = 1, .localStorageOrigins = 4}));
    QCOMPARE(read->handoff.state.origins.size(), 1);
    QCOMPARE(read->handoff.state.origins.first().origin, QStringLiteral("https://shop.de"));
    QCOMPARE(read->dropped.toJson(), (QJsonObject{{QStringLiteral("cookies"), 1},
                                                  {QStringLiteral("partitioned_cookies"), 0},
                                                  {QStringLiteral("local_storage_origins"), 4}}));
    // Positive control: only the profile's, nothing dropped.
    const Result<SessionFile::Contents> clean = SessionFile::parse(
        storageState({cookie(QStringLiteral("session"), QStringLiteral("shop.de"))},
                     {storage(QStringLiteral("https://shop.de"))}),
        kConfirmed, profileOrigins(), kNow, TestOverrides());
    QVERIFY(clean.ok());
    QCOMPARE(clean->dropped, SessionFile::Dropped{});
}

void TestSessionFile::aPartitionKeyIsAccepted()
{
    QJsonObject partitioned = cookie(QStringLiteral("chips"), QStringLiteral("shop.de"));
    partitioned.insert(QStringLiteral("partitionKey"), QStringLiteral("https://other.example"));
    QJsonObject unpartitioned = cookie(QStringLiteral("session"), QStringLiteral("shop.de"));
    unpartitioned.insert(QStringLiteral("partitionKey"), QJsonValue::Null);
    const Result<SessionFile::Contents> read =
        SessionFile::parse(storageState({partitioned, unpartitioned}, {}), kConfirmed,
                           profileOrigins(), kNow, TestOverrides());
    QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().message));
    QCOMPARE(read->dropped, (SessionFile::Dropped{.partitionedCookies = 1}));
    QCOMPARE(read->handoff.state.cookies.size(), 1);
    QCOMPARE(read->handoff.state.cookies.first().name, QStringLiteral("session"));
    // A key that is neither a site nor null is not a storage state.
    partitioned.insert(QStringLiteral("partitionKey"), 7);
    QVERIFY(!SessionFile::parse(storageState({partitioned}, {}), kConfirmed, profileOrigins(), kNow,
                                TestOverrides())
                 .ok());
}

void TestSessionFile::aBrokenFileIsStillInvalid()
{
    // Dropping is for what is well formed and not the profile's; anything else is refused.
    QJsonObject unknown = cookie(QStringLiteral("s"), QStringLiteral("shop.de"));
    unknown.insert(QStringLiteral("unknownMember"), true);
    for (const QByteArray &bad :
         {QByteArray("not json"), storageState({unknown}, {}),
          storageState({}, {QJsonObject{{QStringLiteral("origin"), 5}}}),
          storageState({},
                       {QJsonObject{{QStringLiteral("origin"), QStringLiteral("https://shop.de")},
                                    {QStringLiteral("localStorage"), 3}}})}) {
        const Result<SessionFile::Contents> read =
            SessionFile::parse(bad, kConfirmed, profileOrigins(), kNow, TestOverrides());
        QVERIFY(!read.ok());
        QCOMPARE(read.error().code, QStringLiteral("invalid_request"));
    }
    // Without --confirmed-url a storage state names no page.
    QVERIFY(!SessionFile::parse(storageState({}, {}), QString(), profileOrigins(), kNow,
                                TestOverrides())
                 .ok());
}

QTEST_GUILESS_MAIN(TestSessionFile)
#include "tst_sessionfile.moc"
