// libFuzzer target for the write guard's readers of page-made bytes: a request body (the
// GraphQL reader) and a URL (the query rules, the page label and the model's redaction) are
// judged without a crash, deterministically and deny-biased: a body is a query only if every
// top-level definition is one, a judgement never reads a non-GET as a read unless its body was
// shown, a redacted URL keeps no token-shaped value, and a page label stays within its bounds.
//
// Input: a content-type selector byte, then the body; the same bytes (as UTF-8) are also used
// as a URL's query.

#include "domain/action/WriteGuard.h"
#include "domain/web/PageAddress.h"

#include <QUrl>
#include <QUrlQuery>

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const QByteArray kTypes[] = {"application/json", "application/graphql",
                                        "application/json; charset=utf-8", "text/plain"};
    const QByteArray type = kTypes[data[0] % 4];
    const QByteArray body(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));

    const bool query = WriteGuard::graphQlIsQuery(body, type);
    require(query == WriteGuard::graphQlIsQuery(body, type));
    if (query)
        require(type != "text/plain");

    WriteGuard::Request request;
    request.method = "POST";
    request.kind = WriteGuard::RequestKind::PageRequest;
    request.url = QUrl(QStringLiteral("https://app.test/graphql"));
    request.contentType = type;
    require(WriteGuard::judge(request).verdict == WriteGuard::Verdict::Write); // no body shown
    request.body = body;
    require((WriteGuard::judge(request).verdict == WriteGuard::Verdict::Read) == query);

    QUrl url(QStringLiteral("https://app.test/w/index.php"));
    url.setQuery(QString::fromUtf8(body), QUrl::TolerantMode);
    request.method = "GET";
    request.kind = WriteGuard::RequestKind::Document;
    request.url = url;
    request.body.reset();
    const WriteGuard::Judgement judged = WriteGuard::judge(request);
    require(judged.verdict != WriteGuard::Verdict::Dropped);
    require((judged.verdict == WriteGuard::Verdict::Write) ==
            (judged.reason != WriteGuard::WriteReason::None));

    const QString label = PageAddress::queryLabel(url);
    require(label.size() <= 64);
    const QUrl redacted = PageAddress::redactedForModel(url);
    const QUrlQuery items(redacted.query(QUrl::FullyEncoded));
    for (const auto &[name, value] : items.queryItems(QUrl::FullyDecoded)) {
        if (value == QLatin1String("[redacted]") || WriteGuard::isPaginationParameterName(name))
            continue;
        require(!WriteGuard::isTokenParameterName(name) || value.isEmpty());
    }
    return 0;
}
