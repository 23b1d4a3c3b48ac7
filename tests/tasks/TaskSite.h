#pragma once

#include "FixtureServer.h"
#include "TaskManifest.h"

namespace veetbot::tasks {

// Serves one task's site on the fixture server: every page of tests/tasks/pages/<id>/ at
// /tasks/<id>/<name>, each expected effect that is neither a page nor an endpoint answered
// {"ok":true}, and the task's endpoints with their bodies and delays. False (and nothing
// more served) when the task has no page or one cannot be read.
bool serveTaskSite(fixtures::FixtureServer &server, const Task &task);

} // namespace veetbot::tasks
