#include "ActRequest.h"

#include "domain/Sha256.h"
#include "domain/ToolJson.h"
#include "domain/observation/ObserveRequest.h"
#include "json/CanonicalJson.h"

#include <cstdlib>

namespace veetbot {

namespace {

bool lengthWithin(const QString &value, int minUnits, int maxUnits)
{
    return value.size() >= minUnits && value.size() <= maxUnits;
}

// Valid UTF-16 of at most maxCodePoints code points (an unpaired surrogate is refused: it
// has no canonical form to digest or type).
bool validTextWithin(const QString &text, int maxCodePoints)
{
    int codePoints = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate()) {
            if (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate())
                return false;
            ++i;
        } else if (c.isLowSurrogate()) {
            return false;
        }
        if (++codePoints > maxCodePoints)
            return false;
    }
    return true;
}

struct KindField
{
    ActRequest::Kind kind;
    const char *field; // the kind's own field, or nullptr
};

constexpr KindField kKindFields[] = {
    {ActRequest::Kind::Click, nullptr},   {ActRequest::Kind::Type, "text"},
    {ActRequest::Kind::Select, "option"}, {ActRequest::Kind::Check, "checked"},
    {ActRequest::Kind::Press, "key"},     {ActRequest::Kind::Scroll, "delta"},
};

const char *fieldOf(ActRequest::Kind kind)
{
    for (const KindField &entry : kKindFields) {
        if (entry.kind == kind)
            return entry.field;
    }
    return nullptr;
}

} // namespace

