#include "LiveFrame.h"

#include <QtEndian>

namespace veetbot {

namespace {
// The PNG signature, then the first chunk's length (13) and type (IHDR).
constexpr char kPngStart[] = "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR";
constexpr qsizetype kPngStartBytes = sizeof kPngStart - 1;
} // namespace

std::optional<LiveFrame> LiveFrame::fromPng(const QByteArray &png)
{
    // The signature, IHDR's length and type, its width and height.
    if (png.size() > kMaxPngBytes || png.size() < kPngStartBytes + 8 ||
        QByteArrayView(png).first(kPngStartBytes) != QByteArrayView(kPngStart, kPngStartBytes))
        return std::nullopt;
    const quint32 width = qFromBigEndian<quint32>(png.constData() + kPngStartBytes);
    const quint32 height = qFromBigEndian<quint32>(png.constData() + kPngStartBytes + 4);
    if (width < 1 || height < 1 || width > quint32(kMaxSide) || height > quint32(kMaxSide))
        return std::nullopt;
    return LiveFrame{png, int(width), int(height)};
}

QJsonObject LiveFrame::toJson() const
{
    return {{QStringLiteral("png"), QString::fromLatin1(png.toBase64())},
            {QStringLiteral("width"), width},
            {QStringLiteral("height"), height}};
}

std::optional<LiveFrame> LiveFrame::fromJson(const QJsonValue &value)
{
    const QJsonObject object = value.toObject();
    const QJsonValue png = object.value(QStringLiteral("png"));
    const QJsonValue width = object.value(QStringLiteral("width"));
    const QJsonValue height = object.value(QStringLiteral("height"));
    // Base64 of kMaxPngBytes, and not a character more.
    constexpr qsizetype kMaxBase64 = (kMaxPngBytes + 2) / 3 * 4;
    if (!value.isObject() || object.size() != 3 || !png.isString() || !width.isDouble() ||
        !height.isDouble() || png.toString().size() > kMaxBase64)
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(png.toString().toLatin1(),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    const std::optional<LiveFrame> frame = fromPng(*decoded);
    if (!frame || frame->width != width.toDouble() || frame->height != height.toDouble())
        return std::nullopt;
    return frame;
}

} // namespace veetbot
