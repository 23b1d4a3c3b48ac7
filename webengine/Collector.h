#pragma once

#include "collector/CollectorCalls.h"

#include <QJsonObject>
#include <QString>
#include <QWebEngineScript>

#include <functional>
#include <optional>

class QWebEnginePage;

namespace veetbot {

// Qt WebEngine's side of the collector (collector/CollectorCalls.h): its script world, the
// scripts installed in every page, and running a call.
namespace Collector {

inline constexpr quint32 kWorldId = 73;

// The DocumentCreation script that installs globalThis.__veetbot in the isolated world.
QWebEngineScript installScript();

// Runs `source` in the collector world and parses the JSON string it returns. `done`
// receives the object, or nullopt when the page did not answer within `timeoutMs`, returned
// something that is not a JSON object string, or went away. `done` runs exactly once.
// `worldId`: another world to run in (the network observer's main world).
void run(QWebEnginePage *page, const QString &source, int timeoutMs,
         std::function<void(std::optional<QJsonObject>)> done, quint32 worldId = kWorldId);
// The same, bound to `page` and a world (this one by default), for engine-neutral code.
CollectorRunner runnerFor(QWebEnginePage *page, int timeoutMs, quint32 worldId = kWorldId);

// The network observer (CollectorCalls' networkObserverSource) as a main-world
// DocumentCreation script.
QWebEngineScript networkObserverScript(const QString &key);

} // namespace Collector
} // namespace veetbot
