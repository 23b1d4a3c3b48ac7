#include "vault/DirectoryKeyring.h"
#include "vault/KeyDirectory.h"
#include "vault/KeyringError.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace veetbot;

namespace {

QByteArray keyText(char fill)
{
    return QByteArray(32, fill).toBase64() + '\n';
}

mode_t modeOf(const QString &path)
{
    struct stat st
    {
    };
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return mode_t(-1);
    return st.st_mode & 07777;
}

bool writeFile(const QString &path, const QByteArray &content, mode_t mode = 0600)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(content) != content.size())
        return false;
    file.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

bool symlinkTo(const QString &target, const QString &link)
{
    return ::symlink(QFile::encodeName(target).constData(), QFile::encodeName(link).constData()) ==
           0;
}

QString errorCode(const Result<DirectoryKeyring> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

// Restores the umask on scope exit.
class UmaskGuard
{
public:
    explicit UmaskGuard(mode_t mask) : m_previous(::umask(mask)) {}
    ~UmaskGuard() { ::umask(m_previous); }

private:
    mode_t m_previous;
};

} // namespace

// The key directory on disk: permission, ownership and symlink checks on real files, and the
// init/add/use/remove cycle behind `veetbot keys`.
class DirectoryKeyringTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();

    void opensPrivateDirectory();
    void acceptsTrailingSlash();
    void refusesGroupReadableDirectory();
    void refusesOtherSearchableDirectory();
    void refusesGroupReadableKeyFile();
    void refusesOtherReadableCurrentFile();
    void refusesSymlinkedKeyFile();
    void refusesSymlinkedCurrentFile();
    void refusesSymlinkedDirectory();
    void refusesRelativeAndUncleanPaths();
    void refusesMissingDirectory();
    void refusesUnknownFile();
    void refusesSubdirectory();
    void refusesFifo();
    void refusesEqualBytes();
    void refusesMissingCurrentKey();
    void refusesOversizedKeyFile();
    void unknownVersionIsAnError();

    void initCreatesPrivateFilesWhateverTheUmask();
    void initRefusesExistingPathAndMissingParent();
    void initRefusesRelativePath();
    void roundTrip();
    void changesRefuseAnInvalidDirectory();
    void changeRemovesLeftoverTemporaryFile();

private:
    // A valid 0700 directory: current "v2", keys v1 ('a') and v2 ('b').
    QString makeValidDirectory();

    std::unique_ptr<QTemporaryDir> m_temp;
};

void DirectoryKeyringTest::init()
{
    m_temp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_temp->isValid());
}

void DirectoryKeyringTest::cleanup()
{
    m_temp.reset();
}

QString DirectoryKeyringTest::makeValidDirectory()
{
    const QString dir = m_temp->filePath(QStringLiteral("keys"));
    if (!QDir().mkdir(dir) || ::chmod(QFile::encodeName(dir).constData(), 0700) != 0)
        return QString();
    if (!writeFile(dir + QStringLiteral("/current"), "v2\n") ||
        !writeFile(dir + QStringLiteral("/v1.key"), keyText('a')) ||
        !writeFile(dir + QStringLiteral("/v2.key"), keyText('b'))) {
        return QString();
    }
    return dir;
}

void DirectoryKeyringTest::opensPrivateDirectory()
{
    const QString dir = makeValidDirectory();
    QVERIFY(!dir.isEmpty());
    Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
    QCOMPARE(errorCode(keyring), QStringLiteral("ok"));
    QCOMPARE(keyring->currentVersion().value(), QStringLiteral("v2"));
    QCOMPARE(keyring->versions(), QStringList({QStringLiteral("v1"), QStringLiteral("v2")}));
    QCOMPARE(keyring->key(QStringLiteral("v1")).value().bytes(), QByteArray(32, 'a'));
    QCOMPARE(keyring->key(QStringLiteral("v2")).value().bytes(), QByteArray(32, 'b'));
}

void DirectoryKeyringTest::acceptsTrailingSlash()
{
    const QString dir = makeValidDirectory();
    QVERIFY(!dir.isEmpty());
    QCOMPARE(errorCode(DirectoryKeyring::open(dir + u'/')), QStringLiteral("ok"));
}

