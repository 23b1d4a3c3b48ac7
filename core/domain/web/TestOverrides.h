#pragma once

#include "domain/Result.h"

#include <QDateTime>
#include <QHash>
#include <QHostAddress>
#include <QString>

#include <optional>

namespace veetbot {

// Test-only destination settings, read only from the environment and never needed by the
// product:
//   VEETBOT_TEST_RESOLVE="shop.test=127.0.0.1,evil.test=127.0.0.1"
//     exactly those host names resolve to that loopback address and count as public, on
//     any port, for origin checks and the egress proxy;
//   VEETBOT_TEST_CA=/path/ca.pem
//     certificate chains ending in that CA are accepted by the browser;
//   VEETBOT_TEST_CLOCK=/path/offset
//     the profile service's lease clock runs ahead of the real one by the milliseconds that
//     file holds (read at every look at the clock; missing or malformed counts as 0);
//   VEETBOT_TEST_VERIFY_MS=2000
//     a device verification in the profile service ends after that many milliseconds
//     (1000-30000) instead of 30 s, so a test can meet its deadline;
//   VEETBOT_TEST_VERIFY_IDLE_MS=500
//     a device verification's first wait for the network to be idle lasts at most that many
//     milliseconds (100-5000) instead of 5 s, so a test's deadline can fall in a later stage
//     on a loaded machine;
//   VEETBOT_TEST_RENEW_MS=1000
//     a signed-in profile's lease is renewed every that many milliseconds (1000-60000)
//     instead of every minute, so a test can watch renewal against VEETBOT_TEST_CLOCK.
//   VEETBOT_TEST_KILL_AFTER_ACT=N
//     a task run (`veetbot run`) kills its own process (SIGKILL) once the Nth act of the
//     process reached the browser and answered, before the effect ledger records how it
//     ended: a crash right after a dispatch, for the resume test.
// An empty instance (the default) changes nothing: loopback, IP literals and special-use
// names such as *.test stay refused.
class TestOverrides
{
public:
    TestOverrides() = default;

    // Reads both variables; announces each one that is set on stderr. A malformed
    // VEETBOT_TEST_RESOLVE is an error (nothing is partially applied).
    static Result<TestOverrides> fromEnvironment();
    // "host=addr,host=addr": host names only (lower-cased, no ports), loopback IPv4/IPv6
    // addresses only.
    static Result<TestOverrides> parseResolve(const QString &spec);

    bool isEmpty() const
    {
        return m_resolve.isEmpty() && m_caPath.isEmpty() && m_clockFile.isEmpty() && !m_verifyMs &&
               !m_verifyIdleMs && !m_renewMs && !m_killAfterAct;
    }
    // The mapped address of an exact host name (ASCII, lower case), if any.
    std::optional<QHostAddress> resolve(const QString &asciiHost) const;
    bool hasHost(const QString &asciiHost) const { return m_resolve.contains(asciiHost); }
    QString caPath() const { return m_caPath; }
    void setCaPath(const QString &path) { m_caPath = path; }
    QString clockFile() const { return m_clockFile; }
    std::optional<int> verificationDeadlineMs() const { return m_verifyMs; }
    std::optional<int> verificationIdleMs() const { return m_verifyIdleMs; }
    std::optional<int> leaseRenewalMs() const { return m_renewMs; }
    std::optional<int> killAfterAct() const { return m_killAfterAct; }
    // The current UTC time, moved ahead by the clock file's offset when one is set.
    QDateTime now() const;
    // Serialized back to the VEETBOT_TEST_RESOLVE form (for handing to a child process).
    QString resolveSpec() const;

private:
    QHash<QString, QHostAddress> m_resolve;
    QString m_caPath;
    QString m_clockFile;
    std::optional<int> m_verifyMs;
    std::optional<int> m_verifyIdleMs;
    std::optional<int> m_renewMs;
    std::optional<int> m_killAfterAct;
};

} // namespace veetbot
