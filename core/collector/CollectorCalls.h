#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace veetbot {

// Runs one collector call in the collector's isolated world of the current page and parses
// the JSON string it returns. `done` receives the object, or nullopt when the page did not
// answer in time, answered something that is not a JSON object string, or went away; it runs
// exactly once. Each engine supplies its own (Qt WebEngine: a script world; Chromium: an
// isolated world over the DevTools protocol).
using CollectorRunner = std::function<void(const QString &source,
                                           std::function<void(std::optional<QJsonObject>)> done)>;

// The observation collector (resources/collector/collector.js) and the calls into it, the
// same for every engine. All collector JavaScript runs in a private isolated world: page
// scripts cannot see or patch it, its state persists between calls and is dropped with the
// document.
namespace Collector {

// The name of the collector's world where an engine names worlds (Chromium).
inline constexpr char kWorldName[] = "veetbot-collector";

// collector.js with its modules (regions.js, extract.js, act.js) spliced in: the script that
// installs globalThis.__veetbot, to run at document creation in the collector's world.
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

// The network observer of device verification's browsers (resources/collector/network.js),
// for the page's main world, where fetch, XMLHttpRequest and EventSource live, under `key`
// (random per browser). Only a verification browser installs it.
QString networkObserverSource(const QString &key);
// Its probe ({ok, loaded, inFlight, quietMs}) and, when a navigation starts, the mark that
// makes the document being replaced answer {ok:false}; both run in the main world.
QString networkProbeCall(const QString &key);
QString networkReplaceCall(const QString &key);

// A collector call's answer: the JSON object the script returned as a string, else nullopt.
std::optional<QJsonObject> parseAnswer(const QString &text);

} // namespace Collector
} // namespace veetbot
