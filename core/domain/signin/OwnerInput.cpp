#include "OwnerInput.h"

#include "domain/ToolJson.h"

#include <QList>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace veetbot {

namespace {

constexpr double kMaxCoordinate = 16384;

bool within(const QPointF &point)
{
    return std::isfinite(point.x()) && std::isfinite(point.y()) &&
           std::abs(point.x()) <= kMaxCoordinate && std::abs(point.y()) <= kMaxCoordinate;
}

} // namespace

bool OwnerInput::isValid() const
{
    if (modifiers < 0 || modifiers > (Alt | Ctrl | Meta | Shift))
        return false;
    switch (kind) {
    case Kind::MouseMove:
        return within(point);
    case Kind::MouseDown:
    case Kind::MouseUp:
        return within(point) && button != Button::None && (clickCount == 1 || clickCount == 2);
    case Kind::Wheel:
        return within(point) && within(delta);
    case Kind::KeyDown:
    case Kind::KeyUp:
        return !key.isEmpty() && key.size() <= kMaxKeyUnits && code.size() <= kMaxKeyUnits &&
               text.size() <= 2 && virtualKey >= 0 && virtualKey <= 255;
    case Kind::Text: {
        const qsizetype points = text.toUcs4().size();
        return points > 0 && points <= kMaxTextCodePoints;
    }
    }
    return false;
}

namespace {

struct TypeName
{
    OwnerInput::Kind kind;
    const char *name;
};
constexpr TypeName kTypes[] = {{OwnerInput::Kind::MouseMove, "mouse_move"},
                               {OwnerInput::Kind::MouseDown, "mouse_down"},
                               {OwnerInput::Kind::MouseUp, "mouse_up"},
                               {OwnerInput::Kind::Wheel, "wheel"},
                               {OwnerInput::Kind::KeyDown, "key_down"},
                               {OwnerInput::Kind::KeyUp, "key_up"},
                               {OwnerInput::Kind::Text, "text"}};
constexpr std::pair<OwnerInput::Button, const char *> kButtons[] = {
    {OwnerInput::Button::Left, "left"},
    {OwnerInput::Button::Middle, "middle"},
    {OwnerInput::Button::Right, "right"}};

std::optional<double> number(const QJsonValue &value)
{
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return std::nullopt;
    return value.toDouble();
}

std::optional<QPointF> pointOf(const QJsonObject &json, const char *x, const char *y)
{
    const std::optional<double> first = number(json.value(QLatin1String(x)));
    const std::optional<double> second = number(json.value(QLatin1String(y)));
    if (!first || !second)
        return std::nullopt;
    return QPointF(*first, *second);
}

} // namespace

