#include "KeyDirectoryLoader.h"

#include "KeyVersion.h"
#include "KeyringError.h"

#include <QSet>

#include <openssl/crypto.h>

#include <vector>

namespace veetbot {

namespace {

const QString kDirectoryName = QStringLiteral(".");
const QString kCurrentName = QStringLiteral("current");
const QString kKeySuffix = QStringLiteral(".key");

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decodeBase64Char(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool isPrivate(mode_t mode)
{
    return (mode & 077) == 0;
}

bool isKeyFileName(const QString &name)
{
    return name.endsWith(kKeySuffix);
}

QStringView versionOf(const QString &keyFileName)
{
    return QStringView(keyFileName).chopped(kKeySuffix.size());
}

// The text with at most one trailing newline removed.
QByteArrayView withoutNewline(QByteArrayView text)
{
    if (!text.isEmpty() && text.back() == '\n')
        return text.chopped(1);
    return text;
}

} // namespace

Result<SecretBytes> KeyDirectoryLoader::decodeKeyFile(QByteArrayView text)
{
    const QByteArrayView encoded = withoutNewline(text);
    // 32 bytes are 43 characters of 6 bits (the last holding 2 bits and 4 zero bits) and "=".
    if (encoded.size() != kKeyTextBytes || encoded.back() != '=')
        return keyringError(KeyringError::BadKeyFile);
    QByteArray out(kKeyBytes, Qt::Uninitialized);
    SecretBytes key(std::move(out));
    auto *dst = const_cast<unsigned char *>(key.data());
    quint32 buffer = 0;
    int bits = 0;
    qsizetype written = 0;
    for (qsizetype i = 0; i < kKeyTextBytes - 1; ++i) {
        const int value = decodeBase64Char(encoded[i]);
        if (value < 0)
            return keyringError(KeyringError::BadKeyFile);
        buffer = (buffer << 6) | quint32(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[written++] = static_cast<unsigned char>(buffer >> bits);
            buffer &= (1u << bits) - 1;
        }
    }
    // Canonical padding only: the two leftover bits of the last character are zero.
    if (written != kKeyBytes || bits != 2 || buffer != 0)
        return keyringError(KeyringError::BadKeyFile);
    return key;
}

SecretBytes KeyDirectoryLoader::encodeKeyFile(const SecretBytes &key)
{
    if (key.size() != kKeyBytes)
        return SecretBytes();
    SecretBytes text(QByteArray(kKeyTextBytes + 1, Qt::Uninitialized));
    auto *dst = const_cast<char *>(reinterpret_cast<const char *>(text.data()));
    const unsigned char *src = key.data();
    quint32 buffer = 0;
    int bits = 0;
    qsizetype written = 0;
    for (qsizetype i = 0; i < kKeyBytes; ++i) {
        buffer = (buffer << 8) | src[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            dst[written++] = kAlphabet[(buffer >> bits) & 0x3f];
        }
        buffer &= (1u << bits) - 1;
    }
    dst[written++] = kAlphabet[(buffer << (6 - bits)) & 0x3f];
    dst[written++] = '=';
    dst[written++] = '\n';
    OPENSSL_cleanse(&buffer, sizeof buffer);
    return text;
}

QString KeyDirectoryLoader::keyFileName(const QString &version)
{
    return version + kKeySuffix;
}

Result<KeyMaterial> KeyDirectoryLoader::load(const QList<KeyDirectoryEntry> &entries, uid_t uid)
{
    // Each check is one pass over every entry, so the error does not depend on their order.
    if (entries.size() > kMaxEntries)
        return keyringError(KeyringError::TooManyFiles);

    QSet<QString> names;
    for (const KeyDirectoryEntry &entry : entries) {
        if (names.contains(entry.name))
            return keyringError(KeyringError::DuplicateFile);
        names.insert(entry.name);
    }

    const KeyDirectoryEntry *directory = nullptr;
    for (const KeyDirectoryEntry &entry : entries) {
        if (entry.name == kDirectoryName)
            directory = &entry;
    }
    if (directory == nullptr || directory->type != KeyDirectoryEntry::Type::Directory ||
        directory->uid != uid || !isPrivate(directory->mode)) {
        return keyringError(KeyringError::UnsafeDirectory);
    }

    for (const KeyDirectoryEntry &entry : entries) {
        if (&entry == directory)
            continue;
        if (entry.type != KeyDirectoryEntry::Type::Regular || entry.uid != uid ||
            !isPrivate(entry.mode)) {
            return keyringError(KeyringError::UnsafeFile);
        }
    }

    for (const KeyDirectoryEntry &entry : entries) {
        if (&entry != directory && entry.name != kCurrentName && !isKeyFileName(entry.name))
            return keyringError(KeyringError::UnknownFile);
    }
    for (const KeyDirectoryEntry &entry : entries) {
        if (isKeyFileName(entry.name) && !KeyVersion::isValid(versionOf(entry.name)))
            return keyringError(KeyringError::BadVersion);
    }

    const KeyDirectoryEntry *current = nullptr;
    for (const KeyDirectoryEntry &entry : entries) {
        if (entry.name == kCurrentName)
            current = &entry;
    }
    if (current == nullptr)
        return keyringError(KeyringError::MissingCurrent);
    const QByteArrayView currentName = withoutNewline(current->bytes);
    if (!KeyVersion::isValid(currentName))
        return keyringError(KeyringError::BadCurrent);

    KeyMaterial material;
    material.current = QString::fromLatin1(currentName);
    for (const KeyDirectoryEntry &entry : entries) {
        if (!isKeyFileName(entry.name))
            continue;
        Result<SecretBytes> key = decodeKeyFile(entry.bytes);
        if (!key)
            return key.error();
        material.keys.emplace(versionOf(entry.name).toString(), std::move(key).value());
    }

    // Equal bytes under two versions would let a record name either; refuse the directory.
    std::vector<const SecretBytes *> keys;
    keys.reserve(material.keys.size());
    for (const auto &[version, key] : material.keys)
        keys.push_back(&key);
    for (size_t i = 0; i < keys.size(); ++i) {
        for (size_t j = i + 1; j < keys.size(); ++j) {
            if (CRYPTO_memcmp(keys[i]->data(), keys[j]->data(), size_t(kKeyBytes)) == 0)
                return keyringError(KeyringError::DuplicateKey);
        }
    }

    if (material.keys.find(material.current) == material.keys.end())
        return keyringError(KeyringError::MissingCurrent);
    return material;
}

} // namespace veetbot
