#include "ToolJson.h"

#include <cmath>

namespace veetbot::ToolJson {

bool hasOnlyKeys(const QJsonObject &object, std::initializer_list<const char *> allowed,
                 std::initializer_list<const char *> required)
{
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        bool known = false;
        for (const char *key : allowed)
            known = known || it.key() == QLatin1String(key);
        if (!known)
            return false;
    }
    for (const char *key : required) {
        if (!object.contains(QLatin1String(key)))
            return false;
    }
    return true;
}

std::optional<QString> string(const QJsonValue &value, int minUnits, int maxUnits)
{
    if (!value.isString())
        return std::nullopt;
    QString s = value.toString();
    if (s.size() < minUnits || s.size() > maxUnits)
        return std::nullopt;
    return s;
}

std::optional<qint64> integer(const QJsonValue &value, qint64 min, qint64 max)
{
    if (!value.isDouble())
        return std::nullopt;
    const double d = value.toDouble();
    // Compared as doubles before any conversion: converting an out-of-range double is
    // undefined. 2^63 itself (what double(INT64_MAX) rounds to) is out of range too.
    if (!std::isfinite(d) || d < double(min) || d > double(max) || d >= 9223372036854775808.0 ||
        d != std::floor(d))
        return std::nullopt;
    return qint64(d);
}

std::optional<bool> boolean(const QJsonValue &value)
{
    if (!value.isBool())
        return std::nullopt;
    return value.toBool();
}

} // namespace veetbot::ToolJson
