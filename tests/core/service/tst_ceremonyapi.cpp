// The device sign-in routes' bodies, without a socket: every rule and bound of the hand-off
// body, the closed begin, status and cancel bodies, and that what the service's own writers
// send parses back to the same thing.

#include "domain/web/TestOverrides.h"
#include "service/api/CeremonyApi.h"
#include "service/api/HttpApi.h"
#include "service/server/CeremonyRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

class TestCeremonyApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void handoffBodies_data();
    void handoffBodies();
    void aHandoffParsesToWhatWasSent();
    void aHandoffWrittenBackParsesEqual();
    void aTestHostNeedsTheOverrides();
    void ceremonyBodies_data();
    void ceremonyBodies();
    void requestBodiesRoundTrip_data();
    void requestBodiesRoundTrip();
    void aBegunBodyRoundTrips();
    void theViewsFramesAreStrict();
    void statusBodiesRoundTrip_data();
    void statusBodiesRoundTrip();
    void answersAreChecked_data();
    void answersAreChecked();
};

namespace {
const QString kProfileId = QStringLiteral("0b0e0f3a-4c1d-4d7e-9a55-6f3a2b1c0d9e");
const QString kCeremonyId = QStringLiteral("5f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e");
// A value no fixed error body may ever quote.
const QString kSecret = QStringLiteral("secret-1");

QByteArray body(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QString errorCode(const QByteArray &answer)
{
    return QJsonDocument::fromJson(answer)
        .object()
        .value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("code"))
        .toString();
}

QJsonObject cookie(const QString &name = QStringLiteral("sid"),
                   const QString &domain = QStringLiteral("shop.de"))
{
    return {
        {QStringLiteral("name"), name},     {QStringLiteral("value"), kSecret},
        {QStringLiteral("domain"), domain}, {QStringLiteral("path"), QStringLiteral("/")},
        {QStringLiteral("expires"), -1},    {QStringLiteral("httpOnly"), true},
        {QStringLiteral("secure"), true},   {QStringLiteral("sameSite"), QStringLiteral("Lax")}};
}

QJsonObject item(const QString &name, const QString &value = QStringLiteral("1"))
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("value"), value}};
}

QJsonObject origin(const QString &text = QStringLiteral("https://shop.de"),
                   const QJsonArray &items = {item(QStringLiteral("cart"))})
{
    return {{QStringLiteral("origin"), text}, {QStringLiteral("localStorage"), items}};
}

QJsonObject handoff(const QJsonArray &cookies = {cookie()}, const QJsonArray &origins = {origin()})
{
    return {{QStringLiteral("confirmed_url"), QStringLiteral("https://shop.de/account")},
            {QStringLiteral("cookies"), cookies},
            {QStringLiteral("origins"), origins}};
}

// The good body with one member of its one cookie set (an undefined value removes it).
QByteArray withCookie(const char *member, const QJsonValue &value)
{
    QJsonObject changed = cookie();
    if (value.isUndefined())
        changed.remove(QLatin1String(member));
    else
        changed.insert(QLatin1String(member), value);
    return body(handoff({changed}));
}

QByteArray withCookieMembers(std::initializer_list<std::pair<const char *, QJsonValue>> members)
{
    QJsonObject changed = cookie();
    for (const auto &[member, value] : members)
        changed.insert(QLatin1String(member), value);
    return body(handoff({changed}));
}

// The good body with one top-level member set (an undefined value removes it).
QByteArray withTop(const char *member, const QJsonValue &value)
{
    QJsonObject changed = handoff();
    if (value.isUndefined())
        changed.remove(QLatin1String(member));
    else
        changed.insert(QLatin1String(member), value);
    return body(changed);
}

QByteArray withOrigin(const QJsonObject &storage)
{
    return body(handoff({cookie()}, {storage}));
}

// The bytes with `before` written as `after`: JSON the writer would never produce.
QByteArray replaced(QByteArray bytes, const QByteArray &before, const QByteArray &after)
{
    if (!bytes.contains(before))
        qFatal("a test body lacks what a row replaces");
    return bytes.replace(before, after);
}

// "a", the character, "b".
QString around(QChar c)
{
    return QString(QStringLiteral("a") + c + QStringLiteral("b"));
}

QByteArray withItemValueOfSize(qsizetype bodySize)
{
    const qsizetype base = body(handoff({cookie()}, {origin(QStringLiteral("https://shop.de"),
                                                            {item(QStringLiteral("big"), {})})}))
                               .size();
    return body(handoff({cookie()}, {origin(QStringLiteral("https://shop.de"),
                                            {item(QStringLiteral("big"),
                                                  QString(bodySize - base, QLatin1Char('x')))})}));
}

QJsonObject owner()
{
    return {{QStringLiteral("profile_id"), kProfileId},
            {QStringLiteral("tenant_id"), QStringLiteral("tenant-1")},
            {QStringLiteral("principal_id"), QStringLiteral("principal-1")},
            {QStringLiteral("provider_reference"), QStringLiteral("ref-1")}};
}

QJsonObject beginJson()
{
    return {{QStringLiteral("owner"), owner()},
            {QStringLiteral("login_url"), QStringLiteral("https://shop.de/")},
            {QStringLiteral("mode"), QStringLiteral("device")}};
}

QJsonObject statusJson()
{
    return {{QStringLiteral("owner"), owner()}, {QStringLiteral("ceremony_id"), kCeremonyId}};
}

QJsonObject withMember(QJsonObject object, const char *member, const QJsonValue &value)
{
    if (value.isUndefined())
        object.remove(QLatin1String(member));
    else
        object.insert(QLatin1String(member), value);
    return object;
}

QByteArray withOwner(const QJsonObject &json, const char *member, const QJsonValue &value)
{
    return body(withMember(json, "owner", withMember(owner(), member, value)));
}

QByteArray paddedTo(QByteArray bytes, qsizetype size)
{
    return bytes + QByteArray(size - bytes.size(), ' ');
}

CeremonyRegistry::Owner registryOwner()
{
    return {.profileId = QUuid::fromString(kProfileId),
            .tenant = QStringLiteral("tenant-1"),
            .principal = QStringLiteral("principal-1"),
            .providerReference = QStringLiteral("ref-1")};
}
} // namespace

