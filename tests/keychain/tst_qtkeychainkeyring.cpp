#include "QtKeychainKeyring.h"

#include "vault/KeyringError.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <optional>

using namespace veetbot;
using namespace std::chrono_literals;

namespace {

// An in-memory secret store with scripted failures. Answers on the next event-loop turn (as
// QtKeychain does), or never while `hang` is set.
class FakeStore final : public KeychainStore
{
    Q_OBJECT
public:
    QMap<QString, QByteArray> entries;
    // Statuses forced on the next requests, in order, before the store behaves normally.
    QList<KeychainStatus> forced;
    bool hang = false;
    // A store that keeps nothing it is given (writes succeed, reads find nothing).
    bool forgetful = false;
    QStringList log;
    QList<std::function<void()>> held;

    void read(const QString &key, ReadDone done) override
    {
        log.append(QStringLiteral("read ") + key);
        answer([this, key, done] {
            if (const std::optional<KeychainStatus> status = takeForced()) {
                done(*status, SecretBytes());
                return;
            }
            if (!entries.contains(key) || forgetful) {
                done(KeychainStatus::NotFound, SecretBytes());
                return;
            }
            done(KeychainStatus::Ok, SecretBytes(entries.value(key)));
        });
    }
    void write(const QString &key, const SecretBytes &data, Done done) override
    {
        log.append(QStringLiteral("write ") + key);
        const QByteArray copy(data.bytes().constData(), data.size());
        answer([this, key, copy, done] {
            if (const std::optional<KeychainStatus> status = takeForced()) {
                done(*status);
                return;
            }
            entries.insert(key, copy);
            done(KeychainStatus::Ok);
        });
    }
    void remove(const QString &key, Done done) override
    {
        log.append(QStringLiteral("remove ") + key);
        answer([this, key, done] {
            if (const std::optional<KeychainStatus> status = takeForced()) {
                done(*status);
                return;
            }
            entries.remove(key);
            done(KeychainStatus::Ok);
        });
    }

private:
    std::optional<KeychainStatus> takeForced()
    {
        if (forced.isEmpty())
            return std::nullopt;
        return forced.takeFirst();
    }
    void answer(std::function<void()> reply)
    {
        if (hang) {
            held.append(std::move(reply));
            return;
        }
        QTimer::singleShot(0, this, std::move(reply));
    }
};

template <typename T> struct Outcome
{
    std::optional<Result<T>> result;
    QtKeychainKeyring::Done<T> callback()
    {
        return [this](Result<T> r) { result.emplace(std::move(r)); };
    }
    QString code() const
    {
        return !result        ? QStringLiteral("pending")
               : result->ok() ? QStringLiteral("ok")
                              : result->error().code;
    }
};

QtKeychainKeyringOptions fastOptions()
{
    QtKeychainKeyringOptions options;
    options.keyNamespace = QStringLiteral("test");
    options.jobTimeout = 300ms;
    options.retryDelay = 20ms;
    return options;
}

QByteArray index(const QString &current, const QStringList &versions)
{
    QByteArray json = "{\"current\":\"" + current.toLatin1() + "\",\"format\":1,\"versions\":[";
    for (qsizetype i = 0; i < versions.size(); ++i)
        json += (i ? ",\"" : "\"") + versions.at(i).toLatin1() + '"';
    return json + "]}";
}

} // namespace

// The desktop keyring's rules over a fake secret store: not-found is never a first run by
// itself, the probe, one retry, the timeout, busy refusal, index and key validation.
class QtKeychainKeyringTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();

    void notLoadedServesNothing();
    void missingIndexIsNotAFirstRun();
    void initializeRefusesWhenVaultHoldsRecords();
    void initializeProbesThenCreatesFirstKey();
    void initializeLoadsExistingKeyring();
    void probeThatLosesDataCreatesNothing();
    void probeWriteFailureCreatesNothing();
    void retriesOnceWhenServiceNotUp();
    void unavailableTwiceFails();
    void deniedIsNotRetried();
    void timeoutFailsAndLateAnswerIsIgnored();
    void secondOperationIsBusy();
    void neverAnswersFromInsideTheCall();
    void badIndexRefused_data();
    void badIndexRefused();
    void storedKeyOfWrongLengthRefused();
    void missingKeyEntries();
    void equalStoredKeysRefused();
    void addUseRemove();
    void removeRefusesCurrentAndUnknown();
    void failedReloadForgetsKeys();
    void invalidNamespaceIsUnavailable();
    void destroyedKeyringNeverAnswers();

