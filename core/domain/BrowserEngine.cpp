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
    // The Chromium placement becomes the default once it acts too (docs/decisions/0014).
    return BrowserEngine::QtWebEngine;
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
