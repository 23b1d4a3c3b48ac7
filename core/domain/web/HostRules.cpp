#include "HostRules.h"

#include "TestOverrides.h"

#include <QStringList>

#include <algorithm>
#include <array>
#include <initializer_list>

namespace veetbot::HostRules {

namespace {

// WHATWG "IPv4 number parser", reduced to "does it parse": decimal, 0x hex, leading-0 octal.
bool parsesAsIpv4Number(QStringView input)
{
    if (input.isEmpty())
        return false;
    int radix = 10;
    if (input.size() >= 2 && input[0] == u'0' && (input[1] == u'x' || input[1] == u'X')) {
        input = input.mid(2);
        radix = 16;
    } else if (input.size() >= 2 && input[0] == u'0') {
        input = input.mid(1);
        radix = 8;
    }
    return std::all_of(input.begin(), input.end(), [radix](QChar c) {
        const char16_t u = c.unicode();
        switch (radix) {
        case 8:
            return u >= u'0' && u <= u'7';
        case 10:
            return u >= u'0' && u <= u'9';
        default:
            return (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f') || (u >= u'A' && u <= u'F');
        }
    });
}

bool ldhLabel(QStringView label)
{
    if (label.isEmpty() || label.size() > 63)
        return false;
    if (label.front() == u'-' || label.back() == u'-')
        return false;
    return std::all_of(label.begin(), label.end(), [](QChar c) {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'0' && u <= u'9') || u == u'-';
    });
}

// Special-use (RFC 6761/6762/7686/8375/9476), documentation and commonly private names. A
// host equal to one of these or below one of them never reaches the public internet.
constexpr std::array kNonPublicSuffixes = {
    u"test",      u"example",      u"example.com", u"example.net", u"example.org", u"invalid",
    u"local",     u"localhost",    u"localdomain", u"onion",       u"internal",    u"intranet",
    u"private",   u"corp",         u"home",        u"lan",         u"alt",         u"arpa",
    u"home.arpa", u"in-addr.arpa", u"ip6.arpa",
};

bool isUnderNonPublicSuffix(const QString &host)
{
    return std::any_of(kNonPublicSuffixes.begin(), kNonPublicSuffixes.end(),
                       [&host](const char16_t *suffix) {
                           const QStringView s(suffix);
                           if (host == s)
                               return true;
                           return host.size() > s.size() && host.endsWith(s) &&
                                  host[host.size() - s.size() - 1] == u'.';
                       });
}

bool inIpv4Range(quint32 address, quint32 network, int prefix)
{
    const quint32 mask = prefix == 0 ? 0 : ~quint32(0) << (32 - prefix);
    return (address & mask) == (network & mask);
}

constexpr quint32 ipv4(quint8 a, quint8 b, quint8 c, quint8 d)
{
    return (quint32(a) << 24) | (quint32(b) << 16) | (quint32(c) << 8) | quint32(d);
}

bool isPublicIpv4(quint32 a)
{
    struct Range
    {
        quint32 network;
        int prefix;
    };
    static constexpr Range kRefused[] = {
        {ipv4(0, 0, 0, 0), 8},          // "this network"
        {ipv4(10, 0, 0, 0), 8},         // private
        {ipv4(100, 64, 0, 0), 10},      // shared address space (CGN)
        {ipv4(127, 0, 0, 0), 8},        // loopback
        {ipv4(169, 254, 0, 0), 16},     // link-local, cloud metadata
        {ipv4(172, 16, 0, 0), 12},      // private
        {ipv4(192, 0, 0, 0), 24},       // IETF protocol assignments
        {ipv4(192, 0, 2, 0), 24},       // TEST-NET-1
        {ipv4(192, 88, 99, 0), 24},     // 6to4 relay anycast
        {ipv4(192, 168, 0, 0), 16},     // private
        {ipv4(198, 18, 0, 0), 15},      // benchmarking
        {ipv4(198, 51, 100, 0), 24},    // TEST-NET-2
        {ipv4(203, 0, 113, 0), 24},     // TEST-NET-3
        {ipv4(224, 0, 0, 0), 4},        // multicast
        {ipv4(240, 0, 0, 0), 4},        // reserved
        {ipv4(255, 255, 255, 255), 32}, // broadcast
    };
    return std::none_of(std::begin(kRefused), std::end(kRefused),
                        [a](const Range &r) { return inIpv4Range(a, r.network, r.prefix); });
}

quint32 ipv4At(const Q_IPV6ADDR &b, int offset)
{
    return (quint32(b[offset]) << 24) | (quint32(b[offset + 1]) << 16) |
           (quint32(b[offset + 2]) << 8) | quint32(b[offset + 3]);
}

// True when the first prefixBits bits of the address equal those of the given bytes.
bool hasIpv6Prefix(const Q_IPV6ADDR &b, std::initializer_list<quint8> bytes, int prefixBits)
{
    int bit = 0;
    for (const quint8 expected : bytes) {
        const int bitsHere = std::min(8, prefixBits - bit);
        if (bitsHere <= 0)
            break;
        const quint8 mask = quint8(0xff << (8 - bitsHere));
        if ((b[bit / 8] & mask) != (expected & mask))
            return false;
        bit += 8;
    }
    return true;
}

bool allZero(const Q_IPV6ADDR &b, int from, int to)
{
    for (int i = from; i < to; ++i) {
        if (b[i] != 0)
            return false;
    }
    return true;
}

bool isPublicIpv6(const Q_IPV6ADDR &b)
{
    // Forms that embed an IPv4 address are judged by that address.
    if (allZero(b, 0, 10) && b[10] == 0xff && b[11] == 0xff) // ::ffff:0:0/96 mapped
        return isPublicIpv4(ipv4At(b, 12));
    if (allZero(b, 0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0)
        return isPublicIpv4(ipv4At(b, 12)); // ::ffff:0:0:0/96 SIIT translated
    if (allZero(b, 0, 12)) {
        // ::/96 compatible; this also covers :: (unspecified) and ::1 (loopback), whose
        // embedded 0.0.0.0 and 0.0.0.1 fall in 0/8.
        return isPublicIpv4(ipv4At(b, 12));
    }
    if (hasIpv6Prefix(b, {0x00, 0x64, 0xff, 0x9b}, 32) && allZero(b, 4, 12))
        return isPublicIpv4(ipv4At(b, 12)); // 64:ff9b::/96 NAT64
    if (hasIpv6Prefix(b, {0x20, 0x02}, 16))
        return isPublicIpv4(ipv4At(b, 2)); // 2002::/16 6to4
    if (hasIpv6Prefix(b, {0x20, 0x01, 0x00, 0x00}, 32)) {
        // 2001::/32 Teredo: server address, then the client address stored inverted.
        return isPublicIpv4(ipv4At(b, 4)) && isPublicIpv4(~ipv4At(b, 12));
    }

    if (hasIpv6Prefix(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48)    // local-use NAT64
        || hasIpv6Prefix(b, {0x01, 0x00, 0, 0, 0, 0, 0, 0}, 64)       // 100::/64 discard
        || hasIpv6Prefix(b, {0xfc}, 7)                                // unique local
        || hasIpv6Prefix(b, {0xfe, 0x80}, 10)                         // link-local
        || hasIpv6Prefix(b, {0xfe, 0xc0}, 10)                         // site-local
        || hasIpv6Prefix(b, {0xff}, 8)                                // multicast
        || hasIpv6Prefix(b, {0x20, 0x01, 0x0d, 0xb8}, 32)             // documentation
        || hasIpv6Prefix(b, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00}, 48) // benchmarking
        || hasIpv6Prefix(b, {0x20, 0x01, 0x00, 0x10}, 28)             // ORCHID
        || hasIpv6Prefix(b, {0x20, 0x01, 0x00, 0x20}, 28)             // ORCHIDv2
        || hasIpv6Prefix(b, {0x3f, 0xff}, 20))                        // documentation
        return false;
    // Everything else outside global unicast 2000::/3 is unassigned or special.
    return hasIpv6Prefix(b, {0x20}, 3);
}

} // namespace

bool endsInNumber(const QString &asciiHost)
{
    QList<QStringView> parts = QStringView(asciiHost).split(u'.');
    if (parts.constLast().isEmpty()) {
        if (parts.size() == 1)
            return false;
        parts.removeLast();
    }
    const QStringView last = parts.constLast();
    if (!last.isEmpty() && std::all_of(last.begin(), last.end(), [](QChar c) {
            return c.unicode() >= u'0' && c.unicode() <= u'9';
        }))
        return true;
    return parsesAsIpv4Number(last);
}

bool isPublicDnsName(const QString &asciiHost, const TestOverrides &overrides)
{
    if (asciiHost.isEmpty() || asciiHost.size() > 253)
        return false;
    const QList<QStringView> labels = QStringView(asciiHost).split(u'.');
    if (labels.size() < 2)
        return false;
    if (!std::all_of(labels.begin(), labels.end(), isLdhLabel))
        return false;
    if (endsInNumber(asciiHost))
        return false;
    // Chromium resolves these to loopback itself and never sends them through a proxy.
    if (labels.constLast() == u"localhost")
        return false;
    if (overrides.hasHost(asciiHost))
        return true;
    return !isUnderNonPublicSuffix(asciiHost);
}

bool isPublicAddress(const QHostAddress &address)
{
    switch (address.protocol()) {
    case QAbstractSocket::IPv4Protocol:
        return isPublicIpv4(address.toIPv4Address());
    case QAbstractSocket::IPv6Protocol:
        if (!address.scopeId().isEmpty())
            return false;
        return isPublicIpv6(address.toIPv6Address());
    default:
        return false;
    }
}

bool isLdhLabel(QStringView label)
{
    return ldhLabel(label);
}

} // namespace veetbot::HostRules
