#pragma once

#include <QJsonObject>
#include <QPointF>
#include <QString>

#include <optional>

namespace veetbot {

// One input event of the owner in the remote sign-in view (issue 29, spec 000 "Authentication
// ceremonies", the remote mode): what the workbench forwards to the service's own browser while
// the owner signs in. Only the owner's view makes these; no model tool can. Points and deltas
// are CSS pixels of the browser's viewport.
struct OwnerInput
{
    enum class Kind
    {
        MouseMove,
        MouseDown,
        MouseUp,
        Wheel,
        KeyDown,
        KeyUp,
        Text // committed text (an input method's, or a paste): Input.insertText
    };
    enum class Button
    {
        None,
        Left,
        Middle,
        Right
    };
    // Modifier bits as the DevTools protocol counts them.
    enum Modifier
    {
        Alt = 1,
        Ctrl = 2,
        Meta = 4,
        Shift = 8
    };

    static constexpr int kMaxKeyUnits = 32;
    static constexpr int kMaxTextCodePoints = 4096;

    Kind kind = Kind::MouseMove;
    QPointF point;                // mouse and wheel
    Button button = Button::None; // MouseDown, MouseUp
    int clickCount = 1;           // MouseDown, MouseUp: 1 or 2
    QPointF delta;                // Wheel
    QString key;                  // KeyDown, KeyUp: KeyboardEvent.key
    QString code;                 // KeyDown, KeyUp: KeyboardEvent.code
    int virtualKey = 0;           // KeyDown, KeyUp: the Windows virtual-key code
    int modifiers = 0;            // Modifier bits
    QString text;                 // KeyDown: the character it types, if any; Text: the text

    // Within its bounds: a key of 1–32 UTF-16 units for keys, 1–4096 code points of text for
    // Text, a click count of 1 or 2, finite coordinates inside a 16384-pixel square.
    bool isValid() const;

    // The wire form the owner's view sends (the service's remote-view route, the browser host):
    // {"type":"mouse_move"|"mouse_down"|"mouse_up"|"wheel"|"key_down"|"key_up"|"text", ...}
    // with, by type, "x" and "y" (mouse and wheel), "button" ("left", "middle", "right") and
    // "click_count" (1 or 2, default 1) for presses and releases, "dx" and "dy" (wheel), "key",
    // "code" and "key_code" (keys), "text" (a key_down's character, or the committed text), and
    // "modifiers" (any type but text). fromJson is strict: only those members for that type,
    // each of its type and within isValid()'s bounds; nullopt otherwise.
    static std::optional<OwnerInput> fromJson(const QJsonObject &json);
    QJsonObject toJson() const;
};

} // namespace veetbot
