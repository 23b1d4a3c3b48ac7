#pragma once

#include "domain/Result.h"
#include "storage/FileDescriptor.h"

#include <QProcessEnvironment>
#include <QString>

namespace veetbot {

// Where one data directory's profile service listens: `service.sock` in the runtime
// directory, which is $VEETBOT_RUNTIME_DIR, else $XDG_RUNTIME_DIR/veetbot, else
// <data directory>/run. The directory is private (0700, this user's); the socket path fits a
// sockaddr_un (at most 107 bytes).
class ServiceLocation
{
public:
    static constexpr int kMaxSocketPathBytes = 107;

    static Result<ServiceLocation> resolve(const QString &dataDirectory,
                                           const QProcessEnvironment &environment);

    QString runtimeDirectory() const { return m_runtimeDirectory; }
    QString socketPath() const { return m_runtimeDirectory + QStringLiteral("/service.sock"); }
    QString lockPath() const { return m_runtimeDirectory + QStringLiteral("/service.lock"); }

    // Creates the runtime directory (0700) when missing and checks that it is private.
    Result<Unit> ensureRuntimeDirectory() const;
    // Before a client sends its credential to the socket: a runtime directory that is there
    // must be private (a loose or linked one could hold anybody's socket); a missing one is
    // fine (nothing answers there yet). service.runtime_unavailable otherwise.
    Result<Unit> checkRuntimeDirectory() const;

    // The service lock: held by the one service of this runtime directory for its life.
    // service.already_running when another process holds it. Holding it, a socket left by a
    // service that died is unlinked.
    Result<FileDescriptor> acquireServiceLock() const;
    // Whether a process holds the service lock now (a service runs, or is still ending).
    bool isLockHeld() const;

private:
    QString m_runtimeDirectory;
};

} // namespace veetbot
