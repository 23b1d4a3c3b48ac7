// The lifecycle routes' request rules, without a socket: closed bodies, the idempotency key,
// matching ids, bounds; and the admission every request passes before its body is read.

#include "domain/web/TestOverrides.h"
#include "service/api/HttpApi.h"
#include "service/api/LifecycleApi.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

class TestLifecycleApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aWellFormedProvisionParses();
    void malformedRequestsAreRefused_data();
    void malformedRequestsAreRefused();
    void theReferenceIsOnlyForRevokeAndDelete();
    void admission_data();
    void admission();
    void admissionChecksTheCredentialBeforeTheBody();
};

namespace {
const QString kId = QStringLiteral("0b0e0f3a-4c1d-4d7e-9a55-6f3a2b1c0d9e");

QByteArray body(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject goodBody()
{
    return {{QStringLiteral("profile_id"), kId},
            {QStringLiteral("tenant_id"), QStringLiteral("tenant-1")},
            {QStringLiteral("principal_id"), QStringLiteral("principal-1")},
            {QStringLiteral("allowed_origins"), QJsonArray{QStringLiteral("https://shop.de")}}};
}

QByteArray key(const char *operation)
{
    return QStringLiteral("browser-profile:%1:%2").arg(kId, QLatin1String(operation)).toLatin1();
}

std::variant<LifecycleApi::Call, HttpResponse> parse(LifecycleApi::Operation operation,
                                                     const QByteArray &idempotencyKey,
                                                     const QByteArray &requestBody,
                                                     const QString &routeId = kId)
{
    return LifecycleApi::parse(operation, routeId, idempotencyKey, requestBody, TestOverrides());
}
} // namespace

void TestLifecycleApi::aWellFormedProvisionParses()
{
    const auto parsed =
        parse(LifecycleApi::Operation::Provision, key("provision"), body(goodBody()));
    const auto *call = std::get_if<LifecycleApi::Call>(&parsed);
    if (!call)
        QFAIL(std::get<HttpResponse>(parsed).body.constData());
    QCOMPARE(call->scope.profileId.toString(QUuid::WithoutBraces), kId);
    QCOMPARE(call->scope.tenant, QStringLiteral("tenant-1"));
    QCOMPARE(call->scope.principal, QStringLiteral("principal-1"));
    QCOMPARE(call->scope.allowedOrigins.size(), 1);
    QVERIFY(!call->providerReference);
    // What a client sends for the same scope parses back to it.
    const auto again = parse(LifecycleApi::Operation::Provision, key("provision"),
                             LifecycleApi::requestBody(call->scope, std::nullopt));
    QVERIFY(std::holds_alternative<LifecycleApi::Call>(again));
}

void TestLifecycleApi::malformedRequestsAreRefused_data()
{
    QTest::addColumn<QByteArray>("idempotencyKey");
    QTest::addColumn<QByteArray>("requestBody");
    QTest::addColumn<QString>("routeId");
    const QByteArray good = key("provision");
    const auto with = [](const char *name, const QJsonValue &value) {
        QJsonObject object = goodBody();
        object.insert(QLatin1String(name), value);
        return body(object);
    };
    const auto without = [](const char *name) {
        QJsonObject object = goodBody();
        object.remove(QLatin1String(name));
        return body(object);
    };
    QTest::newRow("no key") << QByteArray() << body(goodBody()) << kId;
    QTest::newRow("another operation's key") << key("revoke") << body(goodBody()) << kId;
    QTest::newRow("upper-case route id") << good << body(goodBody()) << kId.toUpper();
    QTest::newRow("ids differ") << good
                                << with("profile_id",
                                        QStringLiteral("1b0e0f3a-4c1d-4d7e-9a55-6f3a2b1c0d9e"))
                                << kId;
    QTest::newRow("extra member") << good << with("cookies", QJsonArray()) << kId;
    QTest::newRow("no tenant") << good << without("tenant_id") << kId;
    QTest::newRow("tenant not a string") << good << with("tenant_id", 7) << kId;
    QTest::newRow("empty principal") << good << with("principal_id", QString()) << kId;
    QTest::newRow("long tenant") << good << with("tenant_id", QString(257, QLatin1Char('t')))
                                 << kId;
    QTest::newRow("no origins") << good << with("allowed_origins", QJsonArray()) << kId;
    QTest::newRow("http origin") << good
                                 << with("allowed_origins",
                                         QJsonArray{QStringLiteral("http://example.com")})
                                 << kId;
    QTest::newRow("origin with a path")
        << good << with("allowed_origins", QJsonArray{QStringLiteral("https://shop.de/a")}) << kId;
    QTest::newRow("private origin")
        << good << with("allowed_origins", QJsonArray{QStringLiteral("https://127.0.0.1")}) << kId;
    QTest::newRow("duplicate origin")
        << good
        << with("allowed_origins",
                QJsonArray{QStringLiteral("https://shop.de"), QStringLiteral("https://shop.de")})
        << kId;
    QJsonArray many;
    for (int i = 0; i < 65; ++i)
        many.append(QStringLiteral("https://a%1.shop.de").arg(i));
    QTest::newRow("65 origins") << good << with("allowed_origins", many) << kId;
    QTest::newRow("not JSON") << good << QByteArray("{") << kId;
    QTest::newRow("an array") << good << QByteArray("[]") << kId;
    QTest::newRow("duplicate member")
        << good << QByteArray(body(goodBody()).chopped(1) + ",\"tenant_id\":\"x\"}") << kId;
}

void TestLifecycleApi::malformedRequestsAreRefused()
{
    QFETCH(QByteArray, idempotencyKey);
    QFETCH(QByteArray, requestBody);
    QFETCH(QString, routeId);
    const auto parsed =
        parse(LifecycleApi::Operation::Provision, idempotencyKey, requestBody, routeId);
    const auto *refused = std::get_if<HttpResponse>(&parsed);
    QVERIFY(refused);
    QCOMPARE(refused->status, 400);
    QCOMPARE(refused->body, HttpError::response(HttpError::Kind::MalformedRequest).body);
    // The fixed body never quotes the request.
    QVERIFY(!refused->body.contains("shop"));
}

void TestLifecycleApi::theReferenceIsOnlyForRevokeAndDelete()
{
    QJsonObject withReference = goodBody();
    withReference.insert(QStringLiteral("provider_reference"), QStringLiteral("ref-1"));
    QVERIFY(std::holds_alternative<HttpResponse>(
        parse(LifecycleApi::Operation::Provision, key("provision"), body(withReference))));
    const auto revoke = parse(LifecycleApi::Operation::Revoke, key("revoke"), body(withReference));
    QVERIFY(std::holds_alternative<LifecycleApi::Call>(revoke));
    QCOMPARE(std::get<LifecycleApi::Call>(revoke).providerReference, QStringLiteral("ref-1"));
    const auto remove = parse(LifecycleApi::Operation::Delete, key("delete"), body(goodBody()));
    QVERIFY(std::holds_alternative<LifecycleApi::Call>(remove));
    QVERIFY(!std::get<LifecycleApi::Call>(remove).providerReference);
}

namespace {
QList<HttpRoute> testRoutes()
{
    HttpRoute open;
    open.method = "GET";
    open.pattern = QRegularExpression(QStringLiteral("/health/live"));
    open.access = HttpRoute::Access::Public;
    HttpRoute guarded;
    guarded.method = "POST";
    guarded.pattern = QRegularExpression(QStringLiteral("/v1/things/([a-z]+):make"));
    guarded.maxBody = 100;
    HttpRoute read;
    read.method = "GET";
    read.pattern = QRegularExpression(QStringLiteral("/v1/service"));
    return {open, guarded, read};
}
} // namespace

void TestLifecycleApi::admission_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("contentEncoding");
    QTest::addColumn<QByteArray>("contentLength");
    QTest::addColumn<QByteArray>("transferEncoding");
    QTest::addColumn<int>("status"); // 0: admitted
    const QByteArray bearer = "Bearer right";
    const QByteArray json = "application/json";
    const QByteArray none;
    QTest::newRow("health without a credential") << QByteArray("GET") << QByteArray("/health/live")
                                                 << none << none << none << none << none << 0;
    QTest::newRow("unknown path") << QByteArray("GET") << QByteArray("/docs") << bearer << none
                                  << none << none << none << 404;
    QTest::newRow("known path, other method")
        << QByteArray("POST") << QByteArray("/health/live") << none << json << none
        << QByteArray("2") << none << 404;
    QTest::newRow("prefix of a route") << QByteArray("GET") << QByteArray("/v1/service/x") << bearer
                                       << none << none << none << none << 404;
    QTest::newRow("no credential") << QByteArray("GET") << QByteArray("/v1/service") << none << none
                                   << none << none << none << 401;
    QTest::newRow("wrong credential")
        << QByteArray("GET") << QByteArray("/v1/service") << QByteArray("Bearer wrong") << none
        << none << none << none << 401;
    QTest::newRow("basic scheme") << QByteArray("GET") << QByteArray("/v1/service")
                                  << QByteArray("Basic right") << none << none << none << none
                                  << 401;
    QTest::newRow("credential ok") << QByteArray("GET") << QByteArray("/v1/service") << bearer
                                   << none << none << none << none << 0;
    QTest::newRow("a body on a GET") << QByteArray("GET") << QByteArray("/v1/service") << bearer
                                     << json << none << QByteArray("3") << none << 400;
    QTest::newRow("post ok") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                             << json << none << QByteArray("10") << none << 0;
    QTest::newRow("charset utf-8")
        << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
        << QByteArray("application/json; charset=UTF-8") << none << QByteArray("10") << none << 0;
    QTest::newRow("chunked ok") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                                << json << none << none << QByteArray("chunked") << 0;
    QTest::newRow("text/plain") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                                << QByteArray("text/plain") << none << QByteArray("10") << none
                                << 415;
    QTest::newRow("no content type") << QByteArray("POST") << QByteArray("/v1/things/a:make")
                                     << bearer << none << none << QByteArray("10") << none << 415;
    QTest::newRow("gzip") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer << json
                          << QByteArray("gzip") << QByteArray("10") << none << 415;
    QTest::newRow("identity encoding")
        << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer << json
        << QByteArray("identity") << QByteArray("10") << none << 415;
    QTest::newRow("over the limit") << QByteArray("POST") << QByteArray("/v1/things/a:make")
                                    << bearer << json << none << QByteArray("101") << none << 413;
    QTest::newRow("at the limit") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                                  << json << none << QByteArray("100") << none << 0;
    QTest::newRow("huge length") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                                 << json << none << QByteArray("99999999999999999999") << none
                                 << 400;
    QTest::newRow("signed length") << QByteArray("POST") << QByteArray("/v1/things/a:make")
                                   << bearer << json << none << QByteArray("+5") << none << 400;
    QTest::newRow("no framing") << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer
                                << json << none << none << none << 400;
    QTest::newRow("both framings")
        << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer << json << none
        << QByteArray("10") << QByteArray("chunked") << 400;
    QTest::newRow("gzip transfer")
        << QByteArray("POST") << QByteArray("/v1/things/a:make") << bearer << json << none << none
        << QByteArray("gzip, chunked") << 400;
}

