#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

// Parsing of exact public HTTPS origins and URLs: conservative, refusals are url_disallowed.
class OriginTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void originAccepted_data();
    void originAccepted();
    void originRefused_data();
    void originRefused();
    void urlAccepted_data();
    void urlAccepted();
    void urlRefused_data();
    void urlRefused();
    void urlLengthBound();
    void validateBrowserUrls_data();
    void validateBrowserUrls();
    void ofUrlTakesOrigin();
    void overridesAllowTestHostsOnAnyPort();
    void refusalIsStable();

private:
    static void addRefusedRows();
    void parseAllKeepsOrderAndRefusesWhole();
};

void OriginTest::originAccepted_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("plain") << "https://shop.de"
                           << "https://shop.de"
                           << "shop.de" << 443;
    QTest::newRow("trailing slash") << "https://shop.de/"
                                    << "https://shop.de"
                                    << "shop.de" << 443;
    QTest::newRow("upper scheme") << "HTTPS://shop.de"
                                  << "https://shop.de"
                                  << "shop.de" << 443;
    QTest::newRow("upper host") << "https://WWW.Shop.DE"
                                << "https://www.shop.de"
                                << "www.shop.de" << 443;
    QTest::newRow("explicit 443") << "https://shop.de:443"
                                  << "https://shop.de"
                                  << "shop.de" << 443;
    QTest::newRow("port") << "https://shop.de:8443/"
                          << "https://shop.de:8443"
                          << "shop.de" << 8443;
    QTest::newRow("port 1") << "https://shop.de:1"
                            << "https://shop.de:1"
                            << "shop.de" << 1;
    QTest::newRow("port 65535") << "https://shop.de:65535"
                                << "https://shop.de:65535"
                                << "shop.de" << 65535;
    QTest::newRow("idn") << QStringLiteral("https://bücher.de") << "https://xn--bcher-kva.de"
                         << "xn--bcher-kva.de" << 443;
    QTest::newRow("idn upper") << QStringLiteral("https://BÜCHER.de") << "https://xn--bcher-kva.de"
                               << "xn--bcher-kva.de" << 443;
    QTest::newRow("punycode") << "https://xn--bcher-kva.de"
                              << "https://xn--bcher-kva.de"
                              << "xn--bcher-kva.de" << 443;
}

void OriginTest::originAccepted()
{
    QFETCH(QString, text);
    QFETCH(QString, origin);
    QFETCH(QString, host);
    QFETCH(int, port);
    const Result<Origin> parsed = Origin::parse(text, TestOverrides());
    QVERIFY2(parsed.ok(), qPrintable(text));
    QCOMPARE(parsed->toString(), origin);
    QCOMPARE(parsed->host(), host);
    QCOMPARE(parsed->port(), port);
    // The canonical form parses to the same origin.
    const Result<Origin> again = Origin::parse(parsed->toString(), TestOverrides());
    QVERIFY(again.ok());
    QVERIFY(*again == *parsed);
}

