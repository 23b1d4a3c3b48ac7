#include "VisiblePredicate.h"

#include "BrowserObservation.h"
#include "ObserveRequest.h"
#include "domain/ToolJson.h"

namespace veetbot {

Result<VisiblePredicate> VisiblePredicate::fromJson(const QJsonValue &json)
{
    if (!json.isObject())
        return ToolArguments::invalidArguments();
    const QJsonObject object = json.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"role", "name", "disabled", "checked", "timeout_ms"},
                               {"role", "name"}))
        return ToolArguments::invalidArguments();
    VisiblePredicate predicate;
    const auto role = ToolJson::string(object.value(QLatin1String("role")), 1, kMaxRoleUnits);
    const auto name = ToolJson::string(object.value(QLatin1String("name")), 0, kMaxNameUnits);
    if (!role || !name)
        return ToolArguments::invalidArguments();
    predicate.role = *role;
    predicate.name = *name;
    if (object.contains(QLatin1String("disabled"))) {
        predicate.disabled = ToolJson::boolean(object.value(QLatin1String("disabled")));
        if (!predicate.disabled)
            return ToolArguments::invalidArguments();
    }
    if (object.contains(QLatin1String("checked"))) {
        predicate.checked = ToolJson::boolean(object.value(QLatin1String("checked")));
        if (!predicate.checked)
            return ToolArguments::invalidArguments();
    }
    if (object.contains(QLatin1String("timeout_ms"))) {
        const auto timeout =
            ToolJson::integer(object.value(QLatin1String("timeout_ms")), 0, kMaxTimeoutMs);
        if (!timeout)
            return ToolArguments::invalidArguments();
        predicate.timeoutMs = int(*timeout);
    }
    return predicate;
}

QJsonObject VisiblePredicate::toJson() const
{
    QJsonObject json{{QStringLiteral("role"), role},
                     {QStringLiteral("name"), name},
                     {QStringLiteral("timeout_ms"), timeoutMs}};
    if (disabled)
        json.insert(QStringLiteral("disabled"), *disabled);
    if (checked)
        json.insert(QStringLiteral("checked"), *checked);
    return json;
}

bool VisiblePredicate::matchesRoleAndName(const ElementRecord &element) const
{
    return element.role == role && element.name == name;
}

bool VisiblePredicate::matchesState(const ElementRecord &element) const
{
    if (disabled && element.state.disabled != *disabled)
        return false;
    if (checked) {
        const CheckedState wanted = *checked ? CheckedState::True : CheckedState::False;
        if (element.state.checked != wanted)
            return false;
    }
    return true;
}

} // namespace veetbot
