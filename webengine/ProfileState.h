#pragma once

#include "collector/StorageScripts.h"
#include "domain/Result.h"
#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"

#include <QHash>
#include <QNetworkCookie>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

class QWebEngineProfile;

namespace veetbot {

// A lease's browser profile state (docs/vault.md "Material"): the cookies and the
// localStorage of allowed origins, put in before the first navigation and read back for
// sealing. Qt 6.4 has no storage-state call, so (measured, docs/decisions/0008):
//  - cookies are mirrored from cookieAdded/cookieRemoved from the moment the profile exists
//    (the store cannot be listed); a cookie set through setCookie() counts as in place once
//    its cookieAdded arrived; a host-only cookie is set with an empty domain and its origin;
//  - localStorage is written and read by a private page loaded with setHtml() at the origin
//    (no request leaves), in an isolated world.
// At most one restore or export runs at a time; each answers exactly once.
class ProfileState : public QObject
{
    Q_OBJECT
public:
    static constexpr int kTimeoutMs = 10000;
    static constexpr quint32 kWorldId = 91;

    // `allowStateDocuments` lets the profile's request interceptor load the private pages'
    // data: documents while a restore or export runs (and only then).
    ProfileState(QWebEngineProfile *profile, std::function<void(bool)> allowStateDocuments,
                 QObject *parent = nullptr);

    void restore(const SessionState &state, std::function<void(Result<Unit>)> done);
    void exportState(const QList<Origin> &origins, std::function<void(Result<SessionState>)> done);
    bool busy() const { return m_busy; }

private:
    static QString keyOf(const QNetworkCookie &cookie);
    // Runs `script` on a private page at `origin`; `done` gets its string answer or nullopt.
    void runAtOrigin(const QString &origin, const QString &script,
                     std::function<void(std::optional<QString>)> done);
    StorageScripts::RunAtOrigin atOrigin();

    void setBusy(bool busy);

    QWebEngineProfile *m_profile;
    std::function<void(bool)> m_allowStateDocuments;
    QHash<QString, QNetworkCookie> m_cookies;
    QSet<QString> m_awaited; // cookies set by restore() whose cookieAdded has not come yet
    std::function<void()> m_awaitedDone;
    bool m_busy = false;
};

} // namespace veetbot
