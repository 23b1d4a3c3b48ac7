// browser.observe's closed argument schema: exactly one of {}, {after}, {cursor}, {wait_for},
// {extract}, {region_ref, expected_revision, text_offset?}; everything else is the pipeline's
// invalid-arguments failure with its fixed message, before any browser work. Also the host
// protocol's observe line, which carries the same request.

#include "domain/observation/ObserveRequest.h"
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
    void acceptsTheStructuredModes();
    void refusesMalformedStructuredModes_data();
    void refusesMalformedStructuredModes();
    void hostProtocolCarriesTheMode();
    void hostProtocolRefusesMalformedModes_data();
    void hostProtocolRefusesMalformedModes();
    void hostProtocolCarriesVerificationWaits();
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
    QTest::newRow("wait_for without name") << object(R"({"wait_for":{"role":"button"}})");
    QTest::newRow("region_ref without revision") << object(R"({"region_ref":"g.1"})");
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

void TestObserveRequest::acceptsTheStructuredModes()
{
    auto wait = ObserveRequest::fromJson(object(R"({"wait_for":{"role":"button","name":"Pay"}})"));
    QVERIFY(wait.ok());
    QCOMPARE(wait->mode(), ObserveRequest::Mode::WaitFor);
    QCOMPARE(wait->waitForPredicate().role, QStringLiteral("button"));
    QCOMPARE(wait->waitForPredicate().name, QStringLiteral("Pay"));
    QCOMPARE(wait->waitForPredicate().timeoutMs, 2000); // the default
    QVERIFY(!wait->waitForPredicate().disabled && !wait->waitForPredicate().checked);
    wait = ObserveRequest::fromJson(object(
        R"({"wait_for":{"role":"checkbox","name":"","disabled":false,"checked":true,"timeout_ms":0}})"));
    QVERIFY(wait.ok());
    QCOMPARE(wait->waitForPredicate().timeoutMs, 0);
    QCOMPARE(wait->waitForPredicate().checked, std::optional<bool>(true));
    QCOMPARE(wait->waitForPredicate().disabled, std::optional<bool>(false));
    QVERIFY(ObserveRequest::fromJson(
                QJsonObject{{QStringLiteral("wait_for"),
                             QJsonObject{{QStringLiteral("role"), QString(64, u'r')},
                                         {QStringLiteral("name"), QString(1024, u'n')},
                                         {QStringLiteral("timeout_ms"), 5000}}}})
                .ok());

    const auto extract = ObserveRequest::fromJson(object(
        R"({"extract":{"revision":"rev","kind":"table","index":15,"limit":50,"columns":[)"
        R"({"name":"a","type":"string"},{"name":"b","type":"integer","required":true},)"
        R"({"name":"c","type":"number"},{"name":"d","type":"boolean","required":false}]}})"));
    QVERIFY(extract.ok());
    QCOMPARE(extract->mode(), ObserveRequest::Mode::Extract);
    QCOMPARE(extract->extractRequest().kind, ExtractRequest::Kind::Table);
    QCOMPARE(extract->extractRequest().index, 15);
    QCOMPARE(extract->extractRequest().limit, 50);
    QCOMPARE(extract->extractRequest().columns.size(), 4);
    QCOMPARE(extract->extractRequest().columns.at(1).type, ExtractColumn::Type::Integer);
    QVERIFY(extract->extractRequest().columns.at(1).required);

    const auto focus = ObserveRequest::fromJson(
        object(R"({"region_ref":"p.g2","expected_revision":"rev","text_offset":262144})"));
    QVERIFY(focus.ok());
    QCOMPARE(focus->mode(), ObserveRequest::Mode::Focus);
    QCOMPARE(focus->focusRequest().regionRef, QStringLiteral("p.g2"));
    QCOMPARE(focus->focusRequest().expectedRevision, QStringLiteral("rev"));
    QCOMPARE(focus->focusRequest().textOffset, 262144);
    const auto noOffset =
        ObserveRequest::fromJson(object(R"({"region_ref":"p.g2","expected_revision":"rev"})"));
    QVERIFY(noOffset.ok());
    QCOMPARE(noOffset->focusRequest().textOffset, 0);

    for (const auto &request : {wait, extract, focus, noOffset}) {
        const auto again = ObserveRequest::fromJson(request->toJson());
        QVERIFY(again.ok());
        QCOMPARE(again.value(), request.value());
    }
}

