#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot observe --allow-origin ORIGIN [--allow-origin ORIGIN]... URL`
// Navigates an isolated browser to URL and prints the canonical observation as one JSON
// document on stdout (exit 0). A stable failure prints {"error":{"code","message"}} and
// exits 3; a usage error exits 2. Logs go to stderr. With --extract JSON (a browser.observe
// extract object without its revision) it then reads one collection of the revision it just
// observed and prints that observation instead.
int runObserveCommand(const QStringList &arguments);

} // namespace veetbot
