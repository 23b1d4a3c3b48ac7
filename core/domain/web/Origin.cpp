#include "Origin.h"

#include "HostRules.h"
#include "TestOverrides.h"

#include <QHostAddress>

namespace veetbot {

namespace {

Error disallowed()
{
    return Error::fromReason(ReasonCode::UrlDisallowed);
}

struct HostPort
{
    QString host;
    int port = 443;
};

// IDNA deviation characters: UTS #46 transitional processing (older Chromium) and
// nontransitional processing (QUrl) map them differently, so the two could name different
// hosts.
bool isIdnaDeviation(QChar c)
{
    const char16_t u = c.unicode();
    return u == 0x00DF || u == 0x03C2 || u == 0x200C || u == 0x200D;
}

// Host and port of an already parsed URL, with the host as lower-case punycode.
Result<HostPort> checkParsed(const QUrl &url, const TestOverrides &overrides)
{
    if (!url.isValid() || url.scheme() != QLatin1String("https"))
        return disallowed();
    if (!url.userName(QUrl::FullyEncoded).isEmpty() ||
        !url.password(QUrl::FullyEncoded).isEmpty() ||
        url.authority(QUrl::FullyEncoded).contains(u'@'))
        return disallowed();

    const QString rawHost = url.host(QUrl::FullyDecoded);
    if (rawHost.isEmpty() || rawHost.contains(u'[') || rawHost.contains(u':') ||
        rawHost.contains(u'%'))
        return disallowed();
    if (QHostAddress probe; probe.setAddress(rawHost))
        return disallowed();
    if (HostRules::endsInNumber(rawHost))
        return disallowed();
    for (const QChar c : rawHost) {
        if (isIdnaDeviation(c))
            return disallowed();
    }

    const QByteArray ace = QUrl::toAce(rawHost);
    if (ace.isEmpty())
        return disallowed();
    for (const char c : ace) {
        if (static_cast<unsigned char>(c) >= 0x80)
            return disallowed();
    }
    const QString host = QString::fromLatin1(ace).toLower();
    if (!HostRules::isPublicDnsName(host, overrides))
        return disallowed();

    const int port = url.port(443);
    if (port < 1 || port > 65535)
        return disallowed();
    return HostPort{host, port};
}

QUrl normalized(QUrl url, const HostPort &hostPort)
{
    url.setHost(hostPort.host, QUrl::StrictMode);
    url.setPort(hostPort.port == 443 ? -1 : hostPort.port);
    return url;
}

// Characters allowed in the authority of typed text besides ASCII LDH and ".:": only
// letters, digits and combining marks of an internationalized name. Look-alike dots and
// slashes, spaces, format characters and symbols are refused, as is anything IDNA maps
// differently across implementations.
bool isAllowedNonAsciiHostChar(QChar c)
{
    if (c.isSurrogate() || isIdnaDeviation(c))
        return false;
    return c.isLetterOrNumber() || c.isMark();
}

// The conservative checks on typed text shared by Origin::parse and PublicUrl::parse.
// Returns the normalized URL; with originOnly nothing may follow the authority but "/".
Result<QUrl> parseText(const QString &text, const TestOverrides &overrides, bool originOnly)
{
    if (text.isEmpty() || text.size() > PublicUrl::kMaxUrlBytes)
        return disallowed();
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u <= 0x20 || u == 0x7f || u == u'\\')
            return disallowed();
    }

    static constexpr QLatin1String kPrefix("https://");
    if (text.size() < kPrefix.size())
        return disallowed();
    for (qsizetype i = 0; i < kPrefix.size(); ++i) {
        const char16_t u = text[i].unicode();
        const char16_t lower = (u >= u'A' && u <= u'Z') ? char16_t(u + 32) : u;
        if (lower != char16_t(kPrefix[i].unicode()))
            return disallowed();
    }

    qsizetype authorityEnd = text.size();
    for (qsizetype i = kPrefix.size(); i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == u'/' || c == u'?' || c == u'#') {
            authorityEnd = i;
            break;
        }
    }
    const QStringView authority =
        QStringView(text).mid(kPrefix.size(), authorityEnd - kPrefix.size());
    if (authority.isEmpty() || authority.endsWith(u':'))
        return disallowed();
    for (const QChar c : authority) {
        if (c == u'@' || c == u'%' || c == u'[' || c == u']')
            return disallowed();
        if (c.unicode() >= 0x80 && !isAllowedNonAsciiHostChar(c))
            return disallowed();
    }
    if (originOnly) {
        const QStringView rest = QStringView(text).mid(authorityEnd);
        if (!rest.isEmpty() && rest != u"/")
            return disallowed();
    }

    const QUrl url(text, QUrl::StrictMode);
    const Result<HostPort> checked = checkParsed(url, overrides);
    if (!checked)
        return checked.error();
    QUrl result = normalized(url, *checked);
    if (originOnly)
        result.setPath(QString());
    if (result.toEncoded().size() > PublicUrl::kMaxUrlBytes)
        return disallowed();
    // The normalized form must pass the same checks and name the same host and port.
    const Result<HostPort> again = checkParsed(result, overrides);
    if (!again || again->host != checked->host || again->port != checked->port)
        return disallowed();
    return result;
}

} // namespace

Result<QList<Origin>> Origin::parseAll(const QStringList &texts, const TestOverrides &overrides)
{
    QList<Origin> origins;
    for (const QString &text : texts) {
        Result<Origin> origin = parse(text, overrides);
        if (!origin)
            return origin.error();
        origins.append(std::move(origin).value());
    }
    return origins;
}

Result<Origin> Origin::parse(const QString &text, const TestOverrides &overrides)
{
    const Result<QUrl> url = parseText(text, overrides, /*originOnly=*/true);
    if (!url)
        return url.error();
    return ofUrl(*url, overrides);
}

Result<Origin> Origin::ofUrl(const QUrl &url, const TestOverrides &overrides)
{
    const Result<HostPort> checked = checkParsed(url, overrides);
    if (!checked)
        return checked.error();
    return Origin(checked->host, checked->port);
}

QString Origin::toString() const
{
    if (m_port == 443)
        return QStringLiteral("https://") + m_host;
    return QStringLiteral("https://") + m_host + u':' + QString::number(m_port);
}

namespace PublicUrl {

Result<QUrl> parse(const QString &text, const TestOverrides &overrides)
{
    return parseText(text, overrides, /*originOnly=*/false);
}

Result<QUrl> validate(const QUrl &url, const TestOverrides &overrides)
{
    const Result<HostPort> checked = checkParsed(url, overrides);
    if (!checked)
        return checked.error();
    return normalized(url, *checked);
}

} // namespace PublicUrl

} // namespace veetbot
