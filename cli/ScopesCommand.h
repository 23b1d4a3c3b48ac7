#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot scopes list | add URL | remove URL | set [URL...] --revision N
// [--database postgresql://user@host[:port]/db]`: the configured owner's task scopes, the
// sites where a task grant may be offered. Every action first applies the one-time seed
// (VEETBOT_TASK_SCOPES) and prints {"scopes":[...],"revision":N}. No model tool reaches
// this list; editing it creates no grant.
int runScopesCommand(const QStringList &arguments);

} // namespace veetbot
