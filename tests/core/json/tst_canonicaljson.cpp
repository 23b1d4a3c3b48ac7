#include "json/CanonicalJson.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

// RFC 8785 canonical serialization: the examples of the RFC, integer-only numbers, and the
// refusals that keep the AAD unambiguous.
class CanonicalJsonTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rfc8785PropertySorting();
    void rfc8785StringEscaping();
    void rfc8785MainExampleWithoutFloats();
    void rfc8785FloatsRefused();
    void controlCharacters();
    void sortsByUtf16CodeUnits();
    void integers_data();
    void integers();
    void nestedAndCompact();
    void loneSurrogateRefused();
    void fixedPoint_data();
    void fixedPoint();
    void metadataShape();
};

namespace {
QByteArray canonical(const QByteArray &json)
{
    const std::optional<QJsonValue> value = StrictJson::parse(json);
    if (!value)
        return QByteArrayLiteral("<parse failed>");
    const std::optional<QByteArray> out = CanonicalJson::serialize(*value);
    return out ? *out : QByteArrayLiteral("<serialize failed>");
}
} // namespace

void CanonicalJsonTest::rfc8785PropertySorting()
{
    // RFC 8785 section 3.2.3.
    const QByteArray input = R"({
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis"
    })";
    const QByteArray expected = "{\"\\r\":\"Carriage Return\",\"1\":\"One\","
                                "\"\xC2\x80\":\"Control\","
                                "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\","
                                "\"\xE2\x82\xAC\":\"Euro Sign\","
                                "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
                                "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}";
    QCOMPARE(canonical(input), expected);
}

void CanonicalJsonTest::rfc8785StringEscaping()
{
    // RFC 8785 section 3.2.2.2.
    const QByteArray input = R"("\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/")";
    const QByteArray expected = "\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"";
    QCOMPARE(canonical(input), expected);
}

void CanonicalJsonTest::rfc8785MainExampleWithoutFloats()
{
    // RFC 8785 section 3.2.2's example without its "numbers" member (floats are refused).
    const QByteArray input = R"({
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
    })";
    const QByteArray expected = "{\"literals\":[null,true,false],\"string\":\"\xE2\x82\xAC$"
                                "\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
    QCOMPARE(canonical(input), expected);
}

void CanonicalJsonTest::rfc8785FloatsRefused()
{
    for (double number : {333333333.33333329, 1e30, 4.5, 2e-3, 1e-27}) {
        QJsonObject object;
        object.insert(QStringLiteral("n"), number);
        QVERIFY(!CanonicalJson::serialize(object).has_value());
    }
    // Integral doubles are integers.
    QJsonObject object;
    object.insert(QStringLiteral("n"), 4.0);
    QCOMPARE(*CanonicalJson::serialize(object), QByteArray(R"({"n":4})"));
}

void CanonicalJsonTest::controlCharacters()
{
    QString text;
    for (char16_t c = 0; c < 0x20; ++c)
        text.append(QChar(c));
    text.append(QChar(0x7F));
    text.append(QStringLiteral("/<>&'"));
    const QByteArray expected =
        "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e"
        "\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a"
        "\\u001b\\u001c\\u001d\\u001e\\u001f\x7f/<>&'\"";
    QCOMPARE(*CanonicalJson::serialize(QJsonValue(text)), expected);
}

void CanonicalJsonTest::sortsByUtf16CodeUnits()
{
    // U+10000 is D800 DC00 in UTF-16: before U+FFFD by code units, after it by code points.
    const QString astral = QString::fromUtf8("\xF0\x90\x80\x80");
    const QString replacement = QString(QChar(0xFFFD));
    QVERIFY(CanonicalJson::lessByUtf16(astral, replacement));
    QVERIFY(!CanonicalJson::lessByUtf16(replacement, astral));
    QVERIFY(CanonicalJson::lessByUtf16(QStringLiteral("a"), QStringLiteral("ab")));
    QVERIFY(CanonicalJson::lessByUtf16(QStringLiteral("B"), QStringLiteral("a")));
    QVERIFY(!CanonicalJson::lessByUtf16(QStringLiteral("a"), QStringLiteral("a")));

    QJsonObject object;
    object.insert(replacement, 1);
    object.insert(astral, 2);
    object.insert(QStringLiteral("z"), 3);
    QCOMPARE(*CanonicalJson::serialize(object),
             QByteArray("{\"z\":3,\"\xF0\x90\x80\x80\":2,\"\xEF\xBF\xBD\":1}"));
}

