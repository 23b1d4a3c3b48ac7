// The owner's live view as its pieces read it, without a browser: a frame's bounds (a PNG of
// at most 1 MiB whose header states 1–4096 pixels a side), its strict JSON, the browser
// host's frame request and answer, and the service route's path and closed body.

#include "domain/observation/LiveFrame.h"
#include "isolation/HostProtocol.h"
#include "service/api/LiveViewApi.h"

#include <QJsonDocument>
#include <QTest>
#include <QtEndian>

using namespace veetbot;

namespace {

// A PNG's signature and IHDR chunk with this size, then `padding` bytes (only the header is
// read; the workbench decodes the rest).
QByteArray pngHeader(quint32 width, quint32 height, qsizetype padding = 16)
{
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    png.append(QByteArray("\0\0\0\x0dIHDR", 8));
    char size[8];
    qToBigEndian(width, size);
    qToBigEndian(height, size + 4);
    png.append(size, 8);
    png.append(padding, '\0');
    return png;
}

QJsonObject frameJson(const QByteArray &png, int width, int height)
{
    return {{QStringLiteral("png"), QString::fromLatin1(png.toBase64())},
            {QStringLiteral("width"), width},
            {QStringLiteral("height"), height}};
}

} // namespace

class TestLiveView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aFrameIsABoundedPng();
    void aFrameReadsStrictly();
    void theHostCarriesFrames();
    void theRouteIsKeyedByRunWithTheOwnerAsItsBody();
};

void TestLiveView::aFrameIsABoundedPng()
{
    const auto frame = LiveFrame::fromPng(pngHeader(1280, 800));
    QVERIFY(frame);
    QCOMPARE(frame->width, 1280);
    QCOMPARE(frame->height, 800);
    QVERIFY(LiveFrame::fromPng(pngHeader(4096, 1)));
    QVERIFY(!LiveFrame::fromPng(pngHeader(4097, 1)));
    QVERIFY(!LiveFrame::fromPng(pngHeader(1, 4097)));
    QVERIFY(!LiveFrame::fromPng(pngHeader(0, 10)));
    QVERIFY(!LiveFrame::fromPng(pngHeader(10, 0)));
    // Exactly 1 MiB is a frame; a byte more is not.
    const QByteArray header = pngHeader(10, 10, 0);
    QVERIFY(LiveFrame::fromPng(header + QByteArray(LiveFrame::kMaxPngBytes - header.size(), 'x')));
    QVERIFY(
        !LiveFrame::fromPng(header + QByteArray(LiveFrame::kMaxPngBytes - header.size() + 1, 'x')));
    // Not a PNG: another signature, another first chunk, or too short to say.
    QByteArray jpeg = pngHeader(10, 10);
    jpeg[1] = 'J';
    QVERIFY(!LiveFrame::fromPng(jpeg));
    QByteArray otherChunk = pngHeader(10, 10);
    otherChunk[12] = 'X';
    QVERIFY(!LiveFrame::fromPng(otherChunk));
    QVERIFY(!LiveFrame::fromPng(pngHeader(10, 10, 0).left(20)));
    QVERIFY(!LiveFrame::fromPng(QByteArray()));
}

void TestLiveView::aFrameReadsStrictly()
{
    const QByteArray png = pngHeader(640, 400);
    const auto frame = LiveFrame::fromJson(frameJson(png, 640, 400));
    QVERIFY(frame);
    QCOMPARE(frame->png, png);
    QCOMPARE(LiveFrame::fromJson(frame->toJson())->png, png);
    // The sizes must be the PNG's own.
    QVERIFY(!LiveFrame::fromJson(frameJson(png, 641, 400)));
    QVERIFY(!LiveFrame::fromJson(frameJson(png, 640, 401)));
    QJsonObject extra = frameJson(png, 640, 400);
    extra.insert(QStringLiteral("url"), QStringLiteral("https://shop.test/"));
    QVERIFY(!LiveFrame::fromJson(extra));
    QJsonObject missing = frameJson(png, 640, 400);
    missing.remove(QStringLiteral("height"));
    QVERIFY(!LiveFrame::fromJson(missing));
    QJsonObject badBase64 = frameJson(png, 640, 400);
    badBase64.insert(QStringLiteral("png"), QStringLiteral("iVBOR*w0KGgo="));
    QVERIFY(!LiveFrame::fromJson(badBase64));
    QJsonObject wrongType = frameJson(png, 640, 400);
    wrongType.insert(QStringLiteral("width"), QStringLiteral("640"));
    QVERIFY(!LiveFrame::fromJson(wrongType));
    QVERIFY(!LiveFrame::fromJson(QJsonValue(QStringLiteral("frame"))));
}

