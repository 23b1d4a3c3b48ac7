#include "RemoteScreen.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QPainter>

namespace veetbot {

namespace {

// A hover move goes at most this often; a drag's every move goes.
constexpr int kMoveIntervalMs = 33;

int modifierBits(Qt::KeyboardModifiers modifiers)
{
    int bits = 0;
    if (modifiers & Qt::AltModifier)
        bits |= OwnerInput::Alt;
    if (modifiers & Qt::ControlModifier)
        bits |= OwnerInput::Ctrl;
    if (modifiers & Qt::MetaModifier)
        bits |= OwnerInput::Meta;
    if (modifiers & Qt::ShiftModifier)
        bits |= OwnerInput::Shift;
    return bits;
}

OwnerInput::Button buttonOf(Qt::MouseButton button)
{
    switch (button) {
    case Qt::LeftButton:
        return OwnerInput::Button::Left;
    case Qt::MiddleButton:
        return OwnerInput::Button::Middle;
    case Qt::RightButton:
        return OwnerInput::Button::Right;
    default:
        break;
    }
    return OwnerInput::Button::None;
}

struct NamedKey
{
    int qtKey;
    const char *key;
    const char *code;
    int virtualKey;
};
// The keys a sign-in form needs that type no character, as the browser names them.
constexpr NamedKey kNamedKeys[] = {
    {Qt::Key_Return, "Enter", "Enter", 13},
    {Qt::Key_Enter, "Enter", "NumpadEnter", 13},
    {Qt::Key_Tab, "Tab", "Tab", 9},
    {Qt::Key_Backtab, "Tab", "Tab", 9},
    {Qt::Key_Backspace, "Backspace", "Backspace", 8},
    {Qt::Key_Delete, "Delete", "Delete", 46},
    {Qt::Key_Escape, "Escape", "Escape", 27},
    {Qt::Key_Left, "ArrowLeft", "ArrowLeft", 37},
    {Qt::Key_Up, "ArrowUp", "ArrowUp", 38},
    {Qt::Key_Right, "ArrowRight", "ArrowRight", 39},
    {Qt::Key_Down, "ArrowDown", "ArrowDown", 40},
    {Qt::Key_Home, "Home", "Home", 36},
    {Qt::Key_End, "End", "End", 35},
    {Qt::Key_PageUp, "PageUp", "PageUp", 33},
    {Qt::Key_PageDown, "PageDown", "PageDown", 34},
};

} // namespace

RemoteScreen::RemoteScreen(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_InputMethodEnabled);
    setMouseTracking(true);
    setMinimumSize(320, 240);
    setAccessibleName(tr("The website in the secure browser"));
    setAccessibleDescription(tr("Click a field of the website, then type; keys go to the website "
                                "as you press them."));
    m_lastMove.start();
}

void RemoteScreen::showFrame(const OwnerViewFrame &frame)
{
    QImage image = QImage::fromData(frame.jpeg, "JPEG");
    if (image.isNull())
        return;
    m_image = std::move(image);
    m_pageSize = frame.size;
    ++m_framesShown;
    update();
}

QRectF RemoteScreen::drawnRect() const
{
    if (m_image.isNull())
        return {};
    const QSizeF scaled = QSizeF(m_image.size()).scaled(QSizeF(size()), Qt::KeepAspectRatio);
    return QRectF(QPointF(0, 0), scaled);
}

std::optional<QPointF> RemoteScreen::pagePointOf(const QPointF &widgetPoint) const
{
    const QRectF drawn = drawnRect();
    if (drawn.isEmpty() || !drawn.contains(widgetPoint) || m_pageSize.isEmpty())
        return std::nullopt;
    return QPointF((widgetPoint.x() - drawn.x()) * m_pageSize.width() / drawn.width(),
                   (widgetPoint.y() - drawn.y()) * m_pageSize.height() / drawn.height());
}

QPoint RemoteScreen::widgetPointOf(const QPointF &page) const
{
    const QRectF drawn = drawnRect();
    if (drawn.isEmpty() || m_pageSize.isEmpty())
        return {};
    return QPointF(drawn.x() + page.x() * drawn.width() / m_pageSize.width(),
                   drawn.y() + page.y() * drawn.height() / m_pageSize.height())
        .toPoint();
}

void RemoteScreen::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_image.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("Connecting to the secure browser…"));
        return;
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.drawImage(drawnRect(), m_image);
}

void RemoteScreen::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    Q_EMIT resized(size());
}

void RemoteScreen::mouse(OwnerInput::Kind kind, QMouseEvent *event, int clickCount)
{
    const std::optional<QPointF> point = pagePointOf(event->position());
    if (!point)
        return;
    OwnerInput input;
    input.kind = kind;
    input.point = *point;
    input.modifiers = modifierBits(event->modifiers());
    if (kind != OwnerInput::Kind::MouseMove) {
        input.button = buttonOf(event->button());
        input.clickCount = clickCount;
        if (input.button == OwnerInput::Button::None)
            return;
    }
    Q_EMIT ownerInput(input);
}

void RemoteScreen::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    mouse(OwnerInput::Kind::MouseDown, event, 1);
}

