#include "RequestInterceptor.h"

#include "domain/web/HostRules.h"
#include "domain/web/Origin.h"

#include <QWebEngineUrlRequestInfo>

namespace veetbot {

namespace {
constexpr int kMaxRecordedStarts = 1024;

bool isSettlingKind(QWebEngineUrlRequestInfo::ResourceType type)
{
    switch (type) {
    case QWebEngineUrlRequestInfo::ResourceTypeMainFrame:
    case QWebEngineUrlRequestInfo::ResourceTypeSubFrame:
    case QWebEngineUrlRequestInfo::ResourceTypeScript:
    case QWebEngineUrlRequestInfo::ResourceTypeStylesheet:
    case QWebEngineUrlRequestInfo::ResourceTypeXhr:
        return true;
    default:
        return false;
    }
}

WriteGuard::RequestKind guardKind(QWebEngineUrlRequestInfo::ResourceType type)
{
    using Kind = WriteGuard::RequestKind;
    switch (type) {
    case QWebEngineUrlRequestInfo::ResourceTypeMainFrame:
    case QWebEngineUrlRequestInfo::ResourceTypeSubFrame:
    case QWebEngineUrlRequestInfo::ResourceTypeNavigationPreloadMainFrame:
    case QWebEngineUrlRequestInfo::ResourceTypeNavigationPreloadSubFrame:
        return Kind::Document;
    case QWebEngineUrlRequestInfo::ResourceTypeXhr:
        return Kind::PageRequest;
    case QWebEngineUrlRequestInfo::ResourceTypePing:
    case QWebEngineUrlRequestInfo::ResourceTypeCspReport:
        return Kind::Beacon;
    case QWebEngineUrlRequestInfo::ResourceTypeScript:
    case QWebEngineUrlRequestInfo::ResourceTypeStylesheet:
    case QWebEngineUrlRequestInfo::ResourceTypeImage:
    case QWebEngineUrlRequestInfo::ResourceTypeFontResource:
    case QWebEngineUrlRequestInfo::ResourceTypeMedia:
    case QWebEngineUrlRequestInfo::ResourceTypeFavicon:
        return Kind::Asset;
    default:
        return Kind::Other;
    }
}
} // namespace

RequestInterceptor::RequestInterceptor(OriginPolicy policy, TestOverrides overrides,
                                       QObject *parent)
    : QWebEngineUrlRequestInterceptor(parent), m_policy(std::move(policy)),
      m_overrides(std::move(overrides))
{
    m_clock.start();
}

void RequestInterceptor::interceptRequest(QWebEngineUrlRequestInfo &info)
{
    const auto type = info.resourceType();
    const QUrl url = info.requestUrl();
    bool allowed = true;
    if (type == QWebEngineUrlRequestInfo::ResourceTypeServiceWorker ||
        type == QWebEngineUrlRequestInfo::ResourceTypePing ||
        type == QWebEngineUrlRequestInfo::ResourceTypeCspReport ||
        type == QWebEngineUrlRequestInfo::ResourceTypePluginResource) {
        allowed = false;
    } else if (type == QWebEngineUrlRequestInfo::ResourceTypeMainFrame ||
               type == QWebEngineUrlRequestInfo::ResourceTypeNavigationPreloadMainFrame) {
        allowed = m_policy.allowsNavigation(url, m_overrides) ||
                  (m_stateDocuments && url.scheme() == QLatin1String("data"));
    } else {
        allowed = OriginPolicy::allowsPageResource(url, m_overrides);
    }
    if (allowed && m_fence &&
        (type == QWebEngineUrlRequestInfo::ResourceTypeMainFrame ||
         type == QWebEngineUrlRequestInfo::ResourceTypeNavigationPreloadMainFrame ||
         type == QWebEngineUrlRequestInfo::ResourceTypeSubFrame))
        allowed = m_fence(url);
    if (allowed && m_guard) {
        WriteGuard::Request request;
        request.method = info.requestMethod().toUpper();
        request.kind = guardKind(type);
        request.url = url;
        request.stranger = !m_policy.allowsNavigation(url, m_overrides);
        allowed = m_guard(request);
    }
    if (!allowed) {
        ++m_blocked;
        info.block(true);
        return;
    }
    if (isSettlingKind(type)) {
        if (m_started.size() >= kMaxRecordedStarts)
            m_started.removeFirst();
        using Kind = StartedRequest::Kind;
        const Kind kind = type == QWebEngineUrlRequestInfo::ResourceTypeMainFrame
                              ? Kind::MainDocument
                          : type == QWebEngineUrlRequestInfo::ResourceTypeXhr ? Kind::PageRequest
                                                                              : Kind::Resource;
        m_started.append(StartedRequest{url, m_clock.elapsed(), kind});
    }
}

QList<RequestInterceptor::StartedRequest> RequestInterceptor::startedSince(qint64 sinceMs,
                                                                           int limit) const
{
    QList<StartedRequest> result;
    for (const StartedRequest &request : m_started) {
        if (request.startedAtMs >= sinceMs && result.size() < limit)
            result.append(request);
    }
    return result;
}

} // namespace veetbot
