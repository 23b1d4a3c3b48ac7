#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace veetbot::ConnectRequest {

// The target of an HTTP proxy's tunnel request.
struct Target
{
    QString host; // lower case
    quint16 port = 0;
};

// "CONNECT host:port HTTP/1.1" (or HTTP/1.0) with a DNS host name (never a bracketed or bare
// IPv6 literal), read from a request head (its first line; the head holds printable ASCII,
// tabs and CRLF line ends only). nullopt for anything else.
std::optional<Target> parse(const QByteArray &head);

} // namespace veetbot::ConnectRequest
