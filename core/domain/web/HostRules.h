#pragma once

#include <QHostAddress>
#include <QString>
#include <QStringView>

namespace veetbot {

class TestOverrides;

// Rules for what counts as a public destination. Pure functions: no DNS, no I/O.
namespace HostRules {

// One lower-case LDH label: 1-63 of [a-z0-9-], not starting or ending with '-'.
bool isLdhLabel(QStringView label);

// WHATWG "ends in a number": the host would be parsed as an IPv4 address by a browser
// (127.1, 0x7f.1, 2130706433, 1.2.3.4.) and therefore is an IP literal.
bool endsInNumber(const QString &asciiHost);

// True for a syntactically valid, public DNS host name in lower-case ASCII (punycode) form:
// LDH labels of 1-63 octets, at most 253 octets, at least two labels, no IP literal in any
// form, not localhost/*.localhost, and not under a special-use or non-public name (test,
// example, invalid, local, localhost, onion, internal, home.arpa, arpa, alt, lan, ...). A host
// listed in the test overrides counts as public.
bool isPublicDnsName(const QString &asciiHost, const TestOverrides &overrides);

// True when an address may be dialled: not unspecified, loopback, private (10/8, 172.16/12,
// 192.168/16), shared (100.64/10), link-local (169.254/16 incl. metadata, fe80::/10),
// multicast, broadcast, reserved/documentation/benchmark ranges, 0/8, ULA fc00::/7, site-local,
// and IPv4-mapped/compatible/NAT64/6to4/Teredo forms are judged by the IPv4 address they embed.
bool isPublicAddress(const QHostAddress &address);

} // namespace HostRules
} // namespace veetbot
