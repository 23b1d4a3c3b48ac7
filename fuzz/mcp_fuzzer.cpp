// libFuzzer target for `veetbot mcp`'s JSON-RPC input (core/mcp): the bytes a client writes on
// stdin, through the channel's framing into the MCP server (with and without origins; the
// provider factory gives none, so no browser is involved). Besides never crashing: every
// output line is one JSON-RPC 2.0 object, and the same bytes split into single-byte chunks
// give exactly the same output (framing does not depend on how input arrives).

#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "mcp/McpServer.h"
#include "json/StrictJson.h"

#include <QBuffer>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {
QByteArray serve(const QByteArray &input, bool withOrigins, bool byteByByte)
{
    QBuffer output;
    output.open(QIODevice::WriteOnly);
    mcp::McpServer::Options options;
    options.serverVersion = QStringLiteral("0");
    if (withOrigins) {
        options.policy =
            OriginPolicy::create(
                {Origin::parse(QStringLiteral("https://shop.acme-store.com"), {}).value()})
                .value();
    }
    mcp::McpServer server(&output, options, [] { return std::unique_ptr<BrowserProvider>(); });
    if (byteByByte) {
        for (const char byte : input)
            server.channel().receive(QByteArrayView(&byte, 1));
    } else {
        server.channel().receive(input);
    }
    server.channel().finishInput();
    return output.data();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    for (const bool withOrigins : {false, true}) {
        const QByteArray whole = serve(input, withOrigins, false);
        if (serve(input, withOrigins, true) != whole)
            std::abort();
        for (const QByteArray &line : whole.split('\n')) {
            if (line.isEmpty())
                continue;
            // Every answer is strict JSON: the server's own output passes its input parser.
            const std::optional<QJsonValue> document =
                StrictJson::parse(line, mcp::JsonRpcChannel::inputLimits());
            if (!document || !document->isObject() ||
                document->toObject().value(QLatin1String("jsonrpc")).toString() !=
                    QLatin1String("2.0"))
                std::abort();
        }
    }
    return 0;
}
