#pragma once

// A real profile service for tests: a private data, runtime and key directory, the programs
// run as processes in that environment (the service started on demand by the first command
// that needs it), profiles created through `veetbot profiles`, and ServiceProviders and
// clients of the running service. The fixture site (BrowserTestHarness) lives in this
// process: every wait runs its event loop.

#include "BrowserTestHarness.h"
#include "ProgramRun.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/profile/SessionState.h"
#include "service/client/ServiceClient.h"
#include "service/client/ServiceProvider.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace veetbot {
class VaultControlPlane;
}

namespace veetbot::testing {

class ServiceTestCase : public QObject
{
    Q_OBJECT

protected:
    // Per test: fresh directories and keys (`keys init`); the service stopped afterwards.
    bool setUpService();
    bool tearDownService();

    using Run = veetbot::testing::ProgramRun;
    QProcessEnvironment environment() const;
    // The programs' environment in this process too: in-process clients (a window's
    // signInProfile(), say) find the same service with the same test settings, and a service
    // they start gets the test's keys.
    void useServiceEnvironmentHere();
    Run run(const QString &program, const QStringList &arguments);
    QProcess *start(const QStringList &arguments);
    // A new profile for shop.test (or `host` of the fixture site), READY (the sign-in's
    // outcome, written here as a test-only seed) unless `ready` is false.
    QString createProfile(bool ready = true, const QString &host = QStringLiteral("shop.test"));
    BrowserProfile profile(const QString &id);
    std::unique_ptr<ServiceProvider> provider(const QString &id, const QString &run);
    QString url(const QString &path) const
    {
        return m_harness.url(QStringLiteral("shop.test"), path).toString();
    }
    int arrived(const QString &path)
    {
        return m_harness.server().count(QStringLiteral("shop.test"), path);
    }
    // The POSTs to `path` the fixture site has seen since its counters were reset.
    int posts(const QString &path);
    // Records a finished sign-in with a READY outcome for `profile` straight in this process's
    // metadata store (a standing grant needs one); false on any failure.
    bool recordReadySignIn(const QString &profile);
    // A verified sign-in of `profile` (`veetbot profiles sign-in --session-file`) whose session
    // is one cookie `name`=`value` of `host`, confirmed at `confirmedPath`.
    Run signInWithCookie(const QString &profile, const QString &name, const QByteArray &value,
                         const QString &confirmedPath,
                         const QString &host = QStringLiteral("shop.test"));
    // A site verification definition for `profile` (docs/signin.md "Which account"): the
    // protected page `protectedPath` on `origin`, its ready text line, and the account as a
    // button "Account menu" showing `account`. Written to the test directory's sites.json, 0600
    // unless `mode` says otherwise, named in the service's environment, and the service stopped
    // so that its next start reads it. False on any failure.
    bool useSiteDefinition(const QString &profile, const QString &origin,
                           const QString &protectedPath, const QString &readyLine,
                           const QString &account,
                           QFile::Permissions mode = QFile::ReadOwner | QFile::WriteOwner);
    // From `veetbot run`'s stderr: the id of the run it started, and its last line, the JSON
    // summary.
    static QString startedRunId(const QByteArray &err);
    static QJsonObject runSummaryOf(const QByteArray &err);

    // A client of the running service, and how many browsers it holds now (-1: no answer).
    ServiceClient serviceClient() const;
    int liveBrowsers() const;
    // The service's own log (content-free by design): shown when a test fails.
    QByteArray serviceLog() const;
    // The files of the data directory (the metadata database, the vault's records, the logs)
    // that hold any of `secrets`, leaving out `except`; `read` counts the files read, so a
    // caller can tell an empty answer from a directory it could not read.
    QStringList dataFilesHolding(const QList<QByteArray> &secrets, int *read,
                                 const QString &except = {}) const;
    // The Cookie header of the last request to `path`.
    QByteArray cookieHeaderOf(const QString &path);
    // Seals `state` for the profile in this process, the way a sign-in hand-off will (the
    // service must not run: the store is locked while it does).
    bool seal(const QString &id, const SessionState &state);
    // What is sealed for `id` now, read from the vault as the service reads it; the service is
    // stopped first (the vault is one process's at a time). nullopt when it cannot be read.
    std::optional<SessionState> sealedState(const QString &id);
    // This data directory's vault, opened in this process; null on any failure.
    std::unique_ptr<VaultControlPlane> openVault();

    BrowserTestHarness m_harness;
    // More settings for the programs this test starts (a test-only setting, say).
    QHash<QString, QString> m_extraEnvironment;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
    QString m_runDir;
    QString m_keyDir;
};

} // namespace veetbot::testing
