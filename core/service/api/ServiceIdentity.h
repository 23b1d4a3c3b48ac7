#pragma once

#include "domain/web/TestOverrides.h"

#include <QString>

namespace veetbot {

// Which service this is, as GET /v1/service says and a client checks before it talks to it
// (ServiceConnection): the data directory and the test settings, each as a digest.

// A digest of the test settings in force (empty when none): a client and the service it
// talks to must agree on them.
QString testSettingsDigest(const TestOverrides &overrides);
// The data directory as the service names it to clients (a digest, never the path).
QString dataDirectoryDigest(const QString &dataDirectory);

} // namespace veetbot
