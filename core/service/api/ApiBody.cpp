#include "ApiBody.h"

#include <QUuid>

namespace veetbot::ApiBody {

std::optional<StrictJson::Value> document(const QByteArray &body, qsizetype maxBytes)
{
    StrictJson::Limits limits;
    limits.maxBytes = maxBytes;
    limits.maxDepth = 8;
    std::optional<StrictJson::Value> parsed = StrictJson::parseDocument(body, limits);
    if (!parsed || !parsed->isObject())
        return std::nullopt;
    return parsed;
}

std::optional<QString> text(const StrictJson::Value *value, int maxLength)
{
    if (!value || !value->isString())
        return std::nullopt;
    const QString string = QString::fromUtf8(value->string);
    if (string.isEmpty() || string.size() > maxLength || string.trimmed() != string)
        return std::nullopt;
    return string;
}

bool onlyMembers(const StrictJson::Value &object, std::initializer_list<const char *> allowed)
{
    for (const StrictJson::Member &member : object.members) {
        bool known = false;
        for (const char *name : allowed)
            known = known || member.name == name;
        if (!known)
            return false;
    }
    return true;
}

std::optional<QUuid> profileId(const StrictJson::Value *value)
{
    const std::optional<QString> id = text(value, 36);
    if (!id)
        return std::nullopt;
    const QUuid uuid = QUuid::fromString(*id);
    if (uuid.isNull() || uuid.toString(QUuid::WithoutBraces) != *id)
        return std::nullopt;
    return uuid;
}

namespace {

bool isId(const QByteArray &name)
{
    return name.endsWith("_id") || name.endsWith("_reference");
}

bool holdsControlCharacter(const StrictJson::Value &value)
{
    for (const StrictJson::Member &member : value.members) {
        if (member.value.isString() && isId(member.name)) {
            for (const char c : member.value.string) {
                if ((uchar(c) < 0x20) || c == 0x7f)
                    return true;
            }
        }
        if (holdsControlCharacter(member.value))
            return true;
    }
    for (const StrictJson::Value &item : value.items) {
        if (holdsControlCharacter(item))
            return true;
    }
    return false;
}

} // namespace

bool idHoldsControlCharacter(const QByteArray &body)
{
    StrictJson::Limits limits;
    limits.maxBytes = body.size();
    limits.numbers = StrictJson::Numbers::Finite;
    const std::optional<StrictJson::Value> parsed = StrictJson::parseDocument(body, limits);
    return parsed && holdsControlCharacter(*parsed);
}

} // namespace veetbot::ApiBody
