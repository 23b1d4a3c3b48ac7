// The JSON-RPC 2.0 layer of `veetbot mcp` over in-memory devices and a pipe: framing, the
// 1 MiB bound (refused, never buffered, the next message served), malformed JSON, batches,
// invalid shapes, notifications, the end of input, and server-to-client requests (fresh ids,
// the pending map, response routing, cancellation, the input ending while one is pending).

#include "mcp/JsonRpcChannel.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTest>

using namespace veetbot::mcp;

namespace {

struct Received
{
    QJsonValue id;
    QString method;
    QJsonValue params;
    bool notification = false;
};

// A channel writing into a buffer, recording what it hands to its handlers.
class Fixture
{
public:
    Fixture() : channel(&output)
    {
        output.open(QIODevice::WriteOnly);
        channel.setRequestHandler(
            [this](const QJsonValue &id, const QString &method, const QJsonValue &params) {
                received.append(Received{id, method, params, false});
            });
        channel.setNotificationHandler([this](const QString &method, const QJsonValue &params) {
            received.append(Received{QJsonValue(), method, params, true});
        });
    }

    void feed(const QByteArray &bytes) { channel.receive(bytes); }

    // Every line written so far, parsed; a line that is not one JSON object fails the test.
    QList<QJsonObject> written()
    {
        QList<QJsonObject> messages;
        const QList<QByteArray> lines = output.data().split('\n');
        if (!output.data().isEmpty() && !output.data().endsWith('\n'))
            qFatal("output does not end with a newline");
        for (const QByteArray &line : lines) {
            if (line.isEmpty())
                continue;
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !document.isObject())
                qFatal("output line is not a JSON object");
            messages.append(document.object());
        }
        return messages;
    }
    QJsonObject lastWritten()
    {
        const QList<QJsonObject> all = written();
        return all.isEmpty() ? QJsonObject() : all.last();
    }
    static int errorCode(const QJsonObject &message)
    {
        return message.value(QLatin1String("error"))
            .toObject()
            .value(QLatin1String("code"))
            .toInt();
    }

    QBuffer output;
    JsonRpcChannel channel;
    QList<Received> received;
};

} // namespace

class TestJsonRpcChannel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestReachesTheHandler();
    void fractionalNumbersAreRead();
    void idsKeepTheirType();
    void notificationHasNoAnswer();
    void messagesSplitAcrossChunks();
    void severalMessagesInOneChunk();
    void blankLinesAndCarriageReturnsAreIgnored();
    void malformedJsonIsParseError_data();
    void malformedJsonIsParseError();
    void batchIsRefused();
    void invalidShapes_data();
    void invalidShapes();
    void errorsNeverEchoTheInput();
    void oversizedMessageRefusedThenNextServed();
    void oversizedMessageIsNeverBuffered();
    void messageOfExactlyOneMebibyteIsServed();
    void endOfInputIsSignalledOnce();
    void lastLineWithoutNewlineIsServed();
    void serverRequestGetsFreshIdsAndItsReply();
    void serverRequestErrorReply();
    void responsesForUnknownIdsAreDropped();
    void malformedResponsesAreNeverAnswered();
    void cancelledServerRequest();
    void endOfInputFailsPendingServerRequests();
    void overAPipe();
};

void TestJsonRpcChannel::requestReachesTheHandler()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":1}})"
           "\n");
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(f.received[0].id, QJsonValue(7));
    QCOMPARE(f.received[0].method, QStringLiteral("ping"));
    QCOMPARE(f.received[0].params.toObject().value(QLatin1String("a")).toInt(), 1);
    QVERIFY(!f.received[0].notification);
    QVERIFY(f.output.data().isEmpty()); // answering is the handler's business
    f.channel.sendResult(f.received[0].id, QJsonObject());
    QCOMPARE(f.output.data(), QByteArray(R"({"id":7,"jsonrpc":"2.0","result":{}})"
                                         "\n"));
}

// The strict parser still takes every number JSON has: fractions and exponents pass through.
void TestJsonRpcChannel::fractionalNumbersAreRead()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","id":8,"method":"ping","params":{"t":0.5,"e":-2.5e3}})"
           "\n");
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(f.received[0].params.toObject().value(QLatin1String("t")).toDouble(), 0.5);
    QCOMPARE(f.received[0].params.toObject().value(QLatin1String("e")).toDouble(), -2500.0);
}

