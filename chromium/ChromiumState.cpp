// ChromiumProvider's sealed-state transfer (docs/vault.md "Material"): cookies through the
// browser's cookie store, localStorage through an empty document the request stage answers.

#include "ChromiumProvider.h"

#include "collector/StorageScripts.h"

#include <QJsonArray>
#include <QTimer>

#include <memory>

namespace veetbot::chromium {

using cdp::text;

namespace {

// The browser's cookie as SessionState keeps it; nullopt for one it cannot keep (a partitioned
// cookie: SessionState has no partition, and such a cookie is never carried over).
std::optional<StoredCookie> storedCookie(const QJsonObject &cookie)
{
    if (cookie.contains(QLatin1String("partitionKey")))
        return std::nullopt;
    StoredCookie stored;
    stored.name = text(cookie, "name");
    stored.value = text(cookie, "value");
    stored.domain = text(cookie, "domain").toLower();
    stored.path = text(cookie, "path");
    const bool session = cookie.value(QLatin1String("session")).toBool();
    stored.expires = session ? -1 : cookie.value(QLatin1String("expires")).toDouble(-1);
    stored.httpOnly = cookie.value(QLatin1String("httpOnly")).toBool();
    stored.secure = cookie.value(QLatin1String("secure")).toBool();
    const QString sameSite = text(cookie, "sameSite");
    // Chromium treats a cookie without SameSite as Lax.
    stored.sameSite = sameSite.isEmpty() ? QStringLiteral("Lax") : sameSite;
    return stored;
}

QJsonObject cookieParam(const StoredCookie &cookie)
{
    const bool domainCookie = cookie.domain.startsWith(QLatin1Char('.'));
    const QString host = domainCookie ? cookie.domain.mid(1) : cookie.domain;
    // The URL it was set from: https on its host. Without a domain it is host-only.
    QJsonObject param{
        {QStringLiteral("name"), cookie.name},
        {QStringLiteral("value"), cookie.value},
        {QStringLiteral("url"), QString(QStringLiteral("https://") + host + cookie.path)},
        {QStringLiteral("path"), cookie.path},
        {QStringLiteral("secure"), cookie.secure},
        {QStringLiteral("httpOnly"), cookie.httpOnly},
        {QStringLiteral("sameSite"), cookie.sameSite}};
    if (domainCookie)
        param.insert(QStringLiteral("domain"), cookie.domain);
    if (cookie.expires > 0)
        param.insert(QStringLiteral("expires"), cookie.expires);
    return param;
}

} // namespace

bool ChromiumProvider::beginState(const std::function<void(Error)> &refuse)
{
    if (m_operations->busy() || m_operations->closed() || m_stateBusy) {
        refuse(Error::fromReason(ReasonCode::ProviderUnavailable));
        return false;
    }
    m_stateBusy = true;
    return true;
}

void ChromiumProvider::endState()
{
    m_stateBusy = false;
    m_stateDocument = QUrl();
    m_stateLoader.clear();
    m_stateLoad = nullptr;
}

void ChromiumProvider::restoreState(const SessionState &state,
                                    std::function<void(Result<Unit>)> done)
{
    if (!beginState(done))
        return;
    auto finish = [this, done = std::move(done)](Result<Unit> result) {
        endState();
        done(result);
    };
    ensurePage([this, state, finish](bool ready) mutable {
        if (!ready) {
            finish(ReasonCode::ProviderUnavailable);
            return;
        }
        QJsonArray cookies;
        for (const StoredCookie &cookie : state.cookies)
            cookies.append(cookieParam(cookie));
        auto storage = [this, origins = state.origins, finish]() mutable {
            StorageScripts::writeAll(atOrigin(), origins, std::move(finish));
        };
        if (cookies.isEmpty()) {
            storage();
            return;
        }
        send(QStringLiteral("Storage.setCookies"), {{QStringLiteral("cookies"), cookies}},
             [storage, finish](Result<QJsonObject> set) mutable {
                 if (!set) {
                     finish(ReasonCode::ProviderUnavailable);
                     return;
                 }
                 storage();
             });
    });
}

void ChromiumProvider::exportState(const QList<Origin> &origins, StateCallback done)
{
    if (!beginState(done))
        return;
    auto finish = [this, origins, done = std::move(done)](Result<SessionState> result) {
        endState();
        if (result)
            result = result->scopedTo(origins, QDateTime::currentDateTimeUtc());
        done(std::move(result));
    };
    if (m_session.isEmpty()) {
        finish(ReasonCode::ProviderUnavailable); // no browser: nothing to read
        return;
    }
    send(QStringLiteral("Storage.getCookies"), {},
         [this, origins, finish](Result<QJsonObject> read) mutable {
             if (!read) {
                 finish(ReasonCode::ProviderUnavailable);
                 return;
             }
             SessionState state;
             for (const QJsonValue &cookie : read->value(QLatin1String("cookies")).toArray()) {
                 if (const auto stored = storedCookie(cookie.toObject()))
                     state.cookies.append(*stored);
             }
             StorageScripts::readAll(atOrigin(), origins, std::move(state), std::move(finish));
         });
}

StorageScripts::RunAtOrigin ChromiumProvider::atOrigin()
{
    return [self = QPointer<ChromiumProvider>(this)](
               const QString &origin, const QString &script,
               std::function<void(std::optional<QString>)> done) {
        if (!self) {
            done(std::nullopt);
            return;
        }
        self->runAtOrigin(origin, script, std::move(done));
    };
}

void ChromiumProvider::runAtOrigin(const QString &origin, const QString &script,
                                   std::function<void(std::optional<QString>)> done)
{
    struct Pending
    {
        std::function<void(std::optional<QString>)> done;
        QTimer timer;
    };
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    const auto finish = [this, pending](std::optional<QString> answer) {
        if (!pending->done)
            return;
        pending->timer.stop();
        m_stateLoad = nullptr;
        std::exchange(pending->done, nullptr)(std::move(answer));
    };
    pending->timer.setSingleShot(true);
    connect(&pending->timer, &QTimer::timeout, this, [finish] { finish(std::nullopt); });
    pending->timer.start(kStateTimeoutMs);
    // A fresh path each time: the document answered here is never one the site serves.
    m_stateDocument =
        QUrl(origin + QStringLiteral("/.veetbot-state-") + randomToken(12), QUrl::StrictMode);
    m_stateLoader.clear();
    const QString session = m_session;
    m_stateLoad = [this, finish, script, session] {
        send(
            QStringLiteral("Page.createIsolatedWorld"),
            {{QStringLiteral("frameId"), m_mainFrame},
             {QStringLiteral("worldName"), QStringLiteral("veetbot-state")}},
            [this, finish, script, session](Result<QJsonObject> world) {
                const int context =
                    world ? world->value(QLatin1String("executionContextId")).toInt() : 0;
                if (context <= 0) {
                    finish(std::nullopt);
                    return;
                }
                send(
                    QStringLiteral("Runtime.evaluate"),
                    {{QStringLiteral("expression"), script},
                     {QStringLiteral("contextId"), context},
                     {QStringLiteral("returnByValue"), true}},
                    [finish](Result<QJsonObject> result) { finish(cdp::stringValue(result)); },
                    session);
            },
            session);
    };
    m_revision.invalidate(); // the page the agent saw goes
    send(
        QStringLiteral("Page.navigate"),
        {{QStringLiteral("url"), QString::fromUtf8(m_stateDocument.toEncoded())}},
        [this, finish](Result<QJsonObject> navigated) {
            const QString loader = navigated ? text(*navigated, "loaderId") : QString();
            if (loader.isEmpty() || !text(*navigated, "errorText").isEmpty()) {
                finish(std::nullopt);
                return;
            }
            m_stateLoader = loader;
            if (m_loadedLoaderId == loader && m_stateLoad)
                std::exchange(m_stateLoad, nullptr)(); // its load event came first
        },
        session);
}

bool ChromiumProvider::answersLocally(const RequestGate::PausedRequest &request) const
{
    return m_stateBusy && !m_stateDocument.isEmpty() &&
           request.resourceType == QLatin1String("Document") && request.frameId == m_mainFrame &&
           !request.redirectHop && request.request.url == m_stateDocument;
}

} // namespace veetbot::chromium
