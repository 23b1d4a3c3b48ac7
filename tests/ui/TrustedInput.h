#pragma once

// The owner's input to the sign-in view, as a keyboard and a mouse give it: key presses with
// their text and mouse clicks sent to the view's focus proxy, so the page sees trusted events
// (isTrusted). Test-only code.

#include "EventWait.h"
#include "SignInView.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QKeyEvent>
#include <QTest>
#include <QWebEngineScript>
#include <QWebEngineView>

namespace veetbot::testing {

// Whether the page has been drawn: some dark pixel (its text) in the top-left corner.
inline bool showsText(const QImage &image)
{
    for (int y = 0; y < qMin(image.height(), 60); ++y) {
        for (int x = 0; x < qMin(image.width(), 300); ++x) {
            if (image.pixelColor(x, y).lightness() < 100)
                return true;
        }
    }
    return false;
}

// A key press and release per character, with its text, to `target` (focused first).
inline void typeInto(QWidget *target, const QString &text)
{
    if (!target->hasFocus())
        target->setFocus(Qt::OtherFocusReason);
    for (const QChar c : text) {
        const int code = c.isLetter() ? Qt::Key_A + (c.toUpper().unicode() - 'A') : 0;
        QKeyEvent press(QEvent::KeyPress, code, Qt::NoModifier, QString(c));
        QCoreApplication::sendEvent(target, &press);
        QKeyEvent release(QEvent::KeyRelease, code, Qt::NoModifier, QString(c));
        QCoreApplication::sendEvent(target, &release);
    }
}

inline void press(QWidget *target, Qt::Key key, const QString &text = {})
{
    QKeyEvent down(QEvent::KeyPress, key, Qt::NoModifier, text);
    QCoreApplication::sendEvent(target, &down);
    QKeyEvent up(QEvent::KeyRelease, key, Qt::NoModifier, text);
    QCoreApplication::sendEvent(target, &up);
}

// A click at the middle of the page's form field named `name` (its place read from the page),
// once the page has been drawn: a click that comes before the first frame reaches no field.
// True once that field has the page's focus, so typing can start.
inline bool clickField(SignInView *view, const QString &name)
{
    if (!runEventsUntil([view] { return showsText(view->view()->grab().toImage()); }, 10000))
        return false;
    QString rect;
    view->view()->page()->runJavaScript(
        QStringLiteral("(() => { const r = document.querySelector('[name=%1]')"
                       ".getBoundingClientRect(); return (r.left + r.width / 2) + ',' + "
                       "(r.top + r.height / 2); })()")
            .arg(name),
        QWebEngineScript::ApplicationWorld, [&rect](const QVariant &v) { rect = v.toString(); });
    if (!runEventsUntil([&rect] { return !rect.isEmpty(); }, 5000))
        return false;
    const QStringList xy = rect.split(QLatin1Char(','));
    const QPoint point(int(xy.value(0).toDouble()), int(xy.value(1).toDouble()));
    QTest::mouseClick(view->view()->focusProxy(), Qt::LeftButton, Qt::NoModifier, point);
    // The page takes the focus a moment later: asked again until it has it.
    QElapsedTimer clock;
    clock.start();
    QString focused;
    while (focused != name && clock.elapsed() < 5000) {
        bool answered = false;
        view->view()->page()->runJavaScript(
            QStringLiteral("document.activeElement ? document.activeElement.name : ''"),
            QWebEngineScript::ApplicationWorld, [&](const QVariant &v) {
                focused = v.toString();
                answered = true;
            });
        if (!runEventsUntil([&answered] { return answered; }, 2000))
            return false;
    }
    return focused == name;
}

} // namespace veetbot::testing
