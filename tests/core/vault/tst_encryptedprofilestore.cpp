#include "MemoryKeyring.h"

#include "vault/EncryptedProfileStore.h"
#include "json/CanonicalJson.h"
#include "json/StrictJson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <memory>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace veetbot;
using veetbot::test::MemoryKeyring;

Q_DECLARE_METATYPE(veetbot::EncryptedProfileStore::CrashPoint)

// The encrypted profile store on a real directory: the record lifecycle, exclusivity, the
// private-directory and lock checks, fail-closed start-up, and crash safety proven by
// killing a forked writer at each named point of a write.
class EncryptedProfileStoreTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();

    void createAndRead();
    void readRefusesOtherScope_data();
    void readRefusesOtherScope();
    void createNeverOverwrites();
    void createRefusesInvalidIdentityAndOversize();
    void update();
    void fence();
    void fencedRecordRollbackDetected();
    void remove();
    void rotate();
    void keyVersionsInUseAcrossRestart();
    void operationsNeedOpenStore();

    void unsafeDirectoryRefused_data();
    void unsafeDirectoryRefused();
    void symlinkedDirectoryRefused();
    void foreignOwnerRefused();
    void secondStoreRefused();
    void keyringWithoutCurrentKeyRefused();

    void startupFailsClosed_data();
    void startupFailsClosed();
    void stagedLeftoversRemoved();
    void canaryNeverInClear();

    void crashDuringWrite_data();
    void crashDuringWrite();

private:
    ProfileIdentity identity(int n = 1) const;
    QString recordPath(const QString &reference) const;
    QStringList entries() const;
    QByteArray readFile(const QString &path) const;
    bool writeFile(const QString &path, const QByteArray &bytes) const;
    QByteArray allStoreBytes() const;

    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_dir;
    MemoryKeyring m_keyring;
};

namespace {
const QByteArray kCanary = QByteArrayLiteral("CANARY-SECRET-5e1f0a77");
const QByteArray kCanary2 = QByteArrayLiteral("CANARY-SECRET-9b3c2d11");

QByteArray material(const QByteArray &secret)
{
    return QByteArrayLiteral("{\"cookies\":[{\"name\":\"sid\",\"value\":\"") + secret +
           QByteArrayLiteral("\"}],\"origins\":[]}");
}

template <typename T> QString codeOf(const Result<T> &result)
{
    return result ? QStringLiteral("<ok>") : result.error().code;
}

EncryptedProfileStore::CrashPoint g_killAt = EncryptedProfileStore::CrashPoint::StagedSynced;

void killAtCrashPoint(EncryptedProfileStore::CrashPoint point)
{
    if (point == g_killAt)
        raise(SIGKILL);
}
} // namespace

ProfileIdentity EncryptedProfileStoreTest::identity(int n) const
{
    ProfileIdentity id;
    id.profileId =
        QStringLiteral("0f8fad5b-d9cb-469f-a165-7086772895%1").arg(n, 2, 10, QLatin1Char('0'));
    id.tenant = QStringLiteral("tenant-a");
    id.principal = QStringLiteral("user-1");
    id.providerReference = QStringLiteral("ref-%1-Zq81vX").arg(n);
    id.allowedOrigins = {QStringLiteral("https://accounts.shop.de"),
                         QStringLiteral("https://shop.de")};
    return id;
}

void EncryptedProfileStoreTest::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_dir = m_tmp->path() + QStringLiteral("/store");
    QVERIFY(QDir().mkdir(m_dir));
    QVERIFY(::chmod(QFile::encodeName(m_dir).constData(), 0700) == 0);
    m_keyring = MemoryKeyring();
    m_keyring.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('a'));
    m_keyring.setKey(QStringLiteral("k2"), MemoryKeyring::keyBytes('b'));
    m_keyring.setCurrent(QStringLiteral("k1"));
    EncryptedProfileStore::setCrashHookForTesting(nullptr);
}

void EncryptedProfileStoreTest::cleanup()
{
    EncryptedProfileStore::setCrashHookForTesting(nullptr);
    m_tmp.reset();
}

QString EncryptedProfileStoreTest::recordPath(const QString &reference) const
{
    return m_dir + QLatin1Char('/') + EncryptedProfileStore::fileNameFor(reference);
}

QStringList EncryptedProfileStoreTest::entries() const
{
    QStringList names = QDir(m_dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System |
                                              QDir::NoDotAndDotDot);
    names.sort();
    return names;
}

QByteArray EncryptedProfileStoreTest::readFile(const QString &path) const
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QByteArray();
    return file.readAll();
}

