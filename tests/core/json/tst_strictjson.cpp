#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

Q_DECLARE_METATYPE(veetbot::StrictJson::Failure)

// The strict parser: what it accepts and exactly why it refuses the rest.
class StrictJsonTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void accepts_data();
    void accepts();
    void refuses_data();
    void refuses();
    void duplicateAfterUnescaping();
    void depthBound();
    void memberBound();
    void sizeBoundCheckedFirst();
    void unicodeDecoded();
    void largeIntegersExact();
    void finiteNumbers_data();
    void finiteNumbers();
    void finiteNumbersRefused_data();
    void finiteNumbersRefused();
};

void StrictJsonTest::accepts_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("object") << QByteArray(R"({"a":1,"b":[true,false,null],"c":"x"})");
    QTest::newRow("whitespace") << QByteArray(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n");
    QTest::newRow("scalar") << QByteArray("\"text\"");
    QTest::newRow("negative") << QByteArray("-42");
    QTest::newRow("zero") << QByteArray("0");
    QTest::newRow("empty containers") << QByteArray(R"({"a":{},"b":[]})");
    QTest::newRow("same key in siblings") << QByteArray(R"([{"a":1},{"a":2}])");
    QTest::newRow("same key at two depths") << QByteArray(R"({"a":{"a":1}})");
    QTest::newRow("escaped NUL") << QByteArray(R"("\u0000")");
    QTest::newRow("surrogate pair escape") << QByteArray(R"("\ud83d\ude00")");
    QTest::newRow("4-byte UTF-8") << QByteArray("\"\xF0\x9F\x98\x80\"");
    QTest::newRow("U+10FFFF") << QByteArray("\"\xF4\x8F\xBF\xBF\"");
    QTest::newRow("U+FFFF") << QByteArray("\"\xEF\xBF\xBF\"");
    QTest::newRow("max safe integer") << QByteArray("9007199254740991");
}

void StrictJsonTest::accepts()
{
    QFETCH(QByteArray, input);
    StrictJson::Failure failure = StrictJson::Failure::Syntax;
    const std::optional<QJsonValue> value =
        StrictJson::parse(input, StrictJson::Limits(), &failure);
    QVERIFY2(value.has_value(), input.constData());
    QCOMPARE(failure, StrictJson::Failure::None);
}

void StrictJsonTest::refuses_data()
{
    using F = StrictJson::Failure;
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<F>("why");
    QTest::newRow("empty") << QByteArray() << F::Syntax;
    QTest::newRow("white space only") << QByteArray("  ") << F::Syntax;
    QTest::newRow("duplicate top") << QByteArray(R"({"a":1,"a":1})") << F::DuplicateKey;
    QTest::newRow("duplicate nested object")
        << QByteArray(R"({"x":{"b":1,"c":2,"b":3}})") << F::DuplicateKey;
    QTest::newRow("duplicate inside array")
        << QByteArray(R"([1,{"k":[{"z":0,"z":0}]}])") << F::DuplicateKey;
    QTest::newRow("duplicate different values")
        << QByteArray(R"({"format":1,"format":2})") << F::DuplicateKey;
    QTest::newRow("trailing object") << QByteArray(R"({"a":1}{"b":2})") << F::TrailingData;
    QTest::newRow("trailing garbage") << QByteArray(R"({"a":1} x)") << F::TrailingData;
    QTest::newRow("trailing NUL") << QByteArray("{}\0", 3) << F::TrailingData;
    QTest::newRow("trailing comma object") << QByteArray(R"({"a":1,})") << F::Syntax;
    QTest::newRow("trailing comma array") << QByteArray("[1,]") << F::Syntax;
    QTest::newRow("unterminated") << QByteArray(R"({"a":1)") << F::Syntax;
    QTest::newRow("unterminated string") << QByteArray(R"({"a":"x)") << F::Syntax;
    QTest::newRow("single quotes") << QByteArray("{'a':1}") << F::Syntax;
    QTest::newRow("bare key") << QByteArray("{a:1}") << F::Syntax;
    QTest::newRow("comment") << QByteArray("{/*x*/}") << F::Syntax;
    QTest::newRow("BOM") << QByteArray("\xEF\xBB\xBF{}") << F::Syntax;
    QTest::newRow("NaN") << QByteArray("NaN") << F::Syntax;
    QTest::newRow("truex") << QByteArray("tru") << F::Syntax;
    QTest::newRow("leading zero") << QByteArray("01") << F::Syntax;
    QTest::newRow("plus sign") << QByteArray("+1") << F::Syntax;
    QTest::newRow("fraction") << QByteArray("1.5") << F::NumberNotAllowed;
    QTest::newRow("exponent") << QByteArray("1e3") << F::NumberNotAllowed;
    QTest::newRow("negative zero") << QByteArray("-0") << F::NumberNotAllowed;
    QTest::newRow("above 2^53-1") << QByteArray("9007199254740992") << F::NumberNotAllowed;
    QTest::newRow("huge") << QByteArray("123456789012345678901234567890") << F::NumberNotAllowed;
    QTest::newRow("raw newline in string") << QByteArray("\"a\nb\"") << F::ControlCharacter;
    QTest::newRow("raw tab in string") << QByteArray("\"a\tb\"") << F::ControlCharacter;
    QTest::newRow("bad escape") << QByteArray(R"("\x41")") << F::InvalidEscape;
    QTest::newRow("short unicode escape") << QByteArray(R"("\u12")") << F::InvalidEscape;
    QTest::newRow("lone high surrogate") << QByteArray(R"("\ud800")") << F::InvalidEscape;
    QTest::newRow("lone low surrogate") << QByteArray(R"("\udc00")") << F::InvalidEscape;
    QTest::newRow("reversed pair") << QByteArray(R"("\ude00\ud83d")") << F::InvalidEscape;
    QTest::newRow("invalid continuation") << QByteArray("\"\xC3\x28\"") << F::InvalidUtf8;
    QTest::newRow("overlong slash") << QByteArray("\"\xC0\xAF\"") << F::InvalidUtf8;
    QTest::newRow("overlong 3-byte") << QByteArray("\"\xE0\x80\xAF\"") << F::InvalidUtf8;
    QTest::newRow("encoded surrogate") << QByteArray("\"\xED\xA0\x80\"") << F::InvalidUtf8;
    QTest::newRow("above U+10FFFF") << QByteArray("\"\xF4\x90\x80\x80\"") << F::InvalidUtf8;
    QTest::newRow("lone continuation") << QByteArray("\"\x80\"") << F::InvalidUtf8;
    QTest::newRow("truncated sequence") << QByteArray("\"\xE2\x82\"") << F::InvalidUtf8;
    QTest::newRow("0xFF byte") << QByteArray("\"\xFF\"") << F::InvalidUtf8;
    QTest::newRow("invalid UTF-8 in key") << QByteArray("{\"\xC3\":1}") << F::InvalidUtf8;
}

