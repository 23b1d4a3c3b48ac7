#include "CanonicalJson.h"

#include "json/JsonText.h"
#include "json/StrictJson.h"

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
    out.append('"');
    if (!JsonText::appendEscaped(out, text, JsonText::LoneSurrogates::Refuse))
        return false;
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

std::optional<QByteArray> CanonicalJson::serialize(const QJsonValue &value)
{
    QByteArray out;
    if (!appendValue(out, value, 0))
        return std::nullopt;
    return out;
}

} // namespace veetbot
