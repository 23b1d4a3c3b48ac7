// Site verification definitions without a browser (docs/signin.md "Which account"): the
// file's strict version-1 format and every rule with its fixed error, and the reading of one
// observation of the protected page: ready evidence as a whole line or one region, account
// evidence as one control whose private facts show exactly the account's text (whole, not a
// field) or one region, everything else failing closed.

#include "domain/signin/SiteVerification.h"
#include "domain/web/TestOverrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

Q_DECLARE_METATYPE(veetbot::BrowserObservation)
Q_DECLARE_METATYPE(std::optional<veetbot::ElementFacts>)

namespace {

const QString kProfile = QStringLiteral("6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f");

QJsonObject site(const QJsonObject &changes = {})
{
    QJsonObject site{{QStringLiteral("id"), QStringLiteral("demo-shop")},
                     {QStringLiteral("version"), 1},
                     {QStringLiteral("profile_id"), kProfile},
                     {QStringLiteral("origin"), QStringLiteral("https://shop.de")},
                     {QStringLiteral("protected_path"), QStringLiteral("/account")},
                     {QStringLiteral("ready"),
                      QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                  {QStringLiteral("text"), QStringLiteral("Your account")}}},
                     {QStringLiteral("account"),
                      QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                                  {QStringLiteral("role"), QStringLiteral("button")},
                                  {QStringLiteral("name"), QStringLiteral("Account menu")},
                                  {QStringLiteral("text"), QStringLiteral("demo@shop.de")}}}};
    for (auto it = changes.constBegin(); it != changes.constEnd(); ++it) {
        if (it.value().isUndefined() || it.value().isNull())
            site.remove(it.key());
        else
            site.insert(it.key(), it.value());
    }
    return site;
}

QByteArray file(const QJsonArray &sites)
{
    return QJsonDocument(
               QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("sites"), sites}})
        .toJson(QJsonDocument::Compact);
}

SiteDefinition definition(const QJsonObject &changes = {})
{
    const Result<SiteCatalog> catalog = SiteCatalog::parse(file({site(changes)}), TestOverrides());
    if (!catalog)
        qFatal("the test's definition does not parse");
    return catalog->sites().constFirst();
}

// The protected page as the intended account sees it: its heading line, the account menu
// button showing the account's address.
BrowserObservation accountPage(const QString &text = QStringLiteral("Your account\nOrders"))
{
    BrowserObservation observation;
    observation.revision = QStringLiteral("r1");
    observation.text = text;
    observation.elements = {
        ElementRecord{
            QStringLiteral("e1"), QStringLiteral("button"), QStringLiteral("Account menu"), {}},
        ElementRecord{QStringLiteral("e2"), QStringLiteral("link"), QStringLiteral("Orders"), {}}};
    return observation;
}

ElementFacts menuFacts(const QString &visible = QStringLiteral("demo@shop.de"))
{
    ElementFacts facts;
    facts.role = QStringLiteral("button");
    facts.accessibleName = QStringLiteral("Account menu");
    facts.visibleText = visible;
    return facts;
}

ElementFactsLookup lookupOf(std::optional<ElementFacts> facts)
{
    return [facts](const QString &ref) -> std::optional<ElementFacts> {
        if (ref == QLatin1String("e1"))
            return facts;
        return std::nullopt;
    };
}

} // namespace

class TestSiteVerification : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aDefinitionParses();
    void refused_data();
    void refused();
    void oneDefinitionPerProfile();
    void boundsOfTheFile();
    void reading_data();
    void reading();
    void aRegionCanServeAsEitherEvidence();
    void aCutShortObservationConfirmsNothing();
    void theAccountLabelIsMasked_data();
    void theAccountLabelIsMasked();
};

void TestSiteVerification::aDefinitionParses()
{
    const SiteDefinition read = definition();
    QCOMPARE(read.id, QStringLiteral("demo-shop"));
    QCOMPARE(read.profileId, QUuid::fromString(kProfile));
    QCOMPARE(read.origin, QStringLiteral("https://shop.de"));
    QCOMPARE(read.protectedUrl(), QUrl(QStringLiteral("https://shop.de/account")));
    QCOMPARE(read.accountLabel(), QStringLiteral("d\u2022\u2022\u2022@shop.de"));
    const SiteDefinition withQuery =
        definition({{QStringLiteral("protected_path"), QStringLiteral("/me?tab=orders")}});
    QCOMPARE(withQuery.protectedUrl(), QUrl(QStringLiteral("https://shop.de/me?tab=orders")));
    // A test host resolves only with the test's settings.
    const QByteArray testHost = file(
        {site({{QStringLiteral("origin"), QStringLiteral("https://demo.veetbot.test:8443")}})});
    QVERIFY(!SiteCatalog::parse(testHost, TestOverrides()).ok());
    const Result<SiteCatalog> resolved = SiteCatalog::parse(
        testHost, *TestOverrides::parseResolve(QStringLiteral("demo.veetbot.test=127.0.0.1")));
    QVERIFY(resolved.ok());
    QCOMPARE(resolved->sites().constFirst().protectedUrl(),
             QUrl(QStringLiteral("https://demo.veetbot.test:8443/account")));
    QVERIFY(resolved->forProfile(QUuid::fromString(kProfile)));
    QVERIFY(!resolved->forProfile(QUuid::createUuid()));
}

