#pragma once

#include "domain/Result.h"

#include <QString>

namespace veetbot {

// "Start with my session": the workbench's XDG autostart entry
// ($XDG_CONFIG_HOME/autostart/org.veetbot.Workbench.desktop, else ~/.config/autostart), which
// desktops that follow the freedesktop autostart specification start at sign-in. The entry
// starts this program with --background (in the tray where the desktop has one).
class Autostart
{
public:
    static QString entryPath();
    static bool isEnabled();
    // Writes the entry (whole, 0600) or removes it; autostart.unavailable when the directory
    // cannot be written. Nothing else of the directory is touched.
    static Result<Unit> setEnabled(bool enabled, const QString &program);
    static QByteArray entry(const QString &program);
};

} // namespace veetbot
