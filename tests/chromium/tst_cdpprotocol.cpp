// The DevTools pipe's framing and messages, without a browser: NUL-delimited frames in any
// pieces, the bound that poisons the reader, the strict reading of replies and events, and the
// connection's rules over a socket pair standing in for the browser (one answer per command,
// a reply nobody asked for or a malformed message closing it, every pending command failed
// when the pipe ends).

#include "CdpConnection.h"
#include "CdpProtocol.h"
#include "EventWait.h"

#include <QJsonDocument>
#include <QTest>

#include <sys/socket.h>
#include <unistd.h>

using namespace veetbot;
using namespace veetbot::cdp;

class TestCdpProtocol : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void framesInAnyPieces();
    void aMessageOverItsBoundPoisonsTheReader();
    void messages_data();
    void messages();
    void commandsAreCompactAndEndWithNul();
    void everyCommandGetsOneAnswer();
    void aReplyNobodyAskedForClosesTheConnection();
    void theEndOfThePipeFailsWhatIsPending();
};

void TestCdpProtocol::framesInAnyPieces()
{
    const QByteArray stream = QByteArray("{\"id\":1,\"result\":{}}") + '\0' +
                              QByteArray("{\"method\":\"A.b\"}") + '\0' + QByteArray("{\"id\"");
    // Byte by byte and all at once give the same two messages and the same rest.
    for (const qsizetype piece : {qsizetype(1), qsizetype(3), stream.size()}) {
        FrameReader reader;
        QList<QByteArray> messages;
        for (qsizetype at = 0; at < stream.size(); at += piece)
            QVERIFY(reader.feed(
                QByteArrayView(stream).sliced(at, std::min(piece, stream.size() - at)), &messages));
        QCOMPARE(messages, (QList<QByteArray>{"{\"id\":1,\"result\":{}}", "{\"method\":\"A.b\"}"}));
        QCOMPARE(reader.pendingBytes(), 5);
    }
}

void TestCdpProtocol::aMessageOverItsBoundPoisonsTheReader()
{
    FrameReader reader(8);
    QList<QByteArray> messages;
    QVERIFY(reader.feed(QByteArray(QByteArray("12345678") + '\0'), &messages));
    QCOMPARE(messages.size(), 1);
    // Nine bytes without their NUL: over the bound, and nothing is framed from then on.
    QVERIFY(!reader.feed("123456789", &messages));
    QVERIFY(reader.failed());
    QCOMPARE(reader.pendingBytes(), 0);
    QVERIFY(!reader.feed(QByteArray(QByteArray("1") + '\0'), &messages));
    QCOMPARE(messages.size(), 1);
}

void TestCdpProtocol::messages_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("kind");
    QTest::newRow("result") << QByteArray(R"({"id":7,"result":{"a":1}})") << true
                            << int(Message::Kind::Result);
    QTest::newRow("error") << QByteArray(R"({"id":7,"error":{"code":-32601,"message":"x"}})")
                           << true << int(Message::Kind::Error);
    QTest::newRow("event")
        << QByteArray(R"({"method":"Page.loadEventFired","params":{"t":1.5},"sessionId":"S"})")
        << true << int(Message::Kind::Event);
    QTest::newRow("event without params")
        << QByteArray(R"({"method":"A.b"})") << true << int(Message::Kind::Event);
    QTest::newRow("both result and error")
        << QByteArray(R"({"id":1,"result":{},"error":{"code":1}})") << false << 0;
    QTest::newRow("neither") << QByteArray(R"({"id":1})") << false << 0;
    QTest::newRow("zero id") << QByteArray(R"({"id":0,"result":{}})") << false << 0;
    QTest::newRow("fractional id") << QByteArray(R"({"id":1.5,"result":{}})") << false << 0;
    QTest::newRow("string id") << QByteArray(R"({"id":"1","result":{}})") << false << 0;
    QTest::newRow("duplicate member") << QByteArray(R"({"id":1,"id":2,"result":{}})") << false << 0;
    QTest::newRow("array") << QByteArray(R"([1])") << false << 0;
    QTest::newRow("empty method") << QByteArray(R"({"method":""})") << false << 0;
    QTest::newRow("params not an object")
        << QByteArray(R"({"method":"A.b","params":[]})") << false << 0;
    QTest::newRow("empty session")
        << QByteArray(R"({"method":"A.b","sessionId":""})") << false << 0;
    QTest::newRow("bad UTF-8") << QByteArray("{\"method\":\"A.\xff\"}") << false << 0;
    QByteArray deep;
    for (int i = 0; i < Message::kMaxDepth + 1; ++i)
        deep += "{\"a\":";
    deep += "1";
    for (int i = 0; i < Message::kMaxDepth + 1; ++i)
        deep += "}";
    QTest::newRow("too deep") << QByteArray(R"({"method":"A.b","params":)" + deep + "}") << false
                              << 0;
}

