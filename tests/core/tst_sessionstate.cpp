// The sealed session state: the material format (Playwright's storage-state names, version 1),
// every cookie rule, duplicates, bounds, and what scoping to a profile's origins keeps.

#include "domain/profile/SessionState.h"
#include "domain/web/TestOverrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace veetbot;

class TestSessionState : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyMaterialIsTheEmptyState();
    void roundTrip();
    void cookieRules_data();
    void cookieRules();
    void malformedMaterialIsRefused_data();
    void malformedMaterialIsRefused();
    void scopingKeepsOnlyTheProfilesOwn();
    void expiriesAreDroppedOrCut();
    void cookieScoping_data();
    void cookieScoping();
    void anInvalidCookieIsNeverKept();
    void expiryScoping_data();
    void expiryScoping();
    void storageScoping_data();
    void storageScoping();
};

namespace {
StoredCookie cookie(const QString &name = QStringLiteral("sid"),
                    const QString &domain = QStringLiteral("shop.de"))
{
    return StoredCookie{name, QStringLiteral("v"),  domain, QStringLiteral("/"), -1, true,
                        true, QStringLiteral("Lax")};
}

QJsonObject cookieJson(const StoredCookie &c)
{
    SessionState state;
    state.cookies = {c};
    return state.toJson().value(QStringLiteral("cookies")).toArray().first().toObject();
}

Result<SessionState> parse(const QByteArray &bytes)
{
    return SessionState::fromMaterial(SecretBytes(bytes), TestOverrides());
}

QList<Origin> origins(const QStringList &texts)
{
    QList<Origin> parsed;
    for (const QString &text : texts) {
        const Result<Origin> origin = Origin::parse(text, TestOverrides());
        if (!origin)
            qFatal("a test origin does not parse");
        parsed.append(*origin);
    }
    return parsed;
}

const QDateTime kNow = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
} // namespace

void TestSessionState::emptyMaterialIsTheEmptyState()
{
    const Result<SessionState> state = parse("{}");
    QVERIFY(state.ok());
    QVERIFY(state->isEmpty());
}

void TestSessionState::roundTrip()
{
    SessionState state;
    state.cookies = {cookie(), cookie(QStringLiteral("pref"), QStringLiteral(".shop.de"))};
    state.cookies[1].expires = 1890000000.5;
    state.cookies[1].sameSite = QStringLiteral("None");
    state.origins = {OriginStorage{
        QStringLiteral("https://shop.de"),
        {{QStringLiteral("cart"), QStringLiteral("[1,2]")}, {QStringLiteral("ü"), QString()}}}};
    const Result<SessionState> back =
        SessionState::fromMaterial(state.toMaterial(), TestOverrides());
    QVERIFY(back.ok());
    QCOMPARE(back->cookies, state.cookies);
    QCOMPARE(back->origins, state.origins);
}

