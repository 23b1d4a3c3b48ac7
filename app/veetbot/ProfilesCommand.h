#pragma once

#include "domain/BrowserProfile.h"
#include "domain/Origin.h"
#include "domain/Result.h"
#include "domain/SessionState.h"
#include "domain/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlProfileRepository.h"

#include <QStringList>
#include <QUrl>
#include <QUuid>

#include <memory>

namespace veetbot {

// `veetbot profiles create --origin ORIGIN... | list | show ID | revoke ID | delete ID |
// rotate-keys [--database postgresql://user@host[:port]/db]`. Prints BrowserProfileView JSON
// (never a provider reference, key version or material).
int runProfilesCommand(const QStringList &arguments);

// The metadata store the commands share, with what opening it read: the test settings, the
// local configuration (its tenant and principal are the owner's scope) and the store itself,
// SQLite under the data directory or the PostgreSQL `database`
// (postgresql://user@host[:port]/db, the password from the libpq password file) as the
// application role; config.invalid_database for any other text.
struct MetadataStore
{
    TestOverrides overrides;
    LocalConfiguration config;
    std::unique_ptr<SqlProfileRepository> repository;
    ProfileScope scope() const { return {config.tenant(), config.principal()}; }
};
Result<MetadataStore> openMetadataStore(const QString &database);

// What the workbench's Website Access does, as the commands do it: the data directory's
// metadata, and the profile service started on demand where material is touched. Blocking:
// a window calls them from a worker thread. Each answers the profile or a fixed error.
Result<QList<BrowserProfile>> listProfiles();
Result<BrowserProfile> createProfile(const QList<Origin> &origins, const QString &database = {});
// Revocation commits even without a ready service (vault.fence_pending: run it again).
Result<BrowserProfile> revokeProfile(const QUuid &profileId, const QString &database = {});
Result<Unit> deleteProfile(const QUuid &profileId, const QString &database = {});

// A device sign-in with a session the owner's own browser produced (the workbench's sign-in
// view, or a session file): this data directory's metadata (or the PostgreSQL `database`),
// the profile service started on demand, one recorded ceremony (docs/signin.md). Blocking:
// a window calls it from a worker thread. The signed-in profile, or a fixed error.
Result<BrowserProfile> signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                     const SessionState &state, const QString &database = {});

} // namespace veetbot