void TestCeremonyApi::handoffBodies_data()
{
    QTest::addColumn<QByteArray>("requestBody");
    QTest::addColumn<bool>("accepted");
    const QJsonValue absent(QJsonValue::Undefined);
    const QByteArray good = body(handoff());

    QTest::newRow("one cookie, one origin") << good << true;
    QTest::newRow("nothing at all") << body(handoff({}, {})) << true;

    // Bounds, at and just over each.
    QJsonArray cookies;
    for (int i = 0; i < 301; ++i)
        cookies.append(cookie(QStringLiteral("c%1").arg(i)));
    QTest::newRow("301 cookies") << body(handoff(cookies, {})) << false;
    cookies.removeLast();
    QTest::newRow("300 cookies") << body(handoff(cookies, {})) << true;
    QJsonArray origins;
    for (int i = 0; i < 65; ++i)
        origins.append(origin(QStringLiteral("https://a%1.shop.de").arg(i)));
    QTest::newRow("65 origins") << body(handoff({}, origins)) << false;
    origins.removeLast();
    QTest::newRow("64 origins") << body(handoff({}, origins)) << true;
    QJsonArray items;
    for (int i = 0; i < 2001; ++i)
        items.append(item(QStringLiteral("i%1").arg(i)));
    QTest::newRow("2001 items") << withOrigin(origin(QStringLiteral("https://shop.de"), items))
                                << false;
    items.removeLast();
    QTest::newRow("2000 items") << withOrigin(origin(QStringLiteral("https://shop.de"), items))
                                << true;
    QTest::newRow("item name of 1024")
        << withOrigin(
               origin(QStringLiteral("https://shop.de"), {item(QString(1024, QLatin1Char('n')))}))
        << true;
    QTest::newRow("item name of 1025")
        << withOrigin(
               origin(QStringLiteral("https://shop.de"), {item(QString(1025, QLatin1Char('n')))}))
        << false;
    QTest::newRow("empty item name")
        << withOrigin(origin(QStringLiteral("https://shop.de"), {item(QString())})) << true;
    QTest::newRow("cookie name of 256")
        << withCookie("name", QString(256, QLatin1Char('n'))) << true;
    QTest::newRow("cookie name of 257")
        << withCookie("name", QString(257, QLatin1Char('n'))) << false;
    // "sid" and the value together.
    QTest::newRow("4096 bytes") << withCookie("value", QString(4093, QLatin1Char('v'))) << true;
    QTest::newRow("4097 bytes") << withCookie("value", QString(4094, QLatin1Char('v'))) << false;
    // Bytes, not characters: 2047 two-byte characters and a name of two or three.
    QTest::newRow("4096 bytes of UTF-8")
        << withCookieMembers({{"name", QStringLiteral("ab")}, {"value", QString(2047, u'é')}})
        << true;
    QTest::newRow("4097 bytes of UTF-8")
        << withCookieMembers({{"name", QStringLiteral("abc")}, {"value", QString(2047, u'é')}})
        << false;
    QTest::newRow("body of 1 MiB") << withItemValueOfSize(CeremonyApi::kMaxHandoffBody) << true;
    QTest::newRow("body of 1 MiB and a byte")
        << withItemValueOfSize(CeremonyApi::kMaxHandoffBody + 1) << false;
    QTest::newRow("1 MiB with trailing space")
        << paddedTo(good, CeremonyApi::kMaxHandoffBody) << true;
    QTest::newRow("1 MiB and a byte of trailing space")
        << paddedTo(good, CeremonyApi::kMaxHandoffBody + 1) << false;

    // Cookie names: printable ASCII other than separators.
    const QList<QPair<const char *, QChar>> separators = {
        {"(", u'('}, {")", u')'}, {"<", u'<'},     {">", u'>'},    {"@", u'@'},
        {",", u','}, {";", u';'}, {":", u':'},     {"\\", u'\\'},  {"\"", u'"'},
        {"/", u'/'}, {"[", u'['}, {"]", u']'},     {"?", u'?'},    {"=", u'='},
        {"{", u'{'}, {"}", u'}'}, {"space", u' '}, {"tab", u'\t'},
    };
    for (const auto &[label, separator] : separators)
        QTest::addRow("separator %s in a name", label)
            << withCookie("name", around(separator)) << false;
    QTest::newRow("empty name") << withCookie("name", QString()) << false;
    QTest::newRow("control character in a name")
        << withCookie("name", around(QChar(0x01))) << false;
    QTest::newRow("DEL in a name") << withCookie("name", around(QChar(0x7f))) << false;
    QTest::newRow("non-ASCII name") << withCookie("name", QStringLiteral("ä")) << false;
    QTest::newRow("printable name")
        << withCookie("name", QStringLiteral("a!#$%&'*+-.^_`|~9")) << true;

    // Cookie values: no control character and no ';'.
    QTest::newRow("NUL in a value") << withCookie("value", QString(QChar(0))) << false;
    QTest::newRow("newline in a value") << withCookie("value", around(u'\n')) << false;
    QTest::newRow("tab in a value") << withCookie("value", around(u'\t')) << false;
    QTest::newRow("0x1f in a value") << withCookie("value", around(QChar(0x1f))) << false;
    QTest::newRow("DEL in a value") << withCookie("value", around(QChar(0x7f))) << false;
    QTest::newRow("';' in a value") << withCookie("value", QStringLiteral("a;b")) << false;
    QTest::newRow("empty value") << withCookie("value", QString()) << true;
    QTest::newRow("space, comma, quote in a value")
        << withCookie("value", QStringLiteral("a b,\"c\"=ü")) << true;

    // Domains: lower-case ASCII, at most one leading dot.
    QTest::newRow("domain cookie") << withCookie("domain", QStringLiteral(".shop.de")) << true;
    QTest::newRow("upper-case domain") << withCookie("domain", QStringLiteral("Shop.de")) << false;
    QTest::newRow("two leading dots") << withCookie("domain", QStringLiteral("..shop.de")) << false;
    QTest::newRow("only a dot") << withCookie("domain", QStringLiteral(".")) << false;
    QTest::newRow("empty domain") << withCookie("domain", QString()) << false;
    QTest::newRow("non-ASCII domain") << withCookie("domain", QStringLiteral("bücher.de")) << false;
    QTest::newRow("punycode domain")
        << withCookie("domain", QStringLiteral("xn--bcher-kva.de")) << true;
    QTest::newRow("domain with a port")
        << withCookie("domain", QStringLiteral("shop.de:443")) << false;
    // Well-formed; scoping drops it (tst_sessionstate).
    QTest::newRow("IP address domain") << withCookie("domain", QStringLiteral("1.2.3.4")) << true;

    // Paths start with '/'.
    QTest::newRow("relative path") << withCookie("path", QStringLiteral("a")) << false;
    QTest::newRow("empty path") << withCookie("path", QString()) << false;
    QTest::newRow("deeper path") << withCookie("path", QStringLiteral("/a/b")) << true;

    // Expiry: -1 or Unix seconds, fractions allowed.
    QTest::newRow("expires -2") << withCookie("expires", -2) << false;
    QTest::newRow("expires -0.5") << withCookie("expires", -0.5) << false;
    QTest::newRow("expires 1.5") << withCookie("expires", 1.5) << true;
    QTest::newRow("expires in seconds") << withCookie("expires", 1890000000.25) << true;
    QTest::newRow("expires -1.0") << replaced(good, "\"expires\":-1", "\"expires\":-1.0") << true;
    QTest::newRow("expires as text") << withCookie("expires", QStringLiteral("-1")) << false;
    QTest::newRow("expires null") << withCookie("expires", QJsonValue::Null) << false;
    QTest::newRow("expires 1e300") << replaced(good, "\"expires\":-1", "\"expires\":1e300") << true;
    // JSON has no NaN or infinity; a number too large for a double is refused, not rounded.
    QTest::newRow("expires 1e400")
        << replaced(good, "\"expires\":-1", "\"expires\":1e400") << false;
    QTest::newRow("expires -1e400")
        << replaced(good, "\"expires\":-1", "\"expires\":-1e400") << false;
    QTest::newRow("expires NaN") << replaced(good, "\"expires\":-1", "\"expires\":NaN") << false;

    // SameSite.
    QTest::newRow("Strict") << withCookie("sameSite", QStringLiteral("Strict")) << true;
    QTest::newRow("None, secure") << withCookie("sameSite", QStringLiteral("None")) << true;
    QTest::newRow("none in lower case") << withCookie("sameSite", QStringLiteral("none")) << false;
    QTest::newRow("empty SameSite") << withCookie("sameSite", QString()) << false;
    QTest::newRow("None without secure")
        << withCookieMembers({{"sameSite", QStringLiteral("None")}, {"secure", false}}) << false;
    QTest::newRow("Lax without secure") << withCookie("secure", false) << true;

    // Prefixes carry their attributes.
    QTest::newRow("__Host-") << withCookie("name", QStringLiteral("__Host-id")) << true;
    QTest::newRow("__Host- without secure")
        << withCookieMembers({{"name", QStringLiteral("__Host-id")}, {"secure", false}}) << false;
    QTest::newRow("__Host- with a domain")
        << withCookieMembers(
               {{"name", QStringLiteral("__Host-id")}, {"domain", QStringLiteral(".shop.de")}})
        << false;
    QTest::newRow("__Host- with path /x")
        << withCookieMembers(
               {{"name", QStringLiteral("__Host-id")}, {"path", QStringLiteral("/x")}})
        << false;
    QTest::newRow("__Secure-") << withCookie("name", QStringLiteral("__Secure-id")) << true;
    QTest::newRow("__Secure- without secure")
        << withCookieMembers({{"name", QStringLiteral("__Secure-id")}, {"secure", false}}) << false;

    // Duplicates.
    QTest::newRow("duplicate cookie") << body(handoff({cookie(), cookie()})) << false;
    QJsonObject otherPath = cookie();
    otherPath.insert(QStringLiteral("path"), QStringLiteral("/a"));
    QTest::newRow("same name, other path") << body(handoff({cookie(), otherPath})) << true;
    QTest::newRow("same name, other domain")
        << body(handoff({cookie(), cookie(QStringLiteral("sid"), QStringLiteral(".shop.de"))}))
        << true;
    QTest::newRow("same name, other case")
        << body(handoff({cookie(), cookie(QStringLiteral("SID"))})) << true;
    QTest::newRow("duplicate origin") << body(handoff({}, {origin(), origin()})) << false;
    QTest::newRow("duplicate item")
        << withOrigin(origin(QStringLiteral("https://shop.de"),
                             {item(QStringLiteral("a")), item(QStringLiteral("a"), {})}))
        << false;
    QTest::newRow("duplicate item once unescaped")
        << replaced(withOrigin(origin(QStringLiteral("https://shop.de"),
                                      {item(QStringLiteral("a")), item(QStringLiteral("b"))})),
                    "\"name\":\"b\"", "\"name\":\"\\u0061\"")
        << false;
    QTest::newRow("same item in two origins")
        << body(handoff({}, {origin(), origin(QStringLiteral("https://www.shop.de"))})) << true;

    // Closed objects: unknown, missing and mistyped members.
    QTest::newRow("unknown member") << withTop("format", 1) << false;
    for (const char *member : {"confirmed_url", "cookies", "origins"})
        QTest::addRow("no %s", member) << withTop(member, absent) << false;
    QTest::newRow("confirmed_url a number") << withTop("confirmed_url", 1) << false;
    QTest::newRow("cookies an object") << withTop("cookies", QJsonObject()) << false;
    QTest::newRow("origins null") << withTop("origins", QJsonValue::Null) << false;
    QTest::newRow("cookie a string") << body(handoff({QStringLiteral("sid=1")}, {})) << false;
    QTest::newRow("unknown cookie member")
        << withCookie("partitionKey", QStringLiteral("x")) << false;
    for (const char *member :
         {"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"})
        QTest::addRow("cookie without %s", member) << withCookie(member, absent) << false;
    QTest::newRow("name a number") << withCookie("name", 1) << false;
    QTest::newRow("value a number") << withCookie("value", 1) << false;
    QTest::newRow("domain a boolean") << withCookie("domain", true) << false;
    QTest::newRow("path null") << withCookie("path", QJsonValue::Null) << false;
    QTest::newRow("httpOnly as text") << withCookie("httpOnly", QStringLiteral("true")) << false;
    QTest::newRow("secure a number") << withCookie("secure", 1) << false;
    QTest::newRow("sameSite null") << withCookie("sameSite", QJsonValue::Null) << false;
    QTest::newRow("origin a string")
        << body(handoff({}, {QStringLiteral("https://shop.de")})) << false;
    QJsonObject sessionStorage = origin();
    sessionStorage.insert(QStringLiteral("sessionStorage"), QJsonArray());
    QTest::newRow("unknown origin member") << withOrigin(sessionStorage) << false;
    QJsonObject noStorage = origin();
    noStorage.remove(QStringLiteral("localStorage"));
    QTest::newRow("origin without localStorage") << withOrigin(noStorage) << false;
    QTest::newRow("localStorage an object")
        << withOrigin(QJsonObject{{QStringLiteral("origin"), QStringLiteral("https://shop.de")},
                                  {QStringLiteral("localStorage"), QJsonObject()}})
        << false;
    QTest::newRow("item a string")
        << withOrigin(origin(QStringLiteral("https://shop.de"), {QStringLiteral("cart")})) << false;
    QTest::newRow("item value a number")
        << withOrigin(origin(QStringLiteral("https://shop.de"),
                             {QJsonObject{{QStringLiteral("name"), QStringLiteral("a")},
                                          {QStringLiteral("value"), 1}}}))
        << false;
    QTest::newRow("item without value")
        << withOrigin(origin(QStringLiteral("https://shop.de"),
                             {QJsonObject{{QStringLiteral("name"), QStringLiteral("a")}}}))
        << false;
    QJsonObject extraItem = item(QStringLiteral("a"));
    extraItem.insert(QStringLiteral("area"), QStringLiteral("local"));
    QTest::newRow("unknown item member")
        << withOrigin(origin(QStringLiteral("https://shop.de"), {extraItem})) << false;

    // The confirmed page: a public HTTPS URL.
    QTest::newRow("confirmed with query and port")
        << withTop("confirmed_url", QStringLiteral("https://shop.de:8443/a?tab=1#top")) << true;
    QTest::newRow("confirmed not HTTPS")
        << withTop("confirmed_url", QStringLiteral("http://shop.de/account")) << false;
    QTest::newRow("confirmed with userinfo")
        << withTop("confirmed_url", QStringLiteral("https://user:pw@shop.de/account")) << false;
    QTest::newRow("confirmed with a user")
        << withTop("confirmed_url", QStringLiteral("https://user@shop.de/account")) << false;
    QTest::newRow("confirmed IPv4 literal")
        << withTop("confirmed_url", QStringLiteral("https://93.184.216.34/account")) << false;
    QTest::newRow("confirmed IPv6 literal")
        << withTop("confirmed_url", QStringLiteral("https://[2606:2800:220:1::1]/")) << false;
    QTest::newRow("confirmed localhost")
        << withTop("confirmed_url", QStringLiteral("https://localhost/account")) << false;
    QTest::newRow("confirmed relative")
        << withTop("confirmed_url", QStringLiteral("/account")) << false;
    QTest::newRow("confirmed empty") << withTop("confirmed_url", QString()) << false;

    // Origins exactly as the service writes them.
    QTest::newRow("origin with a port")
        << withOrigin(origin(QStringLiteral("https://shop.de:8443"))) << true;
    QTest::newRow("origin with a trailing slash")
        << withOrigin(origin(QStringLiteral("https://shop.de/"))) << false;
    QTest::newRow("upper-case origin")
        << withOrigin(origin(QStringLiteral("https://Shop.de"))) << false;
    QTest::newRow("upper-case scheme")
        << withOrigin(origin(QStringLiteral("HTTPS://shop.de"))) << false;
    QTest::newRow("origin with :443")
        << withOrigin(origin(QStringLiteral("https://shop.de:443"))) << false;
    QTest::newRow("origin with a path")
        << withOrigin(origin(QStringLiteral("https://shop.de/a"))) << false;
    QTest::newRow("http origin") << withOrigin(origin(QStringLiteral("http://shop.de"))) << false;
    QTest::newRow("internationalized origin")
        << withOrigin(origin(QStringLiteral("https://bücher.de"))) << false;
    QTest::newRow("punycode origin")
        << withOrigin(origin(QStringLiteral("https://xn--bcher-kva.de"))) << true;

    // The document itself.
    QTest::newRow("empty body") << QByteArray() << false;
    QTest::newRow("not JSON") << QByteArray("{") << false;
    QTest::newRow("an array") << QByteArray("[]") << false;
    QTest::newRow("a string") << QByteArray("\"https://shop.de/\"") << false;
    QTest::newRow("null") << QByteArray("null") << false;
    QTest::newRow("duplicate top-level key")
        << QByteArray(good.chopped(1) + R"(,"origins":[]})") << false;
    QTest::newRow("duplicate cookie key")
        << replaced(good, "\"path\":\"/\"", "\"path\":\"/\",\"path\":\"/a\"") << false;
    QTest::newRow("trailing bytes") << QByteArray(good + "x") << false;
    QTest::newRow("a second document") << QByteArray(good + "{}") << false;
    QTest::newRow("trailing white space") << QByteArray(good + "\r\n") << true;
    QTest::newRow("byte-order mark") << QByteArray("\xEF\xBB\xBF" + good) << false;
    QTest::newRow("invalid UTF-8") << replaced(good, kSecret.toUtf8(), "\xC3\x28") << false;
    QTest::newRow("raw control character") << replaced(good, kSecret.toUtf8(), "a\tb") << false;
}

