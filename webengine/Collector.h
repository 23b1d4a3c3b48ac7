#pragma once

#include <QJsonObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWebEngineScript>

#include <functional>
#include <optional>

class QWebEnginePage;

namespace veetbot {

// The observation collector (resources/collector/collector.js) and the calls into it. All
// collector JavaScript runs in a private isolated world: page scripts cannot see or patch it,
// its state persists between calls and is dropped with the document.
namespace Collector {

inline constexpr quint32 kWorldId = 73;

// The DocumentCreation script that installs globalThis.__veetbot in the isolated world.
QWebEngineScript installScript();
// Its source: collector.js with its modules (regions.js, extract.js, act.js) spliced in.
QString source();

// Where a capture's candidate window starts. The default is the first window; a
// continuation names the committed capture it continues (the collector refuses it with
// "page_changed" when that is no longer this document's current capture) and either the
// anchor ref (the window starts at the anchor's recorded position and excludes it), a
// candidate position, or a region to focus (its first window; continuations of a focused
// capture stay in its region).
struct CaptureWindow
{
    QString continuesCapture;
    QString afterRef;
    std::optional<int> startPosition;
    QString focusRegion; // a region ref of the continued capture: read that region only
    // browser.observe {extract}: {kind, index, columns (a count), limit} for extract.js; the
    // first window plus the extraction, refused with "page_changed" like a continuation.
    QJsonObject extract;
    // The draft receipt's check (act.js draftCheck): the text the provider submitted to the
    // document's last rich-text editor; the answer's "draft" is only a verdict.
    std::optional<QString> draft;
};

QString captureCall(const QString &captureId, const QString &refPrefix,
                    const CaptureWindow &window = {});

QString commitCall(const QString &captureId);
QString discardCall(const QString &captureId);
QString settleProbeCall(const QStringList &pendingUrls);
QString stateCall();
// act.js: actTrial, actSeen or actPerform with their options object.
QString actCall(const QString &function, const QJsonObject &options);

// Runs `source` in the collector world and parses the JSON string it returns. `done`
// receives the object, or nullopt when the page did not answer within `timeoutMs`, returned
// something that is not a JSON object string, or went away. `done` runs exactly once.
// `worldId`: another world to run in (the network observer's main world).
void run(QWebEnginePage *page, const QString &source, int timeoutMs,
         std::function<void(std::optional<QJsonObject>)> done, quint32 worldId = kWorldId);

// The network observer of device verification's browsers (resources/collector/network.js):
// installed in the page's main world, where fetch, XMLHttpRequest and EventSource live, under
// `key` (random per browser). Only a verification browser installs it.
QWebEngineScript networkObserverScript(const QString &key);
// Its probe ({ok, loaded, inFlight, quietMs}) and, when a navigation starts, the mark that
// makes the document being replaced answer {ok:false}; both run in the main world.
QString networkProbeCall(const QString &key);
QString networkReplaceCall(const QString &key);

} // namespace Collector
} // namespace veetbot
