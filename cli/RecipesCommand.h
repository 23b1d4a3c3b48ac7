#pragma once

#include "RunCommand.h"

#include <QStringList>

namespace veetbot {

// `veetbot recipes`: the reviewed recipes a run may use (docs/recipes.md).
int runRecipesCommand(const QStringList &arguments, const ModelKeyReader &readKey);

} // namespace veetbot
