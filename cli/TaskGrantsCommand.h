#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot task-grants list | show ID | revoke ID [--database URL]`: the owner's view of the
// task grants approval cards made (docs/authority.md). list prints every grant, newest first
// (ending those whose profile, expiry or uses end them); show prints one with its audit
// records; revoke ends one now, effective at its session's next action.
int runTaskGrantsCommand(const QStringList &arguments);

} // namespace veetbot
