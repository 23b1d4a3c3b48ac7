#pragma once

#include "CdpConnection.h"
#include "domain/Result.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <sys/types.h>

namespace veetbot::chromium {

// Debian's Chromium, headless, driven over the DevTools pipe (docs/decisions/0014): the
// browser reads commands on its fd 3 and writes replies and events on its fd 4. Every launch
// gets a private profile directory (0700, removed when the browser has ended; Chromium 136 and
// later refuse remote debugging on the default one), the agent browser switches, no first-run
// or default-browser checks, and nothing on its standard streams but /dev/null. The browser
// and everything it starts live in their own process group, which close() and the destructor
// end whole.
//
// It never opens a debugging port (nothing but this process can reach the protocol), never
// reads the user's own Chromium profile, and never leaves a browser behind.
class ChromiumProcess final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        // The launcher; VEETBOT_CHROMIUM overrides the default for tests and packagers.
        QString executable;
        // As root the sandbox cannot start; the caller says so (BrowserEnvironment's rule).
        bool noSandbox = false;
        // An HTTP proxy for every request ("host:port"), or empty.
        QString proxy;
        QStringList extraSwitches;
    };

    static QString defaultExecutable();
    // The installed browser's version ("156.0.8078.114", from `--version`), or empty when it
    // does not answer within timeoutMs.
    static QString installedVersion(int timeoutMs = 5000);

    explicit ChromiumProcess(QObject *parent = nullptr);
    ~ChromiumProcess() override;

    // Starts the browser; its connection is ready for commands at once (Chromium reads them
    // when it is up). chromium.unavailable when it cannot be started.
    Result<Unit> start(const Options &options);
    cdp::Connection *connection() const { return m_connection.get(); }
    pid_t processId() const { return m_pid; }
    bool isRunning() const { return m_pid > 0; }
    QString profileDirectory() const { return m_profile ? m_profile->path() : QString(); }

    // Asks the browser to close (Browser.close), ends its process group if it has not gone
    // within timeoutMs, and calls done once it has been reaped and its profile removed.
    void close(std::function<void()> done, int timeoutMs = 5000);

    static Error unavailable();

Q_SIGNALS:
    // The browser ended, asked to or not.
    void finished();

private:
    void reap(bool wait);

    std::unique_ptr<QTemporaryDir> m_profile;
    std::unique_ptr<cdp::Connection> m_connection;
    pid_t m_pid = -1;
};

} // namespace veetbot::chromium
