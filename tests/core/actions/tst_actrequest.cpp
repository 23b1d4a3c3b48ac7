// browser.act 1.7.0's closed argument schema: {kind, expected_revision, ref, postcondition?}
// plus exactly the field of the kind; everything else is the pipeline's invalid-arguments
// failure with its fixed message. And the argument digest: SHA-256 over RFC 8785 JSON.

#include "domain/Sha256.h"
#include "domain/action/ActRequest.h"
#include "domain/observation/ObserveRequest.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QTest>

#include <iterator>
#include <limits>

using namespace veetbot;

namespace {
QJsonObject object(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("test JSON does not parse");
    return document.object();
}

QByteArray withCommon(const QByteArray &kindAndFields)
{
    return "{\"expected_revision\":\"rev-1\",\"ref\":\"e7\"," + kindAndFields + '}';
}

// A string of n code points outside the BMP (2n UTF-16 units).
QString astral(int n)
{
    QString s;
    for (int i = 0; i < n; ++i)
        s += QString::fromUcs4(U"\U0001F600", 1);
    return s;
}
} // namespace

class TestActRequest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void acceptsEachKind_data();
    void acceptsEachKind();
    void acceptsEveryKey();
    void refusesEverythingElse_data();
    void refusesEverythingElse();
    void refusalNeverEchoesInput();
    void factoriesEnforceBounds();
    void textBoundCountsCodePoints();
    void postconditionRoundTrips();
    void digestIsSha256OfCanonicalJson();
    void digestBindsEveryArgument();
};

void TestActRequest::acceptsEachKind_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("kind");
    QTest::newRow("click") << withCommon("\"kind\":\"click\"") << int(ActRequest::Kind::Click);
    QTest::newRow("type") << withCommon("\"kind\":\"type\",\"text\":\"hello\"")
                          << int(ActRequest::Kind::Type);
    QTest::newRow("type, empty text clears")
        << withCommon("\"kind\":\"type\",\"text\":\"\"") << int(ActRequest::Kind::Type);
    QTest::newRow("select") << withCommon("\"kind\":\"select\",\"option\":\"Blue\"")
                            << int(ActRequest::Kind::Select);
    QTest::newRow("select, empty value")
        << withCommon("\"kind\":\"select\",\"option\":\"\"") << int(ActRequest::Kind::Select);
    QTest::newRow("check true") << withCommon("\"kind\":\"check\",\"checked\":true")
                                << int(ActRequest::Kind::Check);
    QTest::newRow("check false") << withCommon("\"kind\":\"check\",\"checked\":false")
                                 << int(ActRequest::Kind::Check);
    QTest::newRow("press") << withCommon("\"kind\":\"press\",\"key\":\"Enter\"")
                           << int(ActRequest::Kind::Press);
    QTest::newRow("scroll 1") << withCommon("\"kind\":\"scroll\",\"delta\":1")
                              << int(ActRequest::Kind::Scroll);
    QTest::newRow("scroll -1") << withCommon("\"kind\":\"scroll\",\"delta\":-1")
                               << int(ActRequest::Kind::Scroll);
    QTest::newRow("scroll 2000") << withCommon("\"kind\":\"scroll\",\"delta\":2000")
                                 << int(ActRequest::Kind::Scroll);
    QTest::newRow("scroll -2000") << withCommon("\"kind\":\"scroll\",\"delta\":-2000")
                                  << int(ActRequest::Kind::Scroll);
    QTest::newRow("scroll 2000.0")
        << withCommon("\"kind\":\"scroll\",\"delta\":2000.0") << int(ActRequest::Kind::Scroll);
    QTest::newRow("click with postcondition")
        << withCommon(
               "\"kind\":\"click\",\"postcondition\":{\"role\":\"status\",\"name\":\"Saved\"}")
        << int(ActRequest::Kind::Click);
    QTest::newRow("128-unit ref and revision")
        << ("{\"kind\":\"click\",\"expected_revision\":\"" + QByteArray(128, 'r') +
            "\",\"ref\":\"" + QByteArray(128, 'e') + "\"}")
        << int(ActRequest::Kind::Click);
}

void TestActRequest::acceptsEachKind()
{
    QFETCH(QByteArray, json);
    QFETCH(int, kind);
    const QJsonObject input = object(json);
    const Result<ActRequest> request = ActRequest::fromJson(input);
    QVERIFY2(request.ok(), json.constData());
    QCOMPARE(int(request->kind()), kind);
    // toJson writes the same fields (a postcondition gains its default timeout_ms) and reads
    // back to the same request.
    const QJsonObject written = request->toJson();
    QCOMPARE(written.keys(), input.keys());
    const Result<ActRequest> again = ActRequest::fromJson(written);
    QVERIFY(again.ok());
    QVERIFY(*again == *request);
    QCOMPARE(again->argumentDigest(), request->argumentDigest());
}

