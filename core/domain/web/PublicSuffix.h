#pragma once

#include <QString>

namespace veetbot {

// The Public Suffix List through libpsl, with the system's list (Debian's `publicsuffix`)
// when it is newer than the one built in, private entries included: "github.io" is a public
// suffix as much as "co.uk". A name under no rule is a suffix by the list's "*" rule, so
// every single label is one.
namespace PublicSuffix {
// `domain`: lower-case ASCII (punycode), without a leading dot.
bool isPublicSuffix(const QString &domain);
// The registrable domain of `host` (lower-case ASCII): its public suffix and one label more
// ("mail.example.co.uk" is "example.co.uk"); empty when it has none (a suffix itself).
QString registrableDomain(const QString &host);
} // namespace PublicSuffix

} // namespace veetbot