void TestLiveView::theHostCarriesFrames()
{
    // The request: an id and the op, nothing else.
    const auto request = HostProtocol::decodeRequest(R"({"id":3,"op":"frame"})");
    QVERIFY(request);
    QCOMPARE(request->op, QStringLiteral("frame"));
    QCOMPARE(HostProtocol::encodeRequest(*request).trimmed(),
             QByteArray(R"({"id":3,"op":"frame"})"));
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":3,"op":"frame","scale":2})"));
    // The answer, validated like every host answer.
    const LiveFrame frame = *LiveFrame::fromPng(pngHeader(1280, 800));
    const auto answer =
        HostProtocol::decodeResponse(HostProtocol::encodeFrame(3, frame).trimmed(), {});
    QVERIFY(answer);
    QCOMPARE(answer->id, quint64(3));
    QVERIFY(answer->frame);
    QCOMPARE(answer->frame->png, frame.png);
    QVERIFY(!answer->idle && !answer->state && !answer->restored);
    // A frame over the bounds, or one with something more, is a host not to trust.
    QJsonObject tooBig = frame.toJson();
    tooBig.insert(QStringLiteral("width"), 1281);
    QVERIFY(!HostProtocol::decodeResponse(
        QJsonDocument(QJsonObject{{QStringLiteral("id"), 3}, {QStringLiteral("frame"), tooBig}})
            .toJson(QJsonDocument::Compact),
        {}));
    QVERIFY(!HostProtocol::decodeResponse(
        QJsonDocument(QJsonObject{{QStringLiteral("id"), 3},
                                  {QStringLiteral("frame"), frame.toJson()},
                                  {QStringLiteral("idle"), true}})
            .toJson(QJsonDocument::Compact),
        {}));
}

void TestLiveView::theRouteIsKeyedByRunWithTheOwnerAsItsBody()
{
    const QRegularExpression pattern(
        QRegularExpression::anchoredPattern(LiveViewApi::pattern().pattern()));
    const QString run = QStringLiteral("6c1f2a8e-7d0b-4e57-9a55-2f4b8e1c9d30");
    const QRegularExpressionMatch match =
        pattern.match(QString::fromLatin1(LiveViewApi::path(run)));
    QVERIFY(match.hasMatch());
    QCOMPARE(match.captured(1), run);
    QVERIFY(!pattern.match(QStringLiteral("/v1/runs/a/b:frame")).hasMatch());
    QVERIFY(!pattern.match(QStringLiteral("/v1/runs/:frame")).hasMatch());
    QVERIFY(!pattern.match(QStringLiteral("/v1/runs/%1:frame").arg(QString(129, u'a'))).hasMatch());
    QVERIFY(pattern.match(QStringLiteral("/v1/runs/%1:frame").arg(QString(128, u'a'))).hasMatch());

    const ProfileScope owner{QStringLiteral("tenant"), QStringLiteral("principal")};
    const auto parsed = LiveViewApi::parse(LiveViewApi::requestBody(owner));
    QVERIFY(std::holds_alternative<ProfileScope>(parsed));
    QCOMPARE(std::get<ProfileScope>(parsed).tenant, owner.tenant);
    QCOMPARE(std::get<ProfileScope>(parsed).principal, owner.principal);
    for (const QByteArray &body :
         {QByteArray(R"({"tenant_id":"t"})"),
          QByteArray(R"({"tenant_id":"t","principal_id":"p","lease_reference":"x"})"),
          QByteArray(R"({"tenant_id":"t","principal_id":""})"),
          QByteArray(R"({"tenant_id":"t","principal_id":"p","principal_id":"p"})"),
          QByteArray(R"({"tenant_id":1,"principal_id":"p"})"), QByteArray("[]"), QByteArray()}) {
        const auto refused = LiveViewApi::parse(body);
        QVERIFY2(std::holds_alternative<HttpResponse>(refused), body.constData());
        QCOMPARE(std::get<HttpResponse>(refused).status, 400);
    }
    QCOMPARE(LiveViewApi::tooSoon().status, 429);
    QCOMPARE(LiveViewApi::notRunning().status, 404);
}

QTEST_APPLESS_MAIN(TestLiveView)
#include "tst_liveview.moc"