void TestActRequest::acceptsEveryKey()
{
    const QStringList names{"Enter", "Tab",     "Escape",    "Backspace", "Delete",
                            "Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight",
                            "Home",  "End",     "PageUp",    "PageDown"};
    QCOMPARE(int(std::size(kAllActKeys)), names.size());
    for (const QString &name : names) {
        const Result<ActRequest> request = ActRequest::fromJson(QJsonObject{
            {"kind", "press"}, {"expected_revision", "r"}, {"ref", "e"}, {"key", name}});
        QVERIFY2(request.ok(), qPrintable(name));
        QCOMPARE(actKeyString(request->key()), name);
    }
}

void TestActRequest::refusesEverythingElse_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("empty") << QByteArray("{}");
    QTest::newRow("no kind") << withCommon("\"text\":\"x\"");
    QTest::newRow("unknown kind") << withCommon("\"kind\":\"hover\"");
    QTest::newRow("kind wrong case") << withCommon("\"kind\":\"Click\"");
    QTest::newRow("kind null") << withCommon("\"kind\":null");
    QTest::newRow("kind number") << withCommon("\"kind\":1");
    QTest::newRow("unknown field") << withCommon("\"kind\":\"click\",\"force\":true");
    QTest::newRow("selector field") << withCommon("\"kind\":\"click\",\"selector\":\"#buy\"");
    QTest::newRow("no ref") << QByteArray("{\"kind\":\"click\",\"expected_revision\":\"r\"}");
    QTest::newRow("no revision") << QByteArray("{\"kind\":\"click\",\"ref\":\"e\"}");
    QTest::newRow("empty ref") << QByteArray(
        "{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":\"\"}");
    QTest::newRow("empty revision")
        << QByteArray("{\"kind\":\"click\",\"expected_revision\":\"\",\"ref\":\"e\"}");
    QTest::newRow("129-unit ref") << ("{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":\"" +
                                      QByteArray(129, 'e') + "\"}");
    QTest::newRow("129-unit revision")
        << ("{\"kind\":\"click\",\"ref\":\"e\",\"expected_revision\":\"" + QByteArray(129, 'r') +
            "\"}");
    QTest::newRow("ref number") << QByteArray(
        "{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":7}");
    QTest::newRow("ref null") << QByteArray(
        "{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":null}");
    QTest::newRow("unpaired surrogate ref")
        << QByteArray("{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":\"\\ud800\"}");
    // Fields of another kind.
    QTest::newRow("click with text") << withCommon("\"kind\":\"click\",\"text\":\"x\"");
    QTest::newRow("type with key")
        << withCommon("\"kind\":\"type\",\"text\":\"x\",\"key\":\"Enter\"");
    QTest::newRow("select with checked")
        << withCommon("\"kind\":\"select\",\"option\":\"a\",\"checked\":true");
    QTest::newRow("check with delta")
        << withCommon("\"kind\":\"check\",\"checked\":true,\"delta\":5");
    QTest::newRow("press with text")
        << withCommon("\"kind\":\"press\",\"key\":\"Tab\",\"text\":\"x\"");
    QTest::newRow("scroll with option")
        << withCommon("\"kind\":\"scroll\",\"delta\":5,\"option\":\"a\"");
    // Missing own field.
    QTest::newRow("type without text") << withCommon("\"kind\":\"type\"");
    QTest::newRow("select without option") << withCommon("\"kind\":\"select\"");
    QTest::newRow("check without checked") << withCommon("\"kind\":\"check\"");
    QTest::newRow("press without key") << withCommon("\"kind\":\"press\"");
    QTest::newRow("scroll without delta") << withCommon("\"kind\":\"scroll\"");
    // Wrong types.
    QTest::newRow("text number") << withCommon("\"kind\":\"type\",\"text\":5");
    QTest::newRow("text null") << withCommon("\"kind\":\"type\",\"text\":null");
    QTest::newRow("option array") << withCommon("\"kind\":\"select\",\"option\":[\"a\"]");
    QTest::newRow("checked string") << withCommon("\"kind\":\"check\",\"checked\":\"true\"");
    QTest::newRow("checked number") << withCommon("\"kind\":\"check\",\"checked\":1");
    QTest::newRow("delta string") << withCommon("\"kind\":\"scroll\",\"delta\":\"5\"");
    QTest::newRow("delta fraction") << withCommon("\"kind\":\"scroll\",\"delta\":1.5");
    QTest::newRow("key number") << withCommon("\"kind\":\"press\",\"key\":13");
    // Unknown keys and modifiers.
    QTest::newRow("key lower case") << withCommon("\"kind\":\"press\",\"key\":\"enter\"");
    QTest::newRow("key with modifier") << withCommon("\"kind\":\"press\",\"key\":\"Control+a\"");
    QTest::newRow("key letter") << withCommon("\"kind\":\"press\",\"key\":\"a\"");
    QTest::newRow("key F5") << withCommon("\"kind\":\"press\",\"key\":\"F5\"");
    // Scroll bounds.
    QTest::newRow("scroll 0") << withCommon("\"kind\":\"scroll\",\"delta\":0");
    QTest::newRow("scroll -0") << withCommon("\"kind\":\"scroll\",\"delta\":-0");
    QTest::newRow("scroll 2001") << withCommon("\"kind\":\"scroll\",\"delta\":2001");
    QTest::newRow("scroll -2001") << withCommon("\"kind\":\"scroll\",\"delta\":-2001");
    QTest::newRow("scroll 1e9") << withCommon("\"kind\":\"scroll\",\"delta\":1e9");
    // Text bounds.
    QTest::newRow("text 4097 code points")
        << withCommon("\"kind\":\"type\",\"text\":\"" + QByteArray(4097, 'a') + '"');
    QTest::newRow("text unpaired surrogate")
        << withCommon("\"kind\":\"type\",\"text\":\"a\\udc00b\"");
    QTest::newRow("option 1025 units")
        << withCommon("\"kind\":\"select\",\"option\":\"" + QByteArray(1025, 'o') + '"');
    // Postcondition.
    QTest::newRow("postcondition not object")
        << withCommon("\"kind\":\"click\",\"postcondition\":\"Saved\"");
    QTest::newRow("postcondition null") << withCommon("\"kind\":\"click\",\"postcondition\":null");
    QTest::newRow("postcondition unknown field")
        << withCommon("\"kind\":\"click\",\"postcondition\":{\"role\":\"status\",\"name\":\"S\","
                      "\"selector\":\"#s\"}");
    QTest::newRow("postcondition timeout too long")
        << withCommon("\"kind\":\"click\",\"postcondition\":{\"role\":\"status\",\"name\":\"S\","
                      "\"timeout_ms\":5001}");
    QTest::newRow("postcondition unpaired surrogate") << withCommon(
        "\"kind\":\"click\",\"postcondition\":{\"role\":\"status\",\"name\":\"\\ud800\"}");
}

