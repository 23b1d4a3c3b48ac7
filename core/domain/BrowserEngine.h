#pragma once

#include <QString>

#include <optional>

namespace veetbot {

// The engine an agent browser runs on (docs/decisions/0014): Qt WebEngine in this process's
// own Chromium, or Debian's current Chromium over the DevTools pipe. The model-visible
// contract is the same on both (tests/contract).
enum class BrowserEngine
{
    QtWebEngine,
    Chromium,
};

// "qtwebengine" or "chromium".
QString browserEngineName(BrowserEngine engine);
std::optional<BrowserEngine> browserEngineFromName(const QString &name);
// The engine an agent browser runs when nobody chose one.
BrowserEngine defaultBrowserEngine();
// The engine a command runs: `option` when given (--engine), else VEETBOT_ENGINE when set,
// else the default. nullopt when the given name is not an engine's.
std::optional<BrowserEngine> chooseBrowserEngine(const QString &option);

} // namespace veetbot
