#pragma once

#include "domain/Result.h"

#include <QString>

namespace veetbot {

// Where the desktop keeps its state, and the desktop's own tenant and principal.
//
// Data (metadata database and vault) live under VEETBOT_DATA_DIR when set, else the XDG data
// directory ($XDG_DATA_HOME/veetbot). The configuration file (config.json, 0600) holds the
// desktop tenant and principal, created once with random UUIDs and then kept. Keys come from a
// key directory when VEETBOT_KEY_DIR names one, else from the desktop keyring.
class LocalConfiguration
{
public:
    // Reads the environment and loads or creates the configuration. Errors:
    // config.unavailable (cannot create the private directory or file), config.invalid (a
    // configuration file that does not parse or holds bad identifiers; it is never replaced).
    static Result<LocalConfiguration> load();

    QString dataDirectory() const { return m_dataDirectory; }
    QString metadataPath() const { return m_dataDirectory + QStringLiteral("/profiles.sqlite"); }
    QString vaultDirectory() const { return m_dataDirectory + QStringLiteral("/vault"); }
    // Empty when keys come from the desktop keyring.
    QString keyDirectory() const { return m_keyDirectory; }
    QString tenant() const { return m_tenant; }
    QString principal() const { return m_principal; }

private:
    QString m_dataDirectory;
    QString m_keyDirectory;
    QString m_tenant;
    QString m_principal;
};

} // namespace veetbot