void TestJsonRpcChannel::idsKeepTheirType()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","id":"7","method":"a"})"
           "\n"
           R"({"jsonrpc":"2.0","id":7,"method":"b"})"
           "\n");
    QCOMPARE(f.received.size(), 2);
    f.channel.sendResult(f.received[0].id, 1);
    f.channel.sendResult(f.received[1].id, 2);
    const QList<QJsonObject> out = f.written();
    QCOMPARE(out[0].value(QLatin1String("id")), QJsonValue(QStringLiteral("7")));
    QCOMPARE(out[1].value(QLatin1String("id")), QJsonValue(7));
    QVERIFY(f.output.data().contains(R"("id":7,)"));
    QVERIFY(JsonRpcChannel::idKey(QJsonValue(7)) != JsonRpcChannel::idKey(QJsonValue("7")));
}

void TestJsonRpcChannel::notificationHasNoAnswer()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
           "\n");
    QCOMPARE(f.received.size(), 1);
    QVERIFY(f.received[0].notification);
    QCOMPARE(f.received[0].method, QStringLiteral("notifications/initialized"));
    QVERIFY(f.output.data().isEmpty());
}

void TestJsonRpcChannel::messagesSplitAcrossChunks()
{
    Fixture f;
    const QByteArray message = R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                               "\n";
    for (const char byte : message)
        f.channel.receive(QByteArrayView(&byte, 1));
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(f.received[0].method, QStringLiteral("ping"));
}

void TestJsonRpcChannel::severalMessagesInOneChunk()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","id":1,"method":"a"})"
           "\n"
           R"({"jsonrpc":"2.0","id":2,"method":"b"})"
           "\n"
           R"({"jsonrpc":"2.0","id":3,"method":"c"})");
    QCOMPARE(f.received.size(), 2);
    f.feed("\n");
    QCOMPARE(f.received.size(), 3);
    QCOMPARE(f.received[2].method, QStringLiteral("c"));
}

void TestJsonRpcChannel::blankLinesAndCarriageReturnsAreIgnored()
{
    Fixture f;
    f.feed("\n\r\n  \n"
           R"({"jsonrpc":"2.0","id":1,"method":"a"})"
           "\r\n");
    QCOMPARE(f.received.size(), 1);
    QVERIFY(f.output.data().isEmpty());
}

void TestJsonRpcChannel::malformedJsonIsParseError_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("truncated") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":)");
    QTest::newRow("garbage") << QByteArray("hello world");
    QTest::newRow("trailing comma") << QByteArray(R"({"jsonrpc":"2.0","id":1,})");
    QTest::newRow("two objects") << QByteArray(R"({"a":1}{"b":2})");
    QTest::newRow("invalid utf-8")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}");
    QTest::newRow("nul byte") << QByteArray("{\"jsonrpc\":\"2.0\",\0}", 19);
    // Two readers could take a duplicate member either way: the strict parser refuses it.
    QTest::newRow("duplicate method")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"})");
    QTest::newRow("duplicate after unescaping")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"x"})");
    QTest::newRow("nested duplicate")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}})");
    QTest::newRow("lone surrogate escape")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"\ud800"})");
    QTest::newRow("number overflow") << QByteArray(R"({"jsonrpc":"2.0","id":1e999,"method":"a"})");
}

void TestJsonRpcChannel::malformedJsonIsParseError()
{
    QFETCH(QByteArray, line);
    Fixture f;
    f.feed(line + '\n');
    QVERIFY(f.received.isEmpty());
    const QJsonObject answer = f.lastWritten();
    QCOMPARE(Fixture::errorCode(answer), JsonRpcErrorCode::kParseError);
    QVERIFY(answer.value(QLatin1String("id")).isNull());
    // The next message is served.
    f.feed(R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
           "\n");
    QCOMPARE(f.received.size(), 1);
}

void TestJsonRpcChannel::batchIsRefused()
{
    Fixture f;
    f.feed(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}])"
           "\n[]\n");
    QVERIFY(f.received.isEmpty());
    const QList<QJsonObject> out = f.written();
    QCOMPARE(out.size(), 2);
    for (const QJsonObject &answer : out) {
        QCOMPARE(Fixture::errorCode(answer), JsonRpcErrorCode::kInvalidRequest);
        QVERIFY(answer.value(QLatin1String("id")).isNull());
        QCOMPARE(answer.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
    }
}

