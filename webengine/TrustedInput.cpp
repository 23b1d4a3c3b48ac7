#include "TrustedInput.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWidget>

namespace veetbot::TrustedInput {

namespace {

// The closed key list of browser.act press as Qt keys, with the text Chromium expects for
// the character event of a key that has one.
std::pair<int, QString> qtKey(ActRequest::Key key)
{
    switch (key) {
    case ActRequest::Key::Enter:
        return {Qt::Key_Return, QStringLiteral("\r")};
    case ActRequest::Key::Tab:
        return {Qt::Key_Tab, QStringLiteral("\t")};
    case ActRequest::Key::Escape:
        return {Qt::Key_Escape, QString(QChar(0x1b))};
    case ActRequest::Key::Backspace:
        return {Qt::Key_Backspace, QString(QChar(0x08))};
    case ActRequest::Key::Delete:
        return {Qt::Key_Delete, QString()};
    case ActRequest::Key::Space:
        return {Qt::Key_Space, QStringLiteral(" ")};
    case ActRequest::Key::ArrowUp:
        return {Qt::Key_Up, QString()};
    case ActRequest::Key::ArrowDown:
        return {Qt::Key_Down, QString()};
    case ActRequest::Key::ArrowLeft:
        return {Qt::Key_Left, QString()};
    case ActRequest::Key::ArrowRight:
        return {Qt::Key_Right, QString()};
    case ActRequest::Key::Home:
        return {Qt::Key_Home, QString()};
    case ActRequest::Key::End:
        return {Qt::Key_End, QString()};
    case ActRequest::Key::PageUp:
        return {Qt::Key_PageUp, QString()};
    case ActRequest::Key::PageDown:
        return {Qt::Key_PageDown, QString()};
    }
    return {Qt::Key_unknown, QString()};
}

} // namespace

void key(QWidget *target, ActRequest::Key key)
{
    const auto [code, text] = qtKey(key);
    QKeyEvent press(QEvent::KeyPress, code, Qt::NoModifier, text);
    QCoreApplication::sendEvent(target, &press);
    QKeyEvent release(QEvent::KeyRelease, code, Qt::NoModifier, text);
    QCoreApplication::sendEvent(target, &release);
}

void click(QWidget *target, const QPointF &local)
{
    const QPointF global = target->mapToGlobal(local);
    QMouseEvent move(QEvent::MouseMove, local, global, Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &move);
    QMouseEvent press(QEvent::MouseButtonPress, local, global, Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QCoreApplication::sendEvent(target, &press);
    QMouseEvent release(QEvent::MouseButtonRelease, local, global, Qt::LeftButton, Qt::NoButton,
                        Qt::NoModifier);
    QCoreApplication::sendEvent(target, &release);
}
} // namespace veetbot::TrustedInput
