#include "vault/KeyDirectoryLoader.h"
#include "vault/KeyVersion.h"
#include "vault/KeyringError.h"

#include <QSet>
#include <QTest>

#include <algorithm>

using namespace veetbot;

Q_DECLARE_METATYPE(QList<veetbot::KeyDirectoryEntry>)

namespace {

constexpr uid_t kUid = 1000;
using Type = KeyDirectoryEntry::Type;

QByteArray keyBytes(char fill)
{
    return QByteArray(32, fill);
}

QByteArray keyText(char fill)
{
    return keyBytes(fill).toBase64() + '\n';
}

KeyDirectoryEntry directory(mode_t mode = 0700, uid_t uid = kUid, Type type = Type::Directory)
{
    return KeyDirectoryEntry{QStringLiteral("."), mode, uid, type, QByteArray()};
}

KeyDirectoryEntry file(const QString &name, const QByteArray &bytes, mode_t mode = 0600,
                       uid_t uid = kUid, Type type = Type::Regular)
{
    return KeyDirectoryEntry{name, mode, uid, type, bytes};
}

// A valid directory: current "v2", keys v1 ('a' bytes) and v2 ('b' bytes).
QList<KeyDirectoryEntry> valid()
{
    return {directory(), file(QStringLiteral("current"), "v2\n"),
            file(QStringLiteral("v1.key"), keyText('a')),
            file(QStringLiteral("v2.key"), keyText('b'))};
}

QList<KeyDirectoryEntry> replaced(QList<KeyDirectoryEntry> entries, const KeyDirectoryEntry &entry)
{
    for (KeyDirectoryEntry &e : entries) {
        if (e.name == entry.name) {
            e = entry;
            return entries;
        }
    }
    entries.append(entry);
    return entries;
}

QList<KeyDirectoryEntry> without(QList<KeyDirectoryEntry> entries, const QString &name)
{
    entries.removeIf([&](const KeyDirectoryEntry &e) { return e.name == name; });
    return entries;
}

QString code(KeyringError error)
{
    return keyringErrorCode(error);
}

} // namespace

// The key-directory rules as a pure function: every way a listing can be refused, and what a
// valid one yields.
class KeyDirectoryLoaderTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void loadsValidDirectory();
    void acceptsFilesWithoutNewline();
    void refuses_data();
    void refuses();
    void refusalDoesNotDependOnOrder_data();
    void refusalDoesNotDependOnOrder();
    void errorsCarryNoInput();
    void decodeMatchesQtBase64();
    void encodeRoundTrips();
    void encodeRefusesWrongLength();
    void versionGrammar_data();
    void versionGrammar();
    void generatedVersions();
    void errorTableIsStable();
};

void KeyDirectoryLoaderTest::loadsValidDirectory()
{
    Result<KeyMaterial> material = KeyDirectoryLoader::load(valid(), kUid);
    QVERIFY(material.ok());
    QCOMPARE(material->current, QStringLiteral("v2"));
    QCOMPARE(material->keys.size(), size_t(2));
    QCOMPARE(material->keys.at(QStringLiteral("v1")).bytes(), keyBytes('a'));
    QCOMPARE(material->keys.at(QStringLiteral("v2")).bytes(), keyBytes('b'));
}

void KeyDirectoryLoaderTest::acceptsFilesWithoutNewline()
{
    QList<KeyDirectoryEntry> entries = valid();
    entries = replaced(entries, file(QStringLiteral("current"), "v1"));
    entries = replaced(entries, file(QStringLiteral("v1.key"), keyBytes('a').toBase64()));
    Result<KeyMaterial> material = KeyDirectoryLoader::load(entries, kUid);
    QVERIFY(material.ok());
    QCOMPARE(material->current, QStringLiteral("v1"));
    QCOMPARE(material->keys.at(QStringLiteral("v1")).bytes(), keyBytes('a'));
}

