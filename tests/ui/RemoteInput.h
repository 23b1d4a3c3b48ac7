#pragma once

// The owner's hands on the remote sign-in's picture (RemoteSignInWindow): a sign-in form whose
// fields lie at fixed places of the page, clicks aimed at those places in the picture, and the
// window's waits. Test-only code.

#include "EventWait.h"
#include "RemoteScreen.h"
#include "RemoteSignInWindow.h"
#include "TrustedInput.h"

#include <QPointF>
#include <QTest>

namespace veetbot::testing {

// A sign-in form with its fields at fixed places, in CSS pixels.
inline QByteArray placedSignInForm()
{
    return "<!doctype html><title>Sign in</title><style>body{margin:0;font:16px sans-serif}"
           "input,button{position:absolute;left:40px;width:300px;height:32px}</style>"
           "<form method=post action=/login><h1 style='margin:8px 40px'>Sign in</h1>"
           "<input name=email autocomplete=username aria-label=Email style='top:100px'>"
           "<input type=password name=password autocomplete=current-password "
           "aria-label=Password style='top:160px'>"
           "<button style='top:220px'>Sign in</button></form>";
}
inline const QPointF kPlacedEmail(190, 116);
inline const QPointF kPlacedPassword(190, 176);

// A click at the page's CSS point `page`, in the picture.
inline void clickPage(RemoteSignInWindow &window, const QPointF &page)
{
    const QPoint at = window.screen()->widgetPointOf(page);
    QTest::mouseClick(window.screen(), Qt::LeftButton, Qt::NoModifier, at);
}

// The owner signs in by hand on the placed form: a click into each field, its keys, then Enter.
inline void signInByHand(RemoteSignInWindow &window, const QString &email, const QString &password)
{
    clickPage(window, kPlacedEmail);
    typeInto(window.screen(), email);
    clickPage(window, kPlacedPassword);
    typeInto(window.screen(), password);
    press(window.screen(), Qt::Key_Return, QStringLiteral("\r"));
}

// Until the picture shows a page whose address ends with `path` (false: the window ended).
inline bool waitForPage(RemoteSignInWindow &window, const QString &path, int timeoutMs = 60000)
{
    return runEventsUntil(
               [&window, path] {
                   return window.hasEnded() ||
                          (window.screen()->hasFrame() && window.address().endsWith(path));
               },
               timeoutMs) &&
           !window.hasEnded();
}

} // namespace veetbot::testing
