#pragma once

#include "storage/FileDescriptor.h"

#include <QByteArray>
#include <QString>
#include <QUuid>

#include <memory>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace veetbot {

// Which writers of a shared effect ledger are still alive. Next to the ledger file is a
// private directory, "<ledger>.owners/", with one empty file per open ledger instance,
// "<instance id>.lock", on which that instance holds an exclusive flock (O_CLOEXEC: no child
// program inherits it) for as long as it is open. The kernel releases the lock however the
// process ends, SIGKILL included.
//
// An owner is provably gone when its lock can be taken, or when its file is missing: only a
// holder of a file's lock ever removes it (its owner when it closes, or whoever took the lock
// of a dead owner), and a new owner checks, once it holds its lock, that its file is still the
// one in the directory (else it starts again under a fresh id). Anything the check cannot
// read counts as alive: a call is never recovered on doubt.
class OwnerLocks
{
public:
    // Opens (creating when missing, mode 0700) the owners directory of the ledger file at
    // `ledgerPath`, resolved through symbolic links, and registers a new instance holding its
    // lock. Null on failure.
    static std::unique_ptr<OwnerLocks> open(const QString &ledgerPath);
    // Removes this instance's file, then releases its lock.
    ~OwnerLocks();
    OwnerLocks(const OwnerLocks &) = delete;
    OwnerLocks &operator=(const OwnerLocks &) = delete;

    static QString directoryFor(const QString &canonicalLedgerPath);

    const QUuid &instance() const { return m_instance; }

    // True when `owner` is provably gone. The lock of a gone owner whose file is still there
    // stays held by this instance until removeGone().
    bool isGone(const QUuid &owner);
    // Removes the files of the gone owners found by isGone() and releases their locks.
    void removeGone();
    // Removes every other file in the directory whose owner is gone: instances that ended
    // without calls in flight (killed while idle) leave nothing behind for long.
    void sweep();

private:
    OwnerLocks(FileDescriptor directory, FileDescriptor lock, QUuid instance);

    FileDescriptor m_directory;
    FileDescriptor m_lock;
    QUuid m_instance;
    pid_t m_pid;
    std::vector<std::pair<QByteArray, FileDescriptor>> m_gone; // file name, its held lock
};

} // namespace veetbot