void KeyDirectoryLoaderTest::refuses_data()
{
    QTest::addColumn<QList<KeyDirectoryEntry>>("entries");
    QTest::addColumn<QString>("error");

    const QString unsafeDirectory = code(KeyringError::UnsafeDirectory);
    QTest::newRow("no directory entry") << without(valid(), QStringLiteral(".")) << unsafeDirectory;
    QTest::newRow("directory group-readable")
        << replaced(valid(), directory(0750)) << unsafeDirectory;
    QTest::newRow("directory group-writable")
        << replaced(valid(), directory(0720)) << unsafeDirectory;
    QTest::newRow("directory other-searchable")
        << replaced(valid(), directory(0701)) << unsafeDirectory;
    QTest::newRow("directory other uid")
        << replaced(valid(), directory(0700, kUid + 1)) << unsafeDirectory;
    QTest::newRow("directory root-owned")
        << replaced(valid(), directory(0700, 0)) << unsafeDirectory;
    QTest::newRow("directory is a symlink")
        << replaced(valid(), directory(0700, kUid, Type::Symlink)) << unsafeDirectory;
    QTest::newRow("directory is a file")
        << replaced(valid(), directory(0700, kUid, Type::Regular)) << unsafeDirectory;

    const QString unsafeFile = code(KeyringError::UnsafeFile);
    QTest::newRow("key group-readable")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyText('a'), 0640)) << unsafeFile;
    QTest::newRow("key other-readable")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyText('a'), 0604)) << unsafeFile;
    QTest::newRow("key group-executable")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyText('a'), 0610)) << unsafeFile;
    QTest::newRow("current other-writable")
        << replaced(valid(), file(QStringLiteral("current"), "v2\n", 0602)) << unsafeFile;
    QTest::newRow("key other uid")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyText('a'), 0600, kUid + 1))
        << unsafeFile;
    QTest::newRow("current other uid")
        << replaced(valid(), file(QStringLiteral("current"), "v2\n", 0600, 0)) << unsafeFile;
    QTest::newRow("key is a symlink")
        << replaced(valid(),
                    file(QStringLiteral("v1.key"), QByteArray(), 0777, kUid, Type::Symlink))
        << unsafeFile;
    QTest::newRow("current is a symlink")
        << replaced(valid(),
                    file(QStringLiteral("current"), QByteArray(), 0777, kUid, Type::Symlink))
        << unsafeFile;
    QTest::newRow("key is a directory")
        << replaced(valid(),
                    file(QStringLiteral("v1.key"), QByteArray(), 0700, kUid, Type::Directory))
        << unsafeFile;
    QTest::newRow("key is a fifo")
        << replaced(valid(), file(QStringLiteral("v1.key"), QByteArray(), 0600, kUid, Type::Other))
        << unsafeFile;
    QTest::newRow("unknown subdirectory")
        << replaced(valid(), file(QStringLiteral("old"), QByteArray(), 0700, kUid, Type::Directory))
        << unsafeFile;

    const QString unknownFile = code(KeyringError::UnknownFile);
    QTest::newRow("unknown file") << replaced(valid(), file(QStringLiteral("notes.txt"), "x"))
                                  << unknownFile;
    QTest::newRow("hidden file") << replaced(valid(), file(QStringLiteral(".hidden"), ""))
                                 << unknownFile;
    QTest::newRow("leftover temporary")
        << replaced(valid(), file(QStringLiteral(".veetbot-tmp-0011"), keyText('c')))
        << unknownFile;
    QTest::newRow("editor backup")
        << replaced(valid(), file(QStringLiteral("current~"), "v1\n")) << unknownFile;
    QTest::newRow("upper-case current") << replaced(without(valid(), QStringLiteral("current")),
                                                    file(QStringLiteral("CURRENT"), "v2\n"))
                                        << unknownFile;
    QTest::newRow("key without suffix")
        << replaced(valid(), file(QStringLiteral("v3"), keyText('c'))) << unknownFile;
    QTest::newRow("empty name") << replaced(valid(), file(QString(), "")) << unknownFile;

    const QString badVersion = code(KeyringError::BadVersion);
    QTest::newRow("upper-case version")
        << replaced(valid(), file(QStringLiteral("V3.key"), keyText('c'))) << badVersion;
    QTest::newRow("version leading dash")
        << replaced(valid(), file(QStringLiteral("-v3.key"), keyText('c'))) << badVersion;
    QTest::newRow("version leading underscore")
        << replaced(valid(), file(QStringLiteral("_v3.key"), keyText('c'))) << badVersion;
    QTest::newRow("empty version")
        << replaced(valid(), file(QStringLiteral(".key"), keyText('c'))) << badVersion;
    QTest::newRow("version with dot")
        << replaced(valid(), file(QStringLiteral("v.3.key"), keyText('c'))) << badVersion;
    QTest::newRow("version with space")
        << replaced(valid(), file(QStringLiteral("v 3.key"), keyText('c'))) << badVersion;
    QTest::newRow("version non-ascii")
        << replaced(valid(), file(QStringLiteral("v\u00e9.key"), keyText('c'))) << badVersion;
    QTest::newRow("version 65 characters")
        << replaced(valid(), file(QString(65, u'a') + QStringLiteral(".key"), keyText('c')))
        << badVersion;

    QTest::newRow("duplicate name") << (valid() << file(QStringLiteral("v1.key"), keyText('c')))
                                    << code(KeyringError::DuplicateFile);

    QList<KeyDirectoryEntry> crowded = valid();
    for (int i = 0; crowded.size() <= KeyDirectoryLoader::kMaxEntries; ++i)
        crowded.append(file(QStringLiteral("x%1.key").arg(i), keyText('z')));
    QTest::newRow("too many files") << crowded << code(KeyringError::TooManyFiles);

    const QString missingCurrent = code(KeyringError::MissingCurrent);
    QTest::newRow("no current file")
        << without(valid(), QStringLiteral("current")) << missingCurrent;
    QTest::newRow("current names absent key")
        << replaced(valid(), file(QStringLiteral("current"), "v9\n")) << missingCurrent;
    QTest::newRow("current key removed")
        << without(valid(), QStringLiteral("v2.key")) << missingCurrent;
    QTest::newRow("no keys at all")
        << QList<KeyDirectoryEntry>{directory(), file(QStringLiteral("current"), "v1\n")}
        << missingCurrent;

    const QString badCurrent = code(KeyringError::BadCurrent);
    const QList<QByteArray> badCurrents{"",       "\n",
                                        "v2\n\n", "v2 ",
                                        " v2",    "V2",
                                        "v2\r\n", "v2\t",
                                        "v 2",    QByteArray("v2\0", 3),
                                        "\xff",   QByteArray(65, 'a')};
    for (const QByteArray &content : badCurrents) {
        QTest::newRow(qPrintable(
            QStringLiteral("current %1").arg(QString::fromLatin1(content.toPercentEncoding()))))
            << replaced(valid(), file(QStringLiteral("current"), content)) << badCurrent;
    }

    const QString badKeyFile = code(KeyringError::BadKeyFile);
    const QByteArray good = keyBytes('c').toBase64();
    QByteArray nonCanonical = good;
    nonCanonical[42] = 'd'; // the same key ends in 'M'; 'd' sets a bit beyond the 32 bytes
    QByteArray badChar = good;
    badChar[5] = '*';
    QByteArray urlSafe = QByteArray(32, '\xfb').toBase64();
    urlSafe.replace('+', '-').replace('/', '_');
    const QList<std::pair<const char *, QByteArray>> badKeys{
        {"empty", ""},
        {"raw 32 bytes", keyBytes('c')},
        {"43 characters", good.left(43)},
        {"one character more", good + 'A'},
        {"no padding", good.left(43) + 'A'},
        {"31 bytes", QByteArray(31, 'c').toBase64()},
        {"33 bytes", QByteArray(33, 'c').toBase64()},
        {"64 bytes", QByteArray(64, 'c').toBase64()},
        {"two newlines", good + "\n\n"},
        {"crlf", good + "\r\n"},
        {"leading space", ' ' + good},
        {"trailing space", good + ' '},
        {"leading newline", '\n' + good},
        {"bad character", badChar},
        {"url-safe alphabet", urlSafe},
        {"non-canonical padding bits", nonCanonical},
        {"oversized", QByteArray(KeyDirectoryLoader::kMaxFileBytes + 1, 'A')},
        {"nul inside", good.left(20) + '\0' + good.mid(21)},
    };
    for (const auto &[name, content] : badKeys) {
        QTest::newRow(qPrintable(QStringLiteral("key %1").arg(QLatin1String(name))))
            << replaced(valid(), file(QStringLiteral("v1.key"), content)) << badKeyFile;
    }

    QTest::newRow("equal bytes under two versions")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyText('b')))
        << code(KeyringError::DuplicateKey);
    QTest::newRow("equal bytes, different text")
        << replaced(valid(), file(QStringLiteral("v1.key"), keyBytes('b').toBase64()))
        << code(KeyringError::DuplicateKey);
}

