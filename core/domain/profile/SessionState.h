#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"
#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace veetbot {

// A browser profile's signed-in state as the vault seals it and a lease's browser starts
// from: cookies and the localStorage of allowed origins, in Playwright's storage-state field
// names (docs/vault.md "Material"). Secret: never logged, never in an error, never in an
// observation; it crosses only the vault, the profile service and its browser hosts.
struct StoredCookie
{
    QString name;
    QString value;
    QString domain; // lower-case; a leading dot makes it a domain cookie, else host-only
    QString path;
    double expires = -1; // Unix seconds, or -1 for a session cookie
    bool httpOnly = false;
    bool secure = false;
    QString sameSite = QStringLiteral("Lax"); // Strict | Lax | None (None only when secure)
    friend bool operator==(const StoredCookie &, const StoredCookie &) = default;
};

struct OriginStorage
{
    QString origin; // a normalized allowed origin
    QList<QPair<QString, QString>> localStorage;
    friend bool operator==(const OriginStorage &, const OriginStorage &) = default;
};

struct SessionState
{
    static constexpr int kFormat = 1;
    static constexpr int kMaxCookies = 300;
    static constexpr int kMaxOrigins = 64;
    static constexpr int kMaxItems = 2000;
    static constexpr int kMaxItemNameChars = 1024;
    static constexpr int kMaxCookieNameChars = 256;
    static constexpr int kMaxCookieBytes = 4096; // name and value together
    static constexpr qsizetype kMaxBytes = 16 * 1024 * 1024;
    static constexpr qint64 kMaxLifetimeSeconds = 400LL * 24 * 3600;

    QList<StoredCookie> cookies;
    QList<OriginStorage> origins;

    bool isEmpty() const { return cookies.isEmpty() && origins.isEmpty(); }

    // The vault's plaintext: {"format":1,"cookies":[...],"origins":[...]}; "{}" (what
    // provisioning seals) is the empty state. vault.invalid_material for anything else:
    // unknown members, a cookie that breaks a rule, duplicates, or any bound passed.
    static Result<SessionState> fromMaterial(const SecretBytes &material,
                                             const TestOverrides &overrides);
    SecretBytes toMaterial() const;
    // The same members as one JSON object (the browser host's restore and export).
    static Result<SessionState> fromJson(const QJsonObject &object, const TestOverrides &overrides);
    QJsonObject toJson() const;

    // Within every bound (count and total size); a state over any bound is never sealed.
    bool withinBounds() const;
    // What belongs to these origins at `now`: host-only cookies of an allowed host, domain
    // cookies of an allowed host or a parent of one that is not a public suffix (private
    // entries included), never an IP address or a name ending in an all-digit label, the
    // storage of exactly allowed origins; expired cookies dropped, expiries beyond 400 days
    // cut. Trusts nothing about where the state came from.
    SessionState scopedTo(const QList<Origin> &origins, const QDateTime &now) const;

    // One cookie's rules (name, value, domain, path, expiry, SameSite, the __Host- and
    // __Secure- prefixes).
    static bool isValidCookie(const StoredCookie &cookie);
};

} // namespace veetbot