void TestObserveRequest::refusesMalformedStructuredModes_data()
{
    QTest::addColumn<QByteArray>("json");
    const QByteArray columns = R"("columns":[{"name":"a","type":"string"}])";
    const auto extract = [](const QByteArray &fields) -> QByteArray {
        return QByteArray(R"({"extract":{)") + fields + "}}";
    };
    const QByteArray valid = R"("revision":"rev","kind":"list","index":0,"limit":1,)" + columns;
    QTest::newRow("wait_for null") << QByteArray(R"({"wait_for":null})");
    QTest::newRow("wait_for array") << QByteArray(R"({"wait_for":[]})");
    QTest::newRow("wait_for empty role") << QByteArray(R"({"wait_for":{"role":"","name":"x"}})");
    QTest::newRow("wait_for long role")
        << QByteArray(R"({"wait_for":{"role":")") + QByteArray(65, 'r') + R"(","name":"x"}})";
    QTest::newRow("wait_for long name")
        << QByteArray(R"({"wait_for":{"role":"b","name":")") + QByteArray(1025, 'n') + R"("}})";
    QTest::newRow("wait_for timeout 5001")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","timeout_ms":5001}})");
    QTest::newRow("wait_for timeout -1")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","timeout_ms":-1}})");
    QTest::newRow("wait_for timeout fraction")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","timeout_ms":1.5}})");
    QTest::newRow("wait_for timeout string")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","timeout_ms":"2000"}})");
    QTest::newRow("wait_for disabled string")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","disabled":"true"}})");
    QTest::newRow("wait_for checked mixed")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","checked":"mixed"}})");
    QTest::newRow("wait_for checked null")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","checked":null}})");
    QTest::newRow("wait_for selector")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x","selector":"#a"}})");
    QTest::newRow("wait_for and after")
        << QByteArray(R"({"wait_for":{"role":"b","name":"x"},"after":"r.1"})");
    QTest::newRow("extract valid plus unknown") << extract(valid + R"(,"where":"x")");
    QTest::newRow("extract without revision")
        << extract(R"("kind":"list","index":0,"limit":1,)" + columns);
    QTest::newRow("extract empty revision")
        << extract(R"("revision":"","kind":"list","index":0,"limit":1,)" + columns);
    QTest::newRow("extract kind grid")
        << extract(R"("revision":"r","kind":"grid","index":0,"limit":1,)" + columns);
    QTest::newRow("extract index 16")
        << extract(R"("revision":"r","kind":"table","index":16,"limit":1,)" + columns);
    QTest::newRow("extract limit 0")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":0,)" + columns);
    QTest::newRow("extract limit 51")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":51,)" + columns);
    QTest::newRow("extract no columns")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[])");
    QByteArray nine = R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[)";
    for (int i = 0; i < 9; ++i)
        nine += (i ? "," : "") + QByteArray(R"({"name":"c)") + QByteArray::number(i) +
                R"(","type":"string"})";
    QTest::newRow("extract nine columns") << extract(nine + "]");
    QTest::newRow("extract duplicate column")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[)"
                   R"({"name":"a","type":"string"},{"name":"a","type":"number"}])");
    QTest::newRow("extract column type date")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[)"
                   R"({"name":"a","type":"date"}])");
    QTest::newRow("extract column required string")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[)"
                   R"({"name":"a","type":"string","required":"yes"}])");
    QTest::newRow("extract column selector")
        << extract(R"("revision":"r","kind":"table","index":0,"limit":1,"columns":[)"
                   R"({"name":"a","type":"string","selector":"td"}])");
    QTest::newRow("extract and cursor") << QByteArray(
        R"({"extract":{)" + valid + R"(},"cursor":"cccccccccccccccccccccccccccccccc"})");
    QTest::newRow("focus without ref") << QByteArray(R"({"expected_revision":"r"})");
    QTest::newRow("focus empty ref") << QByteArray(R"({"region_ref":"","expected_revision":"r"})");
    QTest::newRow("focus offset -1")
        << QByteArray(R"({"region_ref":"g","expected_revision":"r","text_offset":-1})");
    QTest::newRow("focus offset too large")
        << QByteArray(R"({"region_ref":"g","expected_revision":"r","text_offset":262145})");
    QTest::newRow("focus offset fraction")
        << QByteArray(R"({"region_ref":"g","expected_revision":"r","text_offset":2.5})");
    QTest::newRow("focus and after")
        << QByteArray(R"({"region_ref":"g","expected_revision":"r","after":"r.1"})");
    QTest::newRow("focus revision number")
        << QByteArray(R"({"region_ref":"g","expected_revision":7})");
}

void TestObserveRequest::refusesMalformedStructuredModes()
{
    QFETCH(QByteArray, json);
    const QJsonDocument document = QJsonDocument::fromJson(json);
    QVERIFY2(document.isObject(), json.constData());
    const Result<ObserveRequest> request = ObserveRequest::fromJson(document.object());
    QVERIFY(!request.ok());
    QCOMPARE(request.error(), ToolArguments::invalidArguments());
}