bool EncryptedProfileStoreTest::writeFile(const QString &path, const QByteArray &bytes) const
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const bool written = file.write(bytes) == bytes.size();
    file.close();
    return written && ::chmod(QFile::encodeName(path).constData(), 0600) == 0;
}

QByteArray EncryptedProfileStoreTest::allStoreBytes() const
{
    QByteArray all;
    for (const QString &name : entries())
        all += readFile(m_dir + QLatin1Char('/') + name);
    return all;
}

void EncryptedProfileStoreTest::createAndRead()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QCOMPARE(codeOf(store.open()), QStringLiteral("<ok>"));
    QVERIFY(store.isOpen());
    QCOMPARE(store.recordCount(), 0);

    const Result<ProfileMetadata> created =
        store.create(identity(), SecretBytes(material(kCanary)));
    QVERIFY(created.ok());
    QCOMPARE(created->identity, identity());
    QCOMPARE(created->keyVersion, QStringLiteral("k1"));
    QCOMPARE(created->formatVersion, 1);
    QCOMPARE(created->revocationFence, 0);

    const Result<SecretBytes> read = store.read(identity());
    QVERIFY(read.ok());
    QCOMPARE(read->bytes(), material(kCanary));

    // One envelope named by the reference's hash, private to us, plus the lock file.
    const QString name = EncryptedProfileStore::fileNameFor(identity().providerReference);
    QVERIFY(name.endsWith(QLatin1String(".env")));
    QCOMPARE(name.size(), 64 + 4);
    QCOMPARE(entries(), QStringList({name, QStringLiteral("store.lock")}));
    struct stat st;
    QCOMPARE(::stat(QFile::encodeName(recordPath(identity().providerReference)).constData(), &st),
             0);
    QCOMPARE(st.st_mode & 0777, mode_t(0600));
    QVERIFY(!name.contains(identity().providerReference));

    QCOMPARE(store.metadataForReference(identity().providerReference), *created);
    QCOMPARE(store.metadataForProfile(identity().profileId), *created);
    QVERIFY(!store.metadataForReference(QStringLiteral("other")).has_value());
    QCOMPARE(codeOf(store.read(identity(2))), QStringLiteral("vault.not_found"));
}

void EncryptedProfileStoreTest::readRefusesOtherScope_data()
{
    QTest::addColumn<QString>("field");
    QTest::newRow("profile_id") << "profile_id";
    QTest::newRow("tenant") << "tenant";
    QTest::newRow("principal") << "principal";
    QTest::newRow("origin added") << "origin-added";
    QTest::newRow("origin removed") << "origin-removed";
}

void EncryptedProfileStoreTest::readRefusesOtherScope()
{
    QFETCH(QString, field);
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    ProfileIdentity other = identity();
    if (field == QLatin1String("profile_id"))
        other.profileId = identity(2).profileId;
    else if (field == QLatin1String("tenant"))
        other.tenant = QStringLiteral("tenant-b");
    else if (field == QLatin1String("principal"))
        other.principal = QStringLiteral("user-2");
    else if (field == QLatin1String("origin-added"))
        other.allowedOrigins.append(QStringLiteral("https://x.shop.de"));
    else
        other.allowedOrigins.removeLast();
    const Result<SecretBytes> read = store.read(other);
    QCOMPARE(codeOf(read), QStringLiteral("vault.tag_mismatch"));
    QCOMPARE(codeOf(store.update(other, SecretBytes(material(kCanary2)))),
             QStringLiteral("vault.tag_mismatch"));
    QCOMPARE(codeOf(store.fence(other)), QStringLiteral("vault.tag_mismatch"));
    QCOMPARE(codeOf(store.remove(other)), QStringLiteral("vault.tag_mismatch"));
    // Nothing changed for the rightful scope.
    QCOMPARE(store.read(identity())->bytes(), material(kCanary));
    QCOMPARE(store.metadataForReference(identity().providerReference)->revocationFence, 0);
}

void EncryptedProfileStoreTest::createNeverOverwrites()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    const QByteArray before = readFile(recordPath(identity().providerReference));

    // Same reference, and the same profile id under another reference.
    QCOMPARE(codeOf(store.create(identity(), SecretBytes(material(kCanary2)))),
             QStringLiteral("vault.exists"));
    ProfileIdentity sameProfile = identity(2);
    sameProfile.profileId = identity().profileId;
    QCOMPARE(codeOf(store.create(sameProfile, SecretBytes(material(kCanary2)))),
             QStringLiteral("vault.exists"));
    QCOMPARE(readFile(recordPath(identity().providerReference)), before);
    QCOMPARE(store.read(identity())->bytes(), material(kCanary));

    // A file that appeared at the final name behind the store's back is not replaced
    // either: link() refuses to overwrite it.
    const QString squatter = recordPath(identity(3).providerReference);
    QVERIFY(writeFile(squatter, "not an envelope"));
    QCOMPARE(codeOf(store.create(identity(3), SecretBytes(material(kCanary2)))),
             QStringLiteral("vault.exists"));
    QCOMPARE(readFile(squatter), QByteArray("not an envelope"));
    for (const QString &name : entries())
        QVERIFY2(!name.contains(QLatin1String(".staged-")), qPrintable(name));
}

