#pragma once

#include "profiles/LocalConfiguration.h"
#include "vault/VaultControlPlane.h"

namespace veetbot {

// How the CLI reaches keys: a key directory when VEETBOT_KEY_DIR names one, else the desktop
// keyring (QtKeychain; the first key is created only for an empty vault). Only the vault
// calls the loader (VaultControlPlane::open).
VaultControlPlane::KeyringLoader keyringLoader(const LocalConfiguration &configuration);

} // namespace veetbot