QString actKindString(ActRequest::Kind kind)
{
    switch (kind) {
    case ActRequest::Kind::Click:
        return QStringLiteral("click");
    case ActRequest::Kind::Type:
        return QStringLiteral("type");
    case ActRequest::Kind::Select:
        return QStringLiteral("select");
    case ActRequest::Kind::Check:
        return QStringLiteral("check");
    case ActRequest::Kind::Press:
        return QStringLiteral("press");
    case ActRequest::Kind::Scroll:
        return QStringLiteral("scroll");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<ActRequest::Kind> actKindFromString(const QString &name)
{
    for (ActRequest::Kind kind : kAllActKinds) {
        if (actKindString(kind) == name)
            return kind;
    }
    return std::nullopt;
}

QString actKeyString(ActRequest::Key key)
{
    switch (key) {
    case ActRequest::Key::Enter:
        return QStringLiteral("Enter");
    case ActRequest::Key::Tab:
        return QStringLiteral("Tab");
    case ActRequest::Key::Escape:
        return QStringLiteral("Escape");
    case ActRequest::Key::Backspace:
        return QStringLiteral("Backspace");
    case ActRequest::Key::Delete:
        return QStringLiteral("Delete");
    case ActRequest::Key::Space:
        return QStringLiteral("Space");
    case ActRequest::Key::ArrowUp:
        return QStringLiteral("ArrowUp");
    case ActRequest::Key::ArrowDown:
        return QStringLiteral("ArrowDown");
    case ActRequest::Key::ArrowLeft:
        return QStringLiteral("ArrowLeft");
    case ActRequest::Key::ArrowRight:
        return QStringLiteral("ArrowRight");
    case ActRequest::Key::Home:
        return QStringLiteral("Home");
    case ActRequest::Key::End:
        return QStringLiteral("End");
    case ActRequest::Key::PageUp:
        return QStringLiteral("PageUp");
    case ActRequest::Key::PageDown:
        return QStringLiteral("PageDown");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<ActRequest::Key> actKeyFromString(const QString &name)
{
    for (ActRequest::Key key : kAllActKeys) {
        if (actKeyString(key) == name)
            return key;
    }
    return std::nullopt;
}

Result<ActRequest> ActRequest::base(Kind kind, const QString &expectedRevision, const QString &ref)
{
    if (!lengthWithin(expectedRevision, 1, kMaxRevisionUnits) ||
        !lengthWithin(ref, 1, kMaxRefUnits) ||
        !validTextWithin(expectedRevision, kMaxRevisionUnits) ||
        !validTextWithin(ref, kMaxRefUnits))
        return ToolArguments::invalidArguments();
    return ActRequest(kind, expectedRevision, ref);
}

Result<ActRequest> ActRequest::click(const QString &expectedRevision, const QString &ref)
{
    return base(Kind::Click, expectedRevision, ref);
}

Result<ActRequest> ActRequest::type(const QString &expectedRevision, const QString &ref,
                                    const QString &text)
{
    Result<ActRequest> request = base(Kind::Type, expectedRevision, ref);
    if (!request || !validTextWithin(text, kMaxTextCodePoints))
        return ToolArguments::invalidArguments();
    request.value().m_text = text;
    return request;
}

Result<ActRequest> ActRequest::select(const QString &expectedRevision, const QString &ref,
                                      const QString &option)
{
    Result<ActRequest> request = base(Kind::Select, expectedRevision, ref);
    if (!request || !validTextWithin(option, kMaxOptionCodePoints))
        return ToolArguments::invalidArguments();
    request.value().m_text = option;
    return request;
}

Result<ActRequest> ActRequest::check(const QString &expectedRevision, const QString &ref,
                                     bool checked)
{
    Result<ActRequest> request = base(Kind::Check, expectedRevision, ref);
    if (request)
        request.value().m_checked = checked;
    return request;
}

Result<ActRequest> ActRequest::press(const QString &expectedRevision, const QString &ref, Key key)
{
    Result<ActRequest> request = base(Kind::Press, expectedRevision, ref);
    if (request)
        request.value().m_key = key;
    return request;
}

Result<ActRequest> ActRequest::scroll(const QString &expectedRevision, const QString &ref,
                                      int delta)
{
    Result<ActRequest> request = base(Kind::Scroll, expectedRevision, ref);
    const qint64 distance = delta < 0 ? -qint64(delta) : qint64(delta);
    if (!request || distance < kMinScrollDistance || distance > kMaxScrollDistance)
        return ToolArguments::invalidArguments();
    request.value().m_delta = delta;
    return request;
}

Result<ActRequest> ActRequest::withPostcondition(VisiblePredicate predicate) const
{
    if (!lengthWithin(predicate.role, 1, VisiblePredicate::kMaxRoleUnits) ||
        !validTextWithin(predicate.role, VisiblePredicate::kMaxRoleUnits) ||
        !validTextWithin(predicate.name, VisiblePredicate::kMaxNameUnits) ||
        predicate.timeoutMs < 0 || predicate.timeoutMs > VisiblePredicate::kMaxTimeoutMs)
        return ToolArguments::invalidArguments();
    ActRequest request = *this;
    request.m_postcondition = std::move(predicate);
    return request;
}

Result<ActRequest> ActRequest::fromJson(const QJsonObject &json)
{
    const auto kindName = ToolJson::string(json.value(QLatin1String("kind")), 1, 16);
    if (!kindName)
        return ToolArguments::invalidArguments();
    const std::optional<Kind> kind = actKindFromString(*kindName);
    if (!kind)
        return ToolArguments::invalidArguments();
    // Exactly the common fields, the optional postcondition and the kind's own field.
    const char *own = fieldOf(*kind);
    const bool shapeOk =
        own ? ToolJson::hasOnlyKeys(json,
                                    {"kind", "expected_revision", "ref", "postcondition", own},
                                    {"kind", "expected_revision", "ref", own})
            : ToolJson::hasOnlyKeys(json, {"kind", "expected_revision", "ref", "postcondition"},
                                    {"kind", "expected_revision", "ref"});
    if (!shapeOk)
        return ToolArguments::invalidArguments();
    const auto revision =
        ToolJson::string(json.value(QLatin1String("expected_revision")), 1, kMaxRevisionUnits);
    const auto ref = ToolJson::string(json.value(QLatin1String("ref")), 1, kMaxRefUnits);
    if (!revision || !ref)
        return ToolArguments::invalidArguments();

    Result<ActRequest> request = ToolArguments::invalidArguments();
    switch (*kind) {
    case Kind::Click:
        request = click(*revision, *ref);
        break;
    case Kind::Type: {
        // A code-point bound needs the string first; 2 units per code point at most.
        const auto text =
            ToolJson::string(json.value(QLatin1String("text")), 0, 2 * kMaxTextCodePoints);
        if (!text)
            return ToolArguments::invalidArguments();
        request = type(*revision, *ref, *text);
        break;
    }
    case Kind::Select: {
        const auto option =
            ToolJson::string(json.value(QLatin1String("option")), 0, 2 * kMaxOptionCodePoints);
        if (!option)
            return ToolArguments::invalidArguments();
        request = select(*revision, *ref, *option);
        break;
    }
    case Kind::Check: {
        const auto checked = ToolJson::boolean(json.value(QLatin1String("checked")));
        if (!checked)
            return ToolArguments::invalidArguments();
        request = check(*revision, *ref, *checked);
        break;
    }
    case Kind::Press: {
        const auto keyName = ToolJson::string(json.value(QLatin1String("key")), 1, 16);
        const std::optional<Key> key = keyName ? actKeyFromString(*keyName) : std::nullopt;
        if (!key)
            return ToolArguments::invalidArguments();
        request = press(*revision, *ref, *key);
        break;
    }
    case Kind::Scroll: {
        const auto delta = ToolJson::integer(json.value(QLatin1String("delta")),
                                             -kMaxScrollDistance, kMaxScrollDistance);
        if (!delta || *delta == 0)
            return ToolArguments::invalidArguments();
        request = scroll(*revision, *ref, int(*delta));
        break;
    }
    }
    if (!request)
        return request;
    if (json.contains(QLatin1String("postcondition"))) {
        Result<VisiblePredicate> predicate =
            VisiblePredicate::fromJson(json.value(QLatin1String("postcondition")));
        if (!predicate)
            return predicate.error();
        return request->withPostcondition(std::move(predicate).value());
    }
    return request;
}

QJsonObject ActRequest::toJson() const
{
    QJsonObject json{{QStringLiteral("kind"), actKindString(m_kind)},
                     {QStringLiteral("expected_revision"), m_expectedRevision},
                     {QStringLiteral("ref"), m_ref}};
    switch (m_kind) {
    case Kind::Click:
        break;
    case Kind::Type:
        json.insert(QStringLiteral("text"), m_text);
        break;
    case Kind::Select:
        json.insert(QStringLiteral("option"), m_text);
        break;
    case Kind::Check:
        json.insert(QStringLiteral("checked"), m_checked);
        break;
    case Kind::Press:
        json.insert(QStringLiteral("key"), actKeyString(m_key));
        break;
    case Kind::Scroll:
        json.insert(QStringLiteral("delta"), m_delta);
        break;
    }
    if (m_postcondition)
        json.insert(QStringLiteral("postcondition"), m_postcondition->toJson());
    return json;
}

QByteArray ActRequest::argumentDigest() const
{
    // Every value toJson() writes is a bounded string, a small integer or a boolean, and every
    // string is valid UTF-16 by construction, so canonical serialization cannot fail.
    const std::optional<QByteArray> canonical = CanonicalJson::serialize(toJson());
    if (!canonical)
        std::abort();
    return Sha256::digest(*canonical);
}

} // namespace veetbot
