#pragma once

#include "json/StrictJson.h"

#include <QByteArray>
#include <QString>

#include <initializer_list>
#include <optional>

namespace veetbot::ApiBody {

// How the service's route families read their closed request bodies (the strict parser):
// an object within `maxBytes`, or nothing.
std::optional<StrictJson::Value> document(const QByteArray &body, qsizetype maxBytes);
// A non-empty string of at most `maxLength` characters with no surrounding white space.
std::optional<QString> text(const StrictJson::Value *value, int maxLength);
// Whether every member of `object` is one of `allowed`.
bool onlyMembers(const StrictJson::Value &object, std::initializer_list<const char *> allowed);
// A profile id in its canonical form (lowercase, hyphenated, no braces).
std::optional<QUuid> profileId(const StrictJson::Value *value);

} // namespace veetbot::ApiBody
