#pragma once

#include "domain/BrowserProfile.h"
#include "domain/Result.h"
#include "domain/SessionState.h"

#include <QStringList>
#include <QUrl>
#include <QUuid>

namespace veetbot {

// `veetbot profiles create --origin ORIGIN... | list | show ID | revoke ID | delete ID |
// rotate-keys [--database postgresql://user@host[:port]/db]`. Prints BrowserProfileView JSON
// (never a provider reference, key version or material).
int runProfilesCommand(const QStringList &arguments);

// A device sign-in with a session the owner's own browser produced (the workbench's sign-in
// view, or a session file): this data directory's metadata (or the PostgreSQL `database`),
// the profile service started on demand, one recorded ceremony (docs/signin.md). Blocking:
// a window calls it from a worker thread. The signed-in profile, or a fixed error.
Result<BrowserProfile> signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                     const SessionState &state, const QString &database = {});

} // namespace veetbot
