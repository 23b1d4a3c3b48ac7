#pragma once

#include "domain/signin/OwnerInput.h"
#include "domain/signin/OwnerViewFrame.h"

#include <QElapsedTimer>
#include <QImage>
#include <QWidget>

#include <optional>

namespace veetbot {

// The picture of the profile service's own browser in the remote sign-in
// (docs/signin.md#in-a-secure-browser), and the owner's hands on it: each frame drawn to fit,
// and the owner's mouse, wheel, keys and committed input-method text turned into OwnerInput in
// the browser's CSS pixels. A printable key is one key press with its character, as a
// keyboard types it; a composition's committed text and a paste (the desktop's clipboard, on
// the paste shortcut) go whole. Tab and Shift+Tab stay in the page. Nothing typed is kept here:
// each event leaves in ownerInput() as it happens.
class RemoteScreen : public QWidget
{
    Q_OBJECT
public:
    explicit RemoteScreen(QWidget *parent = nullptr);

    void showFrame(const OwnerViewFrame &frame);
    bool hasFrame() const { return !m_image.isNull(); }
    // How many frames it has drawn (tests wait for the picture to follow the page).
    int framesShown() const { return m_framesShown; }
    // Where the browser's CSS point `page` is drawn in this widget (tests aim with it).
    QPoint widgetPointOf(const QPointF &page) const;
    // The key of a Qt key event as the browser's keyboard event, or nullopt for one the page
    // has no use for (a lone modifier).
    static std::optional<OwnerInput> keyInput(int qtKey, Qt::KeyboardModifiers modifiers,
                                              const QString &text, bool down);

Q_SIGNALS:
    void ownerInput(const veetbot::OwnerInput &input);
    // The widget's size changed: the frames it asks for follow it.
    void resized(const QSize &size);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void inputMethodEvent(QInputMethodEvent *event) override;
    QVariant inputMethodQuery(Qt::InputMethodQuery query) const override;
    bool focusNextPrevChild(bool next) override;

private:
    QRectF drawnRect() const;
    std::optional<QPointF> pagePointOf(const QPointF &widgetPoint) const;
    void mouse(OwnerInput::Kind kind, QMouseEvent *event, int clickCount);

    QImage m_image;
    QSize m_pageSize; // the browser's viewport in CSS pixels
    int m_framesShown = 0;
    QElapsedTimer m_lastMove;
};

} // namespace veetbot
