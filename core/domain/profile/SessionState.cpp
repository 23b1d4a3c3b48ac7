#include "SessionState.h"

#include "domain/web/HostRules.h"
#include "domain/web/PublicSuffix.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>

namespace veetbot {

namespace {

Error invalid()
{
    return Error{QStringLiteral("vault.invalid_material"),
                 QStringLiteral("The sealed session state is not in a form this version reads.")};
}

bool isSeparatorOrControl(QChar c)
{
    static const QString separators = QStringLiteral("()<>@,;:\\\"/[]?={} \t");
    return c.unicode() < 0x21 || c.unicode() > 0x7e || separators.contains(c);
}

bool hasOnly(const QJsonObject &object, std::initializer_list<const char *> names)
{
    if (object.size() != qsizetype(names.size()))
        return false;
    for (const char *name : names) {
        if (!object.contains(QLatin1String(name)))
            return false;
    }
    return true;
}

// host-only: the host itself; domain cookie (leading dot): the host or a parent of it that
// is not a public suffix (private entries included). Never an IP address or a name that
// ends in an all-digit label.
bool domainCovers(const QString &domain, const QString &host)
{
    const QString bare = domain.startsWith(QLatin1Char('.')) ? domain.mid(1) : domain;
    if (HostRules::endsInNumber(bare) || bare.contains(QLatin1Char(':')))
        return false;
    if (!domain.startsWith(QLatin1Char('.')))
        return domain == host;
    return (host == bare || host.endsWith(QLatin1Char('.') + bare)) &&
           !PublicSuffix::isPublicSuffix(bare);
}

} // namespace

bool SessionState::isValidCookie(const StoredCookie &cookie)
{
    if (cookie.name.isEmpty() || cookie.name.size() > kMaxCookieNameChars)
        return false;
    for (const QChar c : cookie.name) {
        if (isSeparatorOrControl(c))
            return false;
    }
    for (const QChar c : cookie.value) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f || c == QLatin1Char(';'))
            return false;
    }
    if (cookie.name.toUtf8().size() + cookie.value.toUtf8().size() > kMaxCookieBytes)
        return false;
    const QString bare =
        cookie.domain.startsWith(QLatin1Char('.')) ? cookie.domain.mid(1) : cookie.domain;
    if (bare.isEmpty() || bare.startsWith(QLatin1Char('.')) || bare.size() > 253)
        return false;
    for (const QChar c : bare) {
        const bool ok = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                        (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('-') ||
                        c == QLatin1Char('.');
        if (!ok)
            return false;
    }
    if (!cookie.path.startsWith(QLatin1Char('/')) || cookie.path.size() > 1024)
        return false;
    if (!std::isfinite(cookie.expires) || (cookie.expires < 0 && cookie.expires != -1))
        return false;
    if (cookie.sameSite != QLatin1String("Strict") && cookie.sameSite != QLatin1String("Lax") &&
        cookie.sameSite != QLatin1String("None"))
        return false;
    if (cookie.sameSite == QLatin1String("None") && !cookie.secure)
        return false;
    if (cookie.name.startsWith(QLatin1String("__Secure-")) && !cookie.secure)
        return false;
    if (cookie.name.startsWith(QLatin1String("__Host-")) &&
        (!cookie.secure || cookie.path != QLatin1String("/") ||
         cookie.domain.startsWith(QLatin1Char('.'))))
        return false;
    return true;
}

Result<SessionState> SessionState::fromJson(const QJsonObject &object,
                                            const TestOverrides &overrides)
{
    if (object.isEmpty())
        return SessionState(); // what provisioning seals
    if (!hasOnly(object, {"format", "cookies", "origins"}) ||
        object.value(QStringLiteral("format")) != QJsonValue(kFormat))
        return invalid();
    const QJsonValue cookies = object.value(QStringLiteral("cookies"));
    const QJsonValue origins = object.value(QStringLiteral("origins"));
    if (!cookies.isArray() || !origins.isArray() || cookies.toArray().size() > kMaxCookies ||
        origins.toArray().size() > kMaxOrigins)
        return invalid();
    SessionState state;
    QSet<QString> cookieKeys;
    for (const QJsonValue &value : cookies.toArray()) {
        const QJsonObject c = value.toObject();
        if (!value.isObject() ||
            !hasOnly(c, {"name", "value", "domain", "path", "expires", "httpOnly", "secure",
                         "sameSite"}) ||
            !c.value(QStringLiteral("name")).isString() ||
            !c.value(QStringLiteral("value")).isString() ||
            !c.value(QStringLiteral("domain")).isString() ||
            !c.value(QStringLiteral("path")).isString() ||
            !c.value(QStringLiteral("expires")).isDouble() ||
            !c.value(QStringLiteral("httpOnly")).isBool() ||
            !c.value(QStringLiteral("secure")).isBool() ||
            !c.value(QStringLiteral("sameSite")).isString())
            return invalid();
        StoredCookie cookie{c.value(QStringLiteral("name")).toString(),
                            c.value(QStringLiteral("value")).toString(),
                            c.value(QStringLiteral("domain")).toString(),
                            c.value(QStringLiteral("path")).toString(),
                            c.value(QStringLiteral("expires")).toDouble(),
                            c.value(QStringLiteral("httpOnly")).toBool(),
                            c.value(QStringLiteral("secure")).toBool(),
                            c.value(QStringLiteral("sameSite")).toString()};
        if (!isValidCookie(cookie))
            return invalid();
        const QString key =
            cookie.name + QLatin1Char('\n') + cookie.domain + QLatin1Char('\n') + cookie.path;
        if (cookieKeys.contains(key))
            return invalid();
        cookieKeys.insert(key);
        state.cookies.append(cookie);
    }
    QSet<QString> originKeys;
    for (const QJsonValue &value : origins.toArray()) {
        const QJsonObject o = value.toObject();
        if (!value.isObject() || !hasOnly(o, {"origin", "localStorage"}) ||
            !o.value(QStringLiteral("origin")).isString() ||
            !o.value(QStringLiteral("localStorage")).isArray())
            return invalid();
        const QString text = o.value(QStringLiteral("origin")).toString();
        const Result<Origin> origin = Origin::parse(text, overrides);
        if (!origin || origin->toString() != text || originKeys.contains(text))
            return invalid();
        originKeys.insert(text);
        OriginStorage storage{text, {}};
        const QJsonArray items = o.value(QStringLiteral("localStorage")).toArray();
        if (items.size() > kMaxItems)
            return invalid();
        QSet<QString> names;
        for (const QJsonValue &item : items) {
            const QJsonObject entry = item.toObject();
            if (!item.isObject() || !hasOnly(entry, {"name", "value"}) ||
                !entry.value(QStringLiteral("name")).isString() ||
                !entry.value(QStringLiteral("value")).isString())
                return invalid();
            const QString name = entry.value(QStringLiteral("name")).toString();
            if (name.size() > kMaxItemNameChars || names.contains(name))
                return invalid();
            names.insert(name);
            storage.localStorage.append({name, entry.value(QStringLiteral("value")).toString()});
        }
        state.origins.append(storage);
    }
    if (!state.withinBounds())
        return invalid();
    return state;
}

