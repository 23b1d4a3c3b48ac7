// libFuzzer target for capture assembly: any JSON the collector could answer (the page
// controls what it reads) either becomes an observation that validates again on its own, with
// facts only for its elements and a cursor only where a next window exists, or a fixed
// refusal. Never a crash, never a partial observation.

#include "domain/observation/CaptureAssembly.h"
#include "json/StrictJson.h"

#include <QJsonObject>

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

void check(const QJsonObject &answer, const CaptureAssembly::Request &request)
{
    const Result<CaptureAssembly::Capture> capture =
        CaptureAssembly::assemble(answer, request, TestOverrides());
    if (!capture) {
        require(capture.error() == Error::fromReason(ReasonCode::OutputInvalid) ||
                capture.error() == Error::fromReason(ReasonCode::PageChanged));
        return;
    }
    const BrowserObservation &observation = capture->observation;
    require(observation.revision == request.revision);
    require(BrowserObservation::fromJson(observation.toJson(), TestOverrides()).ok());
    for (auto it = capture->facts.cbegin(); it != capture->facts.cend(); ++it) {
        require(std::any_of(observation.elements.cbegin(), observation.elements.cend(),
                            [&it](const ElementRecord &e) { return e.ref == it.key(); }));
    }
    require(capture->nextPosition.has_value() == observation.coverage.nextCursor.has_value());
    require(!observation.coverage.nextCursor ||
            *observation.coverage.nextCursor == request.cursorToken);
    require(!observation.confirmedDraft || observation.confirmedDraft == request.draft);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    StrictJson::Limits limits;
    limits.maxBytes = 256 * 1024;
    limits.maxDepth = 16;
    limits.maxMembers = 4096;
    limits.numbers = StrictJson::Numbers::Finite;
    const auto parsed = StrictJson::parse(
        QByteArrayView(reinterpret_cast<const char *>(data), qsizetype(size)), limits);
    if (!parsed || !parsed->isObject())
        return 0;
    const QJsonObject answer = parsed->toObject();
    CaptureAssembly::Request request{
        .url = QUrl(QStringLiteral("https://shop.acme-store.com/cart")),
        .revision = QStringLiteral("r-fuzz-0123456789abcdef0123456789ab"),
        .cursorToken = QStringLiteral("c-fuzz-0123456789abcdef0123456789abcdef01"),
        .evidencePrefix = QStringLiteral("e1fuzz"),
    };
    check(answer, request); // the first window
    request.expectedOffset.reset();
    check(answer, request); // after an anchor
    request.focusRequested = true;
    request.focusTextOffset = 3;
    request.previousFocusText = QByteArrayLiteral("Order 42 shipped.");
    request.draft = QStringLiteral("a draft");
    request.action = ActionOutcome{QStringLiteral("type"), true, std::nullopt};
    check(answer, request); // a focused text continuation that settles a type
    return 0;
}