void TestSessionState::cookieRules_data()
{
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<bool>("valid");
    const auto with = [](const char *name, const QJsonValue &value) {
        QJsonObject object = cookieJson(cookie());
        object.insert(QLatin1String(name), value);
        return object;
    };
    QTest::newRow("plain") << cookieJson(cookie()) << true;
    QTest::newRow("domain cookie") << with("domain", QStringLiteral(".shop.de")) << true;
    QTest::newRow("two leading dots") << with("domain", QStringLiteral("..shop.de")) << false;
    QTest::newRow("upper-case domain") << with("domain", QStringLiteral("Shop.de")) << false;
    QTest::newRow("empty name") << with("name", QString()) << false;
    QTest::newRow("separator in name") << with("name", QStringLiteral("a=b")) << false;
    QTest::newRow("space in name") << with("name", QStringLiteral("a b")) << false;
    QTest::newRow("257 characters") << with("name", QString(257, QLatin1Char('n'))) << false;
    QTest::newRow("semicolon in value") << with("value", QStringLiteral("a;b")) << false;
    QTest::newRow("control in value") << with("value", QStringLiteral("a\nb")) << false;
    QTest::newRow("over 4096 bytes") << with("value", QString(4095, QLatin1Char('v'))) << false;
    QTest::newRow("relative path") << with("path", QStringLiteral("a")) << false;
    QTest::newRow("fractional expiry") << with("expires", 1890000000.25) << true;
    QTest::newRow("negative expiry") << with("expires", -2) << false;
    QTest::newRow("expiry as text") << with("expires", QStringLiteral("-1")) << false;
    QTest::newRow("lower-case samesite") << with("sameSite", QStringLiteral("lax")) << false;
    QJsonObject noneInsecure = with("sameSite", QStringLiteral("None"));
    noneInsecure.insert(QStringLiteral("secure"), false);
    QTest::newRow("None without secure") << noneInsecure << false;
    QJsonObject host = with("name", QStringLiteral("__Host-id"));
    QTest::newRow("__Host- ok") << host << true;
    host.insert(QStringLiteral("domain"), QStringLiteral(".shop.de"));
    QTest::newRow("__Host- with a domain") << host << false;
    QJsonObject hostPath = with("name", QStringLiteral("__Host-id"));
    hostPath.insert(QStringLiteral("path"), QStringLiteral("/a"));
    QTest::newRow("__Host- with a path") << hostPath << false;
    QJsonObject secure = with("name", QStringLiteral("__Secure-id"));
    secure.insert(QStringLiteral("secure"), false);
    QTest::newRow("__Secure- insecure") << secure << false;
    QJsonObject extra = cookieJson(cookie());
    extra.insert(QStringLiteral("partitionKey"), QStringLiteral("x"));
    QTest::newRow("extra member") << extra << false;
    QJsonObject missing = cookieJson(cookie());
    missing.remove(QStringLiteral("httpOnly"));
    QTest::newRow("missing member") << missing << false;
}

void TestSessionState::cookieRules()
{
    QFETCH(QJsonObject, json);
    QFETCH(bool, valid);
    const QJsonObject material{{QStringLiteral("format"), 1},
                               {QStringLiteral("cookies"), QJsonArray{json}},
                               {QStringLiteral("origins"), QJsonArray()}};
    const Result<SessionState> state = parse(QJsonDocument(material).toJson());
    QCOMPARE(state.ok(), valid);
    if (!valid) {
        QCOMPARE(state.error().code, QStringLiteral("vault.invalid_material"));
        QVERIFY(!state.error().message.contains(QStringLiteral("sid")));
    }
}

