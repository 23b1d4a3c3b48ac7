#include "ObserveRequest.h"

#include "domain/ToolJson.h"

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

ObserveRequest ObserveRequest::waitFor(VisiblePredicate predicate)
{
    ObserveRequest request(Mode::WaitFor, QString());
    request.m_waitFor = std::move(predicate);
    return request;
}

ObserveRequest ObserveRequest::extract(ExtractRequest extract)
{
    ObserveRequest request(Mode::Extract, QString());
    request.m_extract = std::move(extract);
    return request;
}

Result<ObserveRequest> ObserveRequest::focus(const QString &regionRef,
                                             const QString &expectedRevision, int textOffset)
{
    if (!lengthWithin(regionRef, 1, FocusRequest::kMaxRefUnits) ||
        !lengthWithin(expectedRevision, 1, FocusRequest::kMaxRevisionUnits) || textOffset < 0 ||
        textOffset > FocusRequest::kMaxTextOffset)
        return ToolArguments::invalidArguments();
    ObserveRequest request(Mode::Focus, QString());
    request.m_focus = FocusRequest{regionRef, expectedRevision, textOffset};
    return request;
}

Result<ObserveRequest> ObserveRequest::fromJson(const QJsonObject &json)
{
    if (json.isEmpty())
        return ObserveRequest();
    if (json.contains(QLatin1String("region_ref"))) {
        if (!ToolJson::hasOnlyKeys(json, {"region_ref", "expected_revision", "text_offset"},
                                   {"region_ref", "expected_revision"}))
            return ToolArguments::invalidArguments();
        const auto ref = ToolJson::string(json.value(QLatin1String("region_ref")), 1,
                                          FocusRequest::kMaxRefUnits);
        const auto revision = ToolJson::string(json.value(QLatin1String("expected_revision")), 1,
                                               FocusRequest::kMaxRevisionUnits);
        std::optional<qint64> offset = 0;
        if (json.contains(QLatin1String("text_offset")))
            offset = ToolJson::integer(json.value(QLatin1String("text_offset")), 0,
                                       FocusRequest::kMaxTextOffset);
        if (!ref || !revision || !offset)
            return ToolArguments::invalidArguments();
        return focus(*ref, *revision, int(*offset));
    }
    if (json.size() != 1)
        return ToolArguments::invalidArguments(); // two modes, or a mode and an unknown field
    const auto only = json.constBegin();
    if (only.key() == QLatin1String("wait_for")) {
        Result<VisiblePredicate> predicate = VisiblePredicate::fromJson(only.value());
        if (!predicate)
            return predicate.error();
        return waitFor(std::move(predicate).value());
    }
    if (only.key() == QLatin1String("extract")) {
        Result<ExtractRequest> extractRequest = ExtractRequest::fromJson(only.value());
        if (!extractRequest)
            return extractRequest.error();
        return extract(std::move(extractRequest).value());
    }
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
    case Mode::WaitFor:
        return QJsonObject{{QStringLiteral("wait_for"), m_waitFor.toJson()}};
    case Mode::Extract:
        return QJsonObject{{QStringLiteral("extract"), m_extract.toJson()}};
    case Mode::Focus:
        return QJsonObject{{QStringLiteral("region_ref"), m_focus.regionRef},
                           {QStringLiteral("expected_revision"), m_focus.expectedRevision},
                           {QStringLiteral("text_offset"), m_focus.textOffset}};
    }
    Q_UNREACHABLE();
    return QJsonObject();
}

} // namespace veetbot