void TestCeremonyApi::handoffBodies()
{
    QFETCH(QByteArray, requestBody);
    QFETCH(bool, accepted);
    const auto parsed = CeremonyApi::parseHandoff(requestBody, TestOverrides());
    const auto *refused = std::get_if<HttpResponse>(&parsed);
    if (accepted) {
        if (refused)
            QFAIL(refused->body.constData());
        return;
    }
    QVERIFY(refused);
    QCOMPARE(refused->status, 400);
    QCOMPARE(errorCode(refused->body), QStringLiteral("invalid_request"));
    // The fixed body never quotes the request.
    QVERIFY(!refused->body.contains(kSecret.toUtf8()));
    QVERIFY(!refused->body.contains("shop"));
}

void TestCeremonyApi::aHandoffParsesToWhatWasSent()
{
    QJsonObject domainCookie = cookie(QStringLiteral("pref"), QStringLiteral(".shop.de"));
    domainCookie.insert(QStringLiteral("expires"), 1890000000.5);
    domainCookie.insert(QStringLiteral("httpOnly"), false);
    domainCookie.insert(QStringLiteral("sameSite"), QStringLiteral("None"));
    QJsonObject sent = handoff(
        {cookie(), domainCookie},
        {origin(QStringLiteral("https://shop.de"),
                {item(QStringLiteral("cart"), QStringLiteral("[1,2]")), item(QStringLiteral("ü"))}),
         origin(QStringLiteral("https://shop.de:8443"), {})});
    sent.insert(QStringLiteral("confirmed_url"), QStringLiteral("https://SHOP.de/account?tab=1"));
    const auto parsed = CeremonyApi::parseHandoff(body(sent), TestOverrides());
    const auto *received = std::get_if<CeremonyApi::Handoff>(&parsed);
    QVERIFY(received);
    // The confirmed page comes back normalized.
    QCOMPARE(received->confirmedUrl, QUrl(QStringLiteral("https://shop.de/account?tab=1")));
    QCOMPARE(received->state.cookies.size(), 2);
    QCOMPARE(received->state.cookies[0],
             (StoredCookie{QStringLiteral("sid"), kSecret, QStringLiteral("shop.de"),
                           QStringLiteral("/"), -1, true, true, QStringLiteral("Lax")}));
    QCOMPARE(
        received->state.cookies[1],
        (StoredCookie{QStringLiteral("pref"), kSecret, QStringLiteral(".shop.de"),
                      QStringLiteral("/"), 1890000000.5, false, true, QStringLiteral("None")}));
    QCOMPARE(received->state.origins.size(), 2);
    QCOMPARE(received->state.origins[0],
             (OriginStorage{QStringLiteral("https://shop.de"),
                            {{QStringLiteral("cart"), QStringLiteral("[1,2]")},
                             {QStringLiteral("ü"), QStringLiteral("1")}}}));
    QCOMPARE(received->state.origins[1],
             (OriginStorage{QStringLiteral("https://shop.de:8443"), {}}));
}

