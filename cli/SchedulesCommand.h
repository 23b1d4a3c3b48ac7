#pragma once

#include "RunCommand.h"

#include <QStringList>

namespace veetbot {

// `veetbot schedules`: recurring work on systemd user timers (docs/schedules.md).
int runSchedulesCommand(const QStringList &arguments, const ModelKeyReader &readKey);

} // namespace veetbot
