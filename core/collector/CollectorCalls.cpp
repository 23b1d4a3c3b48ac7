#include "CollectorCalls.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace veetbot::Collector {

namespace {
QString resourceText(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("collector resource missing");
    return QString::fromUtf8(file.readAll());
}

// collector.js with its modules spliced in at the marker line: one script, one closure, so a
// module uses the collector's helpers and the page can reach none of them.
QString collectorSource()
{
    static const QString source = [] {
        QString main = resourceText(QStringLiteral(":/veetbot/collector/collector.js"));
        const QString marker = QStringLiteral("  // @modules\n");
        const qsizetype at = main.indexOf(marker);
        if (at < 0 || main.indexOf(marker, at + 1) >= 0)
            qFatal("collector module marker missing");
        QString modules;
        for (const char *name : {"regions.js", "extract.js", "act.js"})
            modules += resourceText(QStringLiteral(":/veetbot/collector/") + QLatin1String(name));
        return main.replace(at, marker.size(), modules);
    }();
    return source;
}

QString jsonArgument(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString call(const QString &function, const QString &argument = QString())
{
    return QStringLiteral("(function(){var v=globalThis.__veetbot;"
                          "if(!v)return '{\"ok\":false,\"error\":\"collector_missing\"}';"
                          "return v.") +
           function + QLatin1Char('(') + argument + QStringLiteral(");})()");
}
} // namespace

QString source()
{
    return collectorSource();
}

QString captureCall(const QString &captureId, const QString &refPrefix, const CaptureWindow &window)
{
    QJsonObject options{{QStringLiteral("captureId"), captureId},
                        {QStringLiteral("refPrefix"), refPrefix}};
    if (!window.afterRef.isEmpty() || window.startPosition || !window.focusRegion.isEmpty()) {
        options.insert(QStringLiteral("current"), window.continuesCapture);
        if (!window.afterRef.isEmpty())
            options.insert(QStringLiteral("after"), window.afterRef);
        else if (!window.focusRegion.isEmpty())
            options.insert(QStringLiteral("focus"), window.focusRegion);
        else
            options.insert(QStringLiteral("start"), *window.startPosition);
    }
    if (!window.extract.isEmpty()) {
        options.insert(QStringLiteral("current"), window.continuesCapture);
        options.insert(QStringLiteral("extract"), window.extract);
    }
    if (window.draft)
        options.insert(QStringLiteral("draft"), *window.draft);
    return call(QStringLiteral("capture"), jsonArgument(options));
}

QString commitCall(const QString &captureId)
{
    return call(QStringLiteral("commit"),
                jsonArgument({{QStringLiteral("id"), captureId}}) + QStringLiteral(".id"));
}

QString discardCall(const QString &captureId)
{
    return call(QStringLiteral("discard"),
                jsonArgument({{QStringLiteral("id"), captureId}}) + QStringLiteral(".id"));
}

QString settleProbeCall(const QStringList &pendingUrls)
{
    return call(
        QStringLiteral("settleProbe"),
        jsonArgument({{QStringLiteral("pending"), QJsonArray::fromStringList(pendingUrls)}}));
}

QString stateCall()
{
    return call(QStringLiteral("state"));
}

QString actCall(const QString &function, const QJsonObject &options)
{
    return call(function, jsonArgument(options));
}

QString networkObserverSource(const QString &key)
{
    return resourceText(QStringLiteral(":/veetbot/collector/network.js"))
        .replace(QStringLiteral("@KEY@"), key);
}

namespace {
QString networkCall(const QString &key, const QString &function)
{
    return QStringLiteral("(function(){var n=window['") + key + QStringLiteral("'];return n?n.") +
           function + QStringLiteral("():'{\"ok\":false}';})()");
}
} // namespace

QString networkProbeCall(const QString &key)
{
    return networkCall(key, QStringLiteral("probe"));
}

QString networkReplaceCall(const QString &key)
{
    return networkCall(key, QStringLiteral("replace"));
}

std::optional<QJsonObject> parseAnswer(const QString &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

} // namespace veetbot::Collector