void TestCeremonyApi::aHandoffWrittenBackParsesEqual()
{
    QJsonObject fractional = cookie(QStringLiteral("pref"), QStringLiteral(".shop.de"));
    fractional.insert(QStringLiteral("expires"), 1890000000.125);
    QJsonObject sent =
        handoff({cookie(), fractional, cookie(QStringLiteral("__Host-id"))},
                {origin(), origin(QStringLiteral("https://www.shop.de"),
                                  {item(QStringLiteral("k"), QStringLiteral("a\nb\"c\\"))})});
    sent.insert(QStringLiteral("confirmed_url"), QStringLiteral("https://shop.de/ä?q=a%20b#x"));
    const auto parsed = CeremonyApi::parseHandoff(body(sent), TestOverrides());
    const auto *first = std::get_if<CeremonyApi::Handoff>(&parsed);
    QVERIFY(first);
    const auto again = CeremonyApi::parseHandoff(
        CeremonyApi::handoffBody(first->confirmedUrl, first->state), TestOverrides());
    const auto *second = std::get_if<CeremonyApi::Handoff>(&again);
    QVERIFY(second);
    QCOMPARE(second->confirmedUrl, first->confirmedUrl);
    QCOMPARE(second->state.cookies, first->state.cookies);
    QCOMPARE(second->state.origins, first->state.origins);
}

