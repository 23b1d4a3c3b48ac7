#include "OriginPolicy.h"

#include <algorithm>

namespace veetbot {

Result<OriginPolicy> OriginPolicy::create(QList<Origin> origins)
{
    std::sort(origins.begin(), origins.end());
    origins.erase(std::unique(origins.begin(), origins.end()), origins.end());
    if (origins.size() > kMaxOrigins)
        return tooManyOrigins(); // a list too long is not a disallowed URL
    if (origins.isEmpty())
        return Error::fromReason(ReasonCode::UrlDisallowed);
    // An Origin can only come from a successful parse, but the policy is the last gate.
    for (const Origin &origin : std::as_const(origins)) {
        if (origin.host().isEmpty() || origin.port() < 1 || origin.port() > 65535)
            return Error::fromReason(ReasonCode::UrlDisallowed);
    }
    return OriginPolicy(std::move(origins));
}

Error OriginPolicy::tooManyOrigins()
{
    return Error{QStringLiteral("origin_policy.too_many"),
                 QStringLiteral("At most 64 origins may be allowed.")};
}

bool OriginPolicy::contains(const Origin &origin) const
{
    return std::binary_search(m_origins.cbegin(), m_origins.cend(), origin);
}

bool OriginPolicy::allowsNavigation(const QUrl &url, const TestOverrides &overrides) const
{
    const Result<Origin> origin = Origin::ofUrl(url, overrides);
    return origin && contains(*origin);
}

bool OriginPolicy::allowsPageResource(const QUrl &url, const TestOverrides &overrides)
{
    const QString scheme = url.scheme();
    if (scheme == QLatin1String("data") || scheme == QLatin1String("blob"))
        return true; // no network request
    if (scheme == QLatin1String("wss")) {
        QUrl asHttps = url;
        asHttps.setScheme(QStringLiteral("https"));
        return PublicUrl::validate(asHttps, overrides).ok();
    }
    return PublicUrl::validate(url, overrides).ok();
}

} // namespace veetbot
