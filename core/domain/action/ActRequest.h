#pragma once

#include "domain/Result.h"
#include "domain/observation/VisiblePredicate.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace veetbot {

// The closed argument schema of browser.act 1.7.0:
//   {kind, expected_revision, ref, postcondition?} plus exactly the field of the kind:
//   click                     nothing else
//   type    {text}            0-4,096 code points, replaces the field's value
//   select  {option}          0-1,024 code points; by value, then by label (provider)
//   check   {checked}         true / false
//   press   {key}             one of the closed key list, no modifiers
//   scroll  {delta}           signed integer, 1 <= |delta| <= 2,000 (CSS pixels)
// The target is the opaque ref of the observation whose revision is expected_revision; it is
// never a selector. A value of this type is well formed by construction (the factories and
// fromJson refuse everything else with ToolArguments::invalidArguments(), which never echoes
// the input). It says nothing about whether the ref or revision is current: the provider
// decides that before dispatch (tool.browser.page_changed). A default-constructed request is
// a click on an empty ref of an empty revision, which no provider ever finds current.
class ActRequest
{
public:
    enum class Kind
    {
        Click,
        Type,
        Select,
        Check,
        Press,
        Scroll
    };

    enum class Key
    {
        Enter,
        Tab,
        Escape,
        Backspace,
        Delete,
        Space,
        ArrowUp,
        ArrowDown,
        ArrowLeft,
        ArrowRight,
        Home,
        End,
        PageUp,
        PageDown
    };

    static constexpr int kMaxRefUnits = 128;
    static constexpr int kMaxRevisionUnits = 128;
    static constexpr int kMaxTextCodePoints = 4096;
    static constexpr int kMaxOptionCodePoints = 1024;
    static constexpr int kMinScrollDistance = 1;
    static constexpr int kMaxScrollDistance = 2000;

    ActRequest() = default;

    // Each factory checks the shared bounds (ref and revision 1-128 UTF-16 units, valid UTF-16)
    // and its own.
    static Result<ActRequest> click(const QString &expectedRevision, const QString &ref);
    // Text must be valid UTF-16 (no unpaired surrogate) of at most 4,096 code points.
    static Result<ActRequest> type(const QString &expectedRevision, const QString &ref,
                                   const QString &text);
    static Result<ActRequest> select(const QString &expectedRevision, const QString &ref,
                                     const QString &option);
    static Result<ActRequest> check(const QString &expectedRevision, const QString &ref,
                                    bool checked);
    static Result<ActRequest> press(const QString &expectedRevision, const QString &ref, Key key);
    static Result<ActRequest> scroll(const QString &expectedRevision, const QString &ref,
                                     int delta);
    // The same request with a visible postcondition checked after the action settles; a
    // predicate outside VisiblePredicate's bounds or with an unpaired surrogate is refused.
    Result<ActRequest> withPostcondition(VisiblePredicate predicate) const;

    // Strict: the fields of exactly one kind; an unknown field, a field of another kind, a
    // wrong type (null included), an unknown kind or key, a scroll of 0 or beyond 2,000, or
    // text beyond its bound is ToolArguments::invalidArguments().
    static Result<ActRequest> fromJson(const QJsonObject &json);
    // Writes every field of the kind (a postcondition with its timeout_ms);
    // fromJson(toJson()) gives the same request.
    QJsonObject toJson() const;
    // SHA-256 (32 bytes) of the RFC 8785 canonical JSON of toJson(): equal requests have equal
    // digests, and any difference in any argument changes it. Binds approvals and ledger
    // records to the exact arguments without storing them.
    QByteArray argumentDigest() const;

    Kind kind() const { return m_kind; }
    const QString &expectedRevision() const { return m_expectedRevision; }
    const QString &ref() const { return m_ref; }
    // The payload of the kind; meaningful only for that kind.
    const QString &text() const { return m_text; }   // type
    const QString &option() const { return m_text; } // select
    bool checked() const { return m_checked; }       // check
    Key key() const { return m_key; }                // press
    int delta() const { return m_delta; }            // scroll
    const std::optional<VisiblePredicate> &postcondition() const { return m_postcondition; }

    friend bool operator==(const ActRequest &, const ActRequest &) = default;

private:
    ActRequest(Kind kind, QString expectedRevision, QString ref)
        : m_kind(kind), m_expectedRevision(std::move(expectedRevision)), m_ref(std::move(ref))
    {
    }
    static Result<ActRequest> base(Kind kind, const QString &expectedRevision, const QString &ref);

    Kind m_kind = Kind::Click;
    QString m_expectedRevision;
    QString m_ref;
    QString m_text; // type: the text; select: the option
    bool m_checked = false;
    Key m_key = Key::Enter;
    int m_delta = 0;
    std::optional<VisiblePredicate> m_postcondition;
};

// "click", "type", ... and back; unknown names are nullopt.
QString actKindString(ActRequest::Kind kind);
std::optional<ActRequest::Kind> actKindFromString(const QString &name);
// "Enter", "ArrowUp", ... exactly as written in the schema (case-sensitive).
QString actKeyString(ActRequest::Key key);
std::optional<ActRequest::Key> actKeyFromString(const QString &name);

inline constexpr ActRequest::Kind kAllActKinds[] = {
    ActRequest::Kind::Click, ActRequest::Kind::Type,  ActRequest::Kind::Select,
    ActRequest::Kind::Check, ActRequest::Kind::Press, ActRequest::Kind::Scroll,
};
inline constexpr ActRequest::Key kAllActKeys[] = {
    ActRequest::Key::Enter,      ActRequest::Key::Tab,       ActRequest::Key::Escape,
    ActRequest::Key::Backspace,  ActRequest::Key::Delete,    ActRequest::Key::Space,
    ActRequest::Key::ArrowUp,    ActRequest::Key::ArrowDown, ActRequest::Key::ArrowLeft,
    ActRequest::Key::ArrowRight, ActRequest::Key::Home,      ActRequest::Key::End,
    ActRequest::Key::PageUp,     ActRequest::Key::PageDown,
};

} // namespace veetbot
