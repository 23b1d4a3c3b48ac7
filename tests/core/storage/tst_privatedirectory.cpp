// The private directory the vault store and the key directory live in: clean absolute paths
// only, created 0700 whatever the umask, and refused when it is a symbolic link, not a
// directory, or open to group or others. (Another owner needs a second user; the stores'
// tests cover their own mapping of each failure.)

#include "storage/PrivateDirectory.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <sys/stat.h>

using namespace veetbot;

using Failure = PrivateDirectory::Failure;

class TestPrivateDirectory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void onlyCleanAbsolutePaths_data();
    void onlyCleanAbsolutePaths();
    void createIsOwnerOnlyWhateverTheUmask();
    void createRefusesAnExistingOrOrphanedName();
    void openAcceptsOnlyAPrivateDirectory_data();
    void openAcceptsOnlyAPrivateDirectory();
    void descriptorOutlivesARenamedPath();
    void entryNamesListsEverythingButDots();

private:
    QString path(const char *name) const { return m_dir->filePath(QLatin1String(name)); }
    static mode_t modeOf(const QString &path);

    std::unique_ptr<QTemporaryDir> m_dir;
};

mode_t TestPrivateDirectory::modeOf(const QString &path)
{
    struct stat status
    {
    };
    if (::lstat(QFile::encodeName(path).constData(), &status) != 0)
        return mode_t(-1);
    return status.st_mode & 07777;
}

void TestPrivateDirectory::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestPrivateDirectory::onlyCleanAbsolutePaths_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("absolute") << QStringLiteral("/a/b") << true;
    QTest::newRow("one trailing slash") << QStringLiteral("/a/b/") << true;
    QTest::newRow("relative") << QStringLiteral("a/b") << false;
    QTest::newRow("dot relative") << QStringLiteral("./a") << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("root") << QStringLiteral("/") << false;
    QTest::newRow("dot dot") << QStringLiteral("/a/../b") << false;
    QTest::newRow("dot") << QStringLiteral("/a/./b") << false;
    QTest::newRow("double slash") << QStringLiteral("/a//b") << false;
    QTest::newRow("two trailing slashes") << QStringLiteral("/a/b//") << false;
    QTest::newRow("nul") << QStringLiteral("/a/b") + QChar(0) + QStringLiteral("c") << false;
}

void TestPrivateDirectory::onlyCleanAbsolutePaths()
{
    QFETCH(QString, path);
    QFETCH(bool, accepted);
    QCOMPARE(PrivateDirectory::nativePath(path).has_value(), accepted);
    if (!accepted) {
        QCOMPARE(PrivateDirectory::open(path).failure(), Failure::BadPath);
        QCOMPARE(PrivateDirectory::create(path).failure(), Failure::BadPath);
    }
}

void TestPrivateDirectory::createIsOwnerOnlyWhateverTheUmask()
{
    // A umask that takes the owner's write bit too.
    const mode_t saved = ::umask(0277);
    const PrivateDirectory created = PrivateDirectory::create(path("store"));
    ::umask(saved);
    QVERIFY(created.isOpen());
    QCOMPARE(modeOf(path("store")), mode_t(0700));

    const PrivateDirectory opened = PrivateDirectory::open(path("store") + u'/');
    QVERIFY(opened.isOpen());
}

void TestPrivateDirectory::createRefusesAnExistingOrOrphanedName()
{
    QVERIFY(PrivateDirectory::create(path("store")).isOpen());
    QCOMPARE(PrivateDirectory::create(path("store")).failure(), Failure::Exists);
    QVERIFY(QFile::link(path("elsewhere"), path("dangling")));
    QCOMPARE(PrivateDirectory::create(path("dangling")).failure(), Failure::Exists);
    QCOMPARE(PrivateDirectory::create(path("missing/store")).failure(), Failure::Missing);
    QVERIFY(!QFile::exists(path("elsewhere")));
}

void TestPrivateDirectory::openAcceptsOnlyAPrivateDirectory_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("failure"); // -1: opens
    QTest::newRow("private") << QStringLiteral("private") << -1;
    QTest::newRow("group readable") << QStringLiteral("group") << int(Failure::Unsafe);
    QTest::newRow("other executable") << QStringLiteral("other") << int(Failure::Unsafe);
    QTest::newRow("symbolic link") << QStringLiteral("link") << int(Failure::Unsafe);
    QTest::newRow("regular file") << QStringLiteral("file") << int(Failure::Unsafe);
    QTest::newRow("missing") << QStringLiteral("missing") << int(Failure::Missing);
}

void TestPrivateDirectory::openAcceptsOnlyAPrivateDirectory()
{
    QFETCH(QString, name);
    QFETCH(int, failure);
    const auto makeDirectory = [this](const char *leaf, mode_t mode) {
        return ::mkdir(QFile::encodeName(path(leaf)).constData(), 0700) == 0 &&
               ::chmod(QFile::encodeName(path(leaf)).constData(), mode) == 0;
    };
    QVERIFY(makeDirectory("private", 0700));
    QVERIFY(makeDirectory("group", 0740));
    QVERIFY(makeDirectory("other", 0701));
    QVERIFY(QFile::link(path("private"), path("link")));
    QFile file(path("file"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));

    const PrivateDirectory opened = PrivateDirectory::open(m_dir->filePath(name));
    QCOMPARE(opened.isOpen(), failure < 0);
    if (failure >= 0)
        QCOMPARE(int(opened.failure()), failure);
}

void TestPrivateDirectory::descriptorOutlivesARenamedPath()
{
    PrivateDirectory directory = PrivateDirectory::create(path("store"));
    QVERIFY(directory.isOpen());
    QVERIFY(QFile::rename(path("store"), path("moved")));
    QVERIFY(PrivateDirectory::create(path("store")).isOpen());
    // The descriptor still names the directory it opened, not whatever has the path now.
    QVERIFY(::mkdirat(directory.fd(), "inside", 0700) == 0);
    QVERIFY(QFile::exists(path("moved/inside")));
    QVERIFY(!QFile::exists(path("store/inside")));
    const FileDescriptor taken = directory.takeDescriptor();
    QVERIFY(taken.isValid());
    QVERIFY(!directory.isOpen());
}

void TestPrivateDirectory::entryNamesListsEverythingButDots()
{
    PrivateDirectory directory = PrivateDirectory::create(path("store"));
    QVERIFY(directory.isOpen());
    const std::optional<QList<QByteArray>> empty = PrivateDirectory::entryNames(directory.fd());
    QVERIFY(empty);
    QVERIFY(empty->isEmpty());
    for (const char *name : {"a", ".hidden", "b.env"}) {
        QFile file(path("store/") + QLatin1String(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QVERIFY(::mkdirat(directory.fd(), "sub", 0700) == 0);
    // Twice: the listing starts from the beginning each time.
    for (int round = 0; round < 2; ++round) {
        std::optional<QList<QByteArray>> names = PrivateDirectory::entryNames(directory.fd());
        QVERIFY(names);
        std::sort(names->begin(), names->end());
        QCOMPARE(*names, (QList<QByteArray>{".hidden", "a", "b.env", "sub"}));
    }
    QVERIFY(!PrivateDirectory::entryNames(-1));
}

QTEST_GUILESS_MAIN(TestPrivateDirectory)
#include "tst_privatedirectory.moc"