void TestCeremonyApi::aTestHostNeedsTheOverrides()
{
    QJsonObject sent = handoff({cookie(QStringLiteral("sid"), QStringLiteral("shop.test"))},
                               {origin(QStringLiteral("https://shop.test"))});
    sent.insert(QStringLiteral("confirmed_url"), QStringLiteral("https://shop.test/account"));
    // A special-use name is not public without the test overrides, in the page or an origin.
    QVERIFY(std::holds_alternative<HttpResponse>(
        CeremonyApi::parseHandoff(body(sent), TestOverrides())));
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    QVERIFY(std::holds_alternative<CeremonyApi::Handoff>(
        CeremonyApi::parseHandoff(body(sent), *overrides)));
    QJsonObject originOnly = handoff({}, {origin(QStringLiteral("https://shop.test"))});
    QVERIFY(std::holds_alternative<HttpResponse>(
        CeremonyApi::parseHandoff(body(originOnly), TestOverrides())));
}

void TestCeremonyApi::ceremonyBodies_data()
{
    QTest::addColumn<int>("operation");
    QTest::addColumn<QByteArray>("requestBody");
    QTest::addColumn<bool>("accepted");
    const QJsonValue absent(QJsonValue::Undefined);
    const int begin = int(CeremonyApi::Operation::Begin);
    const int status = int(CeremonyApi::Operation::Status);
    const int cancel = int(CeremonyApi::Operation::Cancel);
    const QJsonObject b = beginJson();
    const QJsonObject s = statusJson();

    QTest::newRow("begin") << begin << body(b) << true;
    QTest::newRow("status") << status << body(s) << true;
    QTest::newRow("cancel") << cancel << body(s) << true;
    QTest::newRow("begin on a login page")
        << begin << body(withMember(b, "login_url", QStringLiteral("https://shop.de/login?next=1")))
        << true;

    // Begin: mode "remote" (the default) or "device", and a public HTTPS login URL.
    QTest::newRow("mode remote") << begin << body(withMember(b, "mode", QStringLiteral("remote")))
                                 << true;
    QTest::newRow("mode Device") << begin << body(withMember(b, "mode", QStringLiteral("Device")))
                                 << false;
    QTest::newRow("mode hosted") << begin << body(withMember(b, "mode", QStringLiteral("hosted")))
                                 << false;
    QTest::newRow("mode a number") << begin << body(withMember(b, "mode", 1)) << false;
    QTest::newRow("mode null") << begin << body(withMember(b, "mode", QJsonValue())) << false;
    QTest::newRow("no mode: remote") << begin << body(withMember(b, "mode", absent)) << true;
    QTest::newRow("no login URL") << begin << body(withMember(b, "login_url", absent)) << false;
    QTest::newRow("http login URL")
        << begin << body(withMember(b, "login_url", QStringLiteral("http://shop.de/"))) << false;
    QTest::newRow("login URL with userinfo")
        << begin << body(withMember(b, "login_url", QStringLiteral("https://u:p@shop.de/")))
        << false;
    QTest::newRow("IP literal login URL")
        << begin << body(withMember(b, "login_url", QStringLiteral("https://93.184.216.34/")))
        << false;
    QTest::newRow("begin with a ceremony id")
        << begin << body(withMember(b, "ceremony_id", kCeremonyId)) << false;
    QTest::newRow("begin with an unknown member")
        << begin << body(withMember(b, "extra", true)) << false;

    // Status and cancel: a lowercase hyphenated ceremony id, nothing else.
    QTest::newRow("status with a mode")
        << status << body(withMember(s, "mode", QStringLiteral("device"))) << false;
    QTest::newRow("cancel with a login URL")
        << cancel << body(withMember(s, "login_url", QStringLiteral("https://shop.de/"))) << false;
    QTest::newRow("no ceremony id")
        << status << body(withMember(s, "ceremony_id", absent)) << false;
    // Cancel without an id: every ceremony of the owner; a present id must still be one.
    QTest::newRow("cancel without a ceremony id")
        << cancel << body(withMember(s, "ceremony_id", absent)) << true;
    QTest::newRow("cancel with an empty ceremony id")
        << cancel << body(withMember(s, "ceremony_id", QString())) << false;
    QTest::newRow("cancel with a null ceremony id")
        << cancel << body(withMember(s, "ceremony_id", QJsonValue::Null)) << false;
    QTest::newRow("upper-case ceremony id")
        << status << body(withMember(s, "ceremony_id", kCeremonyId.toUpper())) << false;
    QTest::newRow("upper-case ceremony id to cancel")
        << cancel << body(withMember(s, "ceremony_id", kCeremonyId.toUpper())) << false;
    QTest::newRow("ceremony id in braces")
        << status << body(withMember(s, "ceremony_id", QString(u'{' + kCeremonyId + u'}')))
        << false;
    QTest::newRow("ceremony id without hyphens")
        << status << body(withMember(s, "ceremony_id", QString(kCeremonyId).remove(u'-'))) << false;
    QTest::newRow("ceremony id with a newline")
        << status << body(withMember(s, "ceremony_id", QString(kCeremonyId + u'\n'))) << false;
    QTest::newRow("short ceremony id")
        << status << body(withMember(s, "ceremony_id", kCeremonyId.chopped(1))) << false;
    QTest::newRow("ceremony id a number")
        << status << body(withMember(s, "ceremony_id", 7)) << false;

    // The owner: exactly four members, each in its form.
    QTest::newRow("no owner") << begin << body(withMember(b, "owner", absent)) << false;
    QTest::newRow("no owner to cancel") << cancel << body(withMember(s, "owner", absent)) << false;
    QTest::newRow("owner a string") << status << body(withMember(s, "owner", kProfileId)) << false;
    QTest::newRow("owner with an unknown member")
        << status << withOwner(s, "origins", QJsonArray()) << false;
    for (const char *member : {"profile_id", "tenant_id", "principal_id", "provider_reference"})
        QTest::addRow("owner without %s", member) << begin << withOwner(b, member, absent) << false;
    QTest::newRow("upper-case profile id")
        << status << withOwner(s, "profile_id", kProfileId.toUpper()) << false;
    QTest::newRow("profile id in braces")
        << status << withOwner(s, "profile_id", QString(u'{' + kProfileId + u'}')) << false;
    QTest::newRow("profile id not a UUID")
        << status << withOwner(s, "profile_id", QStringLiteral("profile-1")) << false;
    QTest::newRow("empty tenant") << begin << withOwner(b, "tenant_id", QString()) << false;
    QTest::newRow("tenant with a space around")
        << begin << withOwner(b, "tenant_id", QStringLiteral(" tenant-1")) << false;
    QTest::newRow("tenant of 256")
        << begin << withOwner(b, "tenant_id", QString(256, u't')) << true;
    QTest::newRow("tenant of 257")
        << begin << withOwner(b, "tenant_id", QString(257, u't')) << false;
    QTest::newRow("principal a number") << status << withOwner(s, "principal_id", 1) << false;
    QTest::newRow("reference of 257")
        << cancel << withOwner(s, "provider_reference", QString(257, u'r')) << false;

    // The document itself.
    QTest::newRow("not JSON") << status << QByteArray("{") << false;
    QTest::newRow("an array") << begin << QByteArray("[]") << false;
    QTest::newRow("duplicate member")
        << status
        << QByteArray(body(s).chopped(1) + ",\"ceremony_id\":\"" + kCeremonyId.toUtf8() + "\"}")
        << false;
    QTest::newRow("trailing bytes") << cancel << QByteArray(body(s) + "x") << false;
    QTest::newRow("64 KiB") << status << paddedTo(body(s), CeremonyApi::kMaxBody) << true;
    QTest::newRow("64 KiB and a byte")
        << status << paddedTo(body(s), CeremonyApi::kMaxBody + 1) << false;
}

