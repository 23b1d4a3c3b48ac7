// libFuzzer target for the browser-host line protocol (core/isolation/HostProtocol): the core
// parses every line the host writes, and the host every line the core sends. Besides never
// crashing, a request that decodes must encode back to a line that decodes to the same
// request, and a decoded response never carries a message other than the fixed one of its code.

#include "domain/web/TestOverrides.h"
#include "isolation/HostProtocol.h"

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray line(reinterpret_cast<const char *>(data), qsizetype(size));

    if (const auto request = HostProtocol::decodeRequest(line)) {
        const auto again =
            HostProtocol::decodeRequest(HostProtocol::encodeRequest(*request).trimmed());
        if (!again || again->id != request->id || again->op != request->op ||
            again->url != request->url || again->observe.toJson() != request->observe.toJson() ||
            again->open != request->open || bool(again->act) != bool(request->act) ||
            (request->act && again->act->argumentDigest() != request->act->argumentDigest()))
            std::abort();
    }

    if (const auto response = HostProtocol::decodeResponse(line, TestOverrides())) {
        // Facts only ever describe elements of the observation they came with.
        for (auto it = response->facts.constBegin(); it != response->facts.constEnd(); ++it) {
            bool known = false;
            for (const ElementRecord &element : response->result.value().elements)
                known = known || element.ref == it.key();
            if (!known)
                std::abort();
        }
        if (!response->ready && !response->result.ok()) {
            const Error &error = response->result.error();
            const auto reason = error.reason();
            if (!reason || error.message != reasonCodeMessage(*reason))
                std::abort();
        }
    }
    return 0;
}