// Rows refused by both Origin::parse and PublicUrl::parse.
void OriginTest::addRefusedRows()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("http") << "http://shop.de";
    QTest::newRow("ws") << "wss://shop.de";
    QTest::newRow("data") << "data:text/html,hi";
    QTest::newRow("blob") << "blob:https://shop.de/1234";
    QTest::newRow("javascript") << "javascript:alert(1)";
    QTest::newRow("file") << "file:///etc/passwd";
    QTest::newRow("about") << "about:blank";
    QTest::newRow("no slashes") << "https:shop.de";
    QTest::newRow("one slash") << "https:/shop.de";
    QTest::newRow("three slashes") << "https:///shop.de";
    QTest::newRow("scheme relative") << "//shop.de";
    QTest::newRow("no scheme") << "shop.de";
    QTest::newRow("long s scheme") << QStringLiteral("httpſ://shop.de");
    QTest::newRow("userinfo") << "https://user:pass@shop.de";
    QTest::newRow("user only") << "https://user@shop.de";
    QTest::newRow("empty userinfo") << "https://@shop.de";
    QTest::newRow("empty password") << "https://:@shop.de";
    QTest::newRow("userinfo host trick") << "https://shop.de@evil.com";
    QTest::newRow("backslash authority") << "https://evil.com\\@shop.de";
    QTest::newRow("backslash path") << "https://shop.de\\path";
    QTest::newRow("backslash scheme") << "https:\\\\shop.de";
    QTest::newRow("leading space") << " https://shop.de";
    QTest::newRow("trailing space") << "https://shop.de ";
    QTest::newRow("tab in host") << "https://sh\top.de";
    QTest::newRow("newline in scheme") << "ht\ntps://shop.de";
    QTest::newRow("nul") << QStringLiteral("https://shop.de") + QChar(0);
    QTest::newRow("del") << QStringLiteral("https://shop.de") + QChar(0x7f);
    QTest::newRow("nbsp") << QStringLiteral("https://shop.de\u00a0");
    QTest::newRow("ideographic dot") << QStringLiteral("https://shop\u3002de");
    QTest::newRow("fullwidth dot") << QStringLiteral("https://shop\uff0ede");
    QTest::newRow("fullwidth solidus") << QStringLiteral("https://evil.com\uff0f.shop.de");
    QTest::newRow("zero width joiner") << QStringLiteral("https://sh\u200dop.de");
    QTest::newRow("sharp s deviation") << QStringLiteral("https://stra\u00dfe.de");
    QTest::newRow("final sigma deviation") << QStringLiteral("https://\u03c3\u03bf\u03c2.gr");
    QTest::newRow("percent host") << "https://%73hop.de";
    QTest::newRow("percent dot") << "https://shop%2ede";
    QTest::newRow("ipv4") << "https://93.184.216.34";
    QTest::newRow("ipv4 loopback") << "https://127.0.0.1";
    QTest::newRow("short ipv4") << "https://127.1";
    QTest::newRow("hex ipv4") << "https://0x7f.1";
    QTest::newRow("integer ipv4") << "https://2130706433";
    QTest::newRow("ipv4 trailing dot") << "https://1.2.3.4.";
    QTest::newRow("numeric tail") << "https://foo.0x10";
    QTest::newRow("ipv6") << "https://[::1]";
    QTest::newRow("ipv6 public") << "https://[2606:2800:220:1:248:1893:25c8:1946]";
    QTest::newRow("ipv6 zone") << "https://[fe80::1%25lo]";
    QTest::newRow("localhost") << "https://localhost";
    QTest::newRow("sub localhost") << "https://app.localhost";
    QTest::newRow("single label") << "https://fixture";
    QTest::newRow("test tld") << "https://shop.test";
    QTest::newRow("example tld") << "https://shop.example";
    QTest::newRow("example.com") << "https://example.com";
    QTest::newRow("idn example.com") << QStringLiteral("https://bücher.example.com");
    QTest::newRow("internal") << "https://metadata.google.internal";
    QTest::newRow("trailing dot host") << "https://shop.de.";
    QTest::newRow("empty label") << "https://shop..de";
    QTest::newRow("underscore") << "https://a_b.de";
    QTest::newRow("empty host") << "https://";
    QTest::newRow("empty host with port") << "https://:443";
    QTest::newRow("port 0") << "https://shop.de:0";
    QTest::newRow("port too big") << "https://shop.de:65536";
    QTest::newRow("port not number") << "https://shop.de:https";
    QTest::newRow("empty port") << "https://shop.de:";
    QTest::newRow("negative port") << "https://shop.de:-1";
}

void OriginTest::originRefused_data()
{
    addRefusedRows();
    QTest::newRow("path") << "https://shop.de/path";
    QTest::newRow("two slashes") << "https://shop.de//";
    QTest::newRow("query") << "https://shop.de?q";
    QTest::newRow("empty query") << "https://shop.de/?";
    QTest::newRow("fragment") << "https://shop.de#top";
    QTest::newRow("empty fragment") << "https://shop.de/#";
}

void OriginTest::originRefused()
{
    QFETCH(QString, text);
    const Result<Origin> parsed = Origin::parse(text, TestOverrides());
    QVERIFY2(!parsed.ok(), qPrintable(parsed ? parsed->toString() : QString()));
    QVERIFY(parsed.error().is(ReasonCode::UrlDisallowed));
}

