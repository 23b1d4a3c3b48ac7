// The owner's input in the remote sign-in view (domain/signin/OwnerInput): its wire form round
// trips for every kind, and anything outside the closed form or its bounds is refused whole.

#include "domain/signin/OwnerInput.h"

#include <QJsonDocument>
#include <QTest>

using namespace veetbot;

class TestOwnerInput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKindRoundTrips_data();
    void everyKindRoundTrips();
    void malformedInputIsRefused_data();
    void malformedInputIsRefused();
};

void TestOwnerInput::everyKindRoundTrips_data()
{
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("move") << QByteArray(R"({"type":"mouse_move","x":10.5,"y":20,"modifiers":0})");
    QTest::newRow("press") << QByteArray(
        R"({"type":"mouse_down","x":1,"y":2,"button":"left","click_count":1,"modifiers":8})");
    QTest::newRow("double release") << QByteArray(
        R"({"type":"mouse_up","x":1,"y":2,"button":"right","click_count":2,"modifiers":0})");
    QTest::newRow("wheel") << QByteArray(
        R"({"type":"wheel","x":5,"y":6,"dx":0,"dy":-120,"modifiers":2})");
    QTest::newRow("key down") << QByteArray(
        R"({"type":"key_down","key":"a","code":"KeyA","key_code":65,"text":"a","modifiers":0})");
    QTest::newRow("key up") << QByteArray(
        R"({"type":"key_up","key":"Enter","code":"Enter","key_code":13,"modifiers":0})");
    QTest::newRow("text") << QByteArray(R"({"type":"text","text":"héllo wörld 你好"})");
}

void TestOwnerInput::everyKindRoundTrips()
{
    QFETCH(QByteArray, wire);
    const QJsonObject object = QJsonDocument::fromJson(wire).object();
    const std::optional<OwnerInput> input = OwnerInput::fromJson(object);
    QVERIFY(input);
    QVERIFY(input->isValid());
    QCOMPARE(input->toJson(), object);
}

void TestOwnerInput::malformedInputIsRefused_data()
{
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("no type") << QByteArray(R"({"x":1,"y":2})");
    QTest::newRow("unknown type") << QByteArray(R"({"type":"touch","x":1,"y":2})");
    QTest::newRow("extra member") << QByteArray(R"({"type":"mouse_move","x":1,"y":2,"z":3})");
    QTest::newRow("missing y") << QByteArray(R"({"type":"mouse_move","x":1})");
    QTest::newRow("string x") << QByteArray(R"({"type":"mouse_move","x":"1","y":2})");
    QTest::newRow("far away") << QByteArray(R"({"type":"mouse_move","x":1e9,"y":2})");
    QTest::newRow("no button") << QByteArray(R"({"type":"mouse_down","x":1,"y":2})");
    QTest::newRow("unknown button")
        << QByteArray(R"({"type":"mouse_down","x":1,"y":2,"button":"back"})");
    QTest::newRow("triple click") << QByteArray(
        R"({"type":"mouse_down","x":1,"y":2,"button":"left","click_count":3})");
    QTest::newRow("fractional count")
        << QByteArray(R"({"type":"mouse_down","x":1,"y":2,"button":"left","click_count":1.5})");
    QTest::newRow("unknown modifier")
        << QByteArray(R"({"type":"mouse_move","x":1,"y":2,"modifiers":16})");
    QTest::newRow("wheel without delta") << QByteArray(R"({"type":"wheel","x":1,"y":2})");
    QTest::newRow("empty key") << QByteArray(R"({"type":"key_down","key":""})");
    QTest::newRow("long key") << QByteArray(
        R"({"type":"key_down","key":"abcdefghijklmnopqrstuvwxyzabcdefg"})");
    QTest::newRow("key code over 255")
        << QByteArray(R"({"type":"key_down","key":"a","key_code":256})");
    QTest::newRow("key up with text") << QByteArray(R"({"type":"key_up","key":"a","text":"a"})");
    QTest::newRow("empty text") << QByteArray(R"({"type":"text","text":""})");
    QTest::newRow("text with modifiers")
        << QByteArray(R"({"type":"text","text":"a","modifiers":0})");
    QTest::newRow("number text") << QByteArray(R"({"type":"text","text":5})");
    QByteArray longText = R"({"type":"text","text":")";
    longText += QByteArray(OwnerInput::kMaxTextCodePoints + 1, 'x') + R"("})";
    QTest::newRow("text over its bound") << longText;
}

void TestOwnerInput::malformedInputIsRefused()
{
    QFETCH(QByteArray, wire);
    const QJsonDocument document = QJsonDocument::fromJson(wire);
    QVERIFY(document.isObject());
    QVERIFY(!OwnerInput::fromJson(document.object()));
    // Positive control: the longest text within the bound is taken.
    const QByteArray longest = QByteArray(R"({"type":"text","text":")") +
                               QByteArray(OwnerInput::kMaxTextCodePoints, 'x') +
                               QByteArray(R"("})");
    QVERIFY(OwnerInput::fromJson(QJsonDocument::fromJson(longest).object()));
}

QTEST_GUILESS_MAIN(TestOwnerInput)
#include "tst_ownerinput.moc"
