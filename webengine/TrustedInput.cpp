#include "TrustedInput.h"

#include <QCoreApplication>
#include <QInputMethodEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPointer>
#include <QWebEnginePage>
#include <QWebEngineView>
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

ActDispatch::Input inputFor(QWebEngineView *view)
{
    const QPointer<QWebEngineView> guarded(view);
    const auto target = [guarded]() -> QWidget * {
        return guarded ? guarded->focusProxy() : nullptr;
    };
    ActDispatch::Input input;
    input.ready = [target] {
        QWidget *widget = target();
        if (!widget)
            return false;
        // Keys and input-method text reach the page only through a focused view.
        if (!widget->hasFocus())
            widget->setFocus(Qt::OtherFocusReason);
        return true;
    };
    input.click = [guarded, target](const QPointF &point) {
        if (QWidget *widget = target()) {
            const qreal zoom = guarded->page() ? guarded->page()->zoomFactor() : 1.0;
            click(widget, point * zoom);
        }
    };
    input.key = [target](ActRequest::Key pressed) {
        if (QWidget *widget = target())
            key(widget, pressed);
    };
    input.commit = [target](const QString &text) {
        if (QWidget *widget = target()) {
            QInputMethodEvent commit;
            commit.setCommitString(text);
            QCoreApplication::sendEvent(widget, &commit);
        }
    };
    return input;
}

} // namespace veetbot::TrustedInput
