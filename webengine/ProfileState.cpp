#include "ProfileState.h"

#include "collector/StorageScripts.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QWebEngineCookieStore>
#include <QWebEnginePage>
#include <QWebEngineProfile>
#include <QWebEngineScript>
#include <QWebEngineSettings>

namespace veetbot {

namespace {

QString bareDomain(const QString &domain)
{
    return domain.startsWith(QLatin1Char('.')) ? domain.mid(1) : domain;
}

QNetworkCookie toNetworkCookie(const StoredCookie &stored)
{
    QNetworkCookie cookie(stored.name.toUtf8(), stored.value.toUtf8());
    cookie.setPath(stored.path);
    cookie.setSecure(stored.secure);
    cookie.setHttpOnly(stored.httpOnly);
    // Host-only: no domain (the origin passed to setCookie() decides); a domain cookie keeps
    // its leading dot.
    if (stored.domain.startsWith(QLatin1Char('.')))
        cookie.setDomain(stored.domain);
    if (stored.expires != -1)
        cookie.setExpirationDate(QDateTime::fromSecsSinceEpoch(qint64(stored.expires), Qt::UTC));
    if (stored.sameSite == QLatin1String("Strict"))
        cookie.setSameSitePolicy(QNetworkCookie::SameSite::Strict);
    else if (stored.sameSite == QLatin1String("None"))
        cookie.setSameSitePolicy(QNetworkCookie::SameSite::None);
    else
        cookie.setSameSitePolicy(QNetworkCookie::SameSite::Lax);
    return cookie;
}

StoredCookie fromNetworkCookie(const QNetworkCookie &cookie)
{
    StoredCookie stored;
    stored.name = QString::fromUtf8(cookie.name());
    stored.value = QString::fromUtf8(cookie.value());
    stored.domain = cookie.domain().toLower();
    stored.path = cookie.path().isEmpty() ? QStringLiteral("/") : cookie.path();
    stored.expires =
        cookie.isSessionCookie() ? -1 : double(cookie.expirationDate().toSecsSinceEpoch());
    stored.httpOnly = cookie.isHttpOnly();
    stored.secure = cookie.isSecure();
    // Qt 6.4 may lose SameSite converting Chromium's cookie (docs/decisions/0008): what it
    // does not carry is sealed as Lax, the browsers' default.
    switch (cookie.sameSitePolicy()) {
    case QNetworkCookie::SameSite::Strict:
        stored.sameSite = QStringLiteral("Strict");
        break;
    case QNetworkCookie::SameSite::None:
        stored.sameSite = stored.secure ? QStringLiteral("None") : QStringLiteral("Lax");
        break;
    default:
        stored.sameSite = QStringLiteral("Lax");
        break;
    }
    return stored;
}

} // namespace

ProfileState::ProfileState(QWebEngineProfile *profile,
                           std::function<void(bool)> allowStateDocuments, QObject *parent)
    : QObject(parent), m_profile(profile), m_allowStateDocuments(std::move(allowStateDocuments))
{
    QWebEngineCookieStore *store = m_profile->cookieStore();
    connect(store, &QWebEngineCookieStore::cookieAdded, this, [this](const QNetworkCookie &c) {
        const QString key = keyOf(c);
        m_cookies.insert(key, c);
        if (m_awaited.remove(key) && m_awaited.isEmpty() && m_awaitedDone)
            std::exchange(m_awaitedDone, nullptr)();
    });
    connect(store, &QWebEngineCookieStore::cookieRemoved, this,
            [this](const QNetworkCookie &c) { m_cookies.remove(keyOf(c)); });
}

void ProfileState::setBusy(bool busy)
{
    m_busy = busy;
    m_allowStateDocuments(busy);
}

QString ProfileState::keyOf(const QNetworkCookie &cookie)
{
    return QString::fromUtf8(cookie.name()) + QLatin1Char('\n') + bareDomain(cookie.domain()) +
           QLatin1Char('\n') + (cookie.path().isEmpty() ? QStringLiteral("/") : cookie.path());
}

void ProfileState::restore(const SessionState &state, std::function<void(Result<Unit>)> done)
{
    if (m_busy) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    setBusy(true);
    auto finish = [this, done = std::move(done)](Result<Unit> result) {
        setBusy(false);
        done(result);
    };
    QWebEngineCookieStore *store = m_profile->cookieStore();
    for (const StoredCookie &stored : state.cookies) {
        const QNetworkCookie cookie = toNetworkCookie(stored);
        QNetworkCookie keyed = cookie;
        keyed.setDomain(bareDomain(stored.domain));
        m_awaited.insert(keyOf(keyed));
        store->setCookie(cookie, QUrl(QStringLiteral("https://") + bareDomain(stored.domain) +
                                      QLatin1Char('/')));
    }
    const QList<OriginStorage> storage = state.origins;
    auto afterCookies = [this, storage, finish]() mutable {
        StorageScripts::writeAll(atOrigin(), storage, std::move(finish));
    };
    if (m_awaited.isEmpty()) {
        afterCookies();
        return;
    }
    // setCookie() has no completion callback: each cookie is in place once its cookieAdded
    // came. A store that does not confirm them in time fails the restore.
    m_awaitedDone = afterCookies;
    QTimer::singleShot(kTimeoutMs, this, [this, finish]() mutable {
        if (!m_awaitedDone)
            return;
        m_awaitedDone = nullptr;
        m_awaited.clear();
        finish(ReasonCode::ProviderUnavailable);
    });
}

void ProfileState::exportState(const QList<Origin> &origins,
                               std::function<void(Result<SessionState>)> done)
{
    if (m_busy) {
        done(ReasonCode::ProviderUnavailable);
        return;
    }
    setBusy(true);
    SessionState state;
    for (const QNetworkCookie &cookie : std::as_const(m_cookies))
        state.cookies.append(fromNetworkCookie(cookie));
    StorageScripts::readAll(atOrigin(), origins, state,
                            [this, origins, done = std::move(done)](Result<SessionState> read) {
                                m_busy = false;
                                if (!read) {
                                    done(read.error());
                                    return;
                                }
                                done(read->scopedTo(origins, QDateTime::currentDateTimeUtc()));
                            });
}

StorageScripts::RunAtOrigin ProfileState::atOrigin()
{
    return [self = QPointer<ProfileState>(this)](const QString &origin, const QString &script,
                                                 std::function<void(std::optional<QString>)> done) {
        if (!self) {
            done(std::nullopt);
            return;
        }
        self->runAtOrigin(origin, script, std::move(done));
    };
}

void ProfileState::runAtOrigin(const QString &origin, const QString &script,
                               std::function<void(std::optional<QString>)> done)
{
    auto *page = new QWebEnginePage(m_profile, this);
    page->settings()->setAttribute(QWebEngineSettings::AutoLoadIconsForPage, false);
    auto answered = std::make_shared<bool>(false);
    auto finish = [page, answered, done](std::optional<QString> answer) {
        if (*answered)
            return;
        *answered = true;
        page->deleteLater();
        done(std::move(answer));
    };
    QTimer::singleShot(kTimeoutMs, page, [finish] { finish(std::nullopt); });
    connect(page, &QWebEnginePage::loadFinished, page, [page, script, finish](bool ok) {
        if (!ok) {
            finish(std::nullopt);
            return;
        }
        page->runJavaScript(script, kWorldId, [finish](const QVariant &result) {
            if (result.typeId() != QMetaType::QString) {
                finish(std::nullopt);
                return;
            }
            finish(result.toString());
        });
    });
    page->setHtml(QString::fromLatin1(StorageScripts::kEmptyDocument),
                  QUrl(origin + QLatin1Char('/')));
}

} // namespace veetbot