QJsonObject SessionState::toJson() const
{
    QJsonArray cookieArray;
    for (const StoredCookie &cookie : cookies) {
        cookieArray.append(QJsonObject{{QStringLiteral("name"), cookie.name},
                                       {QStringLiteral("value"), cookie.value},
                                       {QStringLiteral("domain"), cookie.domain},
                                       {QStringLiteral("path"), cookie.path},
                                       {QStringLiteral("expires"), cookie.expires},
                                       {QStringLiteral("httpOnly"), cookie.httpOnly},
                                       {QStringLiteral("secure"), cookie.secure},
                                       {QStringLiteral("sameSite"), cookie.sameSite}});
    }
    QJsonArray originArray;
    for (const OriginStorage &storage : origins) {
        QJsonArray items;
        for (const auto &[name, value] : storage.localStorage)
            items.append(
                QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), value}});
        originArray.append(QJsonObject{{QStringLiteral("origin"), storage.origin},
                                       {QStringLiteral("localStorage"), items}});
    }
    return {{QStringLiteral("format"), kFormat},
            {QStringLiteral("cookies"), cookieArray},
            {QStringLiteral("origins"), originArray}};
}

Result<SessionState> SessionState::fromMaterial(const SecretBytes &material,
                                                const TestOverrides &overrides)
{
    StrictJson::Limits limits;
    limits.maxBytes = kMaxBytes;
    limits.maxDepth = 6;
    limits.maxMembers = kMaxItems + 8;
    limits.numbers = StrictJson::Numbers::Finite;
    const std::optional<QJsonValue> parsed = StrictJson::parse(material.bytes(), limits);
    if (!parsed || !parsed->isObject())
        return invalid();
    return fromJson(parsed->toObject(), overrides);
}

SecretBytes SessionState::toMaterial() const
{
    return SecretBytes(QJsonDocument(toJson()).toJson(QJsonDocument::Compact));
}

bool SessionState::withinBounds() const
{
    if (cookies.size() > kMaxCookies || origins.size() > kMaxOrigins)
        return false;
    qsizetype bytes = 0;
    for (const StoredCookie &cookie : cookies)
        bytes +=
            (cookie.name.size() + cookie.value.size() + cookie.domain.size() + cookie.path.size()) *
                2 +
            64;
    for (const OriginStorage &storage : origins) {
        if (storage.localStorage.size() > kMaxItems)
            return false;
        bytes += storage.origin.size() * 2;
        for (const auto &[name, value] : storage.localStorage)
            bytes += (name.size() + value.size()) * 2 + 16;
    }
    return bytes <= kMaxBytes;
}

SessionState SessionState::scopedTo(const QList<Origin> &allowed, const QDateTime &now) const
{
    SessionState scoped;
    const double nowSeconds = double(now.toSecsSinceEpoch());
    for (StoredCookie cookie : cookies) {
        if (cookie.expires != -1 && cookie.expires <= nowSeconds)
            continue; // expired
        if (cookie.expires != -1 && cookie.expires > nowSeconds + kMaxLifetimeSeconds)
            cookie.expires = nowSeconds + kMaxLifetimeSeconds;
        bool covered = false;
        for (const Origin &origin : allowed)
            covered = covered || domainCovers(cookie.domain, origin.host());
        if (covered && isValidCookie(cookie))
            scoped.cookies.append(cookie);
    }
    for (const OriginStorage &storage : origins) {
        for (const Origin &origin : allowed) {
            if (origin.toString() == storage.origin) {
                scoped.origins.append(storage);
                break;
            }
        }
    }
    return scoped;
}

} // namespace veetbot
