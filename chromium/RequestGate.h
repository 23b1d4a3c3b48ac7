#pragma once

#include "CdpConnection.h"
#include "domain/Result.h"
#include "domain/action/WriteGuard.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace veetbot::chromium {

// The request stage of one session (a page's flattened target session, or the browser's own,
// which sees every page, frame and worker of the browser): with Fetch enabled for every
// URL, the browser pauses each request the page is about to send — every resource type, and
// each redirect hop again as its own request — and it leaves only when the judge lets it go
// (Fetch.continueRequest); anything else is failed before a byte is sent
// (Fetch.failRequest: a document Aborted, so its frame keeps the document it has; anything
// else BlockedByClient). Unlike Qt WebEngine 6.4, Chromium shows the request's
// body here, so the write guard can read a GraphQL query as the read it is.
//
// Deny-biased: a paused request it cannot read is failed, never continued. It never keeps a
// URL, a header or a body after the judge has seen them.
class RequestGate final : public QObject
{
    Q_OBJECT
public:
    struct PausedRequest
    {
        QString requestId;
        WriteGuard::Request request; // method, kind, URL, body and content type
        bool redirectHop = false;    // the request follows a redirect of an earlier one
        QString resourceType;        // the browser's name for it ("Document", "Script", ...)
        QString frameId;             // the frame it is for; empty for a worker's own
        // The script of a service worker being registered or updated (the request carries
        // the Service-Worker header the specification requires).
        bool serviceWorkerScript = false;
    };
    // True: the request may go.
    using Judge = std::function<bool(const PausedRequest &)>;

    // `sessionId` empty: the browser's own session, where the request stage sees the
    // requests of every page, frame and worker of the browser.
    RequestGate(cdp::Connection *connection, QString sessionId, Judge judge,
                QObject *parent = nullptr);

    // A request answered here, before the judge: an empty HTML document, nothing sent (the
    // private document a state operation loads at an origin). True: this one.
    using LocalAnswer = std::function<bool(const PausedRequest &)>;
    void setLocalAnswer(LocalAnswer answer) { m_localAnswer = std::move(answer); }

    // Fetch.enable for every URL at the request stage of this session.
    void enable(std::function<void(Result<Unit>)> done);
    int allowed() const { return m_allowed; }
    int refused() const { return m_refused; }

    // The paused request in a Fetch.requestPaused event's params; nullopt when it names no
    // request id. A request with an id but without a readable URL or method is read with an
    // empty URL, which no judge allows.
    static std::optional<PausedRequest> read(const QJsonObject &params);
    static WriteGuard::RequestKind kindOf(const QString &resourceType);

private:
    void onEvent(const QString &method, const QJsonObject &params, const QString &sessionId);

    cdp::Connection *m_connection;
    QString m_session;
    Judge m_judge;
    LocalAnswer m_localAnswer;
    int m_allowed = 0;
    int m_refused = 0;
};

} // namespace veetbot::chromium
