#include "QtKeychainKeyring.h"

#include <QDirIterator>
#include <QFile>
#include <QTest>

#include <qt6keychain/keychain.h>

using namespace veetbot;
using namespace std::chrono_literals;

namespace {

constexpr int kWaitMs = 30000;

// Runs one keyring operation to completion.
template <typename T, typename Start> Result<T> run(Start start)
{
    std::optional<Result<T>> result;
    start([&result](Result<T> r) { result.emplace(std::move(r)); });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, kWaitMs))
        return Error{QStringLiteral("test.pending"), QStringLiteral("no answer")};
    return std::move(*result);
}

QString code(const Result<Unit> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

QtKeychainKeyringOptions options(const QString &keyNamespace)
{
    QtKeychainKeyringOptions o;
    o.keyNamespace = keyNamespace;
    return o;
}

// A raw QtKeychain request, to look at the service behind the keyring's back.
struct RawAnswer
{
    QKeychain::Error error = QKeychain::OtherError;
    QByteArray data;
};

RawAnswer rawJob(QKeychain::Job *job)
{
    RawAnswer answer;
    bool done = false;
    job->setAutoDelete(false);
    job->setInsecureFallback(false);
    QObject::connect(job, &QKeychain::Job::finished, job, [&](QKeychain::Job *finished) {
        answer.error = finished->error();
        if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(finished))
            answer.data = read->binaryData();
        done = true;
    });
    job->start();
    if (!QTest::qWaitFor([&] { return done; }, kWaitMs))
        return answer; // still OtherError: the caller's comparison fails (the job leaks)
    delete job;
    return answer;
}

RawAnswer rawRead(const QString &key)
{
    auto *job = new QKeychain::ReadPasswordJob(QStringLiteral("veetbot-workbench"));
    job->setKey(key);
    return rawJob(job);
}

RawAnswer rawWrite(const QString &key, const QByteArray &data)
{
    auto *job = new QKeychain::WritePasswordJob(QStringLiteral("veetbot-workbench"));
    job->setKey(key);
    job->setBinaryData(data);
    return rawJob(job);
}

} // namespace

// The desktop keyring against a real secret service: a private gnome-keyring on a private
// session bus with a throwaway HOME (scripts/keychain-test.sh provides all three; run
// directly, the test fails rather than touch the user's own keyring).
class QtKeychainRoundTripTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void missingIndexIsNotAFirstRun();
    void initializeThenReadBackInNewInstance();
    void versionsAddUseRemove();
    void initializeKeepsExistingKeyring();
    void tamperedEntriesRefused();
    void noKeyMaterialOutsideTheKeyring();

private:
    QStringList m_keysSeen;
    QString m_first;
    QString m_second;
};

void QtKeychainRoundTripTest::initTestCase()
{
    const QByteArray home = qgetenv("HOME");
    QVERIFY2(!home.isEmpty() && qgetenv("VEETBOT_KEYCHAIN_TEST_HOME") == home,
             "run this test through scripts/keychain-test.sh (private bus, keyring and HOME)");
    QVERIFY2(!qgetenv("DBUS_SESSION_BUS_ADDRESS").isEmpty(), "no private session bus");
}

void QtKeychainRoundTripTest::missingIndexIsNotAFirstRun()
{
    QtKeychainKeyring keyring(options(QStringLiteral("rt-absent")));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.load(done); })),
             QStringLiteral("keyring.missing_current"));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.initializeIfEmpty(false, done); })),
             QStringLiteral("keyring.missing_current"));
    QVERIFY(!keyring.isLoaded());
    QCOMPARE(rawRead(QStringLiteral("rt-absent/index")).error, QKeychain::EntryNotFound);
    QCOMPARE(rawRead(QStringLiteral("rt-absent/probe")).error, QKeychain::EntryNotFound);
}

void QtKeychainRoundTripTest::initializeThenReadBackInNewInstance()
{
    QByteArray firstKey;
    {
        QtKeychainKeyring keyring(options(QStringLiteral("rt-main")));
        QCOMPARE(code(run<Unit>([&](auto done) { keyring.initializeIfEmpty(true, done); })),
                 QStringLiteral("ok"));
        m_first = keyring.currentVersion().value();
        QCOMPARE(keyring.versions(), QStringList{m_first});
        firstKey = keyring.key(m_first).value().bytes();
        QCOMPARE(firstKey.size(), qsizetype(32));
    }
    m_keysSeen.append(QString::fromLatin1(firstKey.toHex()));

    QtKeychainKeyring again(options(QStringLiteral("rt-main")));
    QCOMPARE(code(run<Unit>([&](auto done) { again.load(done); })), QStringLiteral("ok"));
    QCOMPARE(again.currentVersion().value(), m_first);
    QCOMPARE(again.versions(), QStringList{m_first});
    QCOMPARE(again.key(m_first).value().bytes(), firstKey);

    const RawAnswer stored = rawRead(QStringLiteral("rt-main/key/") + m_first);
    QCOMPARE(stored.error, QKeychain::NoError);
    QCOMPARE(stored.data, firstKey);
    QCOMPARE(rawRead(QStringLiteral("rt-main/probe")).error, QKeychain::EntryNotFound);
}

