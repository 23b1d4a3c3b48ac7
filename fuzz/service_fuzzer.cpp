// libFuzzer target for the profile service's request rules (core/service): the request head
// read before anything else (HttpHead, in pieces of any size), the admission every request
// passes before its body is read, the lifecycle and key-rotation bodies, the
// sign-in ceremony bodies and answers, and the sign-in hand-off.
// Besides never crashing: a head never holds more than its bound, and is refused (431) past
// 16 KiB or 100 header lines and never before; a request is admitted only with the right credential
// and within its route's limit; a lifecycle, ceremony or hand-off body that parses is written back
// by the client's own writer to one that parses to the same thing; every refusal is the fixed body;
// a hand-off scoped to its confirmed page's origin keeps only valid, unexpired cookies within 400
// days and only that origin's storage.

#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"
#include "service/api/CeremonyApi.h"
#include "service/api/HttpApi.h"
#include "service/api/KeysApi.h"
#include "service/api/LifecycleApi.h"
#include "service/server/HttpHead.h"

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

const QList<HttpRoute> &routes()
{
    static const QList<HttpRoute> table = [] {
        QList<HttpRoute> list = LifecycleApi::routes([] { return nullptr; }, TestOverrides());
        HttpRoute live;
        live.method = "GET";
        live.pattern = QRegularExpression(QStringLiteral("/health/live"));
        live.access = HttpRoute::Access::Public;
        list.append(live);
        return list;
    }();
    return table;
}

std::optional<QByteArray> field(const QList<QByteArray> &lines, int i)
{
    if (i >= lines.size() || lines.at(i) == "-")
        return std::nullopt;
    return lines.at(i);
}

void admission(const QByteArray &input)
{
    // method \n path \n authorization \n type \n encoding \n length \n transfer ("-": absent)
    const QList<QByteArray> lines = input.split('\n');
    if (lines.size() < 2)
        return;
    const HttpAdmission::Headers headers{field(lines, 2), field(lines, 3), field(lines, 4),
                                         field(lines, 5), field(lines, 6)};
    const auto decision =
        HttpAdmission::admit(routes(), lines.at(0), lines.at(1), headers,
                             [](QByteArrayView presented) { return presented == "right"; });
    if (const auto *admitted = std::get_if<HttpAdmission::Admitted>(&decision)) {
        if (admitted->route->access == HttpRoute::Access::Credential &&
            headers.authorization != QByteArray("Bearer right"))
            std::abort();
        if (admitted->contentLength < 0 || admitted->contentLength > admitted->route->maxBody)
            std::abort();
        if (admitted->route->maxBody == 0 && (admitted->chunked || admitted->contentLength != 0))
            std::abort();
    }
}

void lifecycle(const QByteArray &body)
{
    const QString id = QStringLiteral("0b0e0f3a-4c1d-4d7e-9a55-6f3a2b1c0d9e");
    for (const auto operation :
         {LifecycleApi::Operation::Provision, LifecycleApi::Operation::Revoke,
          LifecycleApi::Operation::Delete}) {
        const QByteArray key =
            LifecycleApi::idempotencyKey(QUuid::fromString(id), operation).toLatin1();
        const auto parsed = LifecycleApi::parse(operation, id, key, body, TestOverrides());
        if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
            if (refused->body != HttpError::response(HttpError::Kind::MalformedRequest).body)
                std::abort();
            continue;
        }
        const LifecycleApi::Call &call = std::get<LifecycleApi::Call>(parsed);
        const auto again = LifecycleApi::parse(
            operation, id, key, LifecycleApi::requestBody(call.scope, call.providerReference),
            TestOverrides());
        const auto *back = std::get_if<LifecycleApi::Call>(&again);
        if (!back || back->scope.profileId != call.scope.profileId ||
            back->scope.tenant != call.scope.tenant ||
            back->scope.principal != call.scope.principal ||
            back->scope.allowedOrigins != call.scope.allowedOrigins ||
            back->providerReference != call.providerReference)
            std::abort();
    }
    if (const auto reference = KeysApi::parseRotation(body)) {
        if (reference->isEmpty())
            std::abort();
    }
}

void ceremony(const QByteArray &body)
{
    const QByteArray malformed = HttpError::response(HttpError::Kind::MalformedRequest).body;
    for (const auto operation : {CeremonyApi::Operation::Begin, CeremonyApi::Operation::Status,
                                 CeremonyApi::Operation::Cancel}) {
        const auto parsed = CeremonyApi::parse(operation, body, TestOverrides());
        if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
            if (refused->status != 400 ||
                (refused->body != malformed &&
                 refused->body != HttpError::response(400, CeremonyApi::loginUrlMismatch()).body))
                std::abort();
            continue;
        }
        const CeremonyApi::Call &call = std::get<CeremonyApi::Call>(parsed);
        const auto again =
            CeremonyApi::parse(operation, CeremonyApi::requestBody(call), TestOverrides());
        const auto *back = std::get_if<CeremonyApi::Call>(&again);
        if (call.operation != operation || !back || back->operation != operation ||
            back->owner != call.owner || back->ceremonyId != call.ceremonyId ||
            back->loginUrl != call.loginUrl)
            std::abort();
    }
    // The answers the client reads.
    if (const auto launch = CeremonyApi::parseBegun(body)) {
        const QString path = QString::fromLatin1(CeremonyApi::handoffPath(launch->ceremonyId));
        if (!launch->launchPath.startsWith(path + QLatin1Char('#')) || !launch->expiresAt.isValid())
            std::abort();
    }
    if (const auto status = CeremonyApi::parseStatus(body)) {
        if (status->ceremonyId.isEmpty() || status->status.isEmpty())
            std::abort();
    }
}

