// ChromiumProvider's remote view for the owner (the remote sign-in, issue 29): the page's frames
// out, the owner's input in. Never a model's: no tool reaches these.

#include "ChromiumProvider.h"

#include <QJsonArray>

namespace veetbot::chromium {

using cdp::text;

namespace {

QString buttonName(OwnerInput::Button button)
{
    switch (button) {
    case OwnerInput::Button::Left:
        return QStringLiteral("left");
    case OwnerInput::Button::Middle:
        return QStringLiteral("middle");
    case OwnerInput::Button::Right:
        return QStringLiteral("right");
    case OwnerInput::Button::None:
        break;
    }
    return QStringLiteral("none");
}

} // namespace

bool ChromiumProvider::startOwnerView(const QSize &max)
{
    if (m_session.isEmpty())
        return false;
    m_screencasting = true;
    send(
        QStringLiteral("Page.startScreencast"),
        {{QStringLiteral("format"), QStringLiteral("jpeg")},
         {QStringLiteral("quality"), qBound(10, m_viewQuality, 90)},
         {QStringLiteral("maxWidth"), qBound(64, max.width(), kViewWidth)},
         {QStringLiteral("maxHeight"), qBound(64, max.height(), kViewHeight)},
         {QStringLiteral("everyNthFrame"), qBound(1, m_viewEveryNth, 60)}},
        [](Result<QJsonObject>) {}, m_session);
    return true;
}

void ChromiumProvider::stopOwnerView()
{
    if (!m_screencasting)
        return;
    m_screencasting = false;
    if (!m_session.isEmpty())
        send(
            QStringLiteral("Page.stopScreencast"), {}, [](Result<QJsonObject>) {}, m_session);
}

void ChromiumProvider::onScreencastFrame(const QJsonObject &params)
{
    // Acknowledged at once: the browser sends the next frame only after this one's ack.
    send(
        QStringLiteral("Page.screencastFrameAck"),
        {{QStringLiteral("sessionId"), params.value(QLatin1String("sessionId")).toInt()}},
        [](Result<QJsonObject>) {}, m_session);
    if (!m_screencasting)
        return;
    // A JPEG within its bound (starting FF D8) on a sane size; anything else is not shown.
    const QByteArray jpeg = QByteArray::fromBase64(text(params, "data").toLatin1());
    const QJsonObject metadata = params.value(QLatin1String("metadata")).toObject();
    OwnerViewFrame frame{jpeg,
                         QSize(metadata.value(QLatin1String("deviceWidth")).toInt(),
                               metadata.value(QLatin1String("deviceHeight")).toInt()),
                         OwnerViewFrame::pageOf(m_url)};
    if (frame.isValid())
        Q_EMIT ownerViewFrame(frame);
}

bool ChromiumProvider::ownerInput(const OwnerInput &input)
{
    if (m_session.isEmpty() || !input.isValid())
        return false;
    const auto dispatch = [this](const QString &method, const QJsonObject &params) {
        send(
            method, params, [](Result<QJsonObject>) {}, m_session);
    };
    switch (input.kind) {
    case OwnerInput::Kind::MouseMove:
    case OwnerInput::Kind::MouseDown:
    case OwnerInput::Kind::MouseUp: {
        static const QHash<OwnerInput::Kind, QString> types{
            {OwnerInput::Kind::MouseMove, QStringLiteral("mouseMoved")},
            {OwnerInput::Kind::MouseDown, QStringLiteral("mousePressed")},
            {OwnerInput::Kind::MouseUp, QStringLiteral("mouseReleased")}};
        QJsonObject params{{QStringLiteral("type"), types.value(input.kind)},
                           {QStringLiteral("x"), input.point.x()},
                           {QStringLiteral("y"), input.point.y()},
                           {QStringLiteral("modifiers"), input.modifiers}};
        if (input.kind != OwnerInput::Kind::MouseMove) {
            params.insert(QStringLiteral("button"), buttonName(input.button));
            params.insert(QStringLiteral("clickCount"), input.clickCount);
        }
        dispatch(QStringLiteral("Input.dispatchMouseEvent"), params);
        return true;
    }
    case OwnerInput::Kind::Wheel:
        dispatch(QStringLiteral("Input.dispatchMouseEvent"),
                 {{QStringLiteral("type"), QStringLiteral("mouseWheel")},
                  {QStringLiteral("x"), input.point.x()},
                  {QStringLiteral("y"), input.point.y()},
                  {QStringLiteral("deltaX"), input.delta.x()},
                  {QStringLiteral("deltaY"), input.delta.y()},
                  {QStringLiteral("modifiers"), input.modifiers}});
        return true;
    case OwnerInput::Kind::KeyDown:
    case OwnerInput::Kind::KeyUp: {
        QJsonObject params{{QStringLiteral("key"), input.key},
                           {QStringLiteral("code"), input.code},
                           {QStringLiteral("windowsVirtualKeyCode"), input.virtualKey},
                           {QStringLiteral("modifiers"), input.modifiers}};
        if (input.kind == OwnerInput::Kind::KeyUp) {
            params.insert(QStringLiteral("type"), QStringLiteral("keyUp"));
        } else if (input.text.isEmpty()) {
            params.insert(QStringLiteral("type"), QStringLiteral("rawKeyDown"));
        } else {
            params.insert(QStringLiteral("type"), QStringLiteral("keyDown"));
            params.insert(QStringLiteral("text"), input.text);
        }
        dispatch(QStringLiteral("Input.dispatchKeyEvent"), params);
        return true;
    }
    case OwnerInput::Kind::Text:
        dispatch(QStringLiteral("Input.insertText"), {{QStringLiteral("text"), input.text}});
        return true;
    }
    return false;
}

} // namespace veetbot::chromium