void TestObserveRequest::hostProtocolCarriesTheMode()
{
    const QList<ObserveRequest> requests = {
        ObserveRequest(),
        ObserveRequest::after(QStringLiteral("ab.3")).value(),
        ObserveRequest::cursor(QString(32, u'k')).value(),
        ObserveRequest::focus(QStringLiteral("ab.g1"), QStringLiteral("rev"), 10).value(),
        ObserveRequest::fromJson(object(R"({"wait_for":{"role":"b","name":"x"}})")).value(),
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
    // Device verification's navigate and network wait.
    QTest::newRow("navigate until unknown")
        << QByteArray(R"({"id":1,"op":"navigate","url":"https://a.test/","until":"load"})");
    QTest::newRow("navigate until not a string")
        << QByteArray(R"({"id":1,"op":"navigate","url":"https://a.test/","until":true})");
    QTest::newRow("idle without quiet") << QByteArray(R"({"id":1,"op":"idle","bound_ms":5000})");
    QTest::newRow("idle bound zero")
        << QByteArray(R"({"id":1,"op":"idle","bound_ms":0,"quiet_ms":500})");
    QTest::newRow("idle bound over a minute")
        << QByteArray(R"({"id":1,"op":"idle","bound_ms":60001,"quiet_ms":500})");
    QTest::newRow("idle quiet over ten seconds")
        << QByteArray(R"({"id":1,"op":"idle","bound_ms":5000,"quiet_ms":10001})");
    QTest::newRow("idle fraction")
        << QByteArray(R"({"id":1,"op":"idle","bound_ms":5000.5,"quiet_ms":500})");
    QTest::newRow("idle extra field")
        << QByteArray(R"({"id":1,"op":"idle","bound_ms":5000,"quiet_ms":500,"x":1})");
}

void TestObserveRequest::hostProtocolCarriesVerificationWaits()
{
    HostProtocol::Request navigate{7, QStringLiteral("navigate"),
                                   QStringLiteral("https://a.test/")};
    navigate.until = NavigateRequest::Until::ContentLoaded;
    auto decoded = HostProtocol::decodeRequest(HostProtocol::encodeRequest(navigate).trimmed());
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->until, NavigateRequest::Until::ContentLoaded);
    // The agent's navigate does not name it, and means the settled load.
    navigate.until = NavigateRequest::Until::Settled;
    const QByteArray settled = HostProtocol::encodeRequest(navigate);
    QVERIFY(!settled.contains("until"));
    decoded = HostProtocol::decodeRequest(settled.trimmed());
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->until, NavigateRequest::Until::Settled);

    HostProtocol::Request idle{8, QStringLiteral("idle")};
    idle.idle = {12000, 700};
    decoded = HostProtocol::decodeRequest(HostProtocol::encodeRequest(idle).trimmed());
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->op, QStringLiteral("idle"));
    QCOMPARE(decoded->idle.boundMs, 12000);
    QCOMPARE(decoded->idle.quietMs, 700);

    // An act under a dispatch constraint carries it; a malformed one is refused.
    HostProtocol::Request act{9, QStringLiteral("act")};
    act.act = ActRequest::click(QStringLiteral("rev"), QStringLiteral("ab.1")).value();
    act.constraint =
        DispatchConstraint{DispatchConstraint::Authority::TaskGrant, QStringLiteral("lesson")};
    decoded = HostProtocol::decodeRequest(HostProtocol::encodeRequest(act).trimmed());
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->constraint, act.constraint);
    act.constraint.reset();
    decoded = HostProtocol::decodeRequest(HostProtocol::encodeRequest(act).trimmed());
    QVERIFY(decoded.has_value() && !decoded->constraint);
    QVERIFY(!HostProtocol::decodeRequest(
        R"({"id":9,"op":"act","act":{"kind":"click","expected_revision":"rev","ref":"ab.1"},)"
        R"("constraint":{"authority":"anything"}})"));

    // The host's answer: idle or not, and nothing else.
    for (const bool value : {true, false}) {
        const auto answer =
            HostProtocol::decodeResponse(HostProtocol::encodeIdle(8, value).trimmed(), {});
        QVERIFY(answer.has_value());
        QCOMPARE(answer->id, quint64(8));
        QCOMPARE(answer->idle, std::optional<bool>(value));
    }
    QVERIFY(!HostProtocol::decodeResponse(R"({"id":8,"idle":1})", {}).has_value());
    QVERIFY(!HostProtocol::decodeResponse(R"({"id":8,"idle":true,"page":{}})", {}).has_value());
    QVERIFY(!HostProtocol::decodeResponse(R"({"id":8,"idle":true,"x":1})", {}).has_value());
}

void TestObserveRequest::hostProtocolRefusesMalformedModes()
{
    QFETCH(QByteArray, line);
    QVERIFY(!HostProtocol::decodeRequest(line).has_value());
}

QTEST_GUILESS_MAIN(TestObserveRequest)
#include "tst_observerequest.moc"
