#pragma once

#include <QByteArray>
#include <QJsonValue>

#include <optional>

namespace veetbot {

// RFC 8785 (JSON Canonicalization Scheme) serialization for the vault's own documents and
// browser.act's argument digest:
// object members sorted by the UTF-16 code units of their names, no insignificant white
// space, strings escaped exactly as RFC 8785 section 3.2.2.2 prescribes (only '"', '\\'
// and U+0000..U+001F are escaped; \b \t \n \f \r in short form, the rest as lower-case
// \u00xx; everything else is emitted as UTF-8). Numbers are limited to integers within
// +/-(2^53 - 1), whose ES6 form is plain decimal; any other number, an unpaired surrogate
// or an undefined value is refused (nullopt) rather than approximated.
class CanonicalJson
{
public:
    [[nodiscard]] static std::optional<QByteArray> serialize(const QJsonValue &value);
    // True when a sorts before b by UTF-16 code units (RFC 8785 section 3.2.3).
    static bool lessByUtf16(const QString &a, const QString &b);
};

} // namespace veetbot