void QtKeychainRoundTripTest::versionsAddUseRemove()
{
    QVERIFY(!m_first.isEmpty());
    QtKeychainKeyring keyring(options(QStringLiteral("rt-main")));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.load(done); })), QStringLiteral("ok"));

    const Result<QString> added = run<QString>([&](auto done) { keyring.addKey(done); });
    QVERIFY(added.ok());
    m_second = *added;
    QVERIFY(m_second != m_first);
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.useKey(m_second, done); })),
             QStringLiteral("ok"));
    const QByteArray secondKey = keyring.key(m_second).value().bytes();
    m_keysSeen.append(QString::fromLatin1(secondKey.toHex()));

    {
        QtKeychainKeyring reader(options(QStringLiteral("rt-main")));
        QCOMPARE(code(run<Unit>([&](auto done) { reader.load(done); })), QStringLiteral("ok"));
        QCOMPARE(reader.currentVersion().value(), m_second);
        QStringList expected{m_first, m_second};
        expected.sort();
        QCOMPARE(reader.versions(), expected);
        QCOMPARE(reader.key(m_second).value().bytes(), secondKey);
    }

    QCOMPARE(code(run<Unit>([&](auto done) { keyring.removeKey(m_second, done); })),
             QStringLiteral("keyring.remove_current"));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.removeKey(m_first, done); })),
             QStringLiteral("ok"));
    QCOMPARE(rawRead(QStringLiteral("rt-main/key/") + m_first).error, QKeychain::EntryNotFound);

    QtKeychainKeyring after(options(QStringLiteral("rt-main")));
    QCOMPARE(code(run<Unit>([&](auto done) { after.load(done); })), QStringLiteral("ok"));
    QCOMPARE(after.versions(), QStringList{m_second});
    QCOMPARE(after.currentVersion().value(), m_second);
    QVERIFY(!after.key(m_first).ok());
}

void QtKeychainRoundTripTest::initializeKeepsExistingKeyring()
{
    QVERIFY(!m_second.isEmpty());
    QtKeychainKeyring keyring(options(QStringLiteral("rt-main")));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.initializeIfEmpty(true, done); })),
             QStringLiteral("ok"));
    QCOMPARE(keyring.currentVersion().value(), m_second);
    QCOMPARE(keyring.versions(), QStringList{m_second});
}

void QtKeychainRoundTripTest::tamperedEntriesRefused()
{
    QtKeychainKeyring keyring(options(QStringLiteral("rt-tamper")));
    QCOMPARE(code(run<Unit>([&](auto done) { keyring.initializeIfEmpty(true, done); })),
             QStringLiteral("ok"));
    const QString version = keyring.currentVersion().value();
    m_keysSeen.append(QString::fromLatin1(keyring.key(version).value().bytes().toHex()));

    QCOMPARE(rawWrite(QStringLiteral("rt-tamper/key/") + version, QByteArray(16, 'x')).error,
             QKeychain::NoError);
    QtKeychainKeyring shortKey(options(QStringLiteral("rt-tamper")));
    QCOMPARE(code(run<Unit>([&](auto done) { shortKey.initializeIfEmpty(true, done); })),
             QStringLiteral("keyring.bad_stored_key"));

    QCOMPARE(rawWrite(QStringLiteral("rt-tamper/index"), "not an index").error, QKeychain::NoError);
    QtKeychainKeyring badIndex(options(QStringLiteral("rt-tamper")));
    QCOMPARE(code(run<Unit>([&](auto done) { badIndex.initializeIfEmpty(true, done); })),
             QStringLiteral("keyring.bad_index"));
    QCOMPARE(rawRead(QStringLiteral("rt-tamper/index")).data, QByteArray("not an index"));
}

void QtKeychainRoundTripTest::noKeyMaterialOutsideTheKeyring()
{
    QVERIFY(m_keysSeen.size() == 3);
    const QString home = QString::fromLocal8Bit(qgetenv("HOME"));
    const QString keyrings = home + QStringLiteral("/.local/share/keyrings/");
    QDirIterator it(home, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        // The secret service's own encrypted store is the only thing written under HOME.
        QVERIFY2(path.startsWith(keyrings), qPrintable(QStringLiteral("unexpected file ") + path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        for (const QString &hex : std::as_const(m_keysSeen)) {
            const QByteArray key = QByteArray::fromHex(hex.toLatin1());
            QVERIFY2(!content.contains(key), qPrintable(path));
            QVERIFY2(!content.contains(key.toBase64()), qPrintable(path));
            QVERIFY2(!content.contains(hex.toLatin1()), qPrintable(path));
        }
        ++files;
    }
    QVERIFY(files > 0); // the keyring file itself
}

QTEST_GUILESS_MAIN(QtKeychainRoundTripTest)
#include "tst_qtkeychain_roundtrip.moc"