void EncryptedProfileStoreTest::createRefusesInvalidIdentityAndOversize()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    ProfileIdentity invalid = identity();
    invalid.providerReference = QStringLiteral("../../etc/passwd ");
    QCOMPARE(codeOf(store.create(invalid, SecretBytes(material(kCanary)))),
             QStringLiteral("vault.invalid_metadata"));
    invalid = identity();
    invalid.allowedOrigins = {QStringLiteral("https://shop.de"),
                              QStringLiteral("https://accounts.shop.de")};
    QCOMPARE(codeOf(store.create(invalid, SecretBytes(material(kCanary)))),
             QStringLiteral("vault.invalid_metadata"));
    QCOMPARE(codeOf(store.create(identity(),
                                 SecretBytes(QByteArray(Envelope::kMaxPlaintextBytes + 1, 'x')))),
             QStringLiteral("vault.too_large"));
    QCOMPARE(entries(), QStringList({QStringLiteral("store.lock")}));
}

void EncryptedProfileStoreTest::update()
{
    auto owned = std::make_unique<EncryptedProfileStore>(m_dir, m_keyring);
    EncryptedProfileStore &store = *owned;
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    const QByteArray before = readFile(recordPath(identity().providerReference));

    m_keyring.setCurrent(QStringLiteral("k2"));
    const Result<ProfileMetadata> updated =
        store.update(identity(), SecretBytes(material(kCanary2)));
    QVERIFY(updated.ok());
    QCOMPARE(updated->keyVersion, QStringLiteral("k2")); // new material, current key
    QCOMPARE(store.read(identity())->bytes(), material(kCanary2));
    QVERIFY(readFile(recordPath(identity().providerReference)) != before);
    QCOMPARE(entries().size(), 2);

    QCOMPARE(codeOf(store.update(identity(2), SecretBytes(material(kCanary2)))),
             QStringLiteral("vault.not_found"));

    // Survives a restart.
    owned.reset();
    EncryptedProfileStore restarted(m_dir, m_keyring);
    QVERIFY(restarted.open().ok());
    QCOMPARE(restarted.read(identity())->bytes(), material(kCanary2));
}

void EncryptedProfileStoreTest::fence()
{
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
        const Result<ProfileMetadata> fenced = store.fence(identity());
        QVERIFY(fenced.ok());
        QCOMPARE(fenced->revocationFence, 1);
        QVERIFY(fenced->isFenced());
        QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.fenced"));
        QCOMPARE(codeOf(store.update(identity(), SecretBytes(material(kCanary2)))),
                 QStringLiteral("vault.fenced"));
        // Repeating revocation is harmless and keeps counting.
        QCOMPARE(store.fence(identity())->revocationFence, 2);
    }
    // The fence is durable: it is inside the authenticated envelope.
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QCOMPARE(store.metadataForReference(identity().providerReference)->revocationFence, 2);
    QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.fenced"));
    const QByteArray bytes = readFile(recordPath(identity().providerReference));
    QVERIFY(bytes.contains("\"revocation_fence\":2"));
}

void EncryptedProfileStoreTest::fencedRecordRollbackDetected()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    const QString path = recordPath(identity().providerReference);
    const QByteArray unfenced = readFile(path);
    QVERIFY(store.fence(identity()).ok());
    // An older copy put back behind the live store no longer matches what it holds.
    QVERIFY(writeFile(path, unfenced));
    QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.corrupt_record"));
    QCOMPARE(codeOf(store.fence(identity())), QStringLiteral("vault.corrupt_record"));
}