void TestJsonRpcChannel::invalidShapes_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QJsonValue>("expectedId");
    const QJsonValue null(QJsonValue::Null);
    QTest::newRow("scalar") << QByteArray("42") << null;
    QTest::newRow("string") << QByteArray(R"("ping")") << null;
    QTest::newRow("empty object") << QByteArray("{}") << null;
    QTest::newRow("no version") << QByteArray(R"({"id":1,"method":"ping"})") << QJsonValue(1);
    QTest::newRow("wrong version")
        << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << QJsonValue(1);
    QTest::newRow("method not string")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":5})") << QJsonValue(1);
    QTest::newRow("null id") << QByteArray(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")
                             << null;
    QTest::newRow("object id") << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"ping"})")
                               << null;
    QTest::newRow("bool id") << QByteArray(R"({"jsonrpc":"2.0","id":true,"method":"ping"})")
                             << null;
    QTest::newRow("scalar params")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"ping","params":1})") << QJsonValue(3);
    QTest::newRow("notification scalar params")
        << QByteArray(R"({"jsonrpc":"2.0","method":"ping","params":"x"})") << null;
    QTest::newRow("no method no result")
        << QByteArray(R"({"jsonrpc":"2.0","id":4})") << QJsonValue(4);
}

void TestJsonRpcChannel::invalidShapes()
{
    QFETCH(QByteArray, line);
    QFETCH(QJsonValue, expectedId);
    Fixture f;
    f.feed(line + '\n');
    QVERIFY(f.received.isEmpty());
    const QList<QJsonObject> out = f.written();
    QCOMPARE(out.size(), 1);
    QCOMPARE(Fixture::errorCode(out[0]), JsonRpcErrorCode::kInvalidRequest);
    QCOMPARE(out[0].value(QLatin1String("id")), expectedId);
}

void TestJsonRpcChannel::errorsNeverEchoTheInput()
{
    Fixture f;
    f.feed("SECRET-CANARY\n"
           R"([{"jsonrpc":"2.0","id":"SECRET-CANARY","method":"x"}])"
           "\n"
           R"({"jsonrpc":"9","method":"SECRET-CANARY"})"
           "\n");
    QCOMPARE(f.written().size(), 3);
    QVERIFY(!f.output.data().contains("SECRET-CANARY"));
}

void TestJsonRpcChannel::oversizedMessageRefusedThenNextServed()
{
    Fixture f;
    QByteArray big = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")";
    big.append(QByteArray(JsonRpcChannel::kMaxMessageBytes, 'x'));
    big.append("\"}}\n");
    f.feed(big);
    f.feed(R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
           "\n");
    const QList<QJsonObject> out = f.written();
    QCOMPARE(out.size(), 1); // one refusal, sent once
    QCOMPARE(Fixture::errorCode(out[0]), JsonRpcErrorCode::kInvalidRequest);
    QVERIFY(out[0].value(QLatin1String("id")).isNull());
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(f.received[0].id, QJsonValue(2));
}

void TestJsonRpcChannel::oversizedMessageIsNeverBuffered()
{
    // 64 MiB arrive without a newline: one refusal, and memory stays bounded because
    // everything past the bound is dropped as it arrives.
    Fixture f;
    const QByteArray chunk(1024 * 1024, 'y');
    for (int i = 0; i < 64; ++i)
        f.feed(chunk);
    QCOMPARE(f.written().size(), 1);
    f.feed(QByteArray("tail without json\n"
                      R"({"jsonrpc":"2.0","id":9,"method":"ping"})"
                      "\n"));
    QCOMPARE(f.written().size(), 1); // the rest of the oversized line was discarded silently
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(f.received[0].id, QJsonValue(9));
}

void TestJsonRpcChannel::messageOfExactlyOneMebibyteIsServed()
{
    Fixture f;
    const QByteArray head = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")";
    const QByteArray tail = "\"}}";
    QByteArray message = head;
    message.append(QByteArray(JsonRpcChannel::kMaxMessageBytes - head.size() - tail.size(), 'x'));
    message.append(tail);
    QCOMPARE(message.size(), JsonRpcChannel::kMaxMessageBytes);
    f.feed(message + '\n');
    QCOMPARE(f.received.size(), 1);
    QVERIFY(f.output.data().isEmpty());
    // One byte more is refused.
    message.insert(head.size(), 'x');
    f.feed(message + '\n');
    QCOMPARE(f.received.size(), 1);
    QCOMPARE(Fixture::errorCode(f.lastWritten()), JsonRpcErrorCode::kInvalidRequest);
}

void TestJsonRpcChannel::endOfInputIsSignalledOnce()
{
    Fixture f;
    QSignalSpy ended(&f.channel, &JsonRpcChannel::inputEnded);
    f.channel.finishInput();
    f.channel.finishInput();
    QCOMPARE(ended.size(), 1);
    QVERIFY(f.channel.inputFinished());
    f.feed(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
           "\n");
    QVERIFY(f.received.isEmpty());
}