void DirectoryKeyringTest::refusesGroupReadableDirectory()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0750) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_directory"));
}

void DirectoryKeyringTest::refusesOtherSearchableDirectory()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0701) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_directory"));
}

void DirectoryKeyringTest::refusesGroupReadableKeyFile()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::chmod(QFile::encodeName(dir + QStringLiteral("/v1.key")).constData(), 0640) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesOtherReadableCurrentFile()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::chmod(QFile::encodeName(dir + QStringLiteral("/current")).constData(), 0604) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesSymlinkedKeyFile()
{
    const QString dir = makeValidDirectory();
    const QString elsewhere = m_temp->filePath(QStringLiteral("elsewhere.key"));
    QVERIFY(writeFile(elsewhere, keyText('c')));
    QVERIFY(symlinkTo(elsewhere, dir + QStringLiteral("/v3.key")));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesSymlinkedCurrentFile()
{
    const QString dir = makeValidDirectory();
    const QString elsewhere = m_temp->filePath(QStringLiteral("current-elsewhere"));
    QVERIFY(writeFile(elsewhere, "v1\n"));
    QVERIFY(QFile::remove(dir + QStringLiteral("/current")));
    QVERIFY(symlinkTo(elsewhere, dir + QStringLiteral("/current")));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesSymlinkedDirectory()
{
    const QString dir = makeValidDirectory();
    const QString link = m_temp->filePath(QStringLiteral("link"));
    QVERIFY(symlinkTo(dir, link));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("ok"));
    QCOMPARE(errorCode(DirectoryKeyring::open(link)), QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(errorCode(DirectoryKeyring::open(link + u'/')),
             QStringLiteral("keyring.unsafe_directory"));
}

void DirectoryKeyringTest::refusesRelativeAndUncleanPaths()
{
    const QString dir = makeValidDirectory();
    const QString parent = QFileInfo(dir).dir().path();
    QVERIFY(QDir::setCurrent(parent));
    QCOMPARE(errorCode(DirectoryKeyring::open(QStringLiteral("keys"))),
             QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(errorCode(DirectoryKeyring::open(QStringLiteral("./keys"))),
             QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(
        errorCode(DirectoryKeyring::open(parent + QStringLiteral("/../") +
                                         QFileInfo(parent).fileName() + QStringLiteral("/keys"))),
        QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(errorCode(DirectoryKeyring::open(parent + QStringLiteral("//keys"))),
             QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(errorCode(DirectoryKeyring::open(QString())),
             QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(errorCode(DirectoryKeyring::open(QStringLiteral("/"))),
             QStringLiteral("keyring.unsafe_directory"));
    QVERIFY(QDir::setCurrent(QDir::tempPath()));
}

void DirectoryKeyringTest::refusesMissingDirectory()
{
    QCOMPARE(errorCode(DirectoryKeyring::open(m_temp->filePath(QStringLiteral("absent")))),
             QStringLiteral("keyring.missing_directory"));
}

void DirectoryKeyringTest::refusesUnknownFile()
{
    const QString dir = makeValidDirectory();
    QVERIFY(writeFile(dir + QStringLiteral("/README"), "notes"));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unknown_file"));
}

void DirectoryKeyringTest::refusesSubdirectory()
{
    const QString dir = makeValidDirectory();
    QVERIFY(QDir().mkdir(dir + QStringLiteral("/old")));
    QVERIFY(::chmod(QFile::encodeName(dir + QStringLiteral("/old")).constData(), 0700) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesFifo()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::mkfifo(QFile::encodeName(dir + QStringLiteral("/v3.key")).constData(), 0600) == 0);
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unsafe_file"));
}

void DirectoryKeyringTest::refusesEqualBytes()
{
    const QString dir = makeValidDirectory();
    QVERIFY(writeFile(dir + QStringLiteral("/v3.key"), keyText('a')));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.duplicate_key"));
}

void DirectoryKeyringTest::refusesMissingCurrentKey()
{
    const QString dir = makeValidDirectory();
    QVERIFY(QFile::remove(dir + QStringLiteral("/v2.key")));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.missing_current"));
    QVERIFY(QFile::remove(dir + QStringLiteral("/current")));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.missing_current"));
}

void DirectoryKeyringTest::refusesOversizedKeyFile()
{
    const QString dir = makeValidDirectory();
    QVERIFY(writeFile(dir + QStringLiteral("/v1.key"), keyText('a').repeated(200)));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.bad_key_file"));
}

void DirectoryKeyringTest::unknownVersionIsAnError()
{
    const QString dir = makeValidDirectory();
    Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
    QVERIFY(keyring.ok());
    const Result<SecretBytes> key = keyring->key(QStringLiteral("v9"));
    QVERIFY(!key.ok());
    QCOMPARE(key.error().code, QStringLiteral("keyring.unknown_version"));
    QVERIFY(!keyring->key(QString()).ok());
}

void DirectoryKeyringTest::initCreatesPrivateFilesWhateverTheUmask()
{
    const UmaskGuard umask(0);
    const QString dir = m_temp->filePath(QStringLiteral("fresh"));
    const Result<QString> version = KeyDirectory::init(dir);
    QVERIFY(version.ok());
    QCOMPARE(modeOf(dir), mode_t(0700));
    QCOMPARE(modeOf(dir + QStringLiteral("/current")), mode_t(0600));
    QCOMPARE(modeOf(KeyDirectoryLoader::keyFileName(dir + u'/' + *version)), mode_t(0600));
    QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size(),
             qsizetype(2));

    QFile current(dir + QStringLiteral("/current"));
    QVERIFY(current.open(QIODevice::ReadOnly));
    QCOMPARE(current.readAll(), version->toLatin1() + '\n');
    QFile keyFile(dir + u'/' + KeyDirectoryLoader::keyFileName(*version));
    QVERIFY(keyFile.open(QIODevice::ReadOnly));
    const QByteArray text = keyFile.readAll();
    QCOMPARE(text.size(), qsizetype(45));
    QCOMPARE(QByteArray::fromBase64(text.trimmed()).size(), qsizetype(32));

    Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
    QCOMPARE(errorCode(keyring), QStringLiteral("ok"));
    QCOMPARE(keyring->currentVersion().value(), *version);
    QCOMPARE(keyring->key(*version).value().bytes(), QByteArray::fromBase64(text.trimmed()));
}

void DirectoryKeyringTest::initRefusesExistingPathAndMissingParent()
{
    const QString dir = makeValidDirectory();
    const Result<QString> again = KeyDirectory::init(dir);
    QVERIFY(!again.ok());
    QCOMPARE(again.error().code, QStringLiteral("keyring.already_exists"));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("ok"));

    const Result<QString> orphan = KeyDirectory::init(m_temp->filePath(QStringLiteral("a/b")));
    QVERIFY(!orphan.ok());
    QCOMPARE(orphan.error().code, QStringLiteral("keyring.missing_directory"));
}

void DirectoryKeyringTest::initRefusesRelativePath()
{
    QVERIFY(QDir::setCurrent(m_temp->path()));
    const Result<QString> version = KeyDirectory::init(QStringLiteral("relative"));
    QVERIFY(QDir::setCurrent(QDir::tempPath()));
    QVERIFY(!version.ok());
    QCOMPARE(version.error().code, QStringLiteral("keyring.unsafe_directory"));
    QVERIFY(!QFileInfo::exists(m_temp->filePath(QStringLiteral("relative"))));
}

void DirectoryKeyringTest::roundTrip()
{
    const QString dir = m_temp->filePath(QStringLiteral("keys"));
    const Result<QString> first = KeyDirectory::init(dir);
    QVERIFY(first.ok());
    const SecretBytes firstKey = DirectoryKeyring::open(dir).value().key(*first).value();

    const Result<QString> second = KeyDirectory::addKey(dir);
    QVERIFY(second.ok());
    QVERIFY(*second != *first);
    {
        Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
        QCOMPARE(errorCode(keyring), QStringLiteral("ok"));
        QCOMPARE(keyring->currentVersion().value(), *first); // add does not switch
        QCOMPARE(keyring->versions().size(), 2);
        QCOMPARE(keyring->key(*first).value().bytes(), firstKey.bytes());
        QVERIFY(keyring->key(*second).value().bytes() != firstKey.bytes());
    }

    QVERIFY(KeyDirectory::useKey(dir, *second).ok());
    QCOMPARE(DirectoryKeyring::open(dir).value().currentVersion().value(), *second);

    const Result<Unit> removeCurrent = KeyDirectory::removeKey(dir, *second);
    QVERIFY(!removeCurrent.ok());
    QCOMPARE(removeCurrent.error().code, QStringLiteral("keyring.remove_current"));
    const Result<Unit> removeUnknown = KeyDirectory::removeKey(dir, QStringLiteral("nope"));
    QCOMPARE(removeUnknown.error().code, QStringLiteral("keyring.unknown_version"));
    const Result<Unit> useUnknown = KeyDirectory::useKey(dir, QStringLiteral("nope"));
    QCOMPARE(useUnknown.error().code, QStringLiteral("keyring.unknown_version"));
    const Result<Unit> useBadName = KeyDirectory::useKey(dir, QStringLiteral("../current"));
    QCOMPARE(useBadName.error().code, QStringLiteral("keyring.unknown_version"));

    QVERIFY(KeyDirectory::removeKey(dir, *first).ok());
    Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
    QCOMPARE(errorCode(keyring), QStringLiteral("ok"));
    QCOMPARE(keyring->versions(), QStringList{*second});
    QVERIFY(!keyring->key(*first).ok());
    QVERIFY(!QFileInfo::exists(dir + u'/' + KeyDirectoryLoader::keyFileName(*first)));
    const QStringList files =
        QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(files,
             QStringList({QStringLiteral("current"), KeyDirectoryLoader::keyFileName(*second)}));
    for (const QString &name : files)
        QCOMPARE(modeOf(dir + u'/' + name), mode_t(0600));
}

void DirectoryKeyringTest::changesRefuseAnInvalidDirectory()
{
    const QString dir = makeValidDirectory();
    QVERIFY(::chmod(QFile::encodeName(dir + QStringLiteral("/v1.key")).constData(), 0640) == 0);
    const Result<QString> added = KeyDirectory::addKey(dir);
    QVERIFY(!added.ok());
    QCOMPARE(added.error().code, QStringLiteral("keyring.unsafe_file"));
    QCOMPARE(KeyDirectory::useKey(dir, QStringLiteral("v1")).error().code,
             QStringLiteral("keyring.unsafe_file"));
    QCOMPARE(KeyDirectory::removeKey(dir, QStringLiteral("v1")).error().code,
             QStringLiteral("keyring.unsafe_file"));
    QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size(),
             qsizetype(3));
    QFile current(dir + QStringLiteral("/current"));
    QVERIFY(current.open(QIODevice::ReadOnly));
    QCOMPARE(current.readAll(), QByteArray("v2\n"));

    const QString link = m_temp->filePath(QStringLiteral("link"));
    QVERIFY(::chmod(QFile::encodeName(dir + QStringLiteral("/v1.key")).constData(), 0600) == 0);
    QVERIFY(symlinkTo(dir, link));
    QCOMPARE(KeyDirectory::addKey(link).error().code, QStringLiteral("keyring.unsafe_directory"));
}

void DirectoryKeyringTest::changeRemovesLeftoverTemporaryFile()
{
    const QString dir = makeValidDirectory();
    const QString leftover = dir + u'/' + KeyDirectory::temporaryPrefix() + QStringLiteral("dead");
    QVERIFY(writeFile(leftover, keyText('c')));
    QCOMPARE(errorCode(DirectoryKeyring::open(dir)), QStringLiteral("keyring.unknown_file"));
    QVERIFY(KeyDirectory::useKey(dir, QStringLiteral("v1")).ok());
    QVERIFY(!QFileInfo::exists(leftover));
    Result<DirectoryKeyring> keyring = DirectoryKeyring::open(dir);
    QCOMPARE(errorCode(keyring), QStringLiteral("ok"));
    QCOMPARE(keyring->currentVersion().value(), QStringLiteral("v1"));
}

QTEST_GUILESS_MAIN(DirectoryKeyringTest)
#include "tst_directorykeyring.moc"
