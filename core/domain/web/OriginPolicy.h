#pragma once

#include "Origin.h"
#include "domain/Result.h"

#include <QList>
#include <QUrl>

namespace veetbot {

// The exact origins one provider may navigate its main frame to: 1-64 distinct public HTTPS
// origins, kept sorted. A URL never authorizes its own origin; page content never widens it.
class OriginPolicy
{
public:
    static constexpr int kMaxOrigins = 64;

    // Fails with origin_policy.too_many ("At most 64 origins may be allowed.") above 64
    // distinct origins, and with tool.browser.url_disallowed when empty or on any invalid
    // entry.
    static Result<OriginPolicy> create(QList<Origin> origins);
    static Error tooManyOrigins();

    const QList<Origin> &origins() const { return m_origins; }
    bool contains(const Origin &origin) const;
    // True only for an https URL whose exact origin is in the policy.
    bool allowsNavigation(const QUrl &url, const TestOverrides &overrides) const;
    // What a page of the profile may fetch beneath its documents, the same at every engine's
    // request stage: a public HTTPS (or WSS) URL by syntax, or data:/blob:, which make no
    // request. The egress proxy and the network namespace check the address beneath.
    static bool allowsPageResource(const QUrl &url, const TestOverrides &overrides);

private:
    explicit OriginPolicy(QList<Origin> origins) : m_origins(std::move(origins)) {}
    QList<Origin> m_origins;
};

} // namespace veetbot
