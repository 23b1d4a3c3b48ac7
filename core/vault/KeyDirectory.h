#pragma once

#include "domain/Result.h"
#include "vault/KeyDirectoryLoader.h"

#include <QString>

namespace veetbot {

// The filesystem side of a key directory: reads it into entries for KeyDirectoryLoader, and
// makes the changes behind `veetbot keys init | add | use | remove`. Paths must be absolute
// and clean, the directory is opened with O_NOFOLLOW, files are read with openat/O_NOFOLLOW
// and fstat, and every write is a private temporary file that is fsynced and renamed into
// place. It never writes a key anywhere but its own files, never follows a symbolic link and
// never changes a directory that does not load.
class KeyDirectory
{
public:
    // Reads and validates the directory; every key read is wiped from the read buffers.
    static Result<KeyMaterial> load(const QString &path);

    // Creates `path` (mode 0700; its parent must exist) with one random key and `current`
    // naming it. Returns the new version. keyring.already_exists if `path` exists.
    static Result<QString> init(const QString &path);
    // Adds a random key under a new version; `current` is unchanged. Returns the version.
    static Result<QString> addKey(const QString &path);
    // Makes `version` (which must have a key) the current one.
    static Result<Unit> useKey(const QString &path, const QString &version);
    // Removes the key of `version`; refuses the current version (keyring.remove_current).
    // The caller checks first that no envelope still names it.
    static Result<Unit> removeKey(const QString &path, const QString &version);

    // The prefix of this class's temporary files. A leftover one (from a crash) makes the
    // directory fail to load; the next add/use/remove deletes it first.
    static QString temporaryPrefix();
};

} // namespace veetbot
