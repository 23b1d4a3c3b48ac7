#include "ToolRegistry.h"

#include "domain/ToolJson.h"
#include "domain/action/ActRequest.h"
#include "domain/observation/ExtractRequest.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/observation/VisiblePredicate.h"
#include "domain/web/Origin.h"

#include <QJsonArray>

namespace veetbot {

QString sideEffectString(SideEffect sideEffect)
{
    switch (sideEffect) {
    case SideEffect::NetworkRead:
        return QStringLiteral("NETWORK_READ");
    case SideEffect::ExternalWrite:
        return QStringLiteral("EXTERNAL_WRITE");
    }
    Q_UNREACHABLE();
    return QString();
}

QString riskString(Risk risk)
{
    switch (risk) {
    case Risk::Low:
        return QStringLiteral("LOW");
    case Risk::High:
        return QStringLiteral("HIGH");
    }
    Q_UNREACHABLE();
    return QString();
}

QString idempotencyString(Idempotency idempotency)
{
    switch (idempotency) {
    case Idempotency::ReadOnly:
        return QStringLiteral("READ_ONLY");
    case Idempotency::NonIdempotent:
        return QStringLiteral("NON_IDEMPOTENT");
    }
    Q_UNREACHABLE();
    return QString();
}

namespace BrowserTools {

namespace {

QJsonObject stringSchema(int minLength, int maxLength)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                       {QStringLiteral("minLength"), minLength},
                       {QStringLiteral("maxLength"), maxLength}};
}

QJsonObject integerSchema(qint64 minimum, qint64 maximum)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                       {QStringLiteral("minimum"), minimum},
                       {QStringLiteral("maximum"), maximum}};
}

QJsonObject booleanSchema()
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}};
}

QJsonObject enumSchema(const QStringList &values)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                       {QStringLiteral("enum"), QJsonArray::fromStringList(values)}};
}

// A closed object: only `properties`, and all of `required`.
QJsonObject closedObject(const QJsonObject &properties, const QStringList &required)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), properties},
                       {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty())
        schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    return schema;
}

// A closed object whose properties are the union of its alternatives, and exactly one
// alternative (each itself closed) matches.
QJsonObject oneOfClosed(const QList<QJsonObject> &alternatives)
{
    QJsonObject properties;
    QJsonArray oneOf;
    for (const QJsonObject &alternative : alternatives) {
        const QJsonObject own = alternative.value(QLatin1String("properties")).toObject();
        for (auto it = own.constBegin(); it != own.constEnd(); ++it) {
            if (!properties.contains(it.key()))
                properties.insert(it.key(), it.value());
        }
        oneOf.append(alternative);
    }
    QJsonObject schema = closedObject(properties, {});
    schema.insert(QStringLiteral("oneOf"), oneOf);
    return schema;
}

QJsonObject predicateSchema()
{
    return closedObject(
        QJsonObject{
            {QStringLiteral("role"), stringSchema(1, VisiblePredicate::kMaxRoleUnits)},
            {QStringLiteral("name"), stringSchema(0, VisiblePredicate::kMaxNameUnits)},
            {QStringLiteral("disabled"), booleanSchema()},
            {QStringLiteral("checked"), booleanSchema()},
            {QStringLiteral("timeout_ms"), integerSchema(0, VisiblePredicate::kMaxTimeoutMs)},
        },
        {QStringLiteral("role"), QStringLiteral("name")});
}

