#include "CanonicalJson.h"

#include "vault/StrictJson.h"
#include "vault/VaultError.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace veetbot {

namespace {

// Deeper than StrictJson ever produces; bounds recursion on hand-built values.
constexpr int kMaxDepth = StrictJson::kDepthCeiling;

bool appendString(QByteArray &out, const QString &text)
{
    static const char hex[] = "0123456789abcdef";
    out.append('"');
    const char16_t *units = reinterpret_cast<const char16_t *>(text.utf16());
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = units[i];
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (i + 1 >= size || units[i + 1] < 0xDC00 || units[i + 1] > 0xDFFF)
                return false;
            const char32_t codePoint =
                0x10000 + ((char32_t(unit) - 0xD800) << 10) + (char32_t(units[i + 1]) - 0xDC00);
            out.append(char(0xF0 | (codePoint >> 18)));
            out.append(char(0x80 | ((codePoint >> 12) & 0x3F)));
            out.append(char(0x80 | ((codePoint >> 6) & 0x3F)));
            out.append(char(0x80 | (codePoint & 0x3F)));
            ++i;
            continue;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF)
            return false;
        switch (unit) {
        case u'"':
            out.append("\\\"");
            continue;
        case u'\\':
            out.append("\\\\");
            continue;
        case u'\b':
            out.append("\\b");
            continue;
        case u'\t':
            out.append("\\t");
            continue;
        case u'\n':
            out.append("\\n");
            continue;
        case u'\f':
            out.append("\\f");
            continue;
        case u'\r':
            out.append("\\r");
            continue;
        default:
            break;
        }
        if (unit < 0x20) {
            out.append("\\u00");
            out.append(hex[unit >> 4]);
            out.append(hex[unit & 0xF]);
        } else if (unit < 0x80) {
            out.append(char(unit));
        } else if (unit < 0x800) {
            out.append(char(0xC0 | (unit >> 6)));
            out.append(char(0x80 | (unit & 0x3F)));
        } else {
            out.append(char(0xE0 | (unit >> 12)));
            out.append(char(0x80 | ((unit >> 6) & 0x3F)));
            out.append(char(0x80 | (unit & 0x3F)));
        }
    }
    out.append('"');
    return true;
}

bool appendValue(QByteArray &out, const QJsonValue &value, int depth)
{
    if (depth > kMaxDepth)
        return false;
    switch (value.type()) {
    case QJsonValue::Null:
        out.append("null");
        return true;
    case QJsonValue::Bool:
        out.append(value.toBool() ? "true" : "false");
        return true;
    case QJsonValue::Double: {
        // Integers only: the sentinel cannot be a safe integer, so it marks "not integral".
        constexpr qint64 notIntegral = std::numeric_limits<qint64>::min();
        const qint64 integer = value.toInteger(notIntegral);
        if (integer == notIntegral || integer > StrictJson::kMaxSafeInteger ||
            integer < -StrictJson::kMaxSafeInteger)
            return false;
        out.append(QByteArray::number(integer));
        return true;
    }
    case QJsonValue::String:
        return appendString(out, value.toString());
    case QJsonValue::Array: {
        out.append('[');
        const QJsonArray array = value.toArray();
        bool first = true;
        for (const QJsonValue &element : array) {
            if (!first)
                out.append(',');
            first = false;
            if (!appendValue(out, element, depth + 1))
                return false;
        }
        out.append(']');
        return true;
    }
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        QStringList keys = object.keys();
        std::sort(keys.begin(), keys.end(), CanonicalJson::lessByUtf16);
        out.append('{');
        bool first = true;
        for (const QString &key : std::as_const(keys)) {
            if (!first)
                out.append(',');
            first = false;
            if (!appendString(out, key))
                return false;
            out.append(':');
            if (!appendValue(out, object.value(key), depth + 1))
                return false;
        }
        out.append('}');
        return true;
    }
    case QJsonValue::Undefined:
        return false;
    }
    return false;
}

} // namespace

bool CanonicalJson::lessByUtf16(const QString &a, const QString &b)
{
    const char16_t *left = reinterpret_cast<const char16_t *>(a.utf16());
    const char16_t *right = reinterpret_cast<const char16_t *>(b.utf16());
    return std::lexicographical_compare(left, left + a.size(), right, right + b.size());
}

Result<QByteArray> CanonicalJson::serialize(const QJsonValue &value)
{
    QByteArray out;
    if (!appendValue(out, value, 0))
        return vaultError(VaultFailure::CorruptRecord);
    return out;
}

} // namespace veetbot
