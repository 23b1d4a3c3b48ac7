// browser.observe's closed argument schema: exactly one of {}, {after}, {cursor}; everything
// else is the pipeline's invalid-arguments failure with its fixed message, before any browser
// work. Also the host protocol's observe line, which carries the same request.

#include "domain/ObserveRequest.h"
#include "isolation/HostProtocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace veetbot;

namespace {
QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}
} // namespace

class TestObserveRequest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void acceptsEachMode_data();
    void acceptsEachMode();
    void refusesEverythingElse_data();
    void refusesEverythingElse();
    void factoriesEnforceBounds();
    void roundTripsThroughJson();
    void hostProtocolCarriesTheMode();
    void hostProtocolRefusesMalformedModes_data();
    void hostProtocolRefusesMalformedModes();
};

void TestObserveRequest::acceptsEachMode_data()
{
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("value");
    QTest::newRow("first") << QJsonObject() << int(ObserveRequest::Mode::First) << QString();
    QTest::newRow("after, 1 unit") << QJsonObject{{QStringLiteral("after"), QStringLiteral("r")}}
                                   << int(ObserveRequest::Mode::After) << QStringLiteral("r");
    QTest::newRow("after, 128 units") << QJsonObject{{QStringLiteral("after"), QString(128, u'a')}}
                                      << int(ObserveRequest::Mode::After) << QString(128, u'a');
    QTest::newRow("cursor, 32 units") << QJsonObject{{QStringLiteral("cursor"), QString(32, u'c')}}
                                      << int(ObserveRequest::Mode::Cursor) << QString(32, u'c');
    QTest::newRow("cursor, 128 units")
        << QJsonObject{{QStringLiteral("cursor"), QString(128, u'c')}}
        << int(ObserveRequest::Mode::Cursor) << QString(128, u'c');
}

void TestObserveRequest::acceptsEachMode()
{
    QFETCH(QJsonObject, json);
    QFETCH(int, mode);
    QFETCH(QString, value);
    const Result<ObserveRequest> request = ObserveRequest::fromJson(json);
    QVERIFY(request.ok());
    QCOMPARE(int(request->mode()), mode);
    QCOMPARE(request->value(), value);
    QCOMPARE(request->isFirst(), mode == int(ObserveRequest::Mode::First));
}

void TestObserveRequest::refusesEverythingElse_data()
{
    QTest::addColumn<QJsonObject>("json");
    const QString cursor(40, u'c');
    QTest::newRow("two modes") << QJsonObject{{QStringLiteral("after"), QStringLiteral("r.1")},
                                              {QStringLiteral("cursor"), cursor}};
    QTest::newRow("unknown field") << object(R"({"offset":3})");
    QTest::newRow("mode and unknown field")
        << QJsonObject{{QStringLiteral("cursor"), cursor}, {QStringLiteral("profile"), 1}};
    QTest::newRow("later mode: wait_for") << object(R"({"wait_for":{"role":"button"}})");
    QTest::newRow("later mode: region_ref") << object(R"({"region_ref":"g.1"})");
    QTest::newRow("selector") << object(R"({"selector":"#buy"})");
    QTest::newRow("after null") << object(R"({"after":null})");
    QTest::newRow("after number") << object(R"({"after":7})");
    QTest::newRow("after array") << object(R"({"after":["r.1"]})");
    QTest::newRow("after object") << object(R"({"after":{"ref":"r.1"}})");
    QTest::newRow("after bool") << object(R"({"after":true})");
    QTest::newRow("after empty") << object(R"({"after":""})");
    QTest::newRow("after 129 units") << QJsonObject{{QStringLiteral("after"), QString(129, u'a')}};
    QTest::newRow("cursor null") << object(R"({"cursor":null})");
    QTest::newRow("cursor number") << object(R"({"cursor":123456789012345678901234567890123})");
    QTest::newRow("cursor 31 units") << QJsonObject{{QStringLiteral("cursor"), QString(31, u'c')}};
    QTest::newRow("cursor 129 units")
        << QJsonObject{{QStringLiteral("cursor"), QString(129, u'c')}};
    QTest::newRow("upper-case key") << QJsonObject{{QStringLiteral("After"), QStringLiteral("r")}};
}

void TestObserveRequest::refusesEverythingElse()
{
    QFETCH(QJsonObject, json);
    const Result<ObserveRequest> request = ObserveRequest::fromJson(json);
    QVERIFY(!request.ok());
    QCOMPARE(request.error().code, QStringLiteral("tool.invalid_arguments"));
    QCOMPARE(request.error().code, QString(ToolArguments::kInvalidArgumentsCode));
    QCOMPARE(request.error().message, QString(ToolArguments::kInvalidArgumentsMessage));
    QCOMPARE(request.error(), ToolArguments::invalidArguments());
    // Outside the browser family: no ReasonCode maps to it.
    QVERIFY(!request.error().reason().has_value());
    // The fixed message never echoes the input.
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        QVERIFY(!request.error().message.contains(it.key()));
        if (it.value().isString() && it.value().toString().size() >= 3)
            QVERIFY(!request.error().message.contains(it.value().toString()));
    }
}