void TestCdpProtocol::messages()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, valid);
    QFETCH(int, kind);
    const std::optional<Message> message = Message::parse(json);
    QCOMPARE(message.has_value(), valid);
    if (!valid)
        return;
    QCOMPARE(int(message->kind), kind);
    if (message->kind == Message::Kind::Error) {
        QCOMPARE(message->errorCode, -32601);
        QVERIFY(message->payload.isEmpty()); // the browser's words are never kept
    }
    if (message->kind == Message::Kind::Event && json.contains("sessionId")) {
        QCOMPARE(message->sessionId, QStringLiteral("S"));
        QCOMPARE(message->payload.value(QLatin1String("t")).toDouble(), 1.5);
    }
}

void TestCdpProtocol::commandsAreCompactAndEndWithNul()
{
    const QByteArray bytes = encodeCommand(3, QStringLiteral("Page.navigate"),
                                           {{QStringLiteral("url"), QStringLiteral("about:blank")}},
                                           QStringLiteral("S1"));
    QVERIFY(bytes.endsWith('\0'));
    QCOMPARE(bytes.count('\0'), 1);
    const QJsonObject object = QJsonDocument::fromJson(bytes.chopped(1)).object();
    QCOMPARE(object.value(QLatin1String("id")).toInteger(), 3);
    QCOMPARE(object.value(QLatin1String("method")).toString(), QStringLiteral("Page.navigate"));
    QCOMPARE(object.value(QLatin1String("sessionId")).toString(), QStringLiteral("S1"));
    QVERIFY(!bytes.contains('\n'));
}