void OriginTest::urlAccepted_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("normalized");
    QTest::newRow("plain") << "https://shop.de"
                           << "https://shop.de";
    QTest::newRow("path") << "https://shop.de/a/b?q=1#frag"
                          << "https://shop.de/a/b?q=1#frag";
    QTest::newRow("upper") << "HTTPS://Shop.DE:443/Path"
                           << "https://shop.de/Path";
    QTest::newRow("port") << "https://shop.de:8443/x"
                          << "https://shop.de:8443/x";
    QTest::newRow("idn") << QStringLiteral("https://bücher.de/kaufen")
                         << "https://xn--bcher-kva.de/kaufen";
    QTest::newRow("non-ascii path")
        << QStringLiteral("https://shop.de/ä") << "https://shop.de/%C3%A4";
    QTest::newRow("encoded path") << "https://shop.de/a%20b"
                                  << "https://shop.de/a%20b";
    QTest::newRow("at in path") << "https://shop.de/@user"
                                << "https://shop.de/@user";
    QTest::newRow("at in query") << "https://shop.de/?a=b@c"
                                 << "https://shop.de/?a=b@c";
}

void OriginTest::urlAccepted()
{
    QFETCH(QString, text);
    QFETCH(QString, normalized);
    const Result<QUrl> parsed = PublicUrl::parse(text, TestOverrides());
    QVERIFY2(parsed.ok(), qPrintable(text));
    QCOMPARE(QString::fromLatin1(parsed->toEncoded()), normalized);
    QCOMPARE(parsed->host(QUrl::FullyEncoded), QUrl(normalized).host(QUrl::FullyEncoded));
}

void OriginTest::urlRefused_data()
{
    addRefusedRows();
    QTest::newRow("space in path") << "https://shop.de/a b";
    QTest::newRow("backslash in query") << "https://shop.de/?a=\\";
    QTest::newRow("bad percent") << "https://shop.de/%zz";
}

void OriginTest::urlRefused()
{
    QFETCH(QString, text);
    const Result<QUrl> parsed = PublicUrl::parse(text, TestOverrides());
    QVERIFY2(!parsed.ok(), qPrintable(parsed ? parsed->toString() : QString()));
    QVERIFY(parsed.error().is(ReasonCode::UrlDisallowed));
}

void OriginTest::urlLengthBound()
{
    const QString prefix = QStringLiteral("https://shop.de/");
    const QString atLimit = prefix + QString(PublicUrl::kMaxUrlBytes - prefix.size(), u'a');
    QVERIFY(PublicUrl::parse(atLimit, TestOverrides()).ok());
    QVERIFY(!PublicUrl::parse(atLimit + u'a', TestOverrides()).ok());
    // The bound applies to the encoded form: 'ä' takes six bytes once percent-encoded.
    const QString encodedOver =
        prefix + QString((PublicUrl::kMaxUrlBytes - prefix.size()) / 6 + 1, QChar(0xe4));
    QVERIFY(encodedOver.size() < PublicUrl::kMaxUrlBytes);
    QVERIFY(!PublicUrl::parse(encodedOver, TestOverrides()).ok());
}

void OriginTest::validateBrowserUrls_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("normalized");
    QTest::newRow("https") << QUrl(QStringLiteral("https://shop.de/a?b#c")) << true
                           << "https://shop.de/a?b#c";
    QTest::newRow("explicit 443") << QUrl(QStringLiteral("https://shop.de:443/")) << true
                                  << "https://shop.de/";
    QTest::newRow("idn") << QUrl(QStringLiteral("https://bücher.de/")) << true
                         << "https://xn--bcher-kva.de/";
    QTest::newRow("empty") << QUrl() << false << QString();
    QTest::newRow("http") << QUrl(QStringLiteral("http://shop.de/")) << false << QString();
    QTest::newRow("blob") << QUrl(QStringLiteral("blob:https://shop.de/1")) << false << QString();
    QTest::newRow("data") << QUrl(QStringLiteral("data:text/html,x")) << false << QString();
    QTest::newRow("about") << QUrl(QStringLiteral("about:blank")) << false << QString();
    QTest::newRow("userinfo") << QUrl(QStringLiteral("https://u:p@shop.de/")) << false << QString();
    QTest::newRow("empty userinfo")
        << QUrl(QStringLiteral("https://@shop.de/")) << false << QString();
    QTest::newRow("empty password")
        << QUrl(QStringLiteral("https://:@shop.de/")) << false << QString();
    QTest::newRow("ipv4") << QUrl(QStringLiteral("https://127.0.0.1/")) << false << QString();
    QTest::newRow("fullwidth ipv4")
        << QUrl(QStringLiteral("https://\uff11\uff12\uff17.0.0.1/")) << false << QString();
    QTest::newRow("short ipv4") << QUrl(QStringLiteral("https://127.1/")) << false << QString();
    QTest::newRow("ipv6") << QUrl(QStringLiteral("https://[::1]/")) << false << QString();
    QTest::newRow("localhost") << QUrl(QStringLiteral("https://localhost/")) << false << QString();
    QTest::newRow("test tld") << QUrl(QStringLiteral("https://shop.test/")) << false << QString();
    QTest::newRow("port 0") << QUrl(QStringLiteral("https://shop.de:0/")) << false << QString();
}