void TestSessionState::malformedMaterialIsRefused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    const QByteArray c = QJsonDocument(cookieJson(cookie())).toJson(QJsonDocument::Compact);
    QTest::newRow("not JSON") << QByteArray("{");
    QTest::newRow("an array") << QByteArray("[]");
    QTest::newRow("format 2") << QByteArray(R"({"format":2,"cookies":[],"origins":[]})");
    QTest::newRow("no origins") << QByteArray(R"({"format":1,"cookies":[]})");
    QTest::newRow("duplicate member")
        << QByteArray(R"({"format":1,"cookies":[],"origins":[],"cookies":[]})");
    QTest::newRow("duplicate cookie")
        << QByteArray(R"({"format":1,"cookies":[)" + c + "," + c + R"(],"origins":[]})");
    QTest::newRow("origin with a path") << QByteArray(
        R"({"format":1,"cookies":[],"origins":[{"origin":"https://shop.de/a","localStorage":[]}]})");
    QTest::newRow("http origin") << QByteArray(
        R"({"format":1,"cookies":[],"origins":[{"origin":"http://shop.de","localStorage":[]}]})");
    QTest::newRow("duplicate origin")
        << QByteArray(R"({"format":1,"cookies":[],"origins":[)"
                      R"({"origin":"https://shop.de","localStorage":[]},)"
                      R"({"origin":"https://shop.de","localStorage":[]}]})");
    QTest::newRow("duplicate item")
        << QByteArray(R"({"format":1,"cookies":[],"origins":[{"origin":"https://shop.de",)"
                      R"("localStorage":[{"name":"a","value":"1"},{"name":"a","value":"2"}]}]})");
    QByteArray many = R"({"format":1,"cookies":[)";
    for (int i = 0; i < 301; ++i) {
        QJsonObject numbered = cookieJson(cookie(QStringLiteral("c%1").arg(i)));
        many += QJsonDocument(numbered).toJson(QJsonDocument::Compact) + (i < 300 ? "," : "");
    }
    many += R"(],"origins":[]})";
    QTest::newRow("301 cookies") << many;
}

void TestSessionState::malformedMaterialIsRefused()
{
    QFETCH(QByteArray, bytes);
    const Result<SessionState> state = parse(bytes);
    QVERIFY(!state.ok());
    QCOMPARE(state.error().code, QStringLiteral("vault.invalid_material"));
}

void TestSessionState::scopingKeepsOnlyTheProfilesOwn()
{
    SessionState state;
    state.cookies = {cookie(QStringLiteral("host"), QStringLiteral("shop.de")),
                     cookie(QStringLiteral("www"), QStringLiteral("www.shop.de")),
                     cookie(QStringLiteral("parent"), QStringLiteral(".shop.de")),
                     cookie(QStringLiteral("other"), QStringLiteral("evil.de")),
                     cookie(QStringLiteral("sibling"), QStringLiteral("api.shop.de"))};
    state.origins = {OriginStorage{QStringLiteral("https://www.shop.de"), {}},
                     OriginStorage{QStringLiteral("https://evil.de"), {}}};
    const QList<Origin> allowed{
        *Origin::parse(QStringLiteral("https://www.shop.de"), TestOverrides())};
    const SessionState scoped = state.scopedTo(allowed, QDateTime::currentDateTimeUtc());
    QStringList names;
    for (const StoredCookie &c : scoped.cookies)
        names << c.name;
    // The allowed host's own cookies and those of its parents; no other host's.
    QCOMPARE(names, QStringList({QStringLiteral("www"), QStringLiteral("parent")}));
    QCOMPARE(scoped.origins.size(), 1);
    QCOMPARE(scoped.origins.first().origin, QStringLiteral("https://www.shop.de"));
}

void TestSessionState::expiriesAreDroppedOrCut()
{
    const QDateTime now = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
    SessionState state;
    state.cookies = {cookie(QStringLiteral("expired")), cookie(QStringLiteral("far")),
                     cookie(QStringLiteral("session"))};
    state.cookies[0].expires = double(now.toSecsSinceEpoch() - 1);
    state.cookies[1].expires = double(now.toSecsSinceEpoch()) + 1000.0 * 24 * 3600;
    const QList<Origin> allowed{*Origin::parse(QStringLiteral("https://shop.de"), TestOverrides())};
    const SessionState scoped = state.scopedTo(allowed, now);
    QCOMPARE(scoped.cookies.size(), 2);
    QCOMPARE(scoped.cookies[0].name, QStringLiteral("far"));
    QCOMPARE(scoped.cookies[0].expires,
             double(now.toSecsSinceEpoch() + SessionState::kMaxLifetimeSeconds));
    QCOMPARE(scoped.cookies[1].expires, -1.0);
}

void TestSessionState::cookieScoping_data()
{
    QTest::addColumn<QStringList>("allowed");
    QTest::addColumn<QString>("domain");
    QTest::addColumn<bool>("kept");
    const QStringList shop{QStringLiteral("https://shop.de")};
    const QStringList www{QStringLiteral("https://www.shop.de")};
    // Host-only cookies: exactly an allowed host.
    QTest::newRow("host-only, the host") << shop << QStringLiteral("shop.de") << true;
    QTest::newRow("host-only, a parent of the host") << www << QStringLiteral("shop.de") << false;
    QTest::newRow("host-only, a child of the host")
        << shop << QStringLiteral("www.shop.de") << false;
    QTest::newRow("host-only, another port")
        << QStringList{QStringLiteral("https://shop.de:8443")} << QStringLiteral("shop.de") << true;
    // Domain cookies: the host or a parent of it that is not a public suffix.
    QTest::newRow("domain, the host") << shop << QStringLiteral(".shop.de") << true;
    QTest::newRow("domain, a parent") << www << QStringLiteral(".shop.de") << true;
    QTest::newRow("domain, a child") << shop << QStringLiteral(".www.shop.de") << false;
    QTest::newRow("domain, a sibling") << www << QStringLiteral(".api.shop.de") << false;
    QTest::newRow("domain, the same ending") << shop << QStringLiteral(".hop.de") << false;
    QTest::newRow("domain, a top-level domain") << shop << QStringLiteral(".de") << false;
    QTest::newRow("domain, an ICANN suffix")
        << QStringList{QStringLiteral("https://shop.co.uk")} << QStringLiteral(".co.uk") << false;
    QTest::newRow("domain, below an ICANN suffix")
        << QStringList{QStringLiteral("https://shop.co.uk")} << QStringLiteral(".shop.co.uk")
        << true;
    QTest::newRow("domain, a wildcard suffix")
        << QStringList{QStringLiteral("https://shop.foo.ck")} << QStringLiteral(".foo.ck") << false;
    QTest::newRow("domain, below a wildcard suffix")
        << QStringList{QStringLiteral("https://shop.foo.ck")} << QStringLiteral(".shop.foo.ck")
        << true;
    QTest::newRow("domain, a wildcard's exception")
        << QStringList{QStringLiteral("https://shop.www.ck")} << QStringLiteral(".www.ck") << true;
    // Private entries of the list count as much as ICANN ones.
    const QStringList pages{QStringLiteral("https://me.github.io")};
    QTest::newRow("domain, a private suffix") << pages << QStringLiteral(".github.io") << false;
    QTest::newRow("domain, below a private suffix")
        << pages << QStringLiteral(".me.github.io") << true;
    QTest::newRow("host-only, below a private suffix")
        << pages << QStringLiteral("me.github.io") << true;
    QTest::newRow("domain, a private suffix among other origins")
        << QStringList{QStringLiteral("https://shop.de"), QStringLiteral("https://me.github.io")}
        << QStringLiteral(".github.io") << false;
    const QStringList blog{QStringLiteral("https://x.blogspot.com")};
    QTest::newRow("domain, blogspot.com") << blog << QStringLiteral(".blogspot.com") << false;
    QTest::newRow("domain, below blogspot.com")
        << blog << QStringLiteral(".x.blogspot.com") << true;
    // Never an address. An origin never names such a host either, so these rows hold
    // whichever of the two refuses it.
    QTest::newRow("host-only, an IP address") << shop << QStringLiteral("1.2.3.4") << false;
    QTest::newRow("domain, an IP address") << shop << QStringLiteral(".1.2.3.4") << false;
    QTest::newRow("domain, an all-digit last label")
        << shop << QStringLiteral(".shop.123") << false;
}

void TestSessionState::cookieScoping()
{
    QFETCH(QStringList, allowed);
    QFETCH(QString, domain);
    QFETCH(bool, kept);
    SessionState state;
    state.cookies = {cookie(QStringLiteral("sid"), domain)};
    QVERIFY(SessionState::isValidCookie(state.cookies.first()));
    const SessionState scoped = state.scopedTo(origins(allowed), kNow);
    QCOMPARE(scoped.cookies.size(), kept ? 1 : 0);
    if (kept)
        QCOMPARE(scoped.cookies.first(), state.cookies.first());
}

void TestSessionState::anInvalidCookieIsNeverKept()
{
    // A state that did not come through the parser: scoping checks each cookie again.
    SessionState state;
    state.cookies = {cookie(QStringLiteral("a")), cookie(QStringLiteral("b;c")),
                     cookie(QStringLiteral("__Host-d"), QStringLiteral(".shop.de"))};
    state.cookies[0].sameSite = QStringLiteral("None");
    state.cookies[0].secure = false;
    const SessionState scoped = state.scopedTo(origins({QStringLiteral("https://shop.de")}), kNow);
    QVERIFY(scoped.cookies.isEmpty());
}

void TestSessionState::expiryScoping_data()
{
    QTest::addColumn<double>("expires");
    QTest::addColumn<bool>("kept");
    QTest::addColumn<double>("keptExpires");
    const double now = double(kNow.toSecsSinceEpoch());
    const double limit = now + double(SessionState::kMaxLifetimeSeconds);
    QTest::newRow("session cookie") << -1.0 << true << -1.0;
    QTest::newRow("expired long ago") << 0.0 << false << 0.0;
    QTest::newRow("expired a second ago") << now - 1 << false << 0.0;
    QTest::newRow("expiring now") << now << false << 0.0;
    QTest::newRow("half a second left") << now + 0.5 << true << now + 0.5;
    QTest::newRow("a day left") << now + 86400 << true << now + 86400;
    QTest::newRow("400 days left") << limit << true << limit;
    QTest::newRow("400 days and a second") << limit + 1 << true << limit;
    QTest::newRow("1000 days") << now + 1000.0 * 86400 << true << limit;
    QTest::newRow("1e300") << 1e300 << true << limit;
}

void TestSessionState::expiryScoping()
{
    QFETCH(double, expires);
    QFETCH(bool, kept);
    QFETCH(double, keptExpires);
    SessionState state;
    state.cookies = {cookie()};
    state.cookies[0].expires = expires;
    const SessionState scoped = state.scopedTo(origins({QStringLiteral("https://shop.de")}), kNow);
    QCOMPARE(scoped.cookies.size(), kept ? 1 : 0);
    if (kept)
        QCOMPARE(scoped.cookies.first().expires, keptExpires);
}

void TestSessionState::storageScoping_data()
{
    QTest::addColumn<QString>("allowed");
    QTest::addColumn<QString>("storage");
    QTest::addColumn<bool>("kept");
    const QString shop = QStringLiteral("https://shop.de");
    QTest::newRow("the origin") << shop << shop << true;
    QTest::newRow("the origin with a port")
        << QStringLiteral("https://shop.de:8443") << QStringLiteral("https://shop.de:8443") << true;
    QTest::newRow("another port") << shop << QStringLiteral("https://shop.de:8443") << false;
    QTest::newRow("the default port of another")
        << QStringLiteral("https://shop.de:8443") << shop << false;
    QTest::newRow("another scheme") << shop << QStringLiteral("http://shop.de") << false;
    QTest::newRow("another scheme and port")
        << shop << QStringLiteral("http://shop.de:443") << false;
    QTest::newRow("explicit :443") << shop << QStringLiteral("https://shop.de:443") << false;
    QTest::newRow("a trailing slash") << shop << QStringLiteral("https://shop.de/") << false;
    QTest::newRow("upper case") << shop << QStringLiteral("https://SHOP.de") << false;
    QTest::newRow("a child host") << shop << QStringLiteral("https://www.shop.de") << false;
    QTest::newRow("a parent host") << QStringLiteral("https://www.shop.de") << shop << false;
}

void TestSessionState::storageScoping()
{
    QFETCH(QString, allowed);
    QFETCH(QString, storage);
    QFETCH(bool, kept);
    SessionState state;
    state.origins = {OriginStorage{storage, {{QStringLiteral("k"), QStringLiteral("v")}}}};
    const SessionState scoped = state.scopedTo(origins({allowed}), kNow);
    QCOMPARE(scoped.origins.size(), kept ? 1 : 0);
    if (kept)
        QCOMPARE(scoped.origins.first(), state.origins.first());
}

QTEST_APPLESS_MAIN(TestSessionState)
#include "tst_sessionstate.moc"
