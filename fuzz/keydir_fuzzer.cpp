// libFuzzer target for KeyDirectoryLoader::load and the key-file codec.
//
// Input: a sequence of records, each
//   [flags] [mode] [name length] name [content length] content
// flags bits 0-1: type (regular, directory, symlink, other); bit 2: owned by another uid;
// mode: permission bits (the low 9 bits of mode << 1 | flags bit 3). The entry named "." is
// the directory itself. Besides load() never crashing, the target checks that the result
// does not depend on the order of the entries, that success means a consistent keyring
// (current present, 32-byte keys, all distinct, valid names), and that every key file the
// decoder accepts re-encodes to the same text.

#include "vault/KeyDirectoryLoader.h"
#include "vault/KeyVersion.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <algorithm>

using namespace veetbot;

namespace {

constexpr uid_t kUid = 4242;

QList<KeyDirectoryEntry> decodeEntries(const uint8_t *data, size_t size)
{
    QList<KeyDirectoryEntry> entries;
    size_t at = 0;
    const auto take = [&](size_t n) -> const uint8_t * {
        if (size - at < n)
            return nullptr;
        const uint8_t *p = data + at;
        at += n;
        return p;
    };
    while (at < size && entries.size() <= KeyDirectoryLoader::kMaxEntries + 1) {
        const uint8_t *header = take(2);
        if (header == nullptr)
            break;
        const uint8_t *nameLength = take(1);
        if (nameLength == nullptr)
            break;
        const uint8_t *name = take(*nameLength);
        if (name == nullptr)
            break;
        const uint8_t *contentLength = take(1);
        if (contentLength == nullptr)
            break;
        const uint8_t *content = take(*contentLength);
        if (content == nullptr)
            break;

        KeyDirectoryEntry entry;
        entry.type = static_cast<KeyDirectoryEntry::Type>(header[0] & 0x3);
        entry.uid = (header[0] & 0x4) ? kUid + 1 : kUid;
        entry.mode = mode_t(((header[1] << 1) | ((header[0] >> 3) & 1)) & 0777);
        entry.name = QString::fromUtf8(reinterpret_cast<const char *>(name), *nameLength);
        entry.bytes = QByteArray(reinterpret_cast<const char *>(content), *contentLength);
        entries.append(entry);
    }
    return entries;
}

void check(bool condition)
{
    if (!condition)
        std::abort();
}

void checkConsistent(const KeyMaterial &material)
{
    check(KeyVersion::isValid(QStringView(material.current)));
    check(material.keys.find(material.current) != material.keys.end());
    check(!material.keys.empty() &&
          qsizetype(material.keys.size()) <= KeyDirectoryLoader::kMaxKeys);
    for (auto i = material.keys.begin(); i != material.keys.end(); ++i) {
        check(KeyVersion::isValid(QStringView(i->first)));
        check(i->second.size() == KeyDirectoryLoader::kKeyBytes);
        for (auto j = std::next(i); j != material.keys.end(); ++j)
            check(i->second.bytes() != j->second.bytes());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The whole input as one key file: accepted text must be canonical.
    const QByteArrayView text(reinterpret_cast<const char *>(data), qsizetype(size));
    const Result<SecretBytes> key = KeyDirectoryLoader::decodeKeyFile(text);
    if (key.ok()) {
        check(key->size() == KeyDirectoryLoader::kKeyBytes);
        const SecretBytes encoded = KeyDirectoryLoader::encodeKeyFile(*key);
        const QByteArrayView withoutNewline = text.endsWith('\n') ? text.chopped(1) : text;
        check(encoded.bytes().chopped(1) == withoutNewline);
    }

    QList<KeyDirectoryEntry> entries = decodeEntries(data, size);
    const Result<KeyMaterial> forward = KeyDirectoryLoader::load(entries, kUid);
    std::reverse(entries.begin(), entries.end());
    const Result<KeyMaterial> backward = KeyDirectoryLoader::load(entries, kUid);
    check(forward.ok() == backward.ok());
    if (forward.ok()) {
        checkConsistent(*forward);
        checkConsistent(*backward);
        check(forward->current == backward->current);
        check(forward->keys.size() == backward->keys.size());
        for (const auto &[version, bytes] : forward->keys)
            check(backward->keys.at(version).bytes() == bytes.bytes());
    } else {
        check(forward.error() == backward.error());
        check(forward.error().code.startsWith(QStringLiteral("keyring.")));
    }
    return 0;
}
