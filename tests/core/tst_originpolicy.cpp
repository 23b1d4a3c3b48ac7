#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

// The exact-origin navigation allowlist.
class OriginPolicyTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyRefused();
    void boundIs64DistinctOrigins();
    void deduplicatesAndSorts();
    void contains();
    void allowsNavigation_data();
    void allowsNavigation();
    void overridesDoNotWidenThePolicy();

private:
    static Origin origin(const QString &text, const TestOverrides &overrides = TestOverrides());
    static QList<Origin> numberedOrigins(int count);
};

Origin OriginPolicyTest::origin(const QString &text, const TestOverrides &overrides)
{
    Result<Origin> parsed = Origin::parse(text, overrides);
    if (!parsed)
        qFatal("test origin does not parse");
    return std::move(parsed).value();
}

QList<Origin> OriginPolicyTest::numberedOrigins(int count)
{
    QList<Origin> origins;
    for (int i = 0; i < count; ++i)
        origins.append(origin(QStringLiteral("https://s%1.shop.de").arg(i)));
    return origins;
}

void OriginPolicyTest::emptyRefused()
{
    const Result<OriginPolicy> policy = OriginPolicy::create({});
    QVERIFY(!policy.ok());
    QVERIFY(policy.error().is(ReasonCode::UrlDisallowed));
}

void OriginPolicyTest::boundIs64DistinctOrigins()
{
    const Result<OriginPolicy> max = OriginPolicy::create(numberedOrigins(64));
    QVERIFY(max.ok());
    QCOMPARE(max->origins().size(), 64);

    const Result<OriginPolicy> over = OriginPolicy::create(numberedOrigins(65));
    QVERIFY(!over.ok());
    QCOMPARE(over.error(), OriginPolicy::tooManyOrigins());
    QCOMPARE(over.error().code, QStringLiteral("origin_policy.too_many"));

    // 64 distinct plus duplicates is counted after de-duplication.
    QList<Origin> withDuplicates = numberedOrigins(64);
    withDuplicates.append(numberedOrigins(10));
    QCOMPARE(withDuplicates.size(), 74);
    const Result<OriginPolicy> deduplicated = OriginPolicy::create(withDuplicates);
    QVERIFY(deduplicated.ok());
    QCOMPARE(deduplicated->origins().size(), 64);
}

void OriginPolicyTest::deduplicatesAndSorts()
{
    const Result<OriginPolicy> policy = OriginPolicy::create({
        origin(QStringLiteral("https://b.shop.de")),
        origin(QStringLiteral("https://a.shop.de:8443")),
        origin(QStringLiteral("https://B.shop.de/")),
        origin(QStringLiteral("https://a.shop.de")),
        origin(QStringLiteral("https://b.shop.de:443")),
    });
    QVERIFY(policy.ok());
    QStringList texts;
    for (const Origin &o : policy->origins())
        texts.append(o.toString());
    QCOMPARE(texts, QStringList({QStringLiteral("https://a.shop.de"),
                                 QStringLiteral("https://a.shop.de:8443"),
                                 QStringLiteral("https://b.shop.de")}));
}

void OriginPolicyTest::contains()
{
    const Result<OriginPolicy> policy =
        OriginPolicy::create({origin(QStringLiteral("https://shop.de"))});
    QVERIFY(policy.ok());
    QVERIFY(policy->contains(origin(QStringLiteral("https://SHOP.de:443/"))));
    QVERIFY(!policy->contains(origin(QStringLiteral("https://shop.de:8443"))));
    QVERIFY(!policy->contains(origin(QStringLiteral("https://www.shop.de"))));
}

void OriginPolicyTest::allowsNavigation_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<bool>("allowed");
    auto row = [](const char *name, const char *url, bool allowed) {
        QTest::newRow(name) << QUrl(QString::fromUtf8(url)) << allowed;
    };
    row("exact", "https://shop.de/", true);
    row("path query fragment", "https://shop.de/cart?id=1#x", true);
    row("explicit default port", "https://shop.de:443/a", true);
    row("upper-case host", "https://SHOP.DE/a", true);
    row("second origin", "https://pay.shop.de:8443/checkout", true);
    row("second origin default port", "https://pay.shop.de/checkout", false);
    row("port mismatch", "https://shop.de:8443/", false);
    row("subdomain", "https://www.shop.de/", false);
    row("parent domain", "https://de/", false);
    row("suffix trick", "https://shop.de.evil.com/", false);
    row("prefix trick", "https://evilshop.de/", false);
    row("http same host", "http://shop.de/", false);
    row("userinfo", "https://shop.de@evil.com/", false);
    row("userinfo on allowed", "https://user@shop.de/", false);
    row("blob of allowed", "blob:https://shop.de/uuid", false);
    row("data", "data:text/html,hi", false);
    row("about", "about:blank", false);
    row("ip literal", "https://127.0.0.1/", false);
    row("empty", "", false);
}

void OriginPolicyTest::allowsNavigation()
{
    QFETCH(QUrl, url);
    QFETCH(bool, allowed);
    const Result<OriginPolicy> policy =
        OriginPolicy::create({origin(QStringLiteral("https://shop.de")),
                              origin(QStringLiteral("https://pay.shop.de:8443"))});
    QVERIFY(policy.ok());
    QCOMPARE(policy->allowsNavigation(url, TestOverrides()), allowed);
}

void OriginPolicyTest::overridesDoNotWidenThePolicy()
{
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1,evil.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    const Result<OriginPolicy> policy =
        OriginPolicy::create({origin(QStringLiteral("https://shop.test:8443"), *overrides)});
    QVERIFY(policy.ok());
    QVERIFY(policy->allowsNavigation(QUrl(QStringLiteral("https://shop.test:8443/x")), *overrides));
    QVERIFY(!policy->allowsNavigation(QUrl(QStringLiteral("https://shop.test/x")), *overrides));
    QVERIFY(!policy->allowsNavigation(QUrl(QStringLiteral("https://evil.test:8443/")), *overrides));
    // Without the overrides the test host is special-use again.
    QVERIFY(!policy->allowsNavigation(QUrl(QStringLiteral("https://shop.test:8443/x")),
                                      TestOverrides()));
}

QTEST_GUILESS_MAIN(OriginPolicyTest)
#include "tst_originpolicy.moc"
