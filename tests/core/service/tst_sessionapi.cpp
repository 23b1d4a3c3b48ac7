// The session API's act request: the act and, for an act authorized without a fresh approval,
// its dispatch constraint, both strict.

#include "domain/action/ActRequest.h"
#include "domain/authority/GrantCoverage.h"
#include "service/api/SessionApi.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;

class TestSessionApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void anActCarriesItsConstraint();
    void aMalformedConstraintIsRefused_data();
    void aMalformedConstraintIsRefused();
    void aNavigationCarriesItsFlags();
};

namespace {
SessionApi::Call actCall()
{
    SessionApi::Call call;
    call.operation = SessionApi::Operation::Act;
    call.holder = {QUuid::createUuid(),     QStringLiteral("local"),
                   QStringLiteral("owner"), QStringLiteral("browser-profile"),
                   QStringLiteral("run-1"), 1};
    call.leaseReference = QByteArray(43, 'r');
    call.act = ActRequest::click(QStringLiteral("rev"), QStringLiteral("ab.1")).value();
    call.sequence = 3;
    return call;
}
} // namespace

void TestSessionApi::anActCarriesItsConstraint()
{
    SessionApi::Call call = actCall();
    for (const std::optional<DispatchConstraint> &constraint :
         {std::optional<DispatchConstraint>(),
          std::optional<DispatchConstraint>(DispatchConstraint{}),
          std::optional<DispatchConstraint>(DispatchConstraint{
              DispatchConstraint::Authority::TaskGrant, QStringLiteral("lesson")})}) {
        call.constraint = constraint;
        const auto parsed = SessionApi::parse(SessionApi::Operation::Act,
                                              SessionApi::requestBody(call), TestOverrides());
        QVERIFY(std::holds_alternative<SessionApi::Call>(parsed));
        const SessionApi::Call &back = std::get<SessionApi::Call>(parsed);
        QCOMPARE(back.act, call.act);
        QCOMPARE(back.sequence, call.sequence);
        QCOMPARE(back.constraint, constraint);
    }
}

// A navigation says when the owner approved it (its documents may write) and when it leaves
// unsaved input; each flag only when true, anything else malformed.
void TestSessionApi::aNavigationCarriesItsFlags()
{
    SessionApi::Call call = actCall();
    call.operation = SessionApi::Operation::Navigate;
    call.act.reset();
    call.url = QUrl(QStringLiteral("https://shop.acme-store.com/wp-admin/edit.php"));
    for (const bool approved : {false, true}) {
        for (const bool discard : {false, true}) {
            call.approved = approved;
            call.discardUnsaved = discard;
            const QByteArray body = SessionApi::requestBody(call);
            QCOMPARE(body.contains("approved"), approved);
            const auto parsed =
                SessionApi::parse(SessionApi::Operation::Navigate, body, TestOverrides());
            QVERIFY(std::holds_alternative<SessionApi::Call>(parsed));
            QCOMPARE(std::get<SessionApi::Call>(parsed).approved, approved);
            QCOMPARE(std::get<SessionApi::Call>(parsed).discardUnsaved, discard);
        }
    }
    call.approved = call.discardUnsaved = false;
    QJsonObject body = QJsonDocument::fromJson(SessionApi::requestBody(call)).object();
    for (const auto &[name, value] :
         {std::pair{"approved", QJsonValue(false)}, std::pair{"approved", QJsonValue(1)},
          std::pair{"discard_unsaved", QJsonValue(QStringLiteral("yes"))},
          std::pair{"guarded", QJsonValue(true)}}) {
        QJsonObject bad = body;
        bad.insert(QString::fromLatin1(name), value);
        QVERIFY2(std::holds_alternative<HttpResponse>(SessionApi::parse(
                     SessionApi::Operation::Navigate,
                     QJsonDocument(bad).toJson(QJsonDocument::Compact), TestOverrides())),
                 name);
    }
}

void TestSessionApi::aMalformedConstraintIsRefused_data()
{
    QTest::addColumn<QJsonValue>("constraint");
    QTest::newRow("empty") << QJsonValue(QJsonObject());
    QTest::newRow("unknown authority")
        << QJsonValue(QJsonObject{{QStringLiteral("authority"), QStringLiteral("model")}});
    QTest::newRow("string") << QJsonValue(QStringLiteral("ordinary_interaction"));
    QTest::newRow("null") << QJsonValue(QJsonValue::Null);
    QTest::newRow("grant without prefix")
        << QJsonValue(QJsonObject{{QStringLiteral("authority"), QStringLiteral("task_grant")}});
    QTest::newRow("ordinary with prefix") << QJsonValue(
        QJsonObject{{QStringLiteral("authority"), QStringLiteral("ordinary_interaction")},
                    {QStringLiteral("prefix"), QStringLiteral("a")}});
}

void TestSessionApi::aMalformedConstraintIsRefused()
{
    QFETCH(QJsonValue, constraint);
    QJsonObject body = QJsonDocument::fromJson(SessionApi::requestBody(actCall())).object();
    QVERIFY(!body.isEmpty());
    body.insert(QStringLiteral("constraint"), constraint);
    const auto parsed =
        SessionApi::parse(SessionApi::Operation::Act,
                          QJsonDocument(body).toJson(QJsonDocument::Compact), TestOverrides());
    QVERIFY(std::holds_alternative<HttpResponse>(parsed));
    QCOMPARE(std::get<HttpResponse>(parsed).status, 400);
}

QTEST_GUILESS_MAIN(TestSessionApi)
#include "tst_sessionapi.moc"