QJsonObject extractSchema()
{
    const QJsonObject column = closedObject(
        QJsonObject{
            {QStringLiteral("name"), stringSchema(1, ExtractColumn::kMaxNameUnits)},
            {QStringLiteral("type"),
             enumSchema({QStringLiteral("string"), QStringLiteral("integer"),
                         QStringLiteral("number"), QStringLiteral("boolean")})},
            {QStringLiteral("required"), booleanSchema()},
        },
        {QStringLiteral("name"), QStringLiteral("type")});
    const QJsonObject columns{{QStringLiteral("type"), QStringLiteral("array")},
                              {QStringLiteral("items"), column},
                              {QStringLiteral("minItems"), ExtractRequest::kMinColumns},
                              {QStringLiteral("maxItems"), ExtractRequest::kMaxColumns}};
    return closedObject(
        QJsonObject{
            {QStringLiteral("revision"), stringSchema(1, ExtractRequest::kMaxRevisionUnits)},
            {QStringLiteral("kind"),
             enumSchema({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("form")})},
            {QStringLiteral("index"), integerSchema(0, ExtractRequest::kMaxIndex)},
            {QStringLiteral("columns"), columns},
            {QStringLiteral("limit"),
             integerSchema(ExtractRequest::kMinLimit, ExtractRequest::kMaxLimit)},
        },
        {QStringLiteral("revision"), QStringLiteral("kind"), QStringLiteral("index"),
         QStringLiteral("columns"), QStringLiteral("limit")});
}

QJsonObject kindConst(ActRequest::Kind kind)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                       {QStringLiteral("const"), actKindString(kind)}};
}

} // namespace

std::optional<ToolClassification> specifiedClassification(const QString &name)
{
    if (name == kNavigate || name == kObserve)
        return ToolClassification{SideEffect::NetworkRead, Risk::Low, Idempotency::ReadOnly};
    if (name == kAct)
        return ToolClassification{SideEffect::ExternalWrite, Risk::High,
                                  Idempotency::NonIdempotent};
    return std::nullopt;
}

QJsonObject navigateSchema()
{
    // discard_unsaved: leave a page that holds unsaved input (its beforeunload prompt answered
    // "leave"); what is discarded is only what the browser holds, nothing is sent.
    return closedObject(
        QJsonObject{{QStringLiteral("url"), stringSchema(1, PublicUrl::kMaxUrlBytes)},
                    {QStringLiteral("discard_unsaved"), booleanSchema()}},
        {QStringLiteral("url")});
}

Result<NavigateRequest> parseNavigate(const QJsonObject &arguments)
{
    const auto url =
        ToolJson::string(arguments.value(QLatin1String("url")), 1, PublicUrl::kMaxUrlBytes);
    const QJsonValue discard = arguments.value(QLatin1String("discard_unsaved"));
    if (!ToolJson::hasOnlyKeys(arguments, {"url", "discard_unsaved"}, {"url"}) || !url ||
        !(discard.isUndefined() || discard.isBool()))
        return ToolArguments::invalidArguments();
    NavigateRequest request{QUrl(*url, QUrl::StrictMode)};
    request.discardUnsaved = discard.toBool(false);
    return request;
}

QJsonObject observeSchema(const ProviderCapabilities &capabilities)
{
    QList<QJsonObject> modes;
    modes.append(closedObject(QJsonObject(), {})); // {}: the first window
    if (capabilities.expand) {
        modes.append(closedObject(
            QJsonObject{{QStringLiteral("after"), stringSchema(ObserveRequest::kMinAfterUnits,
                                                               ObserveRequest::kMaxAfterUnits)}},
            {QStringLiteral("after")}));
        modes.append(closedObject(
            QJsonObject{{QStringLiteral("cursor"), stringSchema(ObserveRequest::kMinCursorUnits,
                                                                ObserveRequest::kMaxCursorUnits)}},
            {QStringLiteral("cursor")}));
    }
    modes.append(closedObject(QJsonObject{{QStringLiteral("wait_for"), predicateSchema()}},
                              {QStringLiteral("wait_for")}));
    if (capabilities.extract) {
        modes.append(closedObject(QJsonObject{{QStringLiteral("extract"), extractSchema()}},
                                  {QStringLiteral("extract")}));
    }
    modes.append(closedObject(
        QJsonObject{
            {QStringLiteral("region_ref"), stringSchema(1, FocusRequest::kMaxRefUnits)},
            {QStringLiteral("expected_revision"), stringSchema(1, FocusRequest::kMaxRevisionUnits)},
            {QStringLiteral("text_offset"), integerSchema(0, FocusRequest::kMaxTextOffset)},
        },
        {QStringLiteral("region_ref"), QStringLiteral("expected_revision")}));
    return oneOfClosed(modes);
}

