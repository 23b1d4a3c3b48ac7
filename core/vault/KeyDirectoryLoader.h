#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <map>
#include <sys/types.h>

namespace veetbot {

// One name in a key directory as the filesystem layer saw it. The entry named "." describes
// the directory itself. `bytes` holds the content of regular files only (bounded by the
// reader); it may hold key text, so whoever builds entries wipes them afterwards.
struct KeyDirectoryEntry
{
    enum class Type
    {
        Regular,
        Directory,
        Symlink,
        Other
    };

    QString name;
    mode_t mode = 0; // st_mode & 07777
    uid_t uid = 0;
    Type type = Type::Other;
    QByteArray bytes;
};

// The keys of a valid key directory: every version with its 32 bytes, and the current one.
struct KeyMaterial
{
    QString current;
    std::map<QString, SecretBytes> keys;
};

// Decides whether a listing of a key directory is a valid keyring. A pure function of its
// input (no filesystem, clock or randomness), so it is table-tested and fuzzed; it never
// returns a default or derived key, and its errors never carry input bytes.
//
// A valid directory: "." is a directory owned by `uid` with no group/other bits; every other
// entry is a regular file owned by `uid` with no group/other bits, named `current` or
// `<version>.key`; `current` holds a version name with at most one trailing newline and that
// version has a key; each key file holds base64 of exactly 32 bytes (44 characters, canonical
// padding) with at most one trailing newline; no two versions hold equal bytes.
class KeyDirectoryLoader
{
public:
    static constexpr qsizetype kMaxKeys = 256;
    // ".", `current` and the keys.
    static constexpr qsizetype kMaxEntries = kMaxKeys + 2;
    // Longest content of a valid file (a key file with its newline); readers may stop at
    // kMaxFileBytes + 1.
    static constexpr qsizetype kMaxFileBytes = 65;
    static constexpr qsizetype kKeyBytes = 32;
    static constexpr qsizetype kKeyTextBytes = 44;

    static Result<KeyMaterial> load(const QList<KeyDirectoryEntry> &entries, uid_t uid);

    // Strict decoding of a key file's content; keyring.bad_key_file otherwise.
    static Result<SecretBytes> decodeKeyFile(QByteArrayView text);
    // The content of a key file for exactly 32 bytes: 44 base64 characters and a newline.
    // An empty result for any other length.
    static SecretBytes encodeKeyFile(const SecretBytes &key);
    // The file name of a version's key: "<version>.key".
    static QString keyFileName(const QString &version);
};

} // namespace veetbot