namespace {

// A socket pair per direction standing in for the browser's fds 3 and 4.
struct FakeBrowser
{
    int commands[2] = {-1, -1}; // [0] the connection writes, [1] the "browser" reads
    int replies[2] = {-1, -1};  // [0] the "browser" writes, [1] the connection reads
    FakeBrowser()
    {
        ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, commands);
        ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, replies);
    }
    ~FakeBrowser()
    {
        for (int fd : {commands[1], replies[0]})
            if (fd >= 0)
                ::close(fd);
    }
    QByteArray readCommands()
    {
        QByteArray out;
        char buffer[4096];
        ssize_t n = 0;
        while ((n = ::recv(commands[1], buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
            out.append(buffer, n);
        return out;
    }
    void reply(const QByteArray &json)
    {
        const QByteArray framed = json + '\0';
        QVERIFY(::write(replies[0], framed.constData(), size_t(framed.size())) == framed.size());
    }
};

} // namespace

void TestCdpProtocol::everyCommandGetsOneAnswer()
{
    FakeBrowser browser;
    Connection connection(browser.commands[0], browser.replies[1]);
    QList<QString> answers;
    QList<QString> events;
    connect(&connection, &Connection::event, this,
            [&events](const QString &method, const QJsonObject &, const QString &session) {
                events << method + QLatin1Char('@') + session;
            });
    const qint64 first = connection.send(
        QStringLiteral("Browser.getVersion"), {}, [&answers](Result<QJsonObject> r) {
            answers << (r ? r->value(QLatin1String("product")).toString() : r.error().code);
        });
    const qint64 second = connection.send(
        QStringLiteral("No.such"), {},
        [&answers](Result<QJsonObject> r) {
            answers << (r ? QStringLiteral("ok") : r.error().code);
        },
        QStringLiteral("S"));
    QCOMPARE(first, 1);
    QCOMPARE(second, 2);
    QVERIFY(answers.isEmpty()); // never from inside send()
    const QList<QByteArray> sent = browser.readCommands().split('\0');
    QCOMPARE(sent.size(), 3); // two commands and the empty rest after the last NUL
    QVERIFY(sent.at(1).contains("\"sessionId\":\"S\""));
    // Answered out of order, an event between them.
    browser.reply(R"({"id":2,"error":{"code":-32601,"message":"'No.such' wasn't found"}})");
    browser.reply(R"({"method":"Target.targetCreated","params":{},"sessionId":"S"})");
    browser.reply(R"({"id":1,"result":{"product":"Chrome/156"}})");
    QVERIFY(testing::runEventsUntil([&answers] { return answers.size() == 2; }, 5000));
    QCOMPARE(answers, (QList<QString>{QStringLiteral("chromium.protocol_error"),
                                      QStringLiteral("Chrome/156")}));
    QCOMPARE(events, QList<QString>{QStringLiteral("Target.targetCreated@S")});
    QCOMPARE(connection.pendingCount(), 0);
    QVERIFY(connection.isOpen());
    // The browser's words never reach the error.
    QVERIFY(!Connection::protocolError(-32601).message.contains(QLatin1String("No.such")));
}

void TestCdpProtocol::aReplyNobodyAskedForClosesTheConnection()
{
    for (const QByteArray &wrong : {QByteArray(R"({"id":99,"result":{}})"),
                                    QByteArray(R"({"id":1})"), QByteArray("not json")}) {
        FakeBrowser browser;
        Connection connection(browser.commands[0], browser.replies[1]);
        int closed = 0;
        connect(&connection, &Connection::closed, this, [&closed] { ++closed; });
        QString answer;
        connection.send(QStringLiteral("A.b"), {}, [&answer](Result<QJsonObject> r) {
            answer = r ? QStringLiteral("ok") : r.error().code;
        });
        browser.reply(wrong);
        QVERIFY(testing::runEventsUntil([&answer] { return !answer.isEmpty(); }, 5000));
        QCOMPARE(answer, QStringLiteral("tool.browser.provider_unavailable"));
        QCOMPARE(closed, 1);
        QVERIFY(!connection.isOpen());
        // A command after the end is answered too, never sent.
        QString late;
        QCOMPARE(connection.send(QStringLiteral("A.b"), {},
                                 [&late](Result<QJsonObject> r) {
                                     late = r ? QStringLiteral("ok") : r.error().code;
                                 }),
                 0);
        QVERIFY(testing::runEventsUntil([&late] { return !late.isEmpty(); }, 5000));
        QCOMPARE(late, QStringLiteral("tool.browser.provider_unavailable"));
    }
}

void TestCdpProtocol::theEndOfThePipeFailsWhatIsPending()
{
    FakeBrowser browser;
    Connection connection(browser.commands[0], browser.replies[1]);
    QStringList answers;
    for (int i = 0; i < 3; ++i)
        connection.send(QStringLiteral("A.b"), {}, [&answers](Result<QJsonObject> r) {
            answers << (r ? QStringLiteral("ok") : r.error().code);
        });
    // The positive control first: one answered.
    browser.reply(R"({"id":2,"result":{}})");
    QVERIFY(testing::runEventsUntil([&answers] { return answers.size() == 1; }, 5000));
    QCOMPARE(answers, QStringList{QStringLiteral("ok")});
    // The browser goes: the other two fail, once each.
    ::close(browser.replies[0]);
    browser.replies[0] = -1;
    QVERIFY(testing::runEventsUntil([&answers] { return answers.size() == 3; }, 5000));
    QCOMPARE(answers.count(QStringLiteral("tool.browser.provider_unavailable")), 2);
    QVERIFY(!connection.isOpen());
}

QTEST_GUILESS_MAIN(TestCdpProtocol)
#include "tst_cdpprotocol.moc"