void TestSiteVerification::refused_data()
{
    QTest::addColumn<QByteArray>("json");
    const QString marker = QStringLiteral("zqx-marker");
    const auto row = [](const char *name, const QByteArray &json) { QTest::newRow(name) << json; };
    const auto with = [](const char *key, const QJsonValue &value) {
        return file({site({{QLatin1String(key), value}})});
    };
    row("not JSON", "{version: 1");
    row("a duplicate name", R"({"version":1,"version":1,"sites":[]})");
    row("version 2", R"({"version":2,"sites":[]})");
    row("an unknown top member", R"({"version":1,"sites":[],"extra":true})");
    row("sites not a list", R"({"version":1,"sites":{}})");
    row("an unknown member", with("zqx-marker", marker));
    row("no account", with("account", QJsonValue::Null));
    row("an id with capitals", with("id", QStringLiteral("Demo")));
    row("version 0", with("version", 0));
    row("a fractional version", with("version", 1.5));
    row("a profile id that is no id", with("profile_id", marker));
    row("http", with("origin", QStringLiteral("http://shop.de")));
    row("an origin with a path", with("origin", QStringLiteral("https://shop.de/account")));
    row("a loopback origin", with("origin", QStringLiteral("https://127.0.0.1")));
    row("a relative path", with("protected_path", QStringLiteral("account")));
    row("a path up", with("protected_path", QStringLiteral("/a/../admin")));
    row("a path with a fragment", with("protected_path", QStringLiteral("/account#zqx")));
    row("a path with a percent", with("protected_path", QStringLiteral("/%61ccount")));
    row("a selector for a path", with("protected_path", QStringLiteral("#account > .name")));
    row("ready of another kind",
        with("ready", QJsonObject{{QStringLiteral("kind"), QStringLiteral("script")},
                                  {QStringLiteral("text"), marker}}));
    row("ready text empty",
        with("ready", QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                  {QStringLiteral("text"), QString()}}));
    row("ready text of two lines",
        with("ready", QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                  {QStringLiteral("text"), QStringLiteral("Your\naccount")}}));
    row("ready text of 257 units",
        with("ready", QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                  {QStringLiteral("text"), QString(257, u'a')}}));
    row("a ready region of an unknown kind",
        with("ready", QJsonObject{{QStringLiteral("kind"), QStringLiteral("region")},
                                  {QStringLiteral("region_kind"), QStringLiteral("banner")},
                                  {QStringLiteral("name"), QStringLiteral("Account")}}));
    row("an account control of another role",
        with("account", QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                                    {QStringLiteral("role"), QStringLiteral("textbox")},
                                    {QStringLiteral("name"), QStringLiteral("Email")},
                                    {QStringLiteral("text"), QStringLiteral("demo@shop.de")}}));
    row("an account control without text",
        with("account", QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                                    {QStringLiteral("role"), QStringLiteral("button")},
                                    {QStringLiteral("name"), QStringLiteral("Account menu")}}));
    row("an account control with a selector",
        with("account", QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                                    {QStringLiteral("role"), QStringLiteral("button")},
                                    {QStringLiteral("name"), QStringLiteral("Account menu")},
                                    {QStringLiteral("text"), QStringLiteral("demo@shop.de")},
                                    {QStringLiteral("selector"), marker}}));
}

void TestSiteVerification::refused()
{
    QFETCH(QByteArray, json);
    const Result<SiteCatalog> catalog = SiteCatalog::parse(json, TestOverrides());
    QVERIFY(!catalog.ok());
    QCOMPARE(catalog.error().code, QStringLiteral("site_verification.invalid"));
    QVERIFY(!catalog.error().message.isEmpty());
    QVERIFY(!catalog.error().message.contains(QLatin1String("zqx")));
}