void RemoteScreen::mouseDoubleClickEvent(QMouseEvent *event)
{
    mouse(OwnerInput::Kind::MouseDown, event, 2);
}

void RemoteScreen::mouseReleaseEvent(QMouseEvent *event)
{
    mouse(OwnerInput::Kind::MouseUp, event, 1);
}

void RemoteScreen::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() == Qt::NoButton && m_lastMove.elapsed() < kMoveIntervalMs)
        return;
    m_lastMove.restart();
    mouse(OwnerInput::Kind::MouseMove, event, 1);
}

void RemoteScreen::wheelEvent(QWheelEvent *event)
{
    const std::optional<QPointF> point = pagePointOf(event->position());
    if (!point)
        return;
    OwnerInput input;
    input.kind = OwnerInput::Kind::Wheel;
    input.point = *point;
    // Eighths of a degree; a notch (15 degrees) scrolls 100 pixels, as the browser's own does.
    input.delta = QPointF(-event->angleDelta().x(), -event->angleDelta().y()) * (100.0 / 120.0);
    input.modifiers = modifierBits(event->modifiers());
    Q_EMIT ownerInput(input);
    event->accept();
}

std::optional<OwnerInput> RemoteScreen::keyInput(int qtKey, Qt::KeyboardModifiers modifiers,
                                                 const QString &text, bool down)
{
    OwnerInput input;
    input.kind = down ? OwnerInput::Kind::KeyDown : OwnerInput::Kind::KeyUp;
    input.modifiers = modifierBits(modifiers);
    for (const NamedKey &named : kNamedKeys) {
        if (named.qtKey != qtKey)
            continue;
        input.key = QString::fromLatin1(named.key);
        input.code = QString::fromLatin1(named.code);
        input.virtualKey = named.virtualKey;
        // Enter types a line break into a text area: the browser needs its character.
        if (down && named.virtualKey == 13)
            input.text = QStringLiteral("\r");
        return input;
    }
    // A character: typed as itself unless a shortcut modifier holds it.
    const bool shortcut = modifiers & (Qt::ControlModifier | Qt::MetaModifier);
    QString character = text;
    if (character.isEmpty() || character.size() > 2 || !character.at(0).isPrint()) {
        if (qtKey < Qt::Key_Space || qtKey > Qt::Key_AsciiTilde)
            return std::nullopt; // a lone modifier, a function key: nothing for the page
        character = QString(QChar(qtKey)).toLower();
    }
    input.key = character;
    const QChar first = character.at(0).toUpper();
    if (first >= QLatin1Char('A') && first <= QLatin1Char('Z')) {
        input.code = QStringLiteral("Key") + first;
        input.virtualKey = first.unicode();
    } else if (first >= QLatin1Char('0') && first <= QLatin1Char('9')) {
        input.code = QStringLiteral("Digit") + first;
        input.virtualKey = first.unicode();
    } else if (first == QLatin1Char(' ')) {
        input.code = QStringLiteral("Space");
        input.virtualKey = 32;
    }
    if (down && !shortcut)
        input.text = character;
    return input;
}

void RemoteScreen::keyPressEvent(QKeyEvent *event)
{
    // A paste (a password manager's, say) goes whole, as committed text.
    if (event->matches(QKeySequence::Paste)) {
        const QString text = QGuiApplication::clipboard()->text();
        if (!text.isEmpty()) {
            OwnerInput input;
            input.kind = OwnerInput::Kind::Text;
            input.text = text.left(OwnerInput::kMaxTextCodePoints);
            Q_EMIT ownerInput(input);
        }
        event->accept();
        return;
    }
    if (const std::optional<OwnerInput> input =
            keyInput(event->key(), event->modifiers(), event->text(), true))
        Q_EMIT ownerInput(*input);
    event->accept();
}

void RemoteScreen::keyReleaseEvent(QKeyEvent *event)
{
    if (event->isAutoRepeat()) {
        event->accept();
        return;
    }
    if (const std::optional<OwnerInput> input =
            keyInput(event->key(), event->modifiers(), event->text(), false))
        Q_EMIT ownerInput(*input);
    event->accept();
}

void RemoteScreen::inputMethodEvent(QInputMethodEvent *event)
{
    // Only a finished composition reaches the page, whole.
    const QString committed = event->commitString();
    if (!committed.isEmpty()) {
        OwnerInput input;
        input.kind = OwnerInput::Kind::Text;
        input.text = committed.left(OwnerInput::kMaxTextCodePoints);
        Q_EMIT ownerInput(input);
    }
    event->accept();
}

QVariant RemoteScreen::inputMethodQuery(Qt::InputMethodQuery query) const
{
    if (query == Qt::ImEnabled)
        return true;
    if (query == Qt::ImHints)
        return int(Qt::ImhHiddenText | Qt::ImhSensitiveData | Qt::ImhNoPredictiveText);
    return QWidget::inputMethodQuery(query);
}

bool RemoteScreen::focusNextPrevChild(bool)
{
    return false; // Tab moves between the website's fields
}

} // namespace veetbot