void EncryptedProfileStoreTest::remove()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    QVERIFY(store.create(identity(2), SecretBytes(material(kCanary2))).ok());

    QCOMPARE(codeOf(store.remove(identity())), QStringLiteral("vault.not_fenced"));
    QVERIFY(QFile::exists(recordPath(identity().providerReference)));
    QVERIFY(store.fence(identity()).ok());
    QVERIFY(store.remove(identity()).ok());
    QVERIFY(!QFile::exists(recordPath(identity().providerReference)));
    QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.not_found"));
    QVERIFY(!store.metadataForProfile(identity().profileId).has_value());

    // Idempotent while nothing occupies either identity...
    QVERIFY(store.remove(identity()).ok());
    // ...but not when the profile id lives on under another reference.
    ProfileIdentity otherReference = identity(2);
    otherReference.providerReference = QStringLiteral("ref-unknown");
    QCOMPARE(codeOf(store.remove(otherReference)), QStringLiteral("vault.tag_mismatch"));
    QCOMPARE(store.read(identity(2))->bytes(), material(kCanary2));

    // The freed identity can be provisioned again.
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
}

void EncryptedProfileStoreTest::rotate()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    QVERIFY(store.create(identity(2), SecretBytes(material(kCanary2))).ok());
    QCOMPARE(store.keyVersionsInUse(), QStringList({QStringLiteral("k1")}));

    m_keyring.setCurrent(QStringLiteral("k2"));
    QCOMPARE(codeOf(store.rotate(identity().providerReference)), QStringLiteral("<ok>"));
    QCOMPARE(*store.rotate(identity().providerReference), false); // already current: no-op
    QCOMPARE(store.metadataForReference(identity().providerReference)->keyVersion,
             QStringLiteral("k2"));
    QCOMPARE(store.keyVersionsInUse(), QStringList({QStringLiteral("k1"), QStringLiteral("k2")}));
    QVERIFY(store.isKeyVersionInUse(QStringLiteral("k1")));

    const QByteArray before = readFile(recordPath(identity(2).providerReference));
    const Result<bool> rotated = store.rotate(identity(2).providerReference);
    QVERIFY(rotated.ok());
    QVERIFY(*rotated);
    QVERIFY(readFile(recordPath(identity(2).providerReference)) != before);
    QCOMPARE(store.keyVersionsInUse(), QStringList({QStringLiteral("k2")}));
    QVERIFY(!store.isKeyVersionInUse(QStringLiteral("k1")));
    QCOMPARE(store.read(identity())->bytes(), material(kCanary));
    QCOMPARE(store.read(identity(2))->bytes(), material(kCanary2));
    QCOMPARE(codeOf(store.rotate(QStringLiteral("ref-unknown"))),
             QStringLiteral("vault.not_found"));
}

void EncryptedProfileStoreTest::keyVersionsInUseAcrossRestart()
{
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    }
    // The old key cannot be dropped while an envelope still names it: start-up fails.
    m_keyring.setCurrent(QStringLiteral("k2"));
    m_keyring.removeKey(QStringLiteral("k1"));
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QCOMPARE(codeOf(store.open()), QStringLiteral("vault.key_unavailable"));
    }
    m_keyring.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('a'));
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        QVERIFY(*store.rotate(identity().providerReference));
        QVERIFY(!store.isKeyVersionInUse(QStringLiteral("k1")));
    }
    // Rotated: now it can go.
    m_keyring.removeKey(QStringLiteral("k1"));
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QCOMPARE(store.read(identity())->bytes(), material(kCanary));
}

void EncryptedProfileStoreTest::operationsNeedOpenStore()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    const QString closed = QStringLiteral("vault.store_unavailable");
    QCOMPARE(codeOf(store.create(identity(), SecretBytes(material(kCanary)))), closed);
    QCOMPARE(codeOf(store.read(identity())), closed);
    QCOMPARE(codeOf(store.update(identity(), SecretBytes(material(kCanary)))), closed);
    QCOMPARE(codeOf(store.fence(identity())), closed);
    QCOMPARE(codeOf(store.remove(identity())), closed);
    QCOMPARE(codeOf(store.rotate(identity().providerReference)), closed);
    QCOMPARE(entries(), QStringList());
}

void EncryptedProfileStoreTest::unsafeDirectoryRefused_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("group readable") << 0740;
    QTest::newRow("group executable") << 0710;
    QTest::newRow("other readable") << 0704;
    QTest::newRow("other writable") << 0702;
    QTest::newRow("world open") << 0777;
}