void TestLifecycleApi::admission()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, authorization);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, contentEncoding);
    QFETCH(QByteArray, contentLength);
    QFETCH(QByteArray, transferEncoding);
    QFETCH(int, status);
    const auto optional = [](const QByteArray &value) {
        return value.isNull() ? std::nullopt : std::optional<QByteArray>(value);
    };
    const QList<HttpRoute> routes = testRoutes();
    const auto decision = HttpAdmission::admit(
        routes, method, path,
        {optional(authorization), optional(contentType), optional(contentEncoding),
         optional(contentLength), optional(transferEncoding)},
        [](QByteArrayView presented) { return presented == "right"; });
    if (status == 0) {
        const auto *admitted = std::get_if<HttpAdmission::Admitted>(&decision);
        QVERIFY(admitted);
        if (path.contains("things"))
            QCOMPARE(admitted->parameters, QStringList{QStringLiteral("a")});
    } else {
        QVERIFY(std::holds_alternative<HttpError::Kind>(decision));
        QCOMPARE(HttpError::status(std::get<HttpError::Kind>(decision)), status);
    }
}

void TestLifecycleApi::admissionChecksTheCredentialBeforeTheBody()
{
    // A request wrong in every way is refused for its credential first: nothing about its
    // body is looked at for a caller who is not the service's.
    const QList<HttpRoute> routes = testRoutes();
    const auto decision =
        HttpAdmission::admit(routes, "POST", "/v1/things/a:make",
                             {QByteArray("Bearer wrong"), QByteArray("text/plain"),
                              QByteArray("gzip"), QByteArray("999999"), std::nullopt},
                             [](QByteArrayView presented) { return presented == "right"; });
    QCOMPARE(std::get<HttpError::Kind>(decision), HttpError::Kind::Unauthorized);
}

QTEST_APPLESS_MAIN(TestLifecycleApi)
#include "tst_lifecycleapi.moc"
