#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

#include <optional>

namespace veetbot {

// One frame of the owner's live view of an agent's page (docs/workbench.md#live-view): one
// viewport as a PNG of at most 1 MiB. Taken only when the workbench asks, at most once a
// second per run, sent only to the workbench and never kept; no model tool reaches it.
struct LiveFrame
{
    static constexpr qsizetype kMaxPngBytes = 1024 * 1024;
    static constexpr int kMaxSide = 4096;
    // The least time between two frames of one run.
    static constexpr int kMinIntervalMs = 1000;

    QByteArray png;
    int width = 0;
    int height = 0;

    // A PNG within the bounds: the signature, then an IHDR chunk whose width and height are
    // each 1 to kMaxSide. Only the header is read here; the workbench decodes the image.
    static std::optional<LiveFrame> fromPng(const QByteArray &png);
    // {"png":"<base64>","width":W,"height":H}; fromJson is strict (exactly those members, the
    // sizes the PNG's own header states) and nullopt on anything else.
    QJsonObject toJson() const;
    static std::optional<LiveFrame> fromJson(const QJsonValue &value);
};

} // namespace veetbot
