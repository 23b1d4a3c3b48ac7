#pragma once

#include <QJsonObject>
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

// Which engine a browser runs and the Chromium version beneath it ("156.0.8078.114"): what the
// diagnostics of a tool call and `veetbot --version` name. Only closed words and digits: a
// version is 1 to 4 dot-separated numbers of at most 6 digits each.
struct EngineIdentity
{
    BrowserEngine engine = BrowserEngine::Chromium;
    QString version;

    // {"name":"chromium","version":"156.0.8078.114"}
    QJsonObject toJson() const;
    // Strict: exactly those two keys, a known name, a version as above; else nullopt.
    static std::optional<EngineIdentity> fromJson(const QJsonValue &json);
    // The version of a product string as the engine reports it ("HeadlessChrome/156.0.8078.114",
    // "Chrome/156.0.8078.114" or the bare version); nullopt when it holds no valid version.
    static std::optional<EngineIdentity> fromProduct(BrowserEngine engine, const QString &product);
    friend bool operator==(const EngineIdentity &, const EngineIdentity &) = default;
};

bool isEngineVersion(const QString &version);

} // namespace veetbot
