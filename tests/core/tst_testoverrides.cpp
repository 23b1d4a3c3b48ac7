#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

// Parsing of the test-only VEETBOT_TEST_RESOLVE / VEETBOT_TEST_CA settings.
class TestOverridesTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultIsEmpty();
    void parseGood_data();
    void parseGood();
    void parseBad_data();
    void parseBad();
    void resolveMapsOnlyListedHosts();
    void resolveSpecRoundTrips();
    void fromEnvironment();
    void fromEnvironmentRejectsMalformed();
};

void TestOverridesTest::defaultIsEmpty()
{
    const TestOverrides overrides;
    QVERIFY(overrides.isEmpty());
    QVERIFY(!overrides.hasHost(QStringLiteral("shop.test")));
    QVERIFY(!overrides.resolve(QStringLiteral("shop.test")));
    QCOMPARE(overrides.resolveSpec(), QString());
}

void TestOverridesTest::parseGood_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("normalized");
    QTest::newRow("one") << "shop.test=127.0.0.1"
                         << "shop.test=127.0.0.1";
    QTest::newRow("two sorted") << "shop.test=127.0.0.1,evil.test=127.0.0.2"
                                << "evil.test=127.0.0.2,shop.test=127.0.0.1";
    QTest::newRow("upper case host") << "Shop.TEST=127.0.0.1"
                                     << "shop.test=127.0.0.1";
    QTest::newRow("ipv6 loopback") << "shop.test=::1"
                                   << "shop.test=::1";
    QTest::newRow("same duplicate") << "shop.test=127.0.0.1,SHOP.test=127.0.0.1"
                                    << "shop.test=127.0.0.1";
    QTest::newRow("hyphen and digits") << "a-1.b2.example=127.0.0.1"
                                       << "a-1.b2.example=127.0.0.1";
}

void TestOverridesTest::parseGood()
{
    QFETCH(QString, spec);
    QFETCH(QString, normalized);
    const Result<TestOverrides> parsed = TestOverrides::parseResolve(spec);
    QVERIFY(parsed.ok());
    QVERIFY(!parsed->isEmpty());
    QCOMPARE(parsed->resolveSpec(), normalized);
}

void TestOverridesTest::parseBad_data()
{
    QTest::addColumn<QString>("spec");
    QTest::newRow("empty") << "";
    QTest::newRow("empty entry") << "shop.test=127.0.0.1,";
    QTest::newRow("leading comma") << ",shop.test=127.0.0.1";
    QTest::newRow("no equals") << "shop.test";
    QTest::newRow("two equals") << "shop.test=127.0.0.1=127.0.0.1";
    QTest::newRow("empty host") << "=127.0.0.1";
    QTest::newRow("empty address") << "shop.test=";
    QTest::newRow("single label") << "fixture=127.0.0.1";
    QTest::newRow("trailing dot") << "shop.test.=127.0.0.1";
    QTest::newRow("empty label") << "shop..test=127.0.0.1";
    QTest::newRow("host with port") << "shop.test:8443=127.0.0.1";
    QTest::newRow("address with port") << "shop.test=127.0.0.1:8443";
    QTest::newRow("bracketed v6") << "shop.test=[::1]";
    QTest::newRow("public address") << "shop.test=93.184.216.34";
    QTest::newRow("private address") << "shop.test=10.0.0.1";
    QTest::newRow("unspecified") << "shop.test=0.0.0.0";
    QTest::newRow("v6 not loopback") << "shop.test=::2";
    QTest::newRow("mapped v4 loopback") << "shop.test=::ffff:127.0.0.1";
    QTest::newRow("short v4") << "shop.test=127.1";
    QTest::newRow("host is address") << "127.0.0.1=127.0.0.1";
    QTest::newRow("host numeric tail") << "shop.0x7f=127.0.0.1";
    QTest::newRow("localhost") << "localhost=127.0.0.1";
    QTest::newRow("sub localhost") << "app.localhost=127.0.0.1";
    QTest::newRow("conflicting duplicate") << "shop.test=127.0.0.1,shop.test=127.0.0.2";
    QTest::newRow("space") << "shop.test =127.0.0.1";
    QTest::newRow("underscore") << "shop_x.test=127.0.0.1";
    QTest::newRow("leading hyphen") << "-shop.test=127.0.0.1";
    QTest::newRow("non-ascii") << QStringLiteral("bücher.test=127.0.0.1");
    QTest::newRow("long label") << QString(64, u'a') + QStringLiteral(".test=127.0.0.1");
}