void KeyDirectoryLoaderTest::refuses()
{
    QFETCH(QList<KeyDirectoryEntry>, entries);
    QFETCH(QString, error);
    const Result<KeyMaterial> material = KeyDirectoryLoader::load(entries, kUid);
    QVERIFY(!material.ok());
    QCOMPARE(material.error().code, error);
}

void KeyDirectoryLoaderTest::refusalDoesNotDependOnOrder_data()
{
    refuses_data();
}

void KeyDirectoryLoaderTest::refusalDoesNotDependOnOrder()
{
    QFETCH(QList<KeyDirectoryEntry>, entries);
    QFETCH(QString, error);
    std::reverse(entries.begin(), entries.end());
    const Result<KeyMaterial> reversed = KeyDirectoryLoader::load(entries, kUid);
    QVERIFY(!reversed.ok());
    QCOMPARE(reversed.error().code, error);
    std::rotate(entries.begin(), entries.begin() + entries.size() / 2, entries.end());
    const Result<KeyMaterial> rotated = KeyDirectoryLoader::load(entries, kUid);
    QVERIFY(!rotated.ok());
    QCOMPARE(rotated.error().code, error);
}

void KeyDirectoryLoaderTest::errorsCarryNoInput()
{
    const QByteArray secret = QByteArray(31, 'q').toBase64();
    const Result<KeyMaterial> material =
        KeyDirectoryLoader::load(replaced(valid(), file(QStringLiteral("v1.key"), secret)), kUid);
    QVERIFY(!material.ok());
    QVERIFY(!material.error().message.contains(QString::fromLatin1(secret)));
    QVERIFY(!material.error().message.contains(QStringLiteral("v1")));
    QCOMPARE(material.error().message, keyringErrorMessage(KeyringError::BadKeyFile));
}