void TestJsonRpcChannel::lastLineWithoutNewlineIsServed()
{
    Fixture f;
    f.feed(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    QVERIFY(f.received.isEmpty());
    f.channel.finishInput();
    QCOMPARE(f.received.size(), 1);
}

void TestJsonRpcChannel::serverRequestGetsFreshIdsAndItsReply()
{
    Fixture f;
    QList<JsonRpcReply> replies;
    const QJsonValue first =
        f.channel.sendRequest(QStringLiteral("elicitation/create"),
                              QJsonObject{{QStringLiteral("message"), QStringLiteral("m")}},
                              [&replies](const JsonRpcReply &reply) { replies.append(reply); });
    const QJsonValue second =
        f.channel.sendRequest(QStringLiteral("roots/list"), QJsonObject(),
                              [&replies](const JsonRpcReply &reply) { replies.append(reply); });
    QVERIFY(first != second);
    QCOMPARE(f.channel.pendingRequests(), 2);
    const QList<QJsonObject> out = f.written();
    QCOMPARE(out.size(), 2);
    QCOMPARE(out[0].value(QLatin1String("method")).toString(),
             QStringLiteral("elicitation/create"));
    QCOMPARE(out[0].value(QLatin1String("id")), first);
    QCOMPARE(
        out[0].value(QLatin1String("params")).toObject().value(QLatin1String("message")).toString(),
        QStringLiteral("m"));
    QCOMPARE(out[1].value(QLatin1String("id")), second);

    // Answers may arrive in any order; each goes to its own request.
    QJsonObject answer{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), second},
        {QStringLiteral("result"), QJsonObject{{QStringLiteral("roots"), QJsonArray()}}}};
    f.feed(QJsonDocument(answer).toJson(QJsonDocument::Compact) + '\n');
    answer.insert(QStringLiteral("id"), first);
    answer.insert(QStringLiteral("result"),
                  QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")}});
    f.feed(QJsonDocument(answer).toJson(QJsonDocument::Compact) + '\n');
    QCOMPARE(replies.size(), 2);
    QVERIFY(replies[0].ok);
    QVERIFY(replies[0].result.toObject().contains(QLatin1String("roots")));
    QVERIFY(replies[1].ok);
    QCOMPARE(replies[1].result.toObject().value(QLatin1String("action")).toString(),
             QStringLiteral("accept"));
    QCOMPARE(f.channel.pendingRequests(), 0);
    QVERIFY(f.received.isEmpty());   // responses never reach the request handler
    QCOMPARE(f.written().size(), 2); // and are never answered

    // A second answer to the same id is dropped.
    f.feed(QJsonDocument(answer).toJson(QJsonDocument::Compact) + '\n');
    QCOMPARE(replies.size(), 2);
}

void TestJsonRpcChannel::serverRequestErrorReply()
{
    Fixture f;
    std::optional<JsonRpcReply> reply;
    const QJsonValue id = f.channel.sendRequest(QStringLiteral("elicitation/create"), QJsonObject(),
                                                [&reply](const JsonRpcReply &r) { reply = r; });
    const QJsonObject answer{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                             {QStringLiteral("id"), id},
                             {QStringLiteral("error"),
                              QJsonObject{{QStringLiteral("code"), -32601},
                                          {QStringLiteral("message"), QStringLiteral("nope")}}}};
    f.feed(QJsonDocument(answer).toJson(QJsonDocument::Compact) + '\n');
    QVERIFY(reply);
    QVERIFY(!reply->ok);
    QCOMPARE(reply->errorCode, -32601);
}

void TestJsonRpcChannel::responsesForUnknownIdsAreDropped()
{
    Fixture f;
    int calls = 0;
    const QJsonValue id = f.channel.sendRequest(QStringLiteral("x"), QJsonObject(),
                                                [&calls](const JsonRpcReply &) { ++calls; });
    const QByteArray before = f.output.data();
    // Same number as a string, another number, a client-side id: none is this request.
    f.feed(QByteArray(R"({"jsonrpc":"2.0","id":")") + QByteArray::number(id.toInteger()) +
           R"(","result":{}})"
           "\n"
           R"({"jsonrpc":"2.0","id":999,"result":{}})"
           "\n");
    QCOMPARE(calls, 0);
    QCOMPARE(f.channel.pendingRequests(), 1);
    QCOMPARE(f.output.data(), before);
    QVERIFY(f.received.isEmpty());
}