void TestActRequest::refusesEverythingElse()
{
    QFETCH(QByteArray, json);
    const Result<ActRequest> request = ActRequest::fromJson(object(json));
    QVERIFY2(!request.ok(), json.constData());
    QCOMPARE(request.error().code, QStringLiteral("tool.invalid_arguments"));
    QCOMPARE(request.error().message, QString(ToolArguments::kInvalidArgumentsMessage));
    QCOMPARE(request.error(), ToolArguments::invalidArguments());
}

void TestActRequest::refusalNeverEchoesInput()
{
    const QString canary = QStringLiteral("CANARY-secret-7f3a");
    const Result<ActRequest> request = ActRequest::fromJson(QJsonObject{{"kind", "type"},
                                                                        {"expected_revision", "r"},
                                                                        {"ref", "e"},
                                                                        {"text", canary},
                                                                        {"extra", canary}});
    QVERIFY(!request.ok());
    QVERIFY(!request.error().code.contains(canary));
    QVERIFY(!request.error().message.contains(canary));
}

void TestActRequest::factoriesEnforceBounds()
{
    QVERIFY(ActRequest::click(QStringLiteral("r"), QStringLiteral("e")).ok());
    QVERIFY(!ActRequest::click(QString(), QStringLiteral("e")).ok());
    QVERIFY(!ActRequest::click(QStringLiteral("r"), QString(129, u'e')).ok());
    QVERIFY(ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"), -2000).ok());
    QVERIFY(!ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"), 0).ok());
    QVERIFY(!ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"), 2001).ok());
    QVERIFY(!ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"),
                                std::numeric_limits<int>::min())
                 .ok());
    QVERIFY(
        !ActRequest::select(QStringLiteral("r"), QStringLiteral("e"), QString(1025, u'o')).ok());
    QCOMPARE(ActRequest::check(QStringLiteral("r"), QStringLiteral("e"), true)->checked(), true);
    QCOMPARE(ActRequest::press(QStringLiteral("r"), QStringLiteral("e"), ActRequest::Key::PageDown)
                 ->toJson()
                 .value(QLatin1String("key"))
                 .toString(),
             QStringLiteral("PageDown"));
    VisiblePredicate bad;
    bad.role = QString();
    bad.name = QStringLiteral("x");
    QVERIFY(
        !ActRequest::click(QStringLiteral("r"), QStringLiteral("e"))->withPostcondition(bad).ok());
}

void TestActRequest::textBoundCountsCodePoints()
{
    // 4,096 code points outside the BMP are 8,192 UTF-16 units: accepted.
    QVERIFY(ActRequest::type(QStringLiteral("r"), QStringLiteral("e"), astral(4096)).ok());
    QVERIFY(ActRequest::fromJson(QJsonObject{{"kind", "type"},
                                             {"expected_revision", "r"},
                                             {"ref", "e"},
                                             {"text", astral(4096)}})
                .ok());
    QVERIFY(!ActRequest::type(QStringLiteral("r"), QStringLiteral("e"), astral(4097)).ok());
    QVERIFY(!ActRequest::fromJson(QJsonObject{{"kind", "type"},
                                              {"expected_revision", "r"},
                                              {"ref", "e"},
                                              {"text", astral(4097)}})
                 .ok());
    QVERIFY(ActRequest::type(QStringLiteral("r"), QStringLiteral("e"), QString(4096, u'a')).ok());
    QVERIFY(!ActRequest::type(QStringLiteral("r"), QStringLiteral("e"), QString(4097, u'a')).ok());
}

void TestActRequest::postconditionRoundTrips()
{
    const Result<ActRequest> request = ActRequest::fromJson(object(
        withCommon("\"kind\":\"check\",\"checked\":true,\"postcondition\":{\"role\":\"checkbox\","
                   "\"name\":\"Remember me\",\"checked\":true,\"timeout_ms\":0}")));
    QVERIFY(request.ok());
    QVERIFY(request->postcondition().has_value());
    QCOMPARE(request->postcondition()->name, QStringLiteral("Remember me"));
    QCOMPARE(request->postcondition()->timeoutMs, 0);
    QCOMPARE(request->postcondition()->checked, std::optional<bool>(true));
    QVERIFY(*ActRequest::fromJson(request->toJson()) == *request);
}

void TestActRequest::digestIsSha256OfCanonicalJson()
{
    const Result<ActRequest> request = ActRequest::fromJson(
        object("{\"ref\":\"e1\",\"kind\":\"scroll\",\"delta\":-40,\"expected_revision\":\"r1\"}"));
    QVERIFY(request.ok());
    // RFC 8785: members sorted by name, no white space.
    const QByteArray canonical =
        "{\"delta\":-40,\"expected_revision\":\"r1\",\"kind\":\"scroll\",\"ref\":\"e1\"}";
    QCOMPARE(request->argumentDigest(),
             QCryptographicHash::hash(canonical, QCryptographicHash::Sha256));
    QCOMPARE(request->argumentDigest().size(), 32);
    // The underlying digest against the FIPS 180-2 vector for "abc".
    QCOMPARE(Sha256::hex("abc"),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const Result<ActRequest> typed = ActRequest::type(QStringLiteral("r1"), QStringLiteral("e1"),
                                                      QStringLiteral("h\u00e9llo \U0001F600"));
    QCOMPARE(typed->argumentDigest(),
             QCryptographicHash::hash(
                 QStringLiteral("{\"expected_revision\":\"r1\",\"kind\":\"type\",\"ref\":\"e1\","
                                "\"text\":\"h\u00e9llo \U0001F600\"}")
                     .toUtf8(),
                 QCryptographicHash::Sha256));
}

void TestActRequest::digestBindsEveryArgument()
{
    const QByteArray base =
        ActRequest::type(QStringLiteral("r1"), QStringLiteral("e1"), QStringLiteral("abc"))
            ->argumentDigest();
    QCOMPARE(ActRequest::type(QStringLiteral("r1"), QStringLiteral("e1"), QStringLiteral("abc"))
                 ->argumentDigest(),
             base);
    QVERIFY(ActRequest::type(QStringLiteral("r1"), QStringLiteral("e1"), QStringLiteral("abd"))
                ->argumentDigest() != base);
    QVERIFY(ActRequest::type(QStringLiteral("r2"), QStringLiteral("e1"), QStringLiteral("abc"))
                ->argumentDigest() != base);
    QVERIFY(ActRequest::type(QStringLiteral("r1"), QStringLiteral("e2"), QStringLiteral("abc"))
                ->argumentDigest() != base);
    QVERIFY(ActRequest::select(QStringLiteral("r1"), QStringLiteral("e1"), QStringLiteral("abc"))
                ->argumentDigest() != base);
    VisiblePredicate predicate;
    predicate.role = QStringLiteral("status");
    predicate.name = QStringLiteral("Saved");
    QVERIFY(ActRequest::type(QStringLiteral("r1"), QStringLiteral("e1"), QStringLiteral("abc"))
                ->withPostcondition(predicate)
                ->argumentDigest() != base);
    QVERIFY(ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"), 5)->argumentDigest() !=
            ActRequest::scroll(QStringLiteral("r"), QStringLiteral("e"), -5)->argumentDigest());
}

QTEST_GUILESS_MAIN(TestActRequest)
#include "tst_actrequest.moc"
