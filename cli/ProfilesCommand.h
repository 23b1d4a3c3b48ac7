#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot profiles create --origin ORIGIN... | list | show ID | revoke ID | delete ID |
// rotate-keys [--database postgresql://user@host[:port]/db]`. Prints BrowserProfileView JSON
// (never a provider reference, key version or material). The use cases are Website Access's
// (client/WebsiteAccess), shared with the workbench.
int runProfilesCommand(const QStringList &arguments);

} // namespace veetbot