void handoff(const QByteArray &body)
{
    static const QByteArray invalid =
        std::get<HttpResponse>(CeremonyApi::parseHandoff(QByteArray(), TestOverrides())).body;
    const auto parsed = CeremonyApi::parseHandoff(body, TestOverrides());
    if (const auto *refused = std::get_if<HttpResponse>(&parsed)) {
        if (refused->status != 400 || refused->body != invalid)
            std::abort();
        return;
    }
    const CeremonyApi::Handoff &received = std::get<CeremonyApi::Handoff>(parsed);
    if (!received.state.withinBounds())
        std::abort();
    for (const StoredCookie &cookie : received.state.cookies) {
        if (!SessionState::isValidCookie(cookie))
            std::abort();
    }
    // The client's writer may spell numbers and escapes longer than the input did, so only a
    // body still within the limit must come back.
    const QByteArray written = CeremonyApi::handoffBody(received.confirmedUrl, received.state);
    if (written.size() <= CeremonyApi::kMaxHandoffBody) {
        const auto again = CeremonyApi::parseHandoff(written, TestOverrides());
        const auto *back = std::get_if<CeremonyApi::Handoff>(&again);
        if (!back || back->confirmedUrl != received.confirmedUrl ||
            back->state.cookies != received.state.cookies ||
            back->state.origins != received.state.origins)
            std::abort();
    }
    const Result<Origin> origin = Origin::ofUrl(received.confirmedUrl, TestOverrides());
    if (!origin)
        std::abort();
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(1'800'000'000'000, Qt::UTC);
    const double nowSeconds = double(now.toSecsSinceEpoch());
    const SessionState scoped = received.state.scopedTo({*origin}, now);
    for (const StoredCookie &cookie : scoped.cookies) {
        if (!SessionState::isValidCookie(cookie) ||
            (cookie.expires != -1 &&
             (cookie.expires <= nowSeconds ||
              cookie.expires > nowSeconds + double(SessionState::kMaxLifetimeSeconds))))
            std::abort();
    }
    for (const OriginStorage &storage : scoped.origins) {
        if (storage.origin != origin->toString())
            std::abort();
    }
}

void head(const QByteArray &input)
{
    // The first byte picks the size of the pieces the rest arrives in; the rest is offered
    // again and again until the head ends or is refused, as an endless client would send it.
    if (input.isEmpty())
        return;
    const qsizetype piece = 1 + qsizetype(quint8(input.at(0))) * 67;
    const QByteArray stream = input.mid(1);
    if (stream.isEmpty())
        return;
    HttpHead head;
    qsizetype offered = 0;
    while (head.state() == HttpHead::State::Incomplete &&
           offered <= HttpHead::kMaxBytes + stream.size()) {
        QByteArray next;
        while (next.size() < piece)
            next += stream.mid((offered + next.size()) % stream.size(), piece - next.size());
        const qsizetype room = head.room();
        head.append(next);
        offered += next.size();
        // Never more than the bound, never more than it had room for, never a second buffer.
        if (head.bytes().size() > HttpHead::kMaxBytes ||
            head.bytes().capacity() > HttpHead::kMaxBytes || head.bytes().size() > offered ||
            (head.state() == HttpHead::State::Incomplete &&
             head.room() != HttpHead::kMaxBytes - head.bytes().size()) ||
            room > HttpHead::kMaxBytes)
            std::abort();
    }
    const qsizetype lines = head.bytes().count('\n');
    switch (head.state()) {
    case HttpHead::State::Incomplete:
        std::abort(); // an endless head must end one way or the other
    case HttpHead::State::Complete: {
        // The request line, at most 100 header lines, the empty line ("\r\n" after a line).
        const QByteArray bytes = head.bytes().left(head.headLength());
        if (!bytes.endsWith("\n\r\n") || bytes.count('\n') > HttpHead::kMaxHeaderLines + 2)
            std::abort();
        break;
    }
    case HttpHead::State::TooLarge:
        // Refused only past a bound: 16 KiB taken, or a 101st header line.
        if (head.bytes().size() != HttpHead::kMaxBytes && lines < HttpHead::kMaxHeaderLines + 2)
            std::abort();
        if (HttpError::response(HttpError::Kind::HeadTooLarge).status != 431)
            std::abort();
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray input(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    if (data[0] & 1) {
        admission(input);
    } else if (data[0] & 2) {
        head(input);
    } else {
        lifecycle(input);
        ceremony(input);
        handoff(input);
    }
    return 0;
}