void KeyDirectoryLoaderTest::decodeMatchesQtBase64()
{
    for (int seed = 0; seed < 256; ++seed) {
        QByteArray bytes(32, Qt::Uninitialized);
        for (int i = 0; i < 32; ++i)
            bytes[i] = char((seed * 131 + i * 29 + (i * i * seed)) & 0xff);
        const Result<SecretBytes> decoded = KeyDirectoryLoader::decodeKeyFile(bytes.toBase64());
        QVERIFY(decoded.ok());
        QCOMPARE(decoded->bytes(), bytes);
    }
}

void KeyDirectoryLoaderTest::encodeRoundTrips()
{
    for (char fill : {'\0', '\x01', 'a', '\x7f', '\xff'}) {
        const SecretBytes key(keyBytes(fill));
        const SecretBytes text = KeyDirectoryLoader::encodeKeyFile(key);
        QCOMPARE(text.bytes(), keyText(fill));
        const Result<SecretBytes> decoded = KeyDirectoryLoader::decodeKeyFile(text.bytes());
        QVERIFY(decoded.ok());
        QCOMPARE(decoded->bytes(), key.bytes());
    }
}

void KeyDirectoryLoaderTest::encodeRefusesWrongLength()
{
    QVERIFY(KeyDirectoryLoader::encodeKeyFile(SecretBytes(QByteArray(31, 'a'))).isEmpty());
    QVERIFY(KeyDirectoryLoader::encodeKeyFile(SecretBytes(QByteArray(33, 'a'))).isEmpty());
    QVERIFY(KeyDirectoryLoader::encodeKeyFile(SecretBytes()).isEmpty());
}