private:
    // Runs initializeIfEmpty(true) to completion.
    bool initialize();

    FakeStore *m_store = nullptr;
    std::unique_ptr<QtKeychainKeyring> m_keyring;
};

void QtKeychainKeyringTest::init()
{
    auto store = std::make_unique<FakeStore>();
    m_store = store.get();
    m_keyring = std::make_unique<QtKeychainKeyring>(std::move(store), fastOptions());
}

void QtKeychainKeyringTest::cleanup()
{
    m_keyring.reset();
    m_store = nullptr;
}

bool QtKeychainKeyringTest::initialize()
{
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    return QTest::qWaitFor([&] { return outcome.result.has_value(); }, 5000) &&
           outcome.result->ok();
}

void QtKeychainKeyringTest::notLoadedServesNothing()
{
    QVERIFY(!m_keyring->isLoaded());
    QCOMPARE(m_keyring->currentVersion().error().code, QStringLiteral("keyring.not_loaded"));
    QCOMPARE(m_keyring->key(QStringLiteral("v1")).error().code,
             QStringLiteral("keyring.not_loaded"));
    QVERIFY(m_keyring->versions().isEmpty());
    Outcome<QString> added;
    m_keyring->addKey(added.callback());
    QTRY_COMPARE(added.code(), QStringLiteral("keyring.not_loaded"));
    QVERIFY(m_store->entries.isEmpty());
}