void EncryptedProfileStoreTest::unsafeDirectoryRefused()
{
    QFETCH(int, mode);
    QVERIFY(::chmod(QFile::encodeName(m_dir).constData(), mode_t(mode)) == 0);
    EncryptedProfileStore store(m_dir, m_keyring);
    const Result<Unit> opened = store.open();
    QCOMPARE(codeOf(opened), QStringLiteral("vault.store_unsafe"));
    QVERIFY(!opened.error().message.contains(m_dir));
    QVERIFY(!store.isOpen());
    QCOMPARE(entries(), QStringList()); // refused before touching anything

    // The same directory made private is accepted.
    QVERIFY(::chmod(QFile::encodeName(m_dir).constData(), 0700) == 0);
    QVERIFY(store.open().ok());

    // Missing, relative, unclean and not-a-directory paths.
    EncryptedProfileStore missing(m_dir + QStringLiteral("/absent"), m_keyring);
    QCOMPARE(codeOf(missing.open()), QStringLiteral("vault.store_unsafe"));
    EncryptedProfileStore relative(QStringLiteral("store"), m_keyring);
    QCOMPARE(codeOf(relative.open()), QStringLiteral("vault.store_unsafe"));
    EncryptedProfileStore unclean(m_dir + QStringLiteral("/../") + QFileInfo(m_dir).fileName(),
                                  m_keyring);
    QCOMPARE(codeOf(unclean.open()), QStringLiteral("vault.store_unsafe"));
    const QString file = m_tmp->path() + QStringLiteral("/file");
    QVERIFY(writeFile(file, "x"));
    EncryptedProfileStore notDirectory(file, m_keyring);
    QCOMPARE(codeOf(notDirectory.open()), QStringLiteral("vault.store_unsafe"));
}

void EncryptedProfileStoreTest::symlinkedDirectoryRefused()
{
    const QString link = m_tmp->path() + QStringLiteral("/link");
    QVERIFY(QFile::link(m_dir, link));
    EncryptedProfileStore store(link, m_keyring);
    QCOMPARE(codeOf(store.open()), QStringLiteral("vault.store_unsafe"));
    QCOMPARE(entries(), QStringList());
    // The real directory itself is fine.
    EncryptedProfileStore real(m_dir, m_keyring);
    QVERIFY(real.open().ok());
}

void EncryptedProfileStoreTest::foreignOwnerRefused()
{
    const QByteArray path = QFile::encodeName(m_dir);
    if (geteuid() == 0) {
        // As root the test can hand the directory to another uid.
        QVERIFY(::chown(path.constData(), 54321, 54321) == 0);
        EncryptedProfileStore store(m_dir, m_keyring);
        QCOMPARE(codeOf(store.open()), QStringLiteral("vault.store_unsafe"));
        QVERIFY(::chown(path.constData(), 0, 0) == 0);
    } else {
        // Without root no private directory of another uid can be made for the test; the
        // fixture needs root (the CI container runs as root).
        QVERIFY(::chown(path.constData(), 54321, 54321) != 0);
        QCOMPARE(errno, EPERM);
    }
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
}

void EncryptedProfileStoreTest::secondStoreRefused()
{
    auto first = std::make_unique<EncryptedProfileStore>(m_dir, m_keyring);
    QVERIFY(first->open().ok());
    QVERIFY(first->create(identity(), SecretBytes(material(kCanary))).ok());

    EncryptedProfileStore second(m_dir, m_keyring);
    QCOMPARE(codeOf(second.open()), QStringLiteral("vault.store_locked"));
    QVERIFY(!second.isOpen());
    QCOMPARE(codeOf(second.read(identity())), QStringLiteral("vault.store_unavailable"));

    // Another process is refused too.
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        EncryptedProfileStore other(m_dir, m_keyring);
        const Result<Unit> opened = other.open();
        _exit(!opened.ok() && opened.error().code == QLatin1String("vault.store_locked") ? 0 : 1);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);

    // Once the first store is gone the lock is free.
    first.reset();
    QVERIFY(second.open().ok());
    QCOMPARE(second.read(identity())->bytes(), material(kCanary));
}

void EncryptedProfileStoreTest::keyringWithoutCurrentKeyRefused()
{
    MemoryKeyring noCurrent;
    noCurrent.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('a'));
    EncryptedProfileStore store(m_dir, noCurrent);
    QCOMPARE(codeOf(store.open()), QStringLiteral("vault.key_unavailable"));

    MemoryKeyring shortCurrent;
    shortCurrent.setKey(QStringLiteral("k1"), QByteArray(16, 'a'));
    shortCurrent.setCurrent(QStringLiteral("k1"));
    EncryptedProfileStore shortStore(m_dir, shortCurrent);
    QCOMPARE(codeOf(shortStore.open()), QStringLiteral("vault.key_unavailable"));
}

