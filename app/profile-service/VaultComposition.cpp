#include "VaultComposition.h"

#include "QtKeychainKeyring.h"
#include "vault/DirectoryKeyring.h"

#include <QDir>

namespace veetbot {

VaultControlPlane::KeyringLoader keyringLoader(const LocalConfiguration &configuration)
{
    const QString keyDirectory = configuration.keyDirectory();
    if (!keyDirectory.isEmpty()) {
        return [keyDirectory](std::function<void(VaultControlPlane::KeyringResult)> done) {
            Result<DirectoryKeyring> keyring = DirectoryKeyring::open(keyDirectory);
            if (!keyring) {
                done(keyring.error());
                return;
            }
            done(std::unique_ptr<Keyring>(
                std::make_unique<DirectoryKeyring>(std::move(keyring).value())));
        };
    }
    const QString vaultDirectory = configuration.vaultDirectory();
    return [vaultDirectory](std::function<void(VaultControlPlane::KeyringResult)> done) {
        const bool vaultIsEmpty =
            QDir(vaultDirectory).entryList({QStringLiteral("*.env")}, QDir::Files).isEmpty();
        auto *keyring = new QtKeychainKeyring();
        keyring->initializeIfEmpty(vaultIsEmpty, [keyring, done](Result<Unit> loaded) {
            if (!loaded) {
                keyring->deleteLater();
                done(loaded.error());
                return;
            }
            done(std::unique_ptr<Keyring>(keyring));
        });
    };
}

} // namespace veetbot
