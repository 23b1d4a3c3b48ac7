#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot runs list [--limit N] | show ID [--database URL]`: the owner's activity timeline
// (docs/timeline.md). list prints the runs, newest first; show one run with its events.
int runRunsCommand(const QStringList &arguments);

} // namespace veetbot
