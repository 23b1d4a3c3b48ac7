#include "domain/web/HostRules.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

// What counts as a public destination: WHATWG numeric hosts, DNS names, dialable addresses.
class HostRulesTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void endsInNumber_data();
    void endsInNumber();
    void publicDnsName_data();
    void publicDnsName();
    void overridesMakeListedHostsPublic();
    void publicAddress_data();
    void publicAddress();
    void nullAddressIsNotPublic();
};

void HostRulesTest::endsInNumber_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("expected");
    QTest::newRow("short decimal") << "127.1" << true;
    QTest::newRow("hex and short") << "0x7f.1" << true;
    QTest::newRow("single number") << "2130706433" << true;
    QTest::newRow("trailing dot") << "1.2.3.4." << true;
    QTest::newRow("hex whole") << "0x7f000001" << true;
    QTest::newRow("hex upper X") << "0X7F000001" << true;
    QTest::newRow("name then hex") << "foo.0x10" << true;
    QTest::newRow("name then bare 0x") << "foo.0x" << true;
    QTest::newRow("name then octal") << "foo.017" << true;
    QTest::newRow("name then digits") << "foo.123" << true;
    QTest::newRow("bad octal digits") << "foo.09" << true; // all digits: still a number
    QTest::newRow("dotted quad") << "127.0.0.1" << true;
    QTest::newRow("plain name") << "shop.example" << false;
    QTest::newRow("name ends in letters") << "1.2.3.com" << false;
    QTest::newRow("hex with non-hex") << "foo.0x1g" << false;
    QTest::newRow("octal with 8") << "foo.08a" << false;
    QTest::newRow("mixed tail") << "foo.12a" << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("only dot") << "." << false;
    QTest::newRow("two trailing dots") << "1.2.3.4.." << false;
    QTest::newRow("number in middle") << "1.example" << false;
}

void HostRulesTest::endsInNumber()
{
    QFETCH(QString, host);
    QFETCH(bool, expected);
    QCOMPARE(HostRules::endsInNumber(host), expected);
}

void HostRulesTest::publicDnsName_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("expected");
    QTest::newRow("two labels") << "a.b" << true;
    QTest::newRow("ordinary") << "www.shop.de" << true;
    QTest::newRow("punycode") << "xn--bcher-kva.de" << true;
    QTest::newRow("hyphen inside") << "my-shop.co.uk" << true;
    QTest::newRow("digits label") << "123.shop.com" << true;
    QTest::newRow("63 octet label") << QString(63, u'a') + QStringLiteral(".com") << true;
    QTest::newRow("64 octet label") << QString(64, u'a') + QStringLiteral(".com") << false;
    QTest::newRow("253 octets") << QString(61, u'a') + u'.' + QString(63, u'b') + u'.' +
                                       QString(63, u'c') + u'.' + QString(63, u'd')
                                << true;
    QTest::newRow("254 octets") << QString(62, u'a') + u'.' + QString(63, u'b') + u'.' +
                                       QString(63, u'c') + u'.' + QString(63, u'd')
                                << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("single label") << "fixture" << false;
    QTest::newRow("trailing dot") << "shop.com." << false;
    QTest::newRow("leading dot") << ".shop.com" << false;
    QTest::newRow("empty label") << "shop..com" << false;
    QTest::newRow("upper case") << "Shop.com" << false;
    QTest::newRow("underscore") << "a_b.com" << false;
    QTest::newRow("leading hyphen") << "-a.com" << false;
    QTest::newRow("trailing hyphen") << "a-.com" << false;
    QTest::newRow("non-ascii") << QStringLiteral("bücher.de") << false;
    QTest::newRow("port") << "shop.com:443" << false;
    QTest::newRow("dotted quad") << "127.0.0.1" << false;
    QTest::newRow("short ipv4") << "127.1" << false;
    QTest::newRow("hex ipv4") << "0x7f.1" << false;
    QTest::newRow("number") << "2130706433" << false;
    QTest::newRow("numeric tail") << "foo.0x10" << false;
    QTest::newRow("ipv6") << "::1" << false;
    QTest::newRow("localhost") << "localhost" << false;
    QTest::newRow("sub localhost") << "app.localhost" << false;
    QTest::newRow("test") << "shop.test" << false;
    QTest::newRow("example tld") << "shop.example" << false;
    QTest::newRow("example.com") << "example.com" << false;
    QTest::newRow("idn under example.com") << "xn--bcher-kva.example.com" << false;
    QTest::newRow("example.net") << "www.example.net" << false;
    QTest::newRow("example.org") << "example.org" << false;
    QTest::newRow("not example.com") << "myexample.com" << true;
    QTest::newRow("invalid") << "a.invalid" << false;
    QTest::newRow("local") << "printer.local" << false;
    QTest::newRow("onion") << "abc.onion" << false;
    QTest::newRow("internal") << "metadata.google.internal" << false;
    QTest::newRow("intranet") << "wiki.intranet" << false;
    QTest::newRow("private") << "a.private" << false;
    QTest::newRow("corp") << "a.corp" << false;
    QTest::newRow("home") << "router.home" << false;
    QTest::newRow("lan") << "nas.lan" << false;
    QTest::newRow("alt") << "a.alt" << false;
    QTest::newRow("arpa") << "1.0.0.127.in-addr.arpa" << false;
    QTest::newRow("home.arpa") << "router.home.arpa" << false;
    QTest::newRow("ip6.arpa") << "b.ip6.arpa" << false;
    QTest::newRow("special word as label") << "test.com" << true;
    QTest::newRow("local as label") << "local.shop.com" << true;
}