void EncryptedProfileStoreTest::startupFailsClosed_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("code");
    QTest::newRow("garbage") << "garbage"
                             << "vault.corrupt_record";
    QTest::newRow("truncated") << "truncated"
                               << "vault.corrupt_record";
    QTest::newRow("empty file") << "empty"
                                << "vault.corrupt_record";
    QTest::newRow("duplicate key") << "duplicate-key"
                                   << "vault.corrupt_record";
    QTest::newRow("bad tag") << "bad-tag"
                             << "vault.tag_mismatch";
    QTest::newRow("metadata swapped") << "metadata"
                                      << "vault.tag_mismatch";
    QTest::newRow("unknown key version") << "unknown-key"
                                         << "vault.key_unavailable";
    QTest::newRow("unknown format") << "unknown-format"
                                    << "vault.unknown_format";
    QTest::newRow("duplicate profile") << "duplicate-profile"
                                       << "vault.corrupt_record";
    QTest::newRow("name not the reference hash") << "renamed"
                                                 << "vault.corrupt_record";
    QTest::newRow("unknown file") << "unknown-file"
                                  << "vault.store_unsafe";
    QTest::newRow("subdirectory") << "subdirectory"
                                  << "vault.store_unsafe";
    QTest::newRow("symlinked record") << "symlink"
                                      << "vault.store_unsafe";
    QTest::newRow("group-readable record") << "record-mode"
                                           << "vault.store_unsafe";
    QTest::newRow("oversized record") << "oversized"
                                      << "vault.too_large";
}

void EncryptedProfileStoreTest::startupFailsClosed()
{
    QFETCH(QString, damage);
    QFETCH(QString, code);
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
        QVERIFY(store.create(identity(2), SecretBytes(material(kCanary2))).ok());
    }
    const QString path = recordPath(identity().providerReference);
    const QByteArray bytes = readFile(path);
    QJsonObject object = StrictJson::parse(bytes)->toObject();
    QJsonObject metadata = object.value(QStringLiteral("metadata")).toObject();
    const auto rewrite = [&](const QJsonObject &changed) {
        return writeFile(path, *CanonicalJson::serialize(changed));
    };

    if (damage == QLatin1String("garbage")) {
        QVERIFY(writeFile(path, "\x00\x01garbage"));
    } else if (damage == QLatin1String("truncated")) {
        QVERIFY(writeFile(path, bytes.left(bytes.size() - 3)));
    } else if (damage == QLatin1String("empty")) {
        QVERIFY(writeFile(path, QByteArray()));
    } else if (damage == QLatin1String("duplicate-key")) {
        QByteArray duplicated = bytes;
        duplicated.replace("\"format\":1,", "\"format\":1,\"format\":1,");
        QVERIFY(duplicated != bytes);
        QVERIFY(writeFile(path, duplicated));
    } else if (damage == QLatin1String("bad-tag")) {
        QByteArray sealed = QByteArray::fromBase64(
            object.value(QStringLiteral("ciphertext")).toString().toLatin1());
        sealed[sealed.size() - 1] = char(sealed[sealed.size() - 1] ^ 0x01);
        object.insert(QStringLiteral("ciphertext"), QString::fromLatin1(sealed.toBase64()));
        QVERIFY(rewrite(object));
    } else if (damage == QLatin1String("metadata")) {
        metadata.insert(QStringLiteral("principal"), QStringLiteral("user-9"));
        object.insert(QStringLiteral("metadata"), metadata);
        QVERIFY(rewrite(object));
    } else if (damage == QLatin1String("unknown-key")) {
        metadata.insert(QStringLiteral("key_version"), QStringLiteral("k7"));
        object.insert(QStringLiteral("metadata"), metadata);
        QVERIFY(rewrite(object));
    } else if (damage == QLatin1String("unknown-format")) {
        object.insert(QStringLiteral("format"), 2);
        QVERIFY(rewrite(object));
    } else if (damage == QLatin1String("duplicate-profile")) {
        // A valid record for another reference that claims the first record's profile id,
        // sealed by a store in another directory and copied in.
        const QString otherDir = m_tmp->path() + QStringLiteral("/other");
        QVERIFY(QDir().mkdir(otherDir));
        QVERIFY(::chmod(QFile::encodeName(otherDir).constData(), 0700) == 0);
        ProfileIdentity clash = identity(3);
        clash.profileId = identity().profileId;
        {
            EncryptedProfileStore other(otherDir, m_keyring);
            QVERIFY(other.open().ok());
            QVERIFY(other.create(clash, SecretBytes(material(kCanary))).ok());
        }
        const QString name = EncryptedProfileStore::fileNameFor(clash.providerReference);
        QVERIFY(writeFile(m_dir + QLatin1Char('/') + name,
                          readFile(otherDir + QLatin1Char('/') + name)));
    } else if (damage == QLatin1String("renamed")) {
        QVERIFY(QFile::rename(path, recordPath(QStringLiteral("ref-other"))));
    } else if (damage == QLatin1String("unknown-file")) {
        QVERIFY(writeFile(m_dir + QStringLiteral("/notes.txt"), "hello"));
    } else if (damage == QLatin1String("subdirectory")) {
        QVERIFY(QDir().mkdir(m_dir + QStringLiteral("/sub")));
    } else if (damage == QLatin1String("symlink")) {
        const QString elsewhere = m_tmp->path() + QStringLiteral("/elsewhere.env");
        QVERIFY(QFile::rename(path, elsewhere));
        QVERIFY(QFile::link(elsewhere, path));
    } else if (damage == QLatin1String("record-mode")) {
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0640) == 0);
    } else if (damage == QLatin1String("oversized")) {
        QVERIFY(::truncate(QFile::encodeName(path).constData(), Envelope::kMaxEnvelopeBytes + 1) ==
                0);
    } else {
        QFAIL("unknown damage");
    }

    EncryptedProfileStore store(m_dir, m_keyring);
    const Result<Unit> opened = store.open();
    QCOMPARE(codeOf(opened), code);
    QVERIFY(!opened.error().message.contains(m_dir));
    QVERIFY(!opened.error().message.contains(identity().providerReference));
    // Fail closed: nothing is served, not even the undamaged record.
    QVERIFY(!store.isOpen());
    QCOMPARE(codeOf(store.read(identity(2))), QStringLiteral("vault.store_unavailable"));
    QCOMPARE(codeOf(store.create(identity(4), SecretBytes(material(kCanary)))),
             QStringLiteral("vault.store_unavailable"));
    QCOMPARE(store.recordCount(), 0);
    // The failed open released its lock: a second attempt meets the same damage, not
    // vault.store_locked.
    EncryptedProfileStore again(m_dir, m_keyring);
    QCOMPARE(codeOf(again.open()), code);
}