std::optional<OwnerInput> OwnerInput::fromJson(const QJsonObject &json)
{
    OwnerInput input;
    const QString type = json.value(QLatin1String("type")).toString();
    const auto named = std::find_if(std::begin(kTypes), std::end(kTypes), [&type](const auto &t) {
        return type == QLatin1String(t.name);
    });
    if (named == std::end(kTypes))
        return std::nullopt;
    input.kind = named->kind;
    bool shaped = false;
    switch (input.kind) {
    case Kind::MouseMove:
        shaped = ToolJson::hasOnlyKeys(json, {"type", "x", "y", "modifiers"}, {"type", "x", "y"});
        break;
    case Kind::MouseDown:
    case Kind::MouseUp:
        shaped =
            ToolJson::hasOnlyKeys(json, {"type", "x", "y", "button", "click_count", "modifiers"},
                                  {"type", "x", "y", "button"});
        break;
    case Kind::Wheel:
        shaped = ToolJson::hasOnlyKeys(json, {"type", "x", "y", "dx", "dy", "modifiers"},
                                       {"type", "x", "y", "dx", "dy"});
        break;
    case Kind::KeyDown:
        shaped = ToolJson::hasOnlyKeys(
            json, {"type", "key", "code", "key_code", "text", "modifiers"}, {"type", "key"});
        break;
    case Kind::KeyUp:
        shaped = ToolJson::hasOnlyKeys(json, {"type", "key", "code", "key_code", "modifiers"},
                                       {"type", "key"});
        break;
    case Kind::Text:
        shaped = ToolJson::hasOnlyKeys(json, {"type", "text"}, {"type", "text"});
        break;
    }
    if (!shaped)
        return std::nullopt;
    if (json.contains(QLatin1String("x"))) {
        const std::optional<QPointF> point = pointOf(json, "x", "y");
        if (!point)
            return std::nullopt;
        input.point = *point;
    }
    if (json.contains(QLatin1String("dx"))) {
        const std::optional<QPointF> delta = pointOf(json, "dx", "dy");
        if (!delta)
            return std::nullopt;
        input.delta = *delta;
    }
    if (json.contains(QLatin1String("button"))) {
        const QString name = json.value(QLatin1String("button")).toString();
        for (const auto &[button, text] : kButtons) {
            if (name == QLatin1String(text))
                input.button = button;
        }
        if (input.button == Button::None)
            return std::nullopt;
    }
    const auto integer = [&json](const char *key, qint64 min, qint64 max,
                                 int fallback) -> std::optional<int> {
        if (!json.contains(QLatin1String(key)))
            return fallback;
        const std::optional<qint64> value =
            ToolJson::integer(json.value(QLatin1String(key)), min, max);
        return value ? std::optional<int>(int(*value)) : std::nullopt;
    };
    const std::optional<int> clicks = integer("click_count", 1, 2, 1);
    const std::optional<int> modifiers = integer("modifiers", 0, Alt | Ctrl | Meta | Shift, 0);
    const std::optional<int> keyCode = integer("key_code", 0, 255, 0);
    if (!clicks || !modifiers || !keyCode)
        return std::nullopt;
    input.clickCount = *clicks;
    input.modifiers = *modifiers;
    input.virtualKey = *keyCode;
    for (const auto &[key, field] : {std::pair{"key", &input.key}, std::pair{"code", &input.code},
                                     std::pair{"text", &input.text}}) {
        const QJsonValue value = json.value(QLatin1String(key));
        if (value.isUndefined())
            continue;
        if (!value.isString())
            return std::nullopt;
        *field = value.toString();
    }
    if (!input.isValid())
        return std::nullopt;
    return input;
}

QJsonObject OwnerInput::toJson() const
{
    QJsonObject json;
    for (const TypeName &type : kTypes) {
        if (type.kind == kind)
            json.insert(QStringLiteral("type"), QLatin1String(type.name));
    }
    switch (kind) {
    case Kind::MouseDown:
    case Kind::MouseUp:
        for (const auto &[value, name] : kButtons) {
            if (value == button)
                json.insert(QStringLiteral("button"), QLatin1String(name));
        }
        json.insert(QStringLiteral("click_count"), clickCount);
        [[fallthrough]];
    case Kind::MouseMove:
        json.insert(QStringLiteral("x"), point.x());
        json.insert(QStringLiteral("y"), point.y());
        break;
    case Kind::Wheel:
        json.insert(QStringLiteral("x"), point.x());
        json.insert(QStringLiteral("y"), point.y());
        json.insert(QStringLiteral("dx"), delta.x());
        json.insert(QStringLiteral("dy"), delta.y());
        break;
    case Kind::KeyDown:
        if (!text.isEmpty())
            json.insert(QStringLiteral("text"), text);
        [[fallthrough]];
    case Kind::KeyUp:
        json.insert(QStringLiteral("key"), key);
        json.insert(QStringLiteral("code"), code);
        json.insert(QStringLiteral("key_code"), virtualKey);
        break;
    case Kind::Text:
        json.insert(QStringLiteral("text"), text);
        return json; // text carries no modifiers
    }
    json.insert(QStringLiteral("modifiers"), modifiers);
    return json;
}

} // namespace veetbot
