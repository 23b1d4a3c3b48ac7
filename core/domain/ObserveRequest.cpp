#include "ObserveRequest.h"

namespace veetbot {

Error ToolArguments::invalidArguments()
{
    return Error{QString(kInvalidArgumentsCode), QString(kInvalidArgumentsMessage)};
}

namespace {
bool lengthWithin(const QString &value, int minUnits, int maxUnits)
{
    return value.size() >= minUnits && value.size() <= maxUnits;
}
} // namespace

Result<ObserveRequest> ObserveRequest::after(const QString &ref)
{
    if (!lengthWithin(ref, kMinAfterUnits, kMaxAfterUnits))
        return ToolArguments::invalidArguments();
    return ObserveRequest(Mode::After, ref);
}

Result<ObserveRequest> ObserveRequest::cursor(const QString &token)
{
    if (!lengthWithin(token, kMinCursorUnits, kMaxCursorUnits))
        return ToolArguments::invalidArguments();
    return ObserveRequest(Mode::Cursor, token);
}

Result<ObserveRequest> ObserveRequest::fromJson(const QJsonObject &json)
{
    if (json.isEmpty())
        return ObserveRequest();
    if (json.size() != 1)
        return ToolArguments::invalidArguments(); // two modes, or a mode and an unknown field
    const auto only = json.constBegin();
    if (!only.value().isString())
        return ToolArguments::invalidArguments();
    if (only.key() == QLatin1String("after"))
        return after(only.value().toString());
    if (only.key() == QLatin1String("cursor"))
        return cursor(only.value().toString());
    return ToolArguments::invalidArguments();
}

QJsonObject ObserveRequest::toJson() const
{
    switch (m_mode) {
    case Mode::First:
        return QJsonObject();
    case Mode::After:
        return QJsonObject{{QStringLiteral("after"), m_value}};
    case Mode::Cursor:
        return QJsonObject{{QStringLiteral("cursor"), m_value}};
    }
    Q_UNREACHABLE();
    return QJsonObject();
}

} // namespace veetbot