QJsonObject actSchema()
{
    const auto common = [](ActRequest::Kind kind) {
        return QJsonObject{
            {QStringLiteral("kind"), kindConst(kind)},
            {QStringLiteral("expected_revision"), stringSchema(1, ActRequest::kMaxRevisionUnits)},
            {QStringLiteral("ref"), stringSchema(1, ActRequest::kMaxRefUnits)},
            {QStringLiteral("postcondition"), predicateSchema()},
        };
    };
    const QStringList required{QStringLiteral("kind"), QStringLiteral("expected_revision"),
                               QStringLiteral("ref")};
    QStringList keys;
    for (ActRequest::Key key : kAllActKeys)
        keys.append(actKeyString(key));
    // The scroll distance: 1..2,000 either way, never 0.
    const QJsonObject delta{{QStringLiteral("type"), QStringLiteral("integer")},
                            {QStringLiteral("minimum"), -ActRequest::kMaxScrollDistance},
                            {QStringLiteral("maximum"), ActRequest::kMaxScrollDistance},
                            {QStringLiteral("not"), QJsonObject{{QStringLiteral("const"), 0}}}};

    QList<QJsonObject> kinds;
    for (ActRequest::Kind kind : kAllActKinds) {
        QJsonObject properties = common(kind);
        QStringList needed = required;
        const auto add = [&](const QString &field, const QJsonObject &schema) {
            properties.insert(field, schema);
            needed.append(field);
        };
        switch (kind) {
        case ActRequest::Kind::Click:
            break;
        case ActRequest::Kind::Type:
            add(QStringLiteral("text"), stringSchema(0, ActRequest::kMaxTextCodePoints));
            break;
        case ActRequest::Kind::Select:
            add(QStringLiteral("option"), stringSchema(0, ActRequest::kMaxOptionCodePoints));
            break;
        case ActRequest::Kind::Check:
            add(QStringLiteral("checked"), booleanSchema());
            break;
        case ActRequest::Kind::Press:
            add(QStringLiteral("key"), enumSchema(keys));
            break;
        case ActRequest::Kind::Scroll:
            add(QStringLiteral("delta"), delta);
            break;
        }
        kinds.append(closedObject(properties, needed));
    }
    QJsonObject schema = oneOfClosed(kinds);
    // The union's kind is any of the kinds; each alternative pins its own.
    QStringList kindNames;
    for (ActRequest::Kind kind : kAllActKinds)
        kindNames.append(actKindString(kind));
    QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    properties.insert(QStringLiteral("kind"), enumSchema(kindNames));
    schema.insert(QStringLiteral("properties"), properties);
    schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    return schema;
}

} // namespace BrowserTools

ToolRegistry ToolRegistry::forProvider(const BrowserProvider *provider)
{
    if (!provider)
        return ToolRegistry();
    return forCapabilities(provider->capabilities());
}

ToolRegistry ToolRegistry::forCapabilities(const ProviderCapabilities &capabilities)
{
    ToolRegistry registry;
    registry.m_bound = true;
    const QString version(BrowserTools::kVersion);
    const auto add = [&](QLatin1String name, QJsonObject schema) {
        registry.m_tools.append(ToolDescriptor{QString(name), version,
                                               *BrowserTools::specifiedClassification(name),
                                               std::move(schema)});
    };
    if (capabilities.navigate)
        add(BrowserTools::kNavigate, BrowserTools::navigateSchema());
    if (capabilities.observe)
        add(BrowserTools::kObserve, BrowserTools::observeSchema(capabilities));
    if (capabilities.act)
        add(BrowserTools::kAct, BrowserTools::actSchema());
    return registry;
}

const ToolDescriptor *ToolRegistry::find(const QString &name) const
{
    for (const ToolDescriptor &tool : m_tools) {
        if (tool.name == name)
            return &tool;
    }
    return nullptr;
}

} // namespace veetbot
