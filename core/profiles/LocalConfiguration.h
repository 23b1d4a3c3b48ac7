#pragma once

#include "domain/Result.h"
#include "domain/web/BrowserEngine.h"

#include <QProcessEnvironment>
#include <QString>

#include <optional>

namespace veetbot {

// Where the desktop keeps its state, and the desktop's own tenant and principal.
//
// Data (metadata database and vault) live under VEETBOT_DATA_DIR when set, else the XDG data
// directory ($XDG_DATA_HOME/veetbot). The configuration file (config.json, 0600) holds the
// desktop tenant and principal, created once with random UUIDs and then kept, and optionally
// the engine of the profile service's browsers; it lives in
// VEETBOT_CONFIG_DIR when set, else in the data directory when VEETBOT_DATA_DIR is set (one
// directory holds a whole test or demo set-up), else in $XDG_CONFIG_HOME/veetbot. Keys come
// from a key directory when VEETBOT_KEY_DIR names one, else from the desktop keyring.
//
// Earlier versions kept config.json in the data directory. When the configuration directory
// is another one and holds no config.json, the old file is moved there once: written anew
// (QSaveFile, 0600), then removed. A config.json already in the configuration directory wins
// and the old file is left alone; an old file that does not parse is config.invalid and is
// never overwritten or removed.
class LocalConfiguration
{
public:
    // The directories, resolved from the environment without touching the file system.
    struct Locations
    {
        QString dataDirectory;
        QString configDirectory;
        QString keyDirectory; // empty: the desktop keyring

        static Locations fromEnvironment(const QProcessEnvironment &environment);
    };

    // Reads the environment and loads or creates the configuration. Errors:
    // config.unavailable (cannot create the private directory or file), config.invalid (a
    // configuration file that does not parse or holds bad identifiers; it is never replaced).
    static Result<LocalConfiguration> load();
    static Result<LocalConfiguration> load(const Locations &locations);

    QString dataDirectory() const { return m_dataDirectory; }
    QString configDirectory() const { return m_configDirectory; }
    QString configPath() const { return m_configDirectory + QStringLiteral("/config.json"); }
    QString metadataPath() const { return m_dataDirectory + QStringLiteral("/profiles.sqlite"); }
    QString vaultDirectory() const { return m_dataDirectory + QStringLiteral("/vault"); }
    // Empty when keys come from the desktop keyring.
    QString keyDirectory() const { return m_keyDirectory; }
    QString tenant() const { return m_tenant; }
    QString principal() const { return m_principal; }
    // The engine config.json names for the browsers the profile service starts ("engine":
    // "chromium" or "qtwebengine"; any other name is config.invalid), or none.
    std::optional<BrowserEngine> engine() const { return m_engine; }

private:
    QString m_dataDirectory;
    QString m_configDirectory;
    QString m_keyDirectory;
    QString m_tenant;
    QString m_principal;
    std::optional<BrowserEngine> m_engine;
};

} // namespace veetbot
