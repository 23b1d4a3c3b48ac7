#include "OwnerInput.h"

#include <QList>

#include <cmath>

namespace veetbot {

namespace {

constexpr double kMaxCoordinate = 16384;

bool within(const QPointF &point)
{
    return std::isfinite(point.x()) && std::isfinite(point.y()) &&
           std::abs(point.x()) <= kMaxCoordinate && std::abs(point.y()) <= kMaxCoordinate;
}

} // namespace

bool OwnerInput::isValid() const
{
    if (modifiers < 0 || modifiers > (Alt | Ctrl | Meta | Shift))
        return false;
    switch (kind) {
    case Kind::MouseMove:
        return within(point);
    case Kind::MouseDown:
    case Kind::MouseUp:
        return within(point) && button != Button::None && (clickCount == 1 || clickCount == 2);
    case Kind::Wheel:
        return within(point) && within(delta);
    case Kind::KeyDown:
    case Kind::KeyUp:
        return !key.isEmpty() && key.size() <= kMaxKeyUnits && code.size() <= kMaxKeyUnits &&
               text.size() <= 2 && virtualKey >= 0 && virtualKey <= 255;
    case Kind::Text: {
        const qsizetype points = text.toUcs4().size();
        return points > 0 && points <= kMaxTextCodePoints;
    }
    }
    return false;
}

} // namespace veetbot
