#pragma once

#include "Result.h"

#include <QJsonObject>
#include <QLatin1String>
#include <QString>

namespace veetbot {

// The tool pipeline's failure for arguments that do not match a tool's closed schema (unknown
// fields, wrong types, two modes at once, out-of-bound lengths). It is outside the
// tool.browser.* family on purpose: it is decided before any binding or provider dispatch, and
// every tool's argument parser uses the same code and fixed message.
namespace ToolArguments {
inline constexpr QLatin1String kInvalidArgumentsCode("tool.invalid_arguments");
inline constexpr QLatin1String
    kInvalidArgumentsMessage("The tool arguments do not match the tool's schema.");
Error invalidArguments();
} // namespace ToolArguments

// What browser.observe asks the provider for (spec 000, ADR-0157): exactly one of
//   {}                  the first candidate window of the current page;
//   {"after": ref}      continue after a control of the current revision (1-128 UTF-16 units);
//   {"cursor": token}   continue at the provider's continuation cursor of the current revision
//                       (32-128 UTF-16 units).
// A value of this type is always well formed (there is no way to build a malformed one), so a
// provider only decides whether the ref or cursor is current; it never re-validates the shape.
// Nothing here is a selector, script, offset or profile: the model cannot address the page
// except through references and cursors the provider minted.
class ObserveRequest
{
public:
    enum class Mode
    {
        First,
        After,
        Cursor
    };

    static constexpr int kMinAfterUnits = 1;
    static constexpr int kMaxAfterUnits = 128;
    static constexpr int kMinCursorUnits = 32;
    static constexpr int kMaxCursorUnits = 128;

    // {}: the first window.
    ObserveRequest() = default;
    // Out-of-bound lengths are ToolArguments::invalidArguments().
    static Result<ObserveRequest> after(const QString &ref);
    static Result<ObserveRequest> cursor(const QString &token);

    // Strict: at most one of "after" and "cursor", each a string within its bounds; any other
    // key, any other type (null included), or both keys is ToolArguments::invalidArguments()
    // with its fixed message, which never echoes the input.
    static Result<ObserveRequest> fromJson(const QJsonObject &json);
    // {} / {"after": ref} / {"cursor": token}; fromJson(toJson()) gives the same request.
    QJsonObject toJson() const;

    Mode mode() const { return m_mode; }
    // The anchor ref (Mode::After) or the cursor token (Mode::Cursor); empty for Mode::First.
    const QString &value() const { return m_value; }
    bool isFirst() const { return m_mode == Mode::First; }

    friend bool operator==(const ObserveRequest &, const ObserveRequest &) = default;

private:
    ObserveRequest(Mode mode, QString value) : m_mode(mode), m_value(std::move(value)) {}

    Mode m_mode = Mode::First;
    QString m_value;
};

} // namespace veetbot
