#include "BrowserEngine.h"

#include <QtGlobal>

namespace veetbot {

QString browserEngineName(BrowserEngine engine)
{
    switch (engine) {
    case BrowserEngine::QtWebEngine:
        return QStringLiteral("qtwebengine");
    case BrowserEngine::Chromium:
        return QStringLiteral("chromium");
    }
    return QString();
}

std::optional<BrowserEngine> browserEngineFromName(const QString &name)
{
    for (const BrowserEngine engine : {BrowserEngine::QtWebEngine, BrowserEngine::Chromium}) {
        if (name == browserEngineName(engine))
            return engine;
    }
    return std::nullopt;
}

BrowserEngine defaultBrowserEngine()
{
    // Debian's current, security-supported Chromium: the provider contract holds on both
    // (tests/contract), and Qt WebEngine 6.4 is Chromium 102 (docs/decisions/0014).
    return BrowserEngine::Chromium;
}

std::optional<BrowserEngine> chooseBrowserEngine(const QString &option)
{
    if (!option.isEmpty())
        return browserEngineFromName(option);
    const QString chosen = qEnvironmentVariable("VEETBOT_ENGINE");
    if (!chosen.isEmpty())
        return browserEngineFromName(chosen);
    return defaultBrowserEngine();
}

} // namespace veetbot