void TestOverridesTest::parseBad()
{
    QFETCH(QString, spec);
    const Result<TestOverrides> parsed = TestOverrides::parseResolve(spec);
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, QStringLiteral("config.invalid_test_setting"));
    QCOMPARE(parsed.error().message, QStringLiteral("A test-only setting is malformed."));
    QVERIFY(!parsed.error().message.contains(QStringLiteral("127")));
}

void TestOverridesTest::resolveMapsOnlyListedHosts()
{
    const Result<TestOverrides> parsed =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1,v6.test=::1"));
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->resolve(QStringLiteral("shop.test")), QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(parsed->resolve(QStringLiteral("v6.test")), QHostAddress(QHostAddress::LocalHostIPv6));
    QVERIFY(parsed->hasHost(QStringLiteral("shop.test")));
    QVERIFY(!parsed->hasHost(QStringLiteral("evil.test")));
    QVERIFY(!parsed->hasHost(QStringLiteral("www.shop.test")));
    QVERIFY(!parsed->resolve(QStringLiteral("evil.test")));
}

void TestOverridesTest::resolveSpecRoundTrips()
{
    const Result<TestOverrides> first =
        TestOverrides::parseResolve(QStringLiteral("b.test=127.0.0.9,a.test=::1,c.test=127.0.0.1"));
    QVERIFY(first.ok());
    const Result<TestOverrides> second = TestOverrides::parseResolve(first->resolveSpec());
    QVERIFY(second.ok());
    QCOMPARE(second->resolveSpec(), first->resolveSpec());
    QCOMPARE(first->resolveSpec(), QStringLiteral("a.test=::1,b.test=127.0.0.9,c.test=127.0.0.1"));
}

void TestOverridesTest::fromEnvironment()
{
    qunsetenv("VEETBOT_TEST_RESOLVE");
    qunsetenv("VEETBOT_TEST_CA");
    {
        const Result<TestOverrides> none = TestOverrides::fromEnvironment();
        QVERIFY(none.ok());
        QVERIFY(none->isEmpty());
    }
    qputenv("VEETBOT_TEST_RESOLVE", "shop.test=127.0.0.1,evil.test=127.0.0.1");
    qputenv("VEETBOT_TEST_CA", "/tmp/veetbot-test-ca.pem");
    const Result<TestOverrides> both = TestOverrides::fromEnvironment();
    qunsetenv("VEETBOT_TEST_RESOLVE");
    qunsetenv("VEETBOT_TEST_CA");
    QVERIFY(both.ok());
    QVERIFY(both->hasHost(QStringLiteral("shop.test")));
    QVERIFY(both->hasHost(QStringLiteral("evil.test")));
    QCOMPARE(both->caPath(), QStringLiteral("/tmp/veetbot-test-ca.pem"));
}

void TestOverridesTest::fromEnvironmentRejectsMalformed()
{
    qputenv("VEETBOT_TEST_RESOLVE", "shop.test=10.0.0.1");
    const Result<TestOverrides> bad = TestOverrides::fromEnvironment();
    qputenv("VEETBOT_TEST_RESOLVE", "");
    const Result<TestOverrides> empty = TestOverrides::fromEnvironment();
    qunsetenv("VEETBOT_TEST_RESOLVE");
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().code, QStringLiteral("config.invalid_test_setting"));
    QVERIFY(!empty.ok());
}

QTEST_GUILESS_MAIN(TestOverridesTest)
#include "tst_testoverrides.moc"
