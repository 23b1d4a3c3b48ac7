#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot service start|stop|status`: the profile service of this data directory. status
// prints {"running","ready","socket","pid",...} and exits 0 when ready, 3 when not.
int runServiceCommand(const QStringList &arguments);

} // namespace veetbot
