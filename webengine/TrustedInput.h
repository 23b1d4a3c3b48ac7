#pragma once

#include "collector/ActDispatch.h"
#include "domain/action/ActRequest.h"

#include <QPointF>

class QWebEngineView;
class QWidget;

namespace veetbot::TrustedInput {

// Input that reaches a page as the user's own (isTrusted): Qt events sent to the focus proxy
// of a shown QWebEngineView. Only browser.act's closed key list and a left click exist here;
// nothing composes other keys or text.

// One press and release of `key`, with the character Chromium expects where the key has one.
void key(QWidget *target, ActRequest::Key key);
// A move to, then a left press and release at, `local` (widget coordinates).
void click(QWidget *target, const QPointF &local);
// The act's input path through `view` (ActDispatch::Input): events to its focus proxy, which
// is focused first (a replaced page gets a new render widget nothing focused yet), at the
// collector's CSS pixels times the page's zoom.
ActDispatch::Input inputFor(QWebEngineView *view);

} // namespace veetbot::TrustedInput