void TestSiteVerification::oneDefinitionPerProfile()
{
    const QJsonObject first = site();
    const QJsonObject second = site({{QStringLiteral("id"), QStringLiteral("other")}});
    QVERIFY(!SiteCatalog::parse(file({first, second}), TestOverrides()).ok());
    const QJsonObject elsewhere =
        site({{QStringLiteral("profile_id"), QUuid::createUuid().toString(QUuid::WithoutBraces)}});
    QVERIFY(!SiteCatalog::parse(file({first, elsewhere}), TestOverrides()).ok()); // same id
    const QJsonObject another =
        site({{QStringLiteral("id"), QStringLiteral("other")},
              {QStringLiteral("profile_id"), QUuid::createUuid().toString(QUuid::WithoutBraces)}});
    const Result<SiteCatalog> two = SiteCatalog::parse(file({first, another}), TestOverrides());
    QVERIFY(two.ok());
    QCOMPARE(two->sites().size(), 2);
}

void TestSiteVerification::boundsOfTheFile()
{
    QJsonArray sites;
    for (int i = 0; i < SiteCatalog::kMaxSites; ++i)
        sites.append(site(
            {{QStringLiteral("id"), QStringLiteral("site-%1").arg(i)},
             {QStringLiteral("profile_id"), QUuid::createUuid().toString(QUuid::WithoutBraces)}}));
    QVERIFY(SiteCatalog::parse(file(sites), TestOverrides()).ok());
    sites.append(
        site({{QStringLiteral("id"), QStringLiteral("one-more")},
              {QStringLiteral("profile_id"), QUuid::createUuid().toString(QUuid::WithoutBraces)}}));
    QVERIFY(!SiteCatalog::parse(file(sites), TestOverrides()).ok());
    QByteArray large = file({site()});
    large.insert(large.size() - 1, QByteArray(" ").repeated(SiteCatalog::kMaxFileBytes));
    QCOMPARE(SiteCatalog::parse(large, TestOverrides()).error().code,
             QStringLiteral("site_verification.invalid"));
}

void TestSiteVerification::reading_data()
{
    QTest::addColumn<BrowserObservation>("page");
    QTest::addColumn<std::optional<ElementFacts>>("facts");
    QTest::addColumn<int>("verdict");
    const int verified = int(SiteReading::Verdict::Verified);
    const int notReady = int(SiteReading::Verdict::NotReady);
    const int wrong = int(SiteReading::Verdict::WrongAccount);
    ElementFacts field = menuFacts();
    field.fieldKind = FieldKind::Email;
    ElementFacts cutText = menuFacts();
    cutText.visibleTextWhole = false;
    ElementFacts cutLabel = menuFacts();
    cutLabel.labels = {LabelText{LabelSource::Title, QStringLiteral("Account"), false}};
    BrowserObservation twoMenus = accountPage();
    twoMenus.elements.append(twoMenus.elements.constFirst());
    twoMenus.elements.last().ref = QStringLiteral("e3");
    BrowserObservation asLink = accountPage();
    asLink.elements.first().role = QStringLiteral("link");

    QTest::newRow("the intended account")
        << accountPage() << std::optional(menuFacts()) << verified;
    QTest::newRow("white space in the visible text")
        << accountPage() << std::optional(menuFacts(QStringLiteral("  demo@shop.de\n")))
        << verified;
    QTest::newRow("another account")
        << accountPage() << std::optional(menuFacts(QStringLiteral("other@shop.de"))) << wrong;
    QTest::newRow("the account's name elsewhere on the page")
        << accountPage(QStringLiteral("Your account\ndemo@shop.de"))
        << std::optional(menuFacts(QStringLiteral("other@shop.de"))) << wrong;
    QTest::newRow("no facts for the control")
        << accountPage() << std::optional<ElementFacts>() << wrong;
    QTest::newRow("the account in a field") << accountPage() << std::optional(field) << wrong;
    QTest::newRow("visible text cut short") << accountPage() << std::optional(cutText) << wrong;
    QTest::newRow("a label cut short") << accountPage() << std::optional(cutLabel) << wrong;
    QTest::newRow("two account menus") << twoMenus << std::optional(menuFacts()) << wrong;
    QTest::newRow("a link where a button is named")
        << asLink << std::optional(menuFacts()) << wrong;
    QTest::newRow("the heading inside a line")
        << accountPage(QStringLiteral("Sign in to see Your account")) << std::optional(menuFacts())
        << notReady;
    QTest::newRow("signed out") << accountPage(QStringLiteral("Sign in"))
                                << std::optional(menuFacts()) << notReady;
}

void TestSiteVerification::reading()
{
    QFETCH(BrowserObservation, page);
    QFETCH(std::optional<ElementFacts>, facts);
    QFETCH(int, verdict);
    const SiteReading reading = readSite(definition(), page, lookupOf(facts));
    QCOMPARE(int(reading.verdict), verdict);
    QCOMPARE(reading.readySeen, verdict != int(SiteReading::Verdict::NotReady));
}

