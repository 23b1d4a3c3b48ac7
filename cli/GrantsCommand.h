#pragma once

#include "domain/Result.h"

#include <QStringList>

#include <optional>

namespace veetbot {

// `veetbot grants create | list | revoke`: the owner's standing grants, the explicit surface
// that creates and revokes them (docs/authority.md). The owner of the data directory's
// configuration is the approver. Prints one grant, or {"grants":[...]}, as JSON; no model
// tool reaches this command.
int runGrantsCommand(const QStringList &arguments);

// "30m", "12h", "7d": a whole number of minutes, hours or days, as milliseconds; nullopt for
// anything else (zero, a sign, white space, another unit, or more than six digits). The
// 30-day bound is the grant's own.
std::optional<qint64> parseGrantLifetime(const QString &text);

} // namespace veetbot
