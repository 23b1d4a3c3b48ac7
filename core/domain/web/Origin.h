#pragma once

#include "domain/Result.h"

#include <QString>
#include <QStringList>
#include <QUrl>

#include <compare>

namespace veetbot {

class TestOverrides;

// An exact public HTTPS origin: scheme https, lower-case punycode host, explicit port only
// when it is not 443. Never an IP literal, userinfo, localhost, single-label or special-use
// name. Parsing is conservative: any input on which a WHATWG parser and QUrl could disagree
// (backslashes, control characters, white space, percent-encoded hosts, ...) is refused.
class Origin
{
public:
    // "https://shop.example" or "https://shop.example:8443" (a single trailing "/" allowed;
    // no path, query or fragment). Refusals are tool.browser.url_disallowed.
    static Result<Origin> parse(const QString &text, const TestOverrides &overrides);
    // Every text as parse() reads it, in order; the first refusal refuses the list.
    static Result<QList<Origin>> parseAll(const QStringList &texts, const TestOverrides &overrides);
    // The origin of a public HTTPS URL.
    static Result<Origin> ofUrl(const QUrl &url, const TestOverrides &overrides);

    QString host() const { return m_host; }
    int port() const { return m_port; }
    // "https://host" or "https://host:port".
    QString toString() const;

    friend bool operator==(const Origin &, const Origin &) = default;
    // QString has no operator<=> in Qt 6.4; naming the category synthesizes it from < and ==.
    friend std::strong_ordering operator<=>(const Origin &, const Origin &) = default;

private:
    Origin(QString host, int port) : m_host(std::move(host)), m_port(port) {}

    QString m_host;
    int m_port = 443;
};

// A validated public HTTPS URL (the target of a navigation or a page's final URL).
namespace PublicUrl {
// Parses user/model-supplied text. Same conservative rules as Origin::parse, and the URL
// must be at most kMaxUrlBytes when encoded. Returns the normalized URL.
Result<QUrl> parse(const QString &text, const TestOverrides &overrides);
// Validates a URL that came from the browser (already canonical).
Result<QUrl> validate(const QUrl &url, const TestOverrides &overrides);
inline constexpr int kMaxUrlBytes = 8192;
} // namespace PublicUrl

} // namespace veetbot
