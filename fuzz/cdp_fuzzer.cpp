// libFuzzer target for the DevTools pipe's reader of browser-made bytes: the framing, fed in
// pieces the input chooses, never holds more than its bound and frames the same messages
// however the bytes are split; every framed message either parses into exactly one shape or
// is refused, and a parsed error never keeps the browser's words.
//
// Input: a piece-size byte, then the stream.

#include "CdpProtocol.h"

#include <cstdint>
#include <cstdlib>

using namespace veetbot::cdp;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const qsizetype piece = qsizetype(data[0] % 64) + 1;
    const QByteArrayView stream(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    constexpr qsizetype kBound = 4096;
    FrameReader whole(kBound);
    FrameReader pieces(kBound);
    QList<QByteArray> fromWhole;
    QList<QByteArray> fromPieces;
    const bool wholeOk = whole.feed(stream, &fromWhole);
    bool piecesOk = true;
    for (qsizetype at = 0; at < stream.size() && piecesOk; at += piece)
        piecesOk = pieces.feed(stream.sliced(at, std::min(piece, stream.size() - at)), &fromPieces);
    require(wholeOk == piecesOk);
    require(fromWhole == fromPieces);
    require(whole.pendingBytes() <= kBound && pieces.pendingBytes() <= kBound);
    for (const QByteArray &bytes : fromWhole) {
        require(bytes.size() <= kBound && !bytes.contains('\0'));
        const std::optional<Message> message = Message::parse(bytes);
        if (!message)
            continue;
        switch (message->kind) {
        case Message::Kind::Result:
            require(message->id >= 1 && message->method.isEmpty());
            break;
        case Message::Kind::Error:
            require(message->id >= 1 && message->payload.isEmpty());
            break;
        case Message::Kind::Event:
            require(message->id == 0 && !message->method.isEmpty());
            break;
        }
    }
    return 0;
}