void KeyDirectoryLoaderTest::versionGrammar_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("single letter") << "a" << true;
    QTest::newRow("single digit") << "7" << true;
    QTest::newRow("generated shape") << "k20250131-1a2b3c4d" << true;
    QTest::newRow("underscore and dash") << "v1_old-2" << true;
    QTest::newRow("64 characters") << QString(64, u'a') << true;
    QTest::newRow("65 characters") << QString(65, u'a') << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("upper case") << "V1" << false;
    QTest::newRow("leading dash") << "-v1" << false;
    QTest::newRow("leading underscore") << "_v1" << false;
    QTest::newRow("dot") << "v.1" << false;
    QTest::newRow("slash") << "a/b" << false;
    QTest::newRow("dot dot") << ".." << false;
    QTest::newRow("space") << "v 1" << false;
    QTest::newRow("newline") << "v1\n" << false;
    QTest::newRow("non-ascii letter") << "v\u00e9" << false;
    QTest::newRow("fullwidth digit") << "\uff11" << false;
}

void KeyDirectoryLoaderTest::versionGrammar()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    QCOMPARE(KeyVersion::isValid(QStringView(name)), valid);
    QCOMPARE(KeyVersion::isValid(QByteArrayView(name.toUtf8())), valid);
}

void KeyDirectoryLoaderTest::generatedVersions()
{
    QCOMPARE(KeyVersion::generate(QDate(2025, 1, 31), QByteArrayView("\x1a\x2b\x3c\x4d", 4)),
             QStringLiteral("k20250131-1a2b3c4d"));
    QVERIFY(KeyVersion::generate(QDate(2025, 1, 31), QByteArrayView("\x1a\x2b\x3c", 3)).isEmpty());
    QVERIFY(KeyVersion::generate(QDate(), QByteArrayView("\x1a\x2b\x3c\x4d", 4)).isEmpty());
    QSet<QString> seen;
    for (int i = 0; i < 50; ++i) {
        const Result<QString> version = KeyVersion::generate();
        QVERIFY(version.ok());
        QVERIFY(KeyVersion::isValid(QStringView(*version)));
        QVERIFY(version->startsWith(
            u'k' + QDateTime::currentDateTimeUtc().date().toString(QStringLiteral("yyyyMMdd"))));
        seen.insert(*version);
    }
    QVERIFY(seen.size() >= 49); // 32 random bits each
}

void KeyDirectoryLoaderTest::errorTableIsStable()
{
    QSet<QString> codes;
    QSet<QString> messages;
    for (KeyringError error : kAllKeyringErrors) {
        const Error e = keyringError(error);
        QVERIFY(e.code.startsWith(QStringLiteral("keyring.")));
        QVERIFY(!e.message.isEmpty());
        codes.insert(e.code);
        messages.insert(e.message);
    }
    QCOMPARE(codes.size(), qsizetype(std::size(kAllKeyringErrors)));
    QCOMPARE(messages.size(), qsizetype(std::size(kAllKeyringErrors)));
    QCOMPARE(keyringErrorCode(KeyringError::UnsafeDirectory),
             QStringLiteral("keyring.unsafe_directory"));
    QCOMPARE(keyringErrorCode(KeyringError::BadKeyFile), QStringLiteral("keyring.bad_key_file"));
    QCOMPARE(keyringErrorCode(KeyringError::MissingCurrent),
             QStringLiteral("keyring.missing_current"));
    QCOMPARE(keyringErrorCode(KeyringError::DuplicateKey), QStringLiteral("keyring.duplicate_key"));
    QCOMPARE(keyringErrorCode(KeyringError::UnknownVersion),
             QStringLiteral("keyring.unknown_version"));
    QCOMPARE(keyringErrorCode(KeyringError::Unavailable), QStringLiteral("keyring.unavailable"));
    QCOMPARE(keyringErrorCode(KeyringError::Timeout), QStringLiteral("keyring.timeout"));
}

QTEST_GUILESS_MAIN(KeyDirectoryLoaderTest)
#include "tst_keydirectoryloader.moc"
