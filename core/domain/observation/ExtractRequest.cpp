#include "ExtractRequest.h"

#include "ObserveRequest.h"
#include "domain/ToolJson.h"

#include <QJsonArray>
#include <QSet>

namespace veetbot {

namespace {
std::optional<ExtractRequest::Kind> kindFromString(const QString &kind)
{
    if (kind == QLatin1String("table"))
        return ExtractRequest::Kind::Table;
    if (kind == QLatin1String("list"))
        return ExtractRequest::Kind::List;
    if (kind == QLatin1String("form"))
        return ExtractRequest::Kind::Form;
    return std::nullopt;
}

std::optional<ExtractColumn::Type> typeFromString(const QString &type)
{
    if (type == QLatin1String("string"))
        return ExtractColumn::Type::String;
    if (type == QLatin1String("integer"))
        return ExtractColumn::Type::Integer;
    if (type == QLatin1String("number"))
        return ExtractColumn::Type::Number;
    if (type == QLatin1String("boolean"))
        return ExtractColumn::Type::Boolean;
    return std::nullopt;
}

std::optional<ExtractColumn> columnFromJson(const QJsonValue &value)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject object = value.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"name", "type", "required"}, {"name", "type"}))
        return std::nullopt;
    const auto name =
        ToolJson::string(object.value(QLatin1String("name")), 1, ExtractColumn::kMaxNameUnits);
    const auto typeName = ToolJson::string(object.value(QLatin1String("type")), 1, 16);
    if (!name || !typeName)
        return std::nullopt;
    const auto type = typeFromString(*typeName);
    if (!type)
        return std::nullopt;
    ExtractColumn column{*name, *type, false};
    if (object.contains(QLatin1String("required"))) {
        const auto required = ToolJson::boolean(object.value(QLatin1String("required")));
        if (!required)
            return std::nullopt;
        column.required = *required;
    }
    return column;
}
} // namespace

QString extractColumnTypeString(ExtractColumn::Type type)
{
    switch (type) {
    case ExtractColumn::Type::String:
        return QStringLiteral("string");
    case ExtractColumn::Type::Integer:
        return QStringLiteral("integer");
    case ExtractColumn::Type::Number:
        return QStringLiteral("number");
    case ExtractColumn::Type::Boolean:
        return QStringLiteral("boolean");
    }
    Q_UNREACHABLE();
    return QString();
}

QString extractKindString(ExtractRequest::Kind kind)
{
    switch (kind) {
    case ExtractRequest::Kind::Table:
        return QStringLiteral("table");
    case ExtractRequest::Kind::List:
        return QStringLiteral("list");
    case ExtractRequest::Kind::Form:
        return QStringLiteral("form");
    }
    Q_UNREACHABLE();
    return QString();
}

Result<ExtractRequest> ExtractRequest::fromJson(const QJsonValue &json)
{
    if (!json.isObject())
        return ToolArguments::invalidArguments();
    const QJsonObject object = json.toObject();
    if (!ToolJson::hasOnlyKeys(object, {"revision", "kind", "index", "columns", "limit"},
                               {"revision", "kind", "index", "columns", "limit"}))
        return ToolArguments::invalidArguments();
    const auto revision =
        ToolJson::string(object.value(QLatin1String("revision")), 1, kMaxRevisionUnits);
    const auto kindName = ToolJson::string(object.value(QLatin1String("kind")), 1, 16);
    const auto index = ToolJson::integer(object.value(QLatin1String("index")), 0, kMaxIndex);
    const auto limit =
        ToolJson::integer(object.value(QLatin1String("limit")), kMinLimit, kMaxLimit);
    const QJsonValue columns = object.value(QLatin1String("columns"));
    if (!revision || !kindName || !index || !limit || !columns.isArray())
        return ToolArguments::invalidArguments();
    const auto kind = kindFromString(*kindName);
    const QJsonArray columnArray = columns.toArray();
    if (!kind || columnArray.size() < kMinColumns || columnArray.size() > kMaxColumns)
        return ToolArguments::invalidArguments();
    ExtractRequest request;
    request.revision = *revision;
    request.kind = *kind;
    request.index = int(*index);
    request.limit = int(*limit);
    QSet<QString> names;
    for (const QJsonValue &value : columnArray) {
        const auto column = columnFromJson(value);
        if (!column || names.contains(column->name))
            return ToolArguments::invalidArguments();
        names.insert(column->name);
        request.columns.append(*column);
    }
    return request;
}

QJsonObject ExtractRequest::toJson() const
{
    QJsonArray columnArray;
    for (const ExtractColumn &column : columns) {
        columnArray.append(
            QJsonObject{{QStringLiteral("name"), column.name},
                        {QStringLiteral("type"), extractColumnTypeString(column.type)},
                        {QStringLiteral("required"), column.required}});
    }
    return QJsonObject{{QStringLiteral("revision"), revision},
                       {QStringLiteral("kind"), extractKindString(kind)},
                       {QStringLiteral("index"), index},
                       {QStringLiteral("columns"), columnArray},
                       {QStringLiteral("limit"), limit}};
}

} // namespace veetbot