void CanonicalJsonTest::integers_data()
{
    QTest::addColumn<qint64>("value");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("zero") << qint64(0) << QByteArray("0");
    QTest::newRow("one") << qint64(1) << QByteArray("1");
    QTest::newRow("negative") << qint64(-17) << QByteArray("-17");
    QTest::newRow("max safe") << qint64(9007199254740991) << QByteArray("9007199254740991");
    QTest::newRow("min safe") << qint64(-9007199254740991) << QByteArray("-9007199254740991");
}

void CanonicalJsonTest::integers()
{
    QFETCH(qint64, value);
    QFETCH(QByteArray, expected);
    QCOMPARE(*CanonicalJson::serialize(QJsonValue(value)), expected);
    QVERIFY(!CanonicalJson::serialize(QJsonValue(qint64(9007199254740992))).has_value());
}

void CanonicalJsonTest::nestedAndCompact()
{
    const QByteArray spaced =
        R"( { "b" : [ 3 , { "y" : 1 , "x" : 2 } ] , "a" : { } , "c" : [ ] } )";
    QCOMPARE(canonical(spaced), QByteArray(R"({"a":{},"b":[3,{"x":2,"y":1}],"c":[]})"));
    // Array order is data: it is kept.
    QCOMPARE(canonical(R"(["b","a"])"), QByteArray(R"(["b","a"])"));
}

void CanonicalJsonTest::loneSurrogateRefused()
{
    QVERIFY(!CanonicalJson::serialize(QJsonValue(QString(QChar(0xD800)))).has_value());
    QVERIFY(!CanonicalJson::serialize(QJsonValue(QString(QChar(0xDC00)))).has_value());
    QJsonObject object;
    object.insert(QString(QChar(0xDBFF)), 1);
    QVERIFY(!CanonicalJson::serialize(object).has_value());
    QVERIFY(!CanonicalJson::serialize(QJsonValue(QJsonValue::Undefined)).has_value());
}

void CanonicalJsonTest::fixedPoint_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("rfc sorting") << QByteArray(R"({"\u20ac":1,"\r":2,"\ufb33":3,"1":4})");
    QTest::newRow("escapes") << QByteArray(R"(["\u0001\u001f\"\\\/\b\f\n\r\t"])");
    QTest::newRow("nested") << QByteArray(R"({"a":[{"c":1,"b":[true,null]}],"A":-5})");
}

void CanonicalJsonTest::fixedPoint()
{
    QFETCH(QByteArray, input);
    const QByteArray once = canonical(input);
    QVERIFY(!once.startsWith('<'));
    QCOMPARE(canonical(once), once);
}

void CanonicalJsonTest::metadataShape()
{
    QJsonObject metadata;
    metadata.insert(QStringLiteral("profile_id"),
                    QStringLiteral("6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"));
    metadata.insert(QStringLiteral("tenant"), QStringLiteral("tenant-1"));
    metadata.insert(QStringLiteral("principal"), QStringLiteral("user \"one\""));
    metadata.insert(QStringLiteral("provider_reference"), QStringLiteral("ref-1"));
    metadata.insert(
        QStringLiteral("allowed_origins"),
        QJsonArray{QStringLiteral("https://a.shop.de"), QStringLiteral("https://b.shop.de")});
    metadata.insert(QStringLiteral("format_version"), 1);
    metadata.insert(QStringLiteral("key_version"), QStringLiteral("k1"));
    metadata.insert(QStringLiteral("revocation_fence"), qint64(0));
    const QByteArray expected =
        R"({"allowed_origins":["https://a.shop.de","https://b.shop.de"],)"
        R"("format_version":1,"key_version":"k1",)"
        R"("principal":"user \"one\"","profile_id":)"
        R"("6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","provider_reference":"ref-1",)"
        R"("revocation_fence":0,"tenant":"tenant-1"})";
    QCOMPARE(*CanonicalJson::serialize(metadata), expected);
}

QTEST_GUILESS_MAIN(CanonicalJsonTest)
#include "tst_canonicaljson.moc"
