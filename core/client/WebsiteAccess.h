#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/profile/SessionState.h"
#include "domain/signin/AuthenticationCeremony.h"
#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlStores.h"

#include <QList>
#include <QStringList>
#include <QUrl>
#include <QUuid>

#include <memory>

namespace veetbot {

// Website Access's use cases, one implementation for the CLI (`veetbot profiles ...`) and the
// workbench: the data directory's metadata, and the profile service started on demand where
// material is touched. Blocking: the CLI calls them directly, a window through
// WebsiteAccessClient (asynchronous, on its worker). Each answers the profile or a fixed error.

// The metadata store, with what opening it read: the test settings, the local configuration
// (its tenant and principal are the owner's scope) and the store itself, SQLite under the data
// directory or the PostgreSQL `database` (postgresql://user@host[:port]/db, the password from
// the libpq password file) as the application role; config.invalid_database for any other
// text.
struct MetadataStore
{
    TestOverrides overrides;
    LocalConfiguration config;
    std::unique_ptr<SqlStores> repository;
    ProfileScope scope() const { return {config.tenant(), config.principal()}; }
};
Result<MetadataStore> openMetadataStore(const QString &database);
// postgresql://user@host[:port]/database (or postgres://); a password in the URL, a query or a
// fragment is config.invalid_database (libpq reads the password from its password file).
Result<PostgresProfileStoreSettings> postgresStoreSettings(const QString &database);

Result<QList<BrowserProfile>> listProfiles();
Result<BrowserProfile> createProfile(const QList<Origin> &origins, const QString &database = {});
// Revocation commits even without a ready service (vault.fence_pending: run it again).
Result<BrowserProfile> revokeProfile(const QUuid &profileId, const QString &database = {});
Result<Unit> deleteProfile(const QUuid &profileId, const QString &database = {});
// Revoked, then deleted: a brand-new website whose first sign-in did not end ready leaves
// nothing behind.
Result<Unit> discardProfile(const QUuid &profileId);
// A brand-new website that lives on another name: its profile is discarded and one for
// `origin` created in its place.
Result<BrowserProfile> replaceProfile(const QUuid &profileId, const Origin &origin);

// A device sign-in with a session the owner's own browser produced (the workbench's sign-in
// view, or a session file): one recorded ceremony (docs/signin.md). The signed-in profile, or
// a fixed error.
Result<BrowserProfile> signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                     const SessionState &state, const QString &database = {});

// A sign-in in the profile service's own browser (docs/signin.md#in-a-secure-browser): the
// ceremony begun and recorded once the service's browser loaded `loginUrl`. What the owner's
// view needs: the ceremony, the service's socket, and the launch path (secret: its fragment is
// the capability; kept in memory only, by the view).
struct RemoteSignIn
{
    AuthenticationCeremony ceremony;
    QString socketPath;
    QString launchPath;
};
Result<RemoteSignIn> beginRemoteSignIn(const QUuid &profileId, const QUrl &loginUrl);
// The service's word on a ceremony, recorded (ready moves the profile to READY), and the
// ceremony ended cancelled unless it already ended.
Result<CeremonyFinished> refreshSignIn(const QString &ceremonyId);
Result<CeremonyFinished> cancelSignIn(const QString &ceremonyId);

// Reseals every profile's material under the current key, one record at a time, by the
// service; restartable; current records are left alone.
struct KeyRotation
{
    int resealed = 0;
    QStringList keyVersionsInUse;
};
Result<KeyRotation> rotateKeys(const QString &database = {});

} // namespace veetbot