void TestCeremonyApi::ceremonyBodies()
{
    QFETCH(int, operation);
    QFETCH(QByteArray, requestBody);
    QFETCH(bool, accepted);
    const auto parsed =
        CeremonyApi::parse(CeremonyApi::Operation(operation), requestBody, TestOverrides());
    const auto *refused = std::get_if<HttpResponse>(&parsed);
    if (accepted) {
        if (refused)
            QFAIL(refused->body.constData());
        return;
    }
    QVERIFY(refused);
    QCOMPARE(refused->status, 400);
    QCOMPARE(errorCode(refused->body), QStringLiteral("malformed_request"));
    QVERIFY(!refused->body.contains("tenant-1"));
}

void TestCeremonyApi::requestBodiesRoundTrip_data()
{
    QTest::addColumn<int>("operation");
    QTest::addColumn<QString>("ceremonyId");
    QTest::addColumn<int>("mode");
    const int remote = int(ServiceCeremony::Mode::Remote);
    QTest::newRow("begin remote") << int(CeremonyApi::Operation::Begin) << QString() << remote;
    QTest::newRow("begin device") << int(CeremonyApi::Operation::Begin) << QString()
                                  << int(ServiceCeremony::Mode::Device);
    QTest::newRow("status") << int(CeremonyApi::Operation::Status) << kCeremonyId << remote;
    QTest::newRow("cancel") << int(CeremonyApi::Operation::Cancel) << kCeremonyId << remote;
    QTest::newRow("cancel every one") << int(CeremonyApi::Operation::Cancel) << QString() << remote;
}

