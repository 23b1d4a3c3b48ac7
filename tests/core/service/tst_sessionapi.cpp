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
