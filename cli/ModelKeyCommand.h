#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QStringList>

namespace veetbot {

// The model API key of `veetbot run` in the owner's keyring (QtKeychain, the desktop secret
// service; never a file): service "veetbot-workbench", entry "model-api-key/default".
// `veetbot model set-key` reads it from stdin (a no-echo prompt on a terminal);
// `veetbot model clear-key` removes it. The key is never printed, logged or sent to the
// profile service.
int runModelCommand(const QStringList &arguments);

// The stored key, an empty one when none is stored, or keyring.unavailable / keyring.denied /
// keyring.timeout. Blocks on a local event loop (a CLI's main thread, before the run starts).
Result<SecretBytes> readModelKey();

} // namespace veetbot