void StrictJsonTest::refuses()
{
    QFETCH(QByteArray, input);
    QFETCH(StrictJson::Failure, why);
    StrictJson::Failure failure = StrictJson::Failure::None;
    const std::optional<QJsonValue> value =
        StrictJson::parse(input, StrictJson::Limits(), &failure);
    QVERIFY(!value.has_value());
    QCOMPARE(failure, why);
}

void StrictJsonTest::duplicateAfterUnescaping()
{
    StrictJson::Failure failure = StrictJson::Failure::None;
    QVERIFY(!StrictJson::parse(R"({"a":1,"\u0061":2})", {}, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::DuplicateKey);
    QVERIFY(!StrictJson::parse("{\"\xC3\xA9\":1,\"\\u00e9\":2}", {}, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::DuplicateKey);
    // Different code units are different keys (no normalization).
    QVERIFY(StrictJson::parse("{\"\xC3\xA9\":1,\"e\xCC\x81\":2}", {}, &failure).has_value());
}

void StrictJsonTest::depthBound()
{
    StrictJson::Limits limits;
    limits.maxDepth = 32;
    const auto nested = [](int depth) {
        return QByteArray(QByteArray(depth, '[') + QByteArray(depth, ']'));
    };
    StrictJson::Failure failure = StrictJson::Failure::None;
    QVERIFY(StrictJson::parse(nested(32), limits, &failure).has_value());
    QVERIFY(!StrictJson::parse(nested(33), limits, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::TooDeep);

    QByteArray objects;
    for (int i = 0; i < 33; ++i)
        objects += "{\"a\":";
    objects += "1" + QByteArray(33, '}');
    QVERIFY(!StrictJson::parse(objects, limits, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::TooDeep);

    // Deep input never reaches the stack, whatever the caller asks for.
    limits.maxDepth = 1000000;
    limits.maxBytes = 4 * 1024 * 1024;
    QVERIFY(!StrictJson::parse(nested(1000000), limits, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::TooDeep);
}

void StrictJsonTest::memberBound()
{
    StrictJson::Limits limits;
    limits.maxMembers = 3;
    StrictJson::Failure failure = StrictJson::Failure::None;
    QVERIFY(StrictJson::parse("[1,2,3]", limits, &failure).has_value());
    QVERIFY(!StrictJson::parse("[1,2,3,4]", limits, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::TooManyMembers);
    QVERIFY(StrictJson::parse(R"({"a":1,"b":2,"c":3})", limits, &failure).has_value());
    QVERIFY(!StrictJson::parse(R"({"a":1,"b":2,"c":3,"d":4})", limits, &failure).has_value());
    QCOMPARE(failure, StrictJson::Failure::TooManyMembers);
}

void StrictJsonTest::sizeBoundCheckedFirst()
{
    StrictJson::Limits limits;
    limits.maxBytes = 16;
    StrictJson::Failure failure = StrictJson::Failure::None;
    QVERIFY(StrictJson::parse("[1,2,3,4,5,6,7]", limits, &failure).has_value()); // 15 bytes
    // Garbage over the bound is refused as too large, not as a syntax error: never read.
    const std::optional<QJsonValue> tooLarge =
        StrictJson::parse("\xFF\xFF\xFF garbage garbage", limits, &failure);
    QVERIFY(!tooLarge.has_value());
    QCOMPARE(failure, StrictJson::Failure::TooLarge);
}

void StrictJsonTest::unicodeDecoded()
{
    const std::optional<QJsonValue> value = StrictJson::parse(
        "[\"\xE2\x82\xAC\", \"\\u20ac\", \"\\ud83d\\ude00\", \"\xF0\x9F\x98\x80\","
        " \"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]");
    QVERIFY(value.has_value());
    const QJsonArray array = value->toArray();
    QCOMPARE(array.size(), 5);
    QCOMPARE(array.at(0).toString(), QString(QChar(0x20AC)));
    QCOMPARE(array.at(1).toString(), QString(QChar(0x20AC)));
    QCOMPARE(array.at(2).toString(), QString::fromUtf8("\xF0\x9F\x98\x80"));
    QCOMPARE(array.at(3).toString(), QString::fromUtf8("\xF0\x9F\x98\x80"));
    QCOMPARE(array.at(4).toString(), QStringLiteral("/\b\f\n\r\t\"\\"));
}

void StrictJsonTest::largeIntegersExact()
{
    const std::optional<QJsonValue> value =
        StrictJson::parse("[9007199254740991,-9007199254740991,7]");
    QVERIFY(value.has_value());
    const QJsonArray array = value->toArray();
    QCOMPARE(array.at(0).toInteger(), Q_INT64_C(9007199254740991));
    QCOMPARE(array.at(1).toInteger(), Q_INT64_C(-9007199254740991));
    QCOMPARE(array.at(2).toInteger(), Q_INT64_C(7));
}

// Numbers::Finite (protocol boundaries): every finite JSON number, read by the standard
// library; integers within 2^53 stay exact integers.
void StrictJsonTest::finiteNumbers_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<double>("expected");
    QTest::addColumn<bool>("integer");
    QTest::newRow("fraction") << QByteArray("1.5") << 1.5 << false;
    QTest::newRow("negative fraction") << QByteArray("-0.25") << -0.25 << false;
    QTest::newRow("exponent") << QByteArray("1e3") << 1000.0 << false;
    QTest::newRow("signed exponent") << QByteArray("2.5E-1") << 0.25 << false;
    QTest::newRow("negative zero") << QByteArray("-0") << 0.0 << false;
    QTest::newRow("above 2^53-1") << QByteArray("9007199254740993") << 9007199254740992.0 << false;
    QTest::newRow("safe integer") << QByteArray("9007199254740991") << 9007199254740991.0 << true;
}

void StrictJsonTest::finiteNumbers()
{
    QFETCH(QByteArray, input);
    QFETCH(double, expected);
    QFETCH(bool, integer);
    StrictJson::Limits limits;
    limits.numbers = StrictJson::Numbers::Finite;
    const auto value = StrictJson::parseDocument(input, limits);
    QVERIFY(value.has_value());
    QCOMPARE(value->type,
             integer ? StrictJson::Value::Type::Integer : StrictJson::Value::Type::Number);
    QCOMPARE(value->toJsonValue().toDouble(), expected);
    // The same text is refused where only safe integers are allowed.
    if (!integer)
        QVERIFY(!StrictJson::parseDocument(input, StrictJson::Limits()).has_value());
}

void StrictJsonTest::finiteNumbersRefused_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<StrictJson::Failure>("why");
    using F = StrictJson::Failure;
    QTest::newRow("overflow") << QByteArray("1e999") << F::NumberNotAllowed;
    QTest::newRow("negative overflow") << QByteArray("-1e400") << F::NumberNotAllowed;
    QTest::newRow("dot without digits") << QByteArray("1.") << F::Syntax;
    QTest::newRow("exponent without digits") << QByteArray("1e+") << F::Syntax;
    QTest::newRow("leading dot") << QByteArray(".5") << F::Syntax;
    QTest::newRow("plus sign") << QByteArray("+1") << F::Syntax;
    QTest::newRow("leading zero") << QByteArray("01.5") << F::Syntax;
    QTest::newRow("infinity word") << QByteArray("Infinity") << F::Syntax;
}

void StrictJsonTest::finiteNumbersRefused()
{
    QFETCH(QByteArray, input);
    QFETCH(StrictJson::Failure, why);
    StrictJson::Limits limits;
    limits.numbers = StrictJson::Numbers::Finite;
    StrictJson::Failure failure = StrictJson::Failure::None;
    QVERIFY(!StrictJson::parseDocument(input, limits, &failure).has_value());
    QCOMPARE(failure, why);
}

QTEST_GUILESS_MAIN(StrictJsonTest)
#include "tst_strictjson.moc"
