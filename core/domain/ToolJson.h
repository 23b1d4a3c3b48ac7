#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <initializer_list>
#include <optional>

namespace veetbot::ToolJson {

// Small strict readers shared by the tools' closed argument schemas. Each answers nullopt for
// a value of the wrong type or outside its bounds; callers turn that into
// ToolArguments::invalidArguments().

// Only the listed keys; `required` keys must all be present.
bool hasOnlyKeys(const QJsonObject &object, std::initializer_list<const char *> allowed,
                 std::initializer_list<const char *> required = {});
// A string of minUnits..maxUnits UTF-16 units.
std::optional<QString> string(const QJsonValue &value, int minUnits, int maxUnits);
// A JSON number that is an exact integer within [min, max] (no fraction, no exponent games:
// the double must equal the integer).
std::optional<qint64> integer(const QJsonValue &value, qint64 min, qint64 max);
// A JSON true/false.
std::optional<bool> boolean(const QJsonValue &value);

} // namespace veetbot::ToolJson
