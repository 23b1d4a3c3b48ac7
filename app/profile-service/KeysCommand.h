#pragma once

#include <QStringList>

namespace veetbot {

// `veetbot keys init DIR | add | use VERSION | remove VERSION`: manage the vault's keys in a
// key directory (VEETBOT_KEY_DIR, or DIR for init) or the desktop keyring. Never prints a key.
int runKeysCommand(const QStringList &arguments);

} // namespace veetbot
