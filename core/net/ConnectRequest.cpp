#include "ConnectRequest.h"

namespace veetbot::ConnectRequest {

namespace {
// Printable ASCII, tabs and CRLF line ends only.
bool isCleanHead(const QByteArray &head)
{
    for (qsizetype i = 0; i < head.size(); ++i) {
        const auto c = static_cast<unsigned char>(head[i]);
        if (c == '\r') {
            if (i + 1 >= head.size() || head[i + 1] != '\n')
                return false;
        } else if (c == '\n') {
            if (i == 0 || head[i - 1] != '\r')
                return false;
        } else if ((c < 0x20 && c != '\t') || c >= 0x7f) {
            return false;
        }
    }
    return true;
}
} // namespace

std::optional<Target> parse(const QByteArray &head)
{
    if (!isCleanHead(head))
        return std::nullopt;
    const qsizetype lineEnd = head.indexOf("\r\n");
    const QByteArray requestLine = lineEnd < 0 ? head : head.left(lineEnd);
    const QList<QByteArray> parts = requestLine.split(' ');
    if (parts.size() != 3 || parts[0] != "CONNECT")
        return std::nullopt;
    if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0")
        return std::nullopt;
    const QByteArray &target = parts[1];
    const qsizetype colon = target.indexOf(':');
    if (colon <= 0 || target.indexOf(':', colon + 1) >= 0)
        return std::nullopt;
    const QByteArray portText = target.mid(colon + 1);
    if (portText.isEmpty() || portText.size() > 5 || portText[0] == '0')
        return std::nullopt;
    for (const char c : portText) {
        if (c < '0' || c > '9')
            return std::nullopt;
    }
    const int port = portText.toInt();
    if (port < 1 || port > 65535)
        return std::nullopt;
    return Target{QString::fromLatin1(target.left(colon)).toLower(), quint16(port)};
}

} // namespace veetbot::ConnectRequest