void QtKeychainKeyringTest::missingIndexIsNotAFirstRun()
{
    Outcome<Unit> outcome;
    m_keyring->load(outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.missing_current"));
    QVERIFY(!m_keyring->isLoaded());
    QVERIFY(m_store->entries.isEmpty());
    QCOMPARE(m_store->log, QStringList{QStringLiteral("read test/index")});
}

void QtKeychainKeyringTest::initializeRefusesWhenVaultHoldsRecords()
{
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(false, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.missing_current"));
    QVERIFY(m_store->entries.isEmpty());
    QCOMPARE(m_store->log, QStringList{QStringLiteral("read test/index")});
}

void QtKeychainKeyringTest::initializeProbesThenCreatesFirstKey()
{
    QSignalSpy changed(m_keyring.get(), &QtKeychainKeyring::keysChanged);
    QVERIFY(initialize());
    QCOMPARE(changed.size(), 1);
    const QString version = m_keyring->currentVersion().value();
    QCOMPARE(m_keyring->versions(), QStringList{version});
    const SecretBytes key = m_keyring->key(version).value();
    QCOMPARE(key.size(), qsizetype(32));
    QCOMPARE(m_store->log,
             QStringList({QStringLiteral("read test/index"), QStringLiteral("write test/probe"),
                          QStringLiteral("read test/probe"), QStringLiteral("remove test/probe"),
                          QStringLiteral("write test/key/") + version,
                          QStringLiteral("write test/index")}));
    QCOMPARE(m_store->entries.keys(),
             QStringList({QStringLiteral("test/index"), QStringLiteral("test/key/") + version}));
    QCOMPARE(m_store->entries.value(QStringLiteral("test/key/") + version), key.bytes());
    QCOMPARE(m_store->entries.value(QStringLiteral("test/index")), index(version, {version}));
}

void QtKeychainKeyringTest::initializeLoadsExistingKeyring()
{
    m_store->entries.insert(QStringLiteral("test/index"), index(QStringLiteral("v1"), {"v1"}));
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    QVERIFY(initialize());
    QCOMPARE(m_keyring->currentVersion().value(), QStringLiteral("v1"));
    QCOMPARE(m_keyring->key(QStringLiteral("v1")).value().bytes(), QByteArray(32, 'a'));
    QCOMPARE(m_store->log,
             QStringList({QStringLiteral("read test/index"), QStringLiteral("read test/key/v1")}));
}

void QtKeychainKeyringTest::probeThatLosesDataCreatesNothing()
{
    m_store->forgetful = true;
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.unavailable"));
    QVERIFY(!m_keyring->isLoaded());
    for (const QString &entry : m_store->log)
        QVERIFY2(!entry.contains(QStringLiteral("/key/")), qPrintable(entry));
}

void QtKeychainKeyringTest::probeWriteFailureCreatesNothing()
{
    m_store->forced = {KeychainStatus::NotFound, KeychainStatus::Denied};
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.denied"));
    QVERIFY(m_store->entries.isEmpty());
    QCOMPARE(m_store->log,
             QStringList({QStringLiteral("read test/index"), QStringLiteral("write test/probe")}));
}

void QtKeychainKeyringTest::retriesOnceWhenServiceNotUp()
{
    m_store->entries.insert(QStringLiteral("test/index"), index(QStringLiteral("v1"), {"v1"}));
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    m_store->forced = {KeychainStatus::Unavailable};
    Outcome<Unit> outcome;
    m_keyring->load(outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("ok"));
    QCOMPARE(m_store->log,
             QStringList({QStringLiteral("read test/index"), QStringLiteral("read test/index"),
                          QStringLiteral("read test/key/v1")}));
}

void QtKeychainKeyringTest::unavailableTwiceFails()
{
    m_store->forced = {KeychainStatus::Unavailable, KeychainStatus::Unavailable,
                       KeychainStatus::Unavailable};
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.unavailable"));
    QCOMPARE(m_store->log,
             QStringList({QStringLiteral("read test/index"), QStringLiteral("read test/index")}));
    QCOMPARE(m_store->forced.size(), 1);
    QVERIFY(m_store->entries.isEmpty());
}

void QtKeychainKeyringTest::deniedIsNotRetried()
{
    m_store->forced = {KeychainStatus::Denied};
    Outcome<Unit> outcome;
    m_keyring->load(outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.denied"));
    QCOMPARE(m_store->log, QStringList{QStringLiteral("read test/index")});
}

void QtKeychainKeyringTest::timeoutFailsAndLateAnswerIsIgnored()
{
    m_store->hang = true;
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(m_store->held.size(), 1); // the read reached the store, which holds it
    // A sleep by design: a third of the 300 ms job timeout passes, and the operation still waits.
    QTest::qWait(100);
    QCOMPARE(outcome.code(), QStringLiteral("pending"));
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.timeout"));
    QVERIFY(!m_keyring->isBusy());
    QVERIFY(!m_keyring->isLoaded());

    // The abandoned request answers late, while the next operation runs: it must not count.
    m_store->hang = false;
    m_store->entries.insert(QStringLiteral("test/index"), index(QStringLiteral("v1"), {"v1"}));
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    m_store->forced = {KeychainStatus::Ok}; // what the late read will answer: Ok and no data
    Outcome<Unit> next;
    m_keyring->load(next.callback());
    for (const std::function<void()> &late : std::as_const(m_store->held))
        late();
    QTRY_COMPARE(next.code(), QStringLiteral("ok"));
    QCOMPARE(m_keyring->currentVersion().value(), QStringLiteral("v1"));
    QCOMPARE(outcome.code(), QStringLiteral("keyring.timeout"));
}

void QtKeychainKeyringTest::secondOperationIsBusy()
{
    Outcome<Unit> first;
    Outcome<Unit> second;
    m_keyring->initializeIfEmpty(true, first.callback());
    QVERIFY(m_keyring->isBusy());
    m_keyring->load(second.callback());
    QTRY_COMPARE(second.code(), QStringLiteral("keyring.busy"));
    QTRY_COMPARE(first.code(), QStringLiteral("ok"));
}

void QtKeychainKeyringTest::neverAnswersFromInsideTheCall()
{
    Outcome<Unit> busy;
    Outcome<Unit> first;
    m_keyring->load(first.callback());
    m_keyring->load(busy.callback());
    QCOMPARE(busy.code(), QStringLiteral("pending"));
    Outcome<QString> notLoaded;
    QTRY_VERIFY(first.result.has_value());
    m_keyring->addKey(notLoaded.callback());
    QCOMPARE(notLoaded.code(), QStringLiteral("pending"));
    QTRY_COMPARE(notLoaded.code(), QStringLiteral("keyring.not_loaded"));
}

void QtKeychainKeyringTest::badIndexRefused_data()
{
    QTest::addColumn<QByteArray>("stored");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("not json") << QByteArray("current=v1");
    QTest::newRow("array") << QByteArray("[\"v1\"]");
    QTest::newRow("format 2") << QByteArray(
        "{\"current\":\"v1\",\"format\":2,\"versions\":[\"v1\"]}");
    QTest::newRow("format string")
        << QByteArray("{\"current\":\"v1\",\"format\":\"1\",\"versions\":[\"v1\"]}");
    QTest::newRow("no format") << QByteArray("{\"current\":\"v1\",\"versions\":[\"v1\"]}");
    QTest::newRow("extra field") << QByteArray(
        "{\"current\":\"v1\",\"extra\":0,\"format\":1,\"versions\":[\"v1\"]}");
    QTest::newRow("current not listed") << index(QStringLiteral("v2"), {"v1"});
    QTest::newRow("no versions") << index(QStringLiteral("v1"), {});
    QTest::newRow("duplicate version") << index(QStringLiteral("v1"), {"v1", "v1"});
    QTest::newRow("bad version name") << index(QStringLiteral("v1"), {"v1", "V2"});
    QTest::newRow("path in version") << index(QStringLiteral("v1"), {"v1", "../x"});
    QTest::newRow("version not a string")
        << QByteArray("{\"current\":\"v1\",\"format\":1,\"versions\":[\"v1\",2]}");
    QTest::newRow("current not a string")
        << QByteArray("{\"current\":1,\"format\":1,\"versions\":[\"v1\"]}");
}

void QtKeychainKeyringTest::badIndexRefused()
{
    QFETCH(QByteArray, stored);
    m_store->entries.insert(QStringLiteral("test/index"), stored);
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    Outcome<Unit> outcome;
    m_keyring->initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.bad_index"));
    QVERIFY(!m_keyring->isLoaded());
    QCOMPARE(m_store->entries.value(QStringLiteral("test/index")), stored);
    QCOMPARE(m_store->entries.size(), 2);
}

void QtKeychainKeyringTest::storedKeyOfWrongLengthRefused()
{
    for (const QByteArray &stored :
         {QByteArray(), QByteArray(31, 'a'), QByteArray(33, 'a'), QByteArray(32, 'a').toBase64()}) {
        init();
        m_store->entries.insert(QStringLiteral("test/index"), index(QStringLiteral("v1"), {"v1"}));
        m_store->entries.insert(QStringLiteral("test/key/v1"), stored);
        Outcome<Unit> outcome;
        m_keyring->load(outcome.callback());
        QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.bad_stored_key"));
        QVERIFY(!m_keyring->isLoaded());
    }
}

void QtKeychainKeyringTest::missingKeyEntries()
{
    m_store->entries.insert(QStringLiteral("test/index"),
                            index(QStringLiteral("v2"), {"v1", "v2"}));
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    Outcome<Unit> current;
    m_keyring->initializeIfEmpty(true, current.callback());
    QTRY_COMPARE(current.code(), QStringLiteral("keyring.missing_current"));

    m_store->entries.remove(QStringLiteral("test/key/v1"));
    m_store->entries.insert(QStringLiteral("test/key/v2"), QByteArray(32, 'b'));
    Outcome<Unit> older;
    m_keyring->load(older.callback());
    QTRY_COMPARE(older.code(), QStringLiteral("keyring.bad_index"));
    QVERIFY(!m_keyring->isLoaded());
    QCOMPARE(m_store->entries.size(), 2); // nothing was created to "repair" it
}

void QtKeychainKeyringTest::equalStoredKeysRefused()
{
    m_store->entries.insert(QStringLiteral("test/index"),
                            index(QStringLiteral("v2"), {"v1", "v2"}));
    m_store->entries.insert(QStringLiteral("test/key/v1"), QByteArray(32, 'a'));
    m_store->entries.insert(QStringLiteral("test/key/v2"), QByteArray(32, 'a'));
    Outcome<Unit> outcome;
    m_keyring->load(outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.duplicate_key"));
    QVERIFY(!m_keyring->isLoaded());
}

void QtKeychainKeyringTest::addUseRemove()
{
    QVERIFY(initialize());
    const QString first = m_keyring->currentVersion().value();

    Outcome<QString> added;
    m_keyring->addKey(added.callback());
    QTRY_COMPARE(added.code(), QStringLiteral("ok"));
    const QString second = added.result->value();
    QVERIFY(second != first);
    QCOMPARE(m_keyring->currentVersion().value(), first);
    QCOMPARE(m_keyring->versions().size(), 2);
    QVERIFY(m_keyring->key(first).value().bytes() != m_keyring->key(second).value().bytes());

    Outcome<Unit> used;
    m_keyring->useKey(second, used.callback());
    QTRY_COMPARE(used.code(), QStringLiteral("ok"));
    QCOMPARE(m_keyring->currentVersion().value(), second);

    Outcome<Unit> removed;
    m_keyring->removeKey(first, removed.callback());
    QTRY_COMPARE(removed.code(), QStringLiteral("ok"));
    QCOMPARE(m_keyring->versions(), QStringList{second});
    QVERIFY(!m_store->entries.contains(QStringLiteral("test/key/") + first));

    // A second keyring over the same store sees the same state.
    const QByteArray secondKey = m_keyring->key(second).value().bytes();
    auto otherStore = std::make_unique<FakeStore>();
    otherStore->entries = m_store->entries;
    auto other = std::make_unique<QtKeychainKeyring>(std::move(otherStore), fastOptions());
    Outcome<Unit> loaded;
    other->load(loaded.callback());
    QTRY_COMPARE(loaded.code(), QStringLiteral("ok"));
    QCOMPARE(other->currentVersion().value(), second);
    QCOMPARE(other->versions(), QStringList{second});
    QCOMPARE(other->key(second).value().bytes(), secondKey);
}

void QtKeychainKeyringTest::removeRefusesCurrentAndUnknown()
{
    QVERIFY(initialize());
    const QString current = m_keyring->currentVersion().value();
    const QMap<QString, QByteArray> before = m_store->entries;
    Outcome<Unit> removeCurrent;
    m_keyring->removeKey(current, removeCurrent.callback());
    QTRY_COMPARE(removeCurrent.code(), QStringLiteral("keyring.remove_current"));
    Outcome<Unit> removeUnknown;
    m_keyring->removeKey(QStringLiteral("nope"), removeUnknown.callback());
    QTRY_COMPARE(removeUnknown.code(), QStringLiteral("keyring.unknown_version"));
    Outcome<Unit> useUnknown;
    m_keyring->useKey(QStringLiteral("nope"), useUnknown.callback());
    QTRY_COMPARE(useUnknown.code(), QStringLiteral("keyring.unknown_version"));
    QCOMPARE(m_store->entries, before);
    QCOMPARE(m_keyring->currentVersion().value(), current);
}

void QtKeychainKeyringTest::failedReloadForgetsKeys()
{
    QVERIFY(initialize());
    m_store->forced = {KeychainStatus::Denied};
    Outcome<Unit> reload;
    m_keyring->load(reload.callback());
    QTRY_COMPARE(reload.code(), QStringLiteral("keyring.denied"));
    QVERIFY(!m_keyring->isLoaded());
    QCOMPARE(m_keyring->currentVersion().error().code, QStringLiteral("keyring.not_loaded"));
}

void QtKeychainKeyringTest::invalidNamespaceIsUnavailable()
{
    QtKeychainKeyringOptions options = fastOptions();
    options.keyNamespace = QStringLiteral("../x");
    auto *store = new FakeStore;
    QtKeychainKeyring keyring(std::unique_ptr<KeychainStore>(store), options);
    Outcome<Unit> outcome;
    keyring.initializeIfEmpty(true, outcome.callback());
    QTRY_COMPARE(outcome.code(), QStringLiteral("keyring.unavailable"));
    QVERIFY(store->log.isEmpty());
}

void QtKeychainKeyringTest::destroyedKeyringNeverAnswers()
{
    bool answered = false;
    m_keyring->initializeIfEmpty(true, [&answered](Result<Unit>) { answered = true; });
    m_keyring->load([&answered](Result<Unit>) { answered = true; }); // busy, queued
    m_keyring.reset();
    // Positive control: the same two calls on a live keyring, made after the reset, answer. Each
    // of their event-loop turns (store answers, retries, the queued answers) is posted after the
    // same turn of the destroyed keyring's, so once both controls have answered, anything the
    // destroyed one could still have answered has run.
    QtKeychainKeyring control(std::make_unique<FakeStore>(), fastOptions());
    Outcome<Unit> initialized;
    Outcome<Unit> busy;
    control.initializeIfEmpty(true, initialized.callback());
    control.load(busy.callback());
    QTRY_VERIFY(initialized.result.has_value() && busy.result.has_value());
    QCOMPARE(initialized.code(), QStringLiteral("ok"));
    QCOMPARE(busy.code(), QStringLiteral("keyring.busy"));
    QVERIFY(!answered);
}

QTEST_GUILESS_MAIN(QtKeychainKeyringTest)
#include "tst_qtkeychainkeyring.moc"