void TestJsonRpcChannel::malformedResponsesAreNeverAnswered()
{
    Fixture f;
    int calls = 0;
    const QJsonValue id = f.channel.sendRequest(QStringLiteral("x"), QJsonObject(),
                                                [&calls](const JsonRpcReply &) { ++calls; });
    const QByteArray before = f.output.data();
    f.feed(QByteArray(R"({"jsonrpc":"1.0","id":)") + QByteArray::number(id.toInteger()) +
           R"(,"result":{}})"
           "\n");
    QCOMPARE(f.output.data(), before);
    QCOMPARE(calls, 0);
}

void TestJsonRpcChannel::cancelledServerRequest()
{
    Fixture f;
    std::optional<JsonRpcReply> reply;
    const QJsonValue id = f.channel.sendRequest(QStringLiteral("elicitation/create"), QJsonObject(),
                                                [&reply](const JsonRpcReply &r) { reply = r; });
    QVERIFY(f.channel.cancelRequest(id));
    QVERIFY(reply);
    QVERIFY(!reply->ok);
    QCOMPARE(reply->errorCode, JsonRpcErrorCode::kRequestAbandoned);
    const QJsonObject cancel = f.lastWritten();
    QCOMPARE(cancel.value(QLatin1String("method")).toString(),
             QStringLiteral("notifications/cancelled"));
    QCOMPARE(cancel.value(QLatin1String("params")).toObject().value(QLatin1String("requestId")),
             id);
    QVERIFY(!cancel.contains(QLatin1String("id")));
    // A late answer is dropped; the callback ran exactly once.
    reply.reset();
    f.feed(QByteArray(R"({"jsonrpc":"2.0","id":)") + QByteArray::number(id.toInteger()) +
           R"(,"result":{}})"
           "\n");
    QVERIFY(!reply);
    QVERIFY(!f.channel.cancelRequest(id));
}

void TestJsonRpcChannel::endOfInputFailsPendingServerRequests()
{
    Fixture f;
    QList<JsonRpcReply> replies;
    f.channel.sendRequest(QStringLiteral("a"), QJsonObject(),
                          [&replies](const JsonRpcReply &r) { replies.append(r); });
    f.channel.sendRequest(QStringLiteral("b"), QJsonObject(),
                          [&replies](const JsonRpcReply &r) { replies.append(r); });
    f.channel.finishInput();
    QCOMPARE(replies.size(), 2);
    for (const JsonRpcReply &reply : replies) {
        QVERIFY(!reply.ok);
        QCOMPARE(reply.errorCode, JsonRpcErrorCode::kConnectionClosed);
    }
    QCOMPARE(f.channel.pendingRequests(), 0);
    // After the end, a new request is answered at once, never sent.
    const QByteArray before = f.output.data();
    f.channel.sendRequest(QStringLiteral("c"), QJsonObject(),
                          [&replies](const JsonRpcReply &r) { replies.append(r); });
    QCOMPARE(replies.size(), 3);
    QCOMPARE(f.output.data(), before);
}

void TestJsonRpcChannel::overAPipe()
{
    // A real stream device: a local socket pair; the peer's close is the end of input.
    QLocalServer server;
    const QString name =
        QStringLiteral("veetbot-jsonrpc-test-%1").arg(QCoreApplication::applicationPid());
    QLocalServer::removeServer(name);
    QVERIFY(server.listen(name));
    QLocalSocket client;
    client.connectToServer(name);
    QVERIFY(server.waitForNewConnection(5000));
    QLocalSocket *serverSide = server.nextPendingConnection();
    QVERIFY(client.waitForConnected(5000));

    JsonRpcChannel channel(serverSide);
    channel.setRequestHandler(
        [&channel](const QJsonValue &id, const QString &, const QJsonValue &) {
            channel.sendResult(id, QJsonObject{{QStringLiteral("pong"), true}});
        });
    channel.attachInput(serverSide);
    QSignalSpy ended(&channel, &JsonRpcChannel::inputEnded);

    client.write(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                 "\n");
    QByteArray answer;
    QVERIFY(QTest::qWaitFor(
        [&] {
            answer += client.readAll();
            return answer.endsWith('\n');
        },
        5000));
    QCOMPARE(answer, QByteArray(R"({"id":1,"jsonrpc":"2.0","result":{"pong":true}})"
                                "\n"));
    client.disconnectFromServer();
    QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 5000);
}

QTEST_GUILESS_MAIN(TestJsonRpcChannel)
#include "tst_jsonrpcchannel.moc"
