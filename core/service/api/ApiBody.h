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
// Whether an id of a JSON request body — the string of any member, at any depth, whose name
// ends in "_id" or "_reference" — holds a control character (U+0000–U+001F, U+007F). Such a
// request is invalid on every route (400 invalid_request), whatever the route's own rules; a
// body that does not parse is left to the route.
bool idHoldsControlCharacter(const QByteArray &body);

} // namespace veetbot::ApiBody