void TestObserveRequest::factoriesEnforceBounds()
{
    QVERIFY(ObserveRequest().isFirst());
    QVERIFY(ObserveRequest::after(QStringLiteral("x")).ok());
    QVERIFY(!ObserveRequest::after(QString()).ok());
    QVERIFY(!ObserveRequest::after(QString(129, u'x')).ok());
    QVERIFY(ObserveRequest::cursor(QString(32, u'x')).ok());
    QVERIFY(!ObserveRequest::cursor(QString(31, u'x')).ok());
    QVERIFY(!ObserveRequest::cursor(QString(129, u'x')).ok());
    QCOMPARE(ObserveRequest::cursor(QString(5, u'x')).error().code,
             QStringLiteral("tool.invalid_arguments"));
}

void TestObserveRequest::roundTripsThroughJson()
{
    const QList<ObserveRequest> requests = {
        ObserveRequest(),
        ObserveRequest::after(QStringLiteral("Xx0-_a.17")).value(),
        ObserveRequest::cursor(QString(43, u'Q')).value(),
    };
    for (const ObserveRequest &request : requests) {
        const Result<ObserveRequest> parsed = ObserveRequest::fromJson(request.toJson());
        QVERIFY(parsed.ok());
        QCOMPARE(parsed.value(), request);
    }
    QCOMPARE(ObserveRequest().toJson(), QJsonObject());
    QCOMPARE(ObserveRequest::after(QStringLiteral("r.2")).value().toJson(),
             object(R"({"after":"r.2"})"));
}

void TestObserveRequest::hostProtocolCarriesTheMode()
{
    const QList<ObserveRequest> requests = {
        ObserveRequest(),
        ObserveRequest::after(QStringLiteral("ab.3")).value(),
        ObserveRequest::cursor(QString(32, u'k')).value(),
    };
    quint64 id = 1;
    for (const ObserveRequest &observe : requests) {
        const QByteArray line = HostProtocol::encodeRequest(
            HostProtocol::Request{id, QStringLiteral("observe"), QString(), observe});
        QVERIFY(line.endsWith('\n'));
        const auto decoded = HostProtocol::decodeRequest(line.trimmed());
        QVERIFY(decoded.has_value());
        QCOMPARE(decoded->id, id);
        QCOMPARE(decoded->op, QStringLiteral("observe"));
        QCOMPARE(decoded->observe, observe);
        ++id;
    }
    const auto first = HostProtocol::decodeRequest(R"({"id":4,"op":"observe","mode":{}})");
    QVERIFY(first.has_value());
    QVERIFY(first->observe.isFirst());
}

void TestObserveRequest::hostProtocolRefusesMalformedModes_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("no mode") << QByteArray(R"({"id":1,"op":"observe"})");
    QTest::newRow("mode null") << QByteArray(R"({"id":1,"op":"observe","mode":null})");
    QTest::newRow("mode string") << QByteArray(R"({"id":1,"op":"observe","mode":"after"})");
    QTest::newRow("two modes") << QByteArray(R"({"id":1,"op":"observe","mode":{"after":"r.1",)"
                                             R"("cursor":"cccccccccccccccccccccccccccccccc"}})");
    QTest::newRow("short cursor") << QByteArray(
        R"({"id":1,"op":"observe","mode":{"cursor":"abc"}})");
    QTest::newRow("empty after") << QByteArray(R"({"id":1,"op":"observe","mode":{"after":""}})");
    QTest::newRow("unknown mode field")
        << QByteArray(R"({"id":1,"op":"observe","mode":{"offset":9}})");
    QTest::newRow("extra field") << QByteArray(R"({"id":1,"op":"observe","mode":{},"js":"x"})");
    QTest::newRow("mode on navigate") << QByteArray(R"({"id":1,"op":"navigate","mode":{}})");
}

void TestObserveRequest::hostProtocolRefusesMalformedModes()
{
    QFETCH(QByteArray, line);
    QVERIFY(!HostProtocol::decodeRequest(line).has_value());
}

QTEST_GUILESS_MAIN(TestObserveRequest)
#include "tst_observerequest.moc"
