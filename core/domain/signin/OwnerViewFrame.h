#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QSize>
#include <QUrl>

#include <optional>

namespace veetbot {

// One frame of the owner's remote sign-in view (issue 29): a JPEG of the service's own browser,
// its size in pixels, and where that browser is, for the view's address line. Only the owner's
// view receives these, never a model, and nothing keeps them. The page is the address without
// its query or fragment (a sign-in address may carry a token there).
struct OwnerViewFrame
{
    static constexpr qsizetype kMaxJpegBytes = 2 * 1024 * 1024;
    static constexpr int kMaxSide = 4096;
    static constexpr int kMaxPageLength = 2048;

    QByteArray jpeg;
    QSize size;
    QUrl page; // scheme, host, port and path only; empty before the first load

    // The page part of `url`: its scheme, host, port and path.
    static QUrl pageOf(const QUrl &url);
    // An https page: what the view's padlock shows.
    bool isSecure() const;
    // A JPEG (FF D8) of 4..kMaxJpegBytes, a size of 1..kMaxSide each way, and a page that is
    // empty or an http(s) address of at most kMaxPageLength characters with nothing but a path
    // after its host.
    bool isValid() const;

    // {"jpeg":"<base64>","width":W,"height":H,"page":"..."}; fromJson is strict (exactly those
    // members, of their types, within isValid()).
    QJsonObject toJson() const;
    static std::optional<OwnerViewFrame> fromJson(const QJsonObject &json);
    // The base64 text of the largest JPEG, for callers that bound a body before parsing it.
    static constexpr qsizetype kMaxJsonBytes = (kMaxJpegBytes + 2) / 3 * 4 + kMaxPageLength + 256;
};

} // namespace veetbot