void TestSiteVerification::aRegionCanServeAsEitherEvidence()
{
    const SiteDefinition regions = definition(
        {{QStringLiteral("ready"),
          QJsonObject{{QStringLiteral("kind"), QStringLiteral("region")},
                      {QStringLiteral("region_kind"), QStringLiteral("heading")},
                      {QStringLiteral("name"), QStringLiteral("Your account")}}},
         {QStringLiteral("account"),
          QJsonObject{{QStringLiteral("kind"), QStringLiteral("region")},
                      {QStringLiteral("region_kind"), QStringLiteral("status")},
                      {QStringLiteral("name"), QStringLiteral("Signed in as demo@shop.de")}}}});
    QCOMPARE(regions.accountLabel(), QStringLiteral("Signed in as d\u2022\u2022\u2022@shop.de"));
    BrowserObservation page = accountPage(QStringLiteral("Orders"));
    page.regions = {RegionRecord{QStringLiteral("g1"), QStringLiteral("heading"),
                                 QStringLiteral("Your account"), 1, QString(), false}};
    QCOMPARE(readSite(regions, page, {}).verdict, SiteReading::Verdict::WrongAccount);
    page.regions.append(RegionRecord{QStringLiteral("g2"), QStringLiteral("status"),
                                     QStringLiteral("Signed in as demo@shop.de"), 0, QString(),
                                     false});
    QCOMPARE(readSite(regions, page, {}).verdict, SiteReading::Verdict::Verified);
    // Two such regions are no evidence of one account.
    page.regions.append(page.regions.last());
    page.regions.last().ref = QStringLiteral("g3");
    QCOMPARE(readSite(regions, page, {}).verdict, SiteReading::Verdict::WrongAccount);
}

void TestSiteVerification::aCutShortObservationConfirmsNothing()
{
    BrowserObservation page = accountPage();
    QCOMPARE(readSite(definition(), page, lookupOf(menuFacts())).verdict,
             SiteReading::Verdict::Verified);
    page.textCoverage.textLimitReached = true;
    QCOMPARE(readSite(definition(), page, lookupOf(menuFacts())).verdict,
             SiteReading::Verdict::NotReady);
    page = accountPage();
    page.coverage.scanLimitReached = true;
    QCOMPARE(readSite(definition(), page, lookupOf(menuFacts())).verdict,
             SiteReading::Verdict::NotReady);
}

void TestSiteVerification::theAccountLabelIsMasked_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shown");
    const QString mask = QStringLiteral("\u2022\u2022\u2022");
    QTest::newRow("address") << QStringLiteral("demo@shop.de")
                             << QStringLiteral("d") + mask + QStringLiteral("@shop.de");
    QTest::newRow("address among words")
        << QStringLiteral("Konto: anna.berg@example.org (Admin)")
        << QStringLiteral("Konto: a") + mask + QStringLiteral("@example.org (Admin)");
    QTest::newRow("name") << QStringLiteral("Alice Example")
                          << QStringLiteral("A") + mask + QStringLiteral("e");
    QTest::newRow("short name") << QStringLiteral("Bob") << QStringLiteral("B") + mask;
    QTest::newRow("one character") << QStringLiteral("X") << QStringLiteral("X") + mask;
    QTest::newRow("not an address")
        << QStringLiteral("@handle") << QStringLiteral("@") + mask + QStringLiteral("e");
    QTest::newRow("two at signs") << QStringLiteral("a@b@c")
                                  << QStringLiteral("a") + mask + QStringLiteral("c");
    // A character outside the basic plane is kept whole at either end.
    QTest::newRow("surrogates") << QStringLiteral("\U0001F600 smile \U0001F600")
                                << QStringLiteral("\U0001F600") + mask +
                                       QStringLiteral("\U0001F600");
    QTest::newRow("long domain") << QStringLiteral("m@") + QString(80, QLatin1Char('d')) +
                                        QStringLiteral(".de")
                                 << QStringLiteral("m") + mask + QStringLiteral("@") +
                                        QString(58, QLatin1Char('d')) + QChar(0x2026);
}

void TestSiteVerification::theAccountLabelIsMasked()
{
    QFETCH(QString, text);
    QFETCH(QString, shown);
    const SiteDefinition read =
        definition({{QStringLiteral("account"),
                     QJsonObject{{QStringLiteral("kind"), QStringLiteral("control")},
                                 {QStringLiteral("role"), QStringLiteral("button")},
                                 {QStringLiteral("name"), QStringLiteral("Account menu")},
                                 {QStringLiteral("text"), text}}}});
    QCOMPARE(read.accountLabel(), shown);
    QVERIFY(read.accountLabel().size() <= SiteDefinition::kMaxAccountLabelLength);
    QVERIFY(!read.accountLabel().contains(text) || text.size() == 1);
}

QTEST_APPLESS_MAIN(TestSiteVerification)
#include "tst_siteverification.moc"