void OriginTest::validateBrowserUrls()
{
    QFETCH(QUrl, url);
    QFETCH(bool, ok);
    QFETCH(QString, normalized);
    const Result<QUrl> validated = PublicUrl::validate(url, TestOverrides());
    QCOMPARE(validated.ok(), ok);
    if (ok)
        QCOMPARE(QString::fromLatin1(validated->toEncoded()), normalized);
    else
        QVERIFY(validated.error().is(ReasonCode::UrlDisallowed));
    QCOMPARE(Origin::ofUrl(url, TestOverrides()).ok(), ok);
}

void OriginTest::ofUrlTakesOrigin()
{
    const Result<Origin> origin =
        Origin::ofUrl(QUrl(QStringLiteral("https://WWW.shop.de:8443/a/b?c#d")), TestOverrides());
    QVERIFY(origin.ok());
    QCOMPARE(origin->toString(), QStringLiteral("https://www.shop.de:8443"));
    QVERIFY(*origin == *Origin::parse(QStringLiteral("https://www.shop.de:8443"), TestOverrides()));
    QVERIFY(*origin != *Origin::parse(QStringLiteral("https://www.shop.de"), TestOverrides()));
}

void OriginTest::overridesAllowTestHostsOnAnyPort()
{
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    const Result<Origin> origin =
        Origin::parse(QStringLiteral("https://shop.test:8443"), *overrides);
    QVERIFY(origin.ok());
    QCOMPARE(origin->toString(), QStringLiteral("https://shop.test:8443"));
    QVERIFY(PublicUrl::parse(QStringLiteral("https://SHOP.test/x"), *overrides).ok());
    QVERIFY(!Origin::parse(QStringLiteral("https://evil.test"), *overrides).ok());
    QVERIFY(!Origin::parse(QStringLiteral("http://shop.test"), *overrides).ok());
    QVERIFY(!Origin::parse(QStringLiteral("https://127.0.0.1"), *overrides).ok());
}

void OriginTest::refusalIsStable()
{
    const Result<Origin> parsed =
        Origin::parse(QStringLiteral("https://secret-host.internal/"), TestOverrides());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, QStringLiteral("tool.browser.url_disallowed"));
    QVERIFY(!parsed.error().message.contains(QStringLiteral("secret")));
}

// A list of origins (--origin, --allow-origin) is read in order, and one bad text refuses it.
void OriginTest::parseAllKeepsOrderAndRefusesWhole()
{
    const Result<QList<Origin>> two = Origin::parseAll(
        {QStringLiteral("https://b.example"), QStringLiteral("https://a.example:8443")},
        TestOverrides());
    QVERIFY(two.ok());
    QCOMPARE(two->size(), 2);
    QCOMPARE(two->at(0).toString(), QStringLiteral("https://b.example"));
    QCOMPARE(two->at(1).toString(), QStringLiteral("https://a.example:8443"));
    const Result<QList<Origin>> bad = Origin::parseAll(
        {QStringLiteral("https://b.example"), QStringLiteral("http://a.example")}, TestOverrides());
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().code, QStringLiteral("tool.browser.url_disallowed"));
    QVERIFY(Origin::parseAll({}, TestOverrides())->isEmpty());
}

QTEST_GUILESS_MAIN(OriginTest)
#include "tst_origin.moc"
