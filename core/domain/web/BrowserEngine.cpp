#include "BrowserEngine.h"

#include <QJsonValue>
#include <QStringList>
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

bool isEngineVersion(const QString &version)
{
    const QStringList parts = version.split(u'.');
    if (parts.size() > 4)
        return false;
    for (const QString &part : parts) {
        if (part.isEmpty() || part.size() > 6)
            return false;
        for (const QChar c : part) {
            if (c < u'0' || c > u'9')
                return false;
        }
    }
    return true;
}

QJsonObject EngineIdentity::toJson() const
{
    return QJsonObject{{QStringLiteral("name"), browserEngineName(engine)},
                       {QStringLiteral("version"), version}};
}

std::optional<EngineIdentity> EngineIdentity::fromJson(const QJsonValue &json)
{
    if (!json.isObject())
        return std::nullopt;
    const QJsonObject object = json.toObject();
    const QJsonValue name = object.value(QLatin1String("name"));
    const QJsonValue version = object.value(QLatin1String("version"));
    if (object.size() != 2 || !name.isString() || !version.isString())
        return std::nullopt;
    const std::optional<BrowserEngine> engine = browserEngineFromName(name.toString());
    if (!engine || !isEngineVersion(version.toString()))
        return std::nullopt;
    return EngineIdentity{*engine, version.toString()};
}

std::optional<EngineIdentity> EngineIdentity::fromProduct(BrowserEngine engine,
                                                          const QString &product)
{
    const qsizetype slash = product.lastIndexOf(u'/');
    const QString version = slash < 0 ? product : product.mid(slash + 1);
    if (!isEngineVersion(version))
        return std::nullopt;
    return EngineIdentity{engine, version};
}

} // namespace veetbot
