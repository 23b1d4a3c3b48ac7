#include "RequestGate.h"

#include "collector/StorageScripts.h"

#include <QJsonArray>

namespace veetbot::chromium {

RequestGate::RequestGate(cdp::Connection *connection, QString sessionId, Judge judge,
                         QObject *parent)
    : QObject(parent), m_connection(connection), m_session(std::move(sessionId)),
      m_judge(std::move(judge))
{
    connect(m_connection, &cdp::Connection::event, this, &RequestGate::onEvent);
}

void RequestGate::enable(std::function<void(Result<Unit>)> done)
{
    const QJsonArray patterns{
        QJsonObject{{QStringLiteral("urlPattern"), QStringLiteral("*")},
                    {QStringLiteral("requestStage"), QStringLiteral("Request")}}};
    m_connection->send(
        QStringLiteral("Fetch.enable"), {{QStringLiteral("patterns"), patterns}},
        [done = std::move(done)](Result<QJsonObject> result) {
            if (!result)
                done(result.error());
            else
                done(Unit{});
        },
        m_session);
}

WriteGuard::RequestKind RequestGate::kindOf(const QString &resourceType)
{
    using Kind = WriteGuard::RequestKind;
    if (resourceType == QLatin1String("Document"))
        return Kind::Document;
    if (resourceType == QLatin1String("XHR") || resourceType == QLatin1String("Fetch") ||
        resourceType == QLatin1String("EventSource") || resourceType == QLatin1String("WebSocket"))
        return Kind::PageRequest;
    if (resourceType == QLatin1String("Ping") ||
        resourceType == QLatin1String("CSPViolationReport"))
        return Kind::Beacon;
    if (resourceType == QLatin1String("Script") || resourceType == QLatin1String("Stylesheet") ||
        resourceType == QLatin1String("Image") || resourceType == QLatin1String("Font") ||
        resourceType == QLatin1String("Media") || resourceType == QLatin1String("TextTrack") ||
        resourceType == QLatin1String("Manifest"))
        return Kind::Asset;
    return Kind::Other;
}

std::optional<RequestGate::PausedRequest> RequestGate::read(const QJsonObject &params)
{
    const QString requestId = params.value(QLatin1String("requestId")).toString();
    if (requestId.isEmpty())
        return std::nullopt;
    PausedRequest paused;
    paused.requestId = requestId;
    paused.redirectHop = params.contains(QLatin1String("redirectedRequestId"));
    const QJsonObject request = params.value(QLatin1String("request")).toObject();
    paused.request.method = request.value(QLatin1String("method")).toString().toUpper().toLatin1();
    paused.resourceType = params.value(QLatin1String("resourceType")).toString();
    paused.request.kind = kindOf(paused.resourceType);
    paused.frameId = params.value(QLatin1String("frameId")).toString();
    const QUrl url(request.value(QLatin1String("url")).toString(), QUrl::StrictMode);
    if (url.isValid() && !paused.request.method.isEmpty())
        paused.request.url = url;
    // The body, where the browser shows it whole: every entry's bytes (base64).
    const QJsonValue entries = request.value(QLatin1String("postDataEntries"));
    if (entries.isArray()) {
        QByteArray body;
        for (const QJsonValue &entry : entries.toArray())
            body += QByteArray::fromBase64(
                entry.toObject().value(QLatin1String("bytes")).toString().toLatin1());
        paused.request.body = body;
    }
    const QJsonObject headers = request.value(QLatin1String("headers")).toObject();
    for (auto it = headers.constBegin(); it != headers.constEnd(); ++it) {
        if (it.key().compare(QLatin1String("Content-Type"), Qt::CaseInsensitive) == 0)
            paused.request.contentType = it.value().toString().toLatin1();
        else if (it.key().compare(QLatin1String("Service-Worker"), Qt::CaseInsensitive) == 0)
            paused.serviceWorkerScript = true;
    }
    return paused;
}

void RequestGate::onEvent(const QString &method, const QJsonObject &params,
                          const QString &sessionId)
{
    if (method != QLatin1String("Fetch.requestPaused") || sessionId != m_session)
        return;
    const std::optional<PausedRequest> paused = read(params);
    if (!paused)
        return; // nothing to continue or fail: the browser holds it until the page goes
    if (m_localAnswer && !paused->request.url.isEmpty() && m_localAnswer(*paused)) {
        m_connection->send(
            QStringLiteral("Fetch.fulfillRequest"),
            {{QStringLiteral("requestId"), paused->requestId},
             {QStringLiteral("responseCode"), 200},
             {QStringLiteral("responseHeaders"),
              QJsonArray{QJsonObject{
                  {QStringLiteral("name"), QStringLiteral("Content-Type")},
                  {QStringLiteral("value"), QStringLiteral("text/html; charset=utf-8")}}}},
             {QStringLiteral("body"),
              QString::fromLatin1(QByteArray(StorageScripts::kEmptyDocument).toBase64())}},
            [](Result<QJsonObject>) {}, m_session);
        return;
    }
    const bool allowed = !paused->request.url.isEmpty() && m_judge(*paused);
    if (allowed) {
        ++m_allowed;
        m_connection->send(
            QStringLiteral("Fetch.continueRequest"),
            {{QStringLiteral("requestId"), paused->requestId}}, [](Result<QJsonObject>) {},
            m_session);
    } else {
        ++m_refused;
        // A refused document is aborted: the frame keeps the document it has (no error page
        // replaces it), as when Qt WebEngine's navigation guard refuses it.
        const bool document = paused->resourceType == QLatin1String("Document");
        m_connection->send(
            QStringLiteral("Fetch.failRequest"),
            {{QStringLiteral("requestId"), paused->requestId},
             {QStringLiteral("errorReason"),
              document ? QStringLiteral("Aborted") : QStringLiteral("BlockedByClient")}},
            [](Result<QJsonObject>) {}, m_session);
    }
}

} // namespace veetbot::chromium