void TestCeremonyApi::requestBodiesRoundTrip()
{
    QFETCH(int, operation);
    QFETCH(QString, ceremonyId);
    QFETCH(int, mode);
    CeremonyApi::Call call;
    call.operation = CeremonyApi::Operation(operation);
    call.mode = ServiceCeremony::Mode(mode);
    call.owner = registryOwner();
    call.ceremonyId = ceremonyId;
    if (call.operation == CeremonyApi::Operation::Begin)
        call.loginUrl = QUrl(QStringLiteral("https://shop.de/login?next=%2Fa"));
    const auto parsed =
        CeremonyApi::parse(call.operation, CeremonyApi::requestBody(call), TestOverrides());
    const auto *back = std::get_if<CeremonyApi::Call>(&parsed);
    if (!back)
        QFAIL(std::get<HttpResponse>(parsed).body.constData());
    QCOMPARE(int(back->operation), operation);
    QCOMPARE(back->owner, call.owner);
    QCOMPARE(back->ceremonyId, call.ceremonyId);
    QCOMPARE(back->loginUrl, call.loginUrl);
    QCOMPARE(back->mode, call.mode);
}

void TestCeremonyApi::aBegunBodyRoundTrips()
{
    const QDateTime now = QDateTime(QDate(2026, 12, 1), QTime(12, 0, 0, 250), Qt::UTC);
    CeremonyRegistry registry([now] { return now; });
    const Result<CeremonyRegistry::Begun> begun = registry.begin(
        registryOwner(), {QStringLiteral("https://shop.de")}, ServiceCeremony::Mode::Device);
    QVERIFY(begun.ok());
    const std::optional<CeremonyApi::Launch> launch =
        CeremonyApi::parseBegun(CeremonyApi::begunBody(*begun));
    QVERIFY(launch);
    QCOMPARE(launch->ceremonyId, begun->ceremony.id);
    QCOMPARE(launch->expiresAt, begun->ceremony.expiresAt);
    QCOMPARE(launch->expiresAt, now.addMSecs(CeremonyRegistry::kLifeMs));
    const QString path = QString::fromLatin1(CeremonyApi::handoffPath(begun->ceremony.id));
    QCOMPARE(launch->launchPath, QString(path + u'#' + begun->capability));
    // The path part is exactly what the hand-off route matches.
    const QRegularExpression route(
        QRegularExpression::anchoredPattern(CeremonyApi::handoffPattern().pattern()));
    const QRegularExpressionMatch match = route.match(path);
    QVERIFY(match.hasMatch());
    QCOMPARE(match.captured(1), begun->ceremony.id);
    QCOMPARE(launch->capability(), begun->capability.toLatin1());

    // A remote ceremony's launch path opens its view; its capability the same way.
    const Result<CeremonyRegistry::Begun> remote =
        registry.begin(ServiceCeremony::Owner{QUuid::createUuid(), QStringLiteral("t"),
                                              QStringLiteral("p"), QStringLiteral("r")},
                       {QStringLiteral("https://shop.de")}, ServiceCeremony::Mode::Remote);
    QVERIFY(remote.ok());
    const auto remoteLaunch = CeremonyApi::parseBegun(CeremonyApi::begunBody(*remote));
    QVERIFY(remoteLaunch);
    QCOMPARE(remoteLaunch->launchPath, QStringLiteral("/authentication/") + remote->ceremony.id +
                                           QStringLiteral("/view#") + remote->capability);
    QCOMPARE(remoteLaunch->capability(), remote->capability.toLatin1());
    using View = CeremonyApi::ViewOperation;
    for (View operation : {View::Frame, View::Input, View::Finish}) {
        const QRegularExpression viewRoute(
            QRegularExpression::anchoredPattern(CeremonyApi::viewPattern(operation).pattern()));
        const QString viewPath =
            QString::fromLatin1(CeremonyApi::viewPath(remote->ceremony.id, operation));
        QCOMPARE(viewRoute.match(viewPath).captured(1), remote->ceremony.id);
        QVERIFY(!viewRoute.match(viewPath + u'/').hasMatch());
        QVERIFY(!viewRoute.match(viewPath + u'\n').hasMatch());
        QVERIFY(!viewRoute.match(viewPath.toUpper()).hasMatch());
    }
}

void TestCeremonyApi::theViewsFramesAreStrict()
{
    const CeremonyApi::FrameRequest asked{41, QSize(800, 600)};
    const auto back = CeremonyApi::parseFrameRequest(CeremonyApi::frameRequestBody(asked));
    QVERIFY(back);
    QCOMPARE(back->after, quint64(41));
    QCOMPARE(back->max, QSize(800, 600));
    for (const char *bad :
         {R"({"after":1,"max_width":800})", R"({"after":-1,"max_width":800,"max_height":600})",
          R"({"after":1.5,"max_width":800,"max_height":600})",
          R"({"after":1,"max_width":8,"max_height":600})",
          R"({"after":1,"max_width":800,"max_height":60000})",
          R"({"after":1,"max_width":800,"max_height":600,"url":"x"})", R"([1])", ""})
        QVERIFY2(!CeremonyApi::parseFrameRequest(bad), bad);

    const QByteArray jpeg("\xFF\xD8\xFF\xE0 a frame");
    const CeremonyApi::ViewFrame frame{
        7, {jpeg, QSize(640, 400), QUrl(QStringLiteral("https://shop.de/login"))}};
    const auto frameBack = CeremonyApi::parseViewFrame(CeremonyApi::viewFrameBody(frame));
    QVERIFY(frameBack);
    QCOMPARE(frameBack->seq, quint64(7));
    QCOMPARE(frameBack->frame.jpeg, jpeg);
    QCOMPARE(frameBack->frame.page, frame.frame.page);
    // No sequence number, a page with a query, a PNG: refused.
    QVERIFY(!CeremonyApi::parseViewFrame(CeremonyApi::viewFrameBody({0, frame.frame})));
    CeremonyApi::ViewFrame withQuery = frame;
    withQuery.frame.page = QUrl(QStringLiteral("https://shop.de/login?token=1"));
    QVERIFY(!CeremonyApi::parseViewFrame(CeremonyApi::viewFrameBody(withQuery)));
    CeremonyApi::ViewFrame png = frame;
    png.frame.jpeg = QByteArray("\x89PNG....");
    QVERIFY(!CeremonyApi::parseViewFrame(CeremonyApi::viewFrameBody(png)));
}

