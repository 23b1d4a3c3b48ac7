#pragma once

#include "domain/action/WriteGuard.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QElapsedTimer>
#include <QList>
#include <QUrl>
#include <QWebEngineUrlRequestInterceptor>

#include <functional>

namespace veetbot {

// The second confinement layer beneath the navigation guard: blocks main-frame requests
// outside the origin policy, service workers, and any request that is not public HTTPS/WSS
// by syntax. (The egress proxy and the network namespace remain the real boundary for
// redirect hops.) Also records the start of document/script/style/fetch/XHR requests for
// settling. Never logs a URL.
class RequestInterceptor : public QWebEngineUrlRequestInterceptor
{
    Q_OBJECT
public:
    struct StartedRequest
    {
        QUrl url;
        qint64 startedAtMs;
        enum class Kind
        {
            MainDocument,
            Resource,   // a frame's document, a script or a stylesheet
            PageRequest // a fetch, XMLHttpRequest or EventSource (Chromium: one kind)
        };
        Kind kind = Kind::Resource;
    };

    RequestInterceptor(OriginPolicy policy, TestOverrides overrides, QObject *parent = nullptr);

    void interceptRequest(QWebEngineUrlRequestInfo &info) override;

    // Requests of the settling kinds started at or after `sinceMs` (monotonic clock of this
    // object), at most `limit`, oldest first.
    QList<StartedRequest> startedSince(qint64 sinceMs, int limit) const;
    qint64 nowMs() const { return m_clock.elapsed(); }
    int blockedCount() const { return m_blocked; }
    // While a profile's state is put in or read back (ProfileState, no operation running), a
    // private page at an allowed origin loads its document from a data: URL (setHtml), which
    // makes no request; otherwise a main-frame data: document is refused like any other URL
    // off the policy.
    void setStateDocumentsAllowed(bool allowed) { m_stateDocuments = allowed; }
    // While set, main-frame and frame documents must also pass `allows` (the document fence of
    // an act under a dispatch constraint); cleared with an empty function.
    void setDocumentFence(std::function<bool(const QUrl &)> allows) { m_fence = std::move(allows); }
    // Asked about every request the policy and the fence allow (the write guard, docs/
    // authority.md): false refuses it. Qt WebEngine 6.4 shows no request body, so the guard
    // gets none.
    using RequestGuard = std::function<bool(const WriteGuard::Request &)>;
    void setRequestGuard(RequestGuard guard) { m_guard = std::move(guard); }

private:
    OriginPolicy m_policy;
    TestOverrides m_overrides;
    QElapsedTimer m_clock;
    QList<StartedRequest> m_started; // bounded ring of the most recent starts
    int m_blocked = 0;
    bool m_stateDocuments = false;
    std::function<bool(const QUrl &)> m_fence;
    RequestGuard m_guard;
};

} // namespace veetbot