void EncryptedProfileStoreTest::stagedLeftoversRemoved()
{
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    }
    const QString name = EncryptedProfileStore::fileNameFor(identity().providerReference);
    const QString staged1 = name + QStringLiteral(".staged-0123456789abcdef");
    const QString staged2 = EncryptedProfileStore::fileNameFor(QStringLiteral("never-published")) +
                            QStringLiteral(".staged-fedcba9876543210");
    QVERIFY(writeFile(m_dir + QLatin1Char('/') + staged1, "half a rec"));
    QVERIFY(writeFile(m_dir + QLatin1Char('/') + staged2, "{\"ciphertext\":"));
    QCOMPARE(entries().size(), 4);

    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QCOMPARE(entries(), QStringList({name, QStringLiteral("store.lock")}));
    QCOMPARE(store.read(identity())->bytes(), material(kCanary));
}

void EncryptedProfileStoreTest::canaryNeverInClear()
{
    EncryptedProfileStore store(m_dir, m_keyring);
    QVERIFY(store.open().ok());
    QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    QVERIFY(!allStoreBytes().contains(kCanary));
    QVERIFY(store.update(identity(), SecretBytes(material(kCanary2))).ok());
    m_keyring.setCurrent(QStringLiteral("k2"));
    QVERIFY(store.rotate(identity().providerReference).ok());
    QVERIFY(store.fence(identity()).ok());
    const QByteArray all = allStoreBytes();
    QVERIFY(!all.isEmpty());
    QVERIFY(!all.contains(kCanary));
    QVERIFY(!all.contains(kCanary2));
    QVERIFY(!all.contains(kCanary2.toBase64()));
    QVERIFY(!all.contains(material(kCanary2).toBase64().left(24)));
    QVERIFY(!all.contains(MemoryKeyring::keyBytes('a')));
    QVERIFY(!all.contains(MemoryKeyring::keyBytes('b')));
}

void EncryptedProfileStoreTest::crashDuringWrite_data()
{
    using P = EncryptedProfileStore::CrashPoint;
    QTest::addColumn<QString>("operation");
    QTest::addColumn<P>("point");
    QTest::addColumn<bool>("expectNew"); // the new state is visible after restart
    QTest::addColumn<bool>("stagedLeftover");
    QTest::newRow("update mid-write") << "update" << P::StagedPartiallyWritten << false << true;
    QTest::newRow("update staged, before rename") << "update" << P::StagedSynced << false << true;
    QTest::newRow("update renamed, before dir fsync") << "update" << P::Published << true << false;
    QTest::newRow("create mid-write") << "create" << P::StagedPartiallyWritten << false << true;
    QTest::newRow("create staged, before link") << "create" << P::StagedSynced << false << true;
    QTest::newRow("create linked, before unlink") << "create" << P::Published << true << true;
    QTest::newRow("fence mid-write") << "fence" << P::StagedPartiallyWritten << false << true;
    QTest::newRow("fence renamed, before dir fsync") << "fence" << P::Published << true << false;
    QTest::newRow("rotate staged, before rename") << "rotate" << P::StagedSynced << false << true;
    QTest::newRow("rotate renamed, before dir fsync") << "rotate" << P::Published << true << false;
}