void HostRulesTest::publicDnsName()
{
    QFETCH(QString, host);
    QFETCH(bool, expected);
    QCOMPARE(HostRules::isPublicDnsName(host, TestOverrides()), expected);
}

void HostRulesTest::overridesMakeListedHostsPublic()
{
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    QVERIFY(!HostRules::isPublicDnsName(QStringLiteral("shop.test"), TestOverrides()));
    QVERIFY(HostRules::isPublicDnsName(QStringLiteral("shop.test"), *overrides));
    // Only the exact listed name.
    QVERIFY(!HostRules::isPublicDnsName(QStringLiteral("evil.test"), *overrides));
    QVERIFY(!HostRules::isPublicDnsName(QStringLiteral("www.shop.test"), *overrides));
    QVERIFY(!HostRules::isPublicDnsName(QStringLiteral("SHOP.test"), *overrides));
    QVERIFY(!HostRules::isPublicDnsName(QStringLiteral("shop.test."), *overrides));
}

void HostRulesTest::publicAddress_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("expected");
    QTest::newRow("public v4") << "93.184.216.34" << true;
    QTest::newRow("public v4 b") << "8.8.8.8" << true;
    QTest::newRow("just above 172.16/12") << "172.32.0.1" << true;
    QTest::newRow("just below 100.64/10") << "100.63.255.255" << true;
    QTest::newRow("just above 100.64/10") << "100.128.0.1" << true;
    QTest::newRow("192.0.1.1") << "192.0.1.1" << true;
    QTest::newRow("223.255.255.254") << "223.255.255.254" << true;
    QTest::newRow("0/8") << "0.1.2.3" << false;
    QTest::newRow("unspecified v4") << "0.0.0.0" << false;
    QTest::newRow("10/8") << "10.0.0.1" << false;
    QTest::newRow("100.64/10") << "100.64.0.1" << false;
    QTest::newRow("100.127") << "100.127.255.255" << false;
    QTest::newRow("127/8") << "127.0.0.1" << false;
    QTest::newRow("127.255") << "127.255.255.254" << false;
    QTest::newRow("metadata") << "169.254.169.254" << false;
    QTest::newRow("172.16/12") << "172.16.0.1" << false;
    QTest::newRow("172.31") << "172.31.255.255" << false;
    QTest::newRow("192.0.0/24") << "192.0.0.9" << false;
    QTest::newRow("TEST-NET-1") << "192.0.2.1" << false;
    QTest::newRow("6to4 relay") << "192.88.99.1" << false;
    QTest::newRow("192.168/16") << "192.168.1.1" << false;
    QTest::newRow("benchmark") << "198.18.0.1" << false;
    QTest::newRow("benchmark 2") << "198.19.255.255" << false;
    QTest::newRow("TEST-NET-2") << "198.51.100.7" << false;
    QTest::newRow("TEST-NET-3") << "203.0.113.7" << false;
    QTest::newRow("multicast") << "224.0.0.1" << false;
    QTest::newRow("multicast top") << "239.255.255.255" << false;
    QTest::newRow("reserved") << "240.0.0.1" << false;
    QTest::newRow("broadcast") << "255.255.255.255" << false;

    QTest::newRow("public v6") << "2606:2800:220:1:248:1893:25c8:1946" << true;
    QTest::newRow("public v6 b") << "2a00:1450:4001:81b::200e" << true;
    QTest::newRow("unspecified v6") << "::" << false;
    QTest::newRow("loopback v6") << "::1" << false;
    QTest::newRow("mapped public") << "::ffff:93.184.216.34" << true;
    QTest::newRow("mapped loopback") << "::ffff:127.0.0.1" << false;
    QTest::newRow("mapped metadata") << "::ffff:169.254.169.254" << false;
    QTest::newRow("mapped private") << "::ffff:10.1.2.3" << false;
    QTest::newRow("compatible private") << "::10.1.2.3" << false;
    QTest::newRow("compatible loopback") << "::127.0.0.1" << false;
    QTest::newRow("nat64 public") << "64:ff9b::93.184.216.34" << true;
    QTest::newRow("nat64 private") << "64:ff9b::192.168.0.1" << false;
    QTest::newRow("nat64 metadata") << "64:ff9b::169.254.169.254" << false;
    QTest::newRow("local nat64") << "64:ff9b:1::8.8.8.8" << false;
    QTest::newRow("6to4 public") << "2002:5db8:d822::1" << true;
    QTest::newRow("6to4 loopback") << "2002:7f00:1::1" << false;
    QTest::newRow("6to4 private") << "2002:c0a8:101::1" << false;
    QTest::newRow("teredo public") << "2001:0:5db8:d822::a247:27dd" << true; // client 93.184.216.34
    QTest::newRow("teredo loopback client") << "2001:0:5db8:d822::80ff:fffe" << false;
    QTest::newRow("teredo private server") << "2001:0:a00:1::a247:27dd" << false;
    QTest::newRow("link-local") << "fe80::1" << false;
    QTest::newRow("link-local top") << "febf::1" << false;
    QTest::newRow("site-local") << "fec0::1" << false;
    QTest::newRow("ula fc") << "fc00::1" << false;
    QTest::newRow("ula fd") << "fd12:3456::1" << false;
    QTest::newRow("multicast v6") << "ff02::1" << false;
    QTest::newRow("documentation") << "2001:db8::1" << false;
    QTest::newRow("discard") << "100::1" << false;
    QTest::newRow("benchmark v6") << "2001:2::1" << false;
    QTest::newRow("orchid") << "2001:10::1" << false;
    QTest::newRow("documentation 3fff") << "3fff::1" << false;
    QTest::newRow("unassigned") << "4000::1" << false;
}

void HostRulesTest::publicAddress()
{
    QFETCH(QString, address);
    QFETCH(bool, expected);
    const QHostAddress parsed(address);
    QVERIFY2(!parsed.isNull(), qPrintable(address));
    QCOMPARE(HostRules::isPublicAddress(parsed), expected);
}

void HostRulesTest::nullAddressIsNotPublic()
{
    QVERIFY(!HostRules::isPublicAddress(QHostAddress()));
    QVERIFY(!HostRules::isPublicAddress(QHostAddress(QStringLiteral("fe80::1%lo"))));
}

QTEST_GUILESS_MAIN(HostRulesTest)
#include "tst_hostrules.moc"
