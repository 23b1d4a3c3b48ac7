#pragma once

#include "ExtractRequest.h"
#include "VisiblePredicate.h"
#include "domain/Result.h"

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

// browser.observe's {region_ref, expected_revision, text_offset?} mode: read one region of the
// current revision, its controls and its text from a UTF-8 byte offset.
struct FocusRequest
{
    static constexpr int kMaxRefUnits = 128;
    static constexpr int kMaxRevisionUnits = 128;
    static constexpr int kMaxTextOffset = 256 * 1024; // the readable-text ceiling

    QString regionRef;
    QString expectedRevision;
    int textOffset = 0; // UTF-8 bytes into the region's captured text

    friend bool operator==(const FocusRequest &, const FocusRequest &) = default;
};

// The closed argument schema of browser.observe 1.7.0: exactly one of
//   {}                  the first candidate window of the current page;
//   {"after": ref}      continue after a control of the current revision (1-128 UTF-16 units);
//   {"cursor": token}   continue at the provider's continuation cursor of the current revision
//                       (32-128 UTF-16 units);
//   {"wait_for": predicate}          poll the first window until a visible control matches;
//   {"extract": {revision, ...}}     read one visible table, list or form into typed rows;
//   {"region_ref", "expected_revision", "text_offset"?}   focus one region of the revision.
// A value of this type is always well formed (there is no way to build a malformed one), so a
// provider only decides whether a ref, cursor or revision is current; it never re-validates
// the shape. Nothing here is a selector, script or profile: the model cannot address the page
// except through references, revisions and cursors the provider minted.
class ObserveRequest
{
public:
    enum class Mode
    {
        First,
        After,
        Cursor,
        WaitFor,
        Extract,
        Focus
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
    static ObserveRequest waitFor(VisiblePredicate predicate);
    static ObserveRequest extract(ExtractRequest request);
    // Bounds as in FocusRequest (refs and revisions non-empty); else invalidArguments().
    static Result<ObserveRequest> focus(const QString &regionRef, const QString &expectedRevision,
                                        int textOffset = 0);

    // Strict: exactly one mode, each value within its schema; any other key, any other type
    // (null included), or two modes is ToolArguments::invalidArguments() with its fixed
    // message, which never echoes the input.
    static Result<ObserveRequest> fromJson(const QJsonObject &json);
    // fromJson(toJson()) gives the same request.
    QJsonObject toJson() const;

    Mode mode() const { return m_mode; }
    // The anchor ref (Mode::After) or the cursor token (Mode::Cursor); empty otherwise.
    const QString &value() const { return m_value; }
    bool isFirst() const { return m_mode == Mode::First; }
    // The mode's payload; only meaningful in that mode.
    const VisiblePredicate &waitForPredicate() const { return m_waitFor; }
    const ExtractRequest &extractRequest() const { return m_extract; }
    const FocusRequest &focusRequest() const { return m_focus; }

    friend bool operator==(const ObserveRequest &, const ObserveRequest &) = default;

private:
    ObserveRequest(Mode mode, QString value) : m_mode(mode), m_value(std::move(value)) {}

    Mode m_mode = Mode::First;
    QString m_value;
    VisiblePredicate m_waitFor;
    ExtractRequest m_extract;
    FocusRequest m_focus;
};

} // namespace veetbot
