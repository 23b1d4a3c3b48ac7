#include "OwnerViewFrame.h"

#include "domain/ToolJson.h"

namespace veetbot {

QUrl OwnerViewFrame::pageOf(const QUrl &url)
{
    if (!url.isValid() || url.host().isEmpty())
        return {};
    return url.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo);
}

bool OwnerViewFrame::isSecure() const
{
    return page.scheme() == QLatin1String("https");
}

bool OwnerViewFrame::isValid() const
{
    const bool jpegOk =
        jpeg.size() >= 4 && jpeg.size() <= kMaxJpegBytes && jpeg.startsWith("\xFF\xD8");
    const bool sizeOk = size.width() >= 1 && size.height() >= 1 && size.width() <= kMaxSide &&
                        size.height() <= kMaxSide;
    if (!jpegOk || !sizeOk)
        return false;
    if (page.isEmpty())
        return true;
    const QString text = page.toString(QUrl::FullyEncoded);
    return page.isValid() && text.size() <= kMaxPageLength &&
           (page.scheme() == QLatin1String("https") || page.scheme() == QLatin1String("http")) &&
           !page.host().isEmpty() && !page.hasQuery() && !page.hasFragment() &&
           page.userInfo().isEmpty();
}

QJsonObject OwnerViewFrame::toJson() const
{
    return {{QStringLiteral("jpeg"), QString::fromLatin1(jpeg.toBase64())},
            {QStringLiteral("width"), size.width()},
            {QStringLiteral("height"), size.height()},
            {QStringLiteral("page"), page.toString(QUrl::FullyEncoded)}};
}

std::optional<OwnerViewFrame> OwnerViewFrame::fromJson(const QJsonObject &json)
{
    const QJsonValue data = json.value(QStringLiteral("jpeg"));
    const QJsonValue page = json.value(QStringLiteral("page"));
    const auto width = ToolJson::integer(json.value(QStringLiteral("width")), 1, kMaxSide);
    const auto height = ToolJson::integer(json.value(QStringLiteral("height")), 1, kMaxSide);
    if (json.size() != 4 || !data.isString() || !page.isString() || !width || !height ||
        data.toString().size() > (kMaxJpegBytes + 2) / 3 * 4 ||
        page.toString().size() > kMaxPageLength)
        return std::nullopt;
    QByteArray::FromBase64Result jpeg = QByteArray::fromBase64Encoding(
        data.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!jpeg)
        return std::nullopt;
    OwnerViewFrame frame{std::move(jpeg.decoded), QSize(int(*width), int(*height)),
                         QUrl(page.toString(), QUrl::StrictMode)};
    if (!frame.isValid())
        return std::nullopt;
    return frame;
}

} // namespace veetbot
