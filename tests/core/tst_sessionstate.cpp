// The sealed session state: the material format (Playwright's storage-state names, version 1),
// every cookie rule, duplicates, bounds, and what scoping to a profile's origins keeps.

#include "domain/SessionState.h"
#include "domain/TestOverrides.h"

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

QTEST_APPLESS_MAIN(TestSessionState)
#include "tst_sessionstate.moc"