void TestCeremonyApi::statusBodiesRoundTrip_data()
{
    QTest::addColumn<int>("state");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("account");
    using State = CeremonyRegistry::State;
    QTest::newRow("open") << int(State::Open) << QString() << QString();
    QTest::newRow("verifying") << int(State::Verifying) << QString() << QString();
    QTest::newRow("ready") << int(State::Ready) << QString() << QString();
    QTest::newRow("ready with a confirmed account")
        << int(State::Ready) << QString() << QStringLiteral("d\u2022\u2022\u2022@shop.de");
    QTest::newRow("failed") << int(State::Failed) << QStringLiteral("session_signed_out")
                            << QString();
    QTest::newRow("cancelled") << int(State::Cancelled) << QString() << QString();
    QTest::newRow("expired") << int(State::Expired) << QString() << QString();
}

void TestCeremonyApi::statusBodiesRoundTrip()
{
    QFETCH(int, state);
    QFETCH(QString, code);
    QFETCH(QString, account);
    CeremonyRegistry::Ceremony ceremony;
    ceremony.id = kCeremonyId;
    ceremony.owner = registryOwner();
    ceremony.state = CeremonyRegistry::State(state);
    ceremony.code = code;
    ceremony.account = account;
    const QByteArray written = CeremonyApi::statusBody(ceremony);
    // What the owner reads: nothing of the owner or the profile's origins.
    QVERIFY(!written.contains("tenant-1"));
    const std::optional<CeremonyApi::Status> status = CeremonyApi::parseStatus(written);
    QVERIFY(status);
    QCOMPARE(status->ceremonyId, kCeremonyId);
    QCOMPARE(status->status, CeremonyRegistry::stateName(ceremony.state));
    QCOMPARE(status->code, code);
    QCOMPARE(status->account,
             account.isEmpty() ? std::optional<QString>() : std::optional<QString>(account));
}

void TestCeremonyApi::answersAreChecked_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<bool>("isBegun"); // else a status
    QTest::addColumn<bool>("accepted");
    const QJsonObject begun{{QStringLiteral("ceremony_id"), kCeremonyId},
                            {QStringLiteral("expires_at_ms"), qint64(1890000000000)},
                            {QStringLiteral("status"), QStringLiteral("open")},
                            {QStringLiteral("launch_path"),
                             QStringLiteral("/authentication/%1/handoff#cap").arg(kCeremonyId)}};
    QTest::newRow("begun") << body(begun) << true << true;
    QTest::newRow("begun with an unknown member")
        << body(withMember(begun, "capability", QStringLiteral("cap"))) << true << false;
    QTest::newRow("begun for another ceremony")
        << body(withMember(begun, "ceremony_id",
                           QStringLiteral("6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e")))
        << true << false;
    QTest::newRow("launch path without a capability")
        << body(withMember(begun, "launch_path",
                           QStringLiteral("/authentication/%1/handoff").arg(kCeremonyId)))
        << true << false;
    QTest::newRow("upper-case ceremony id")
        << body(withMember(
               withMember(begun, "ceremony_id", kCeremonyId.toUpper()), "launch_path",
               QStringLiteral("/authentication/%1/handoff#cap").arg(kCeremonyId.toUpper())))
        << true << false;
    QTest::newRow("expiry of zero") << body(withMember(begun, "expires_at_ms", 0)) << true << false;
    QTest::newRow("fractional expiry")
        << body(withMember(begun, "expires_at_ms", 1.5)) << true << false;
    QTest::newRow("expiry as text")
        << body(withMember(begun, "expires_at_ms", QStringLiteral("1890000000000"))) << true
        << false;
    const QJsonObject status{{QStringLiteral("ceremony_id"), kCeremonyId},
                             {QStringLiteral("status"), QStringLiteral("failed")},
                             {QStringLiteral("code"), QStringLiteral("session_empty")}};
    QTest::newRow("status") << body(status) << false << true;
    QTest::newRow("status without a code")
        << body(withMember(status, "code", QJsonValue::Undefined)) << false << true;
    QTest::newRow("status with a code of a number")
        << body(withMember(status, "code", 1)) << false << false;
    QTest::newRow("status without a status")
        << body(withMember(status, "status", QJsonValue::Undefined)) << false << false;
    QTest::newRow("status with an unknown member")
        << body(withMember(status, "owner", owner())) << false << false;
    QTest::newRow("status not JSON") << QByteArray("{") << false << false;
    // The masked account a site definition confirmed: a label, with ready only.
    const QJsonObject ready{
        {QStringLiteral("ceremony_id"), kCeremonyId},
        {QStringLiteral("status"), QStringLiteral("ready")},
        {QStringLiteral("account"), QStringLiteral("d\u2022\u2022\u2022@shop.de")}};
    QTest::newRow("ready with an account") << body(ready) << false << true;
    QTest::newRow("failed with an account")
        << body(withMember(status, "account", QStringLiteral("d@shop.de"))) << false << false;
    QTest::newRow("account above 64 characters")
        << body(withMember(ready, "account", QString(65, QLatin1Char('a')))) << false << false;
    QTest::newRow("account of a number") << body(withMember(ready, "account", 7)) << false << false;
}

void TestCeremonyApi::answersAreChecked()
{
    QFETCH(QByteArray, answer);
    QFETCH(bool, isBegun);
    QFETCH(bool, accepted);
    if (isBegun)
        QCOMPARE(CeremonyApi::parseBegun(answer).has_value(), accepted);
    else
        QCOMPARE(CeremonyApi::parseStatus(answer).has_value(), accepted);
}

QTEST_APPLESS_MAIN(TestCeremonyApi)
#include "tst_ceremonyapi.moc"