void EncryptedProfileStoreTest::crashDuringWrite()
{
    QFETCH(QString, operation);
    QFETCH(EncryptedProfileStore::CrashPoint, point);
    QFETCH(bool, expectNew);
    QFETCH(bool, stagedLeftover);
    const bool creating = operation == QLatin1String("create");
    {
        EncryptedProfileStore store(m_dir, m_keyring);
        QVERIFY(store.open().ok());
        if (!creating)
            QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    }
    if (operation == QLatin1String("rotate"))
        m_keyring.setCurrent(QStringLiteral("k2"));

    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        // The writer: opens the store and is killed at the named point of its write.
        EncryptedProfileStore store(m_dir, m_keyring);
        if (!store.open().ok())
            _exit(2);
        g_killAt = point;
        EncryptedProfileStore::setCrashHookForTesting(killAtCrashPoint);
        bool done = false;
        if (operation == QLatin1String("update"))
            done = store.update(identity(), SecretBytes(material(kCanary2))).ok();
        else if (operation == QLatin1String("create"))
            done = store.create(identity(), SecretBytes(material(kCanary2))).ok();
        else if (operation == QLatin1String("fence"))
            done = store.fence(identity()).ok();
        else if (operation == QLatin1String("rotate"))
            done = store.rotate(identity().providerReference).ok();
        _exit(done ? 3 : 4); // reaching this means the crash point was never hit
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status),
             qPrintable(QStringLiteral("child exit %1").arg(WEXITSTATUS(status))));
    QCOMPARE(WTERMSIG(status), SIGKILL);

    // What the crash left behind, before recovery.
    bool sawStaged = false;
    for (const QString &name : entries()) {
        if (name.contains(QLatin1String(".staged-"))) {
            sawStaged = true;
            // Staged files are private and never hold plaintext.
            QVERIFY(!readFile(m_dir + QLatin1Char('/') + name).contains(kCanary2));
        }
    }
    QCOMPARE(sawStaged, stagedLeftover);
    QVERIFY(!allStoreBytes().contains(kCanary2));
    QVERIFY(!allStoreBytes().contains(kCanary));

    // Recovery: the store opens (every envelope validated) with the old or the new record,
    // never a broken one, and the staged leftovers are gone.
    EncryptedProfileStore store(m_dir, m_keyring);
    QCOMPARE(codeOf(store.open()), QStringLiteral("<ok>"));
    for (const QString &name : entries())
        QVERIFY2(!name.contains(QLatin1String(".staged-")), qPrintable(name));

    if (operation == QLatin1String("create")) {
        if (expectNew)
            QCOMPARE(store.read(identity())->bytes(), material(kCanary2));
        else
            QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.not_found"));
    } else if (operation == QLatin1String("update")) {
        QCOMPARE(store.read(identity())->bytes(),
                 expectNew ? material(kCanary2) : material(kCanary));
    } else if (operation == QLatin1String("fence")) {
        if (expectNew)
            QCOMPARE(codeOf(store.read(identity())), QStringLiteral("vault.fenced"));
        else
            QCOMPARE(store.read(identity())->bytes(), material(kCanary));
    } else {
        QCOMPARE(store.metadataForReference(identity().providerReference)->keyVersion,
                 expectNew ? QStringLiteral("k2") : QStringLiteral("k1"));
        QCOMPARE(store.read(identity())->bytes(), material(kCanary));
    }
    // The recovered store keeps working.
    if (!store.metadataForReference(identity().providerReference).has_value()) {
        QVERIFY(store.create(identity(), SecretBytes(material(kCanary))).ok());
    } else if (!store.metadataForReference(identity().providerReference)->isFenced()) {
        QVERIFY(store.update(identity(), SecretBytes(material(kCanary))).ok());
        QCOMPARE(store.read(identity())->bytes(), material(kCanary));
    }
}

QTEST_GUILESS_MAIN(EncryptedProfileStoreTest)
#include "tst_encryptedprofilestore.moc"
