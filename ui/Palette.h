#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace veetbot::Palette {

// Whether the desktop's palette is a dark one (light text on a dark window).
inline bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() <
           palette.color(QPalette::WindowText).lightness();
}

// A warning's text colour that reads on the palette's window: dark red on light, light red on
// dark (both above 4.5:1 against Qt's default light and Fusion-dark windows).
inline QString warningColor(const QPalette &palette)
{
    return isDark(palette) ? QStringLiteral("#ff8a80") : QStringLiteral("#a40000");
}

// A notice's highlight: a light yellow with its own dark text, so it reads the same on a light
// or a dark desktop.
inline QString highlightStyle()
{
    return QStringLiteral("background: #fff4ce; color: #2b2300;");
}

} // namespace veetbot::Palette
