#include "domain/ReasonCode.h"
#include "domain/Result.h"

#include <QSet>
#include <QTest>

using namespace veetbot;

class TestReasonCode : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyCodeHasTheSpecifiedWireString();
    void messagesAreFixedAndDistinct();
    void unknownWireStringsAreRejected();
    void errorFromReason();
};

void TestReasonCode::everyCodeHasTheSpecifiedWireString()
{
    // The stable tool.browser.* family, in its fixed order.
    const QStringList expected = {
        QStringLiteral("tool.browser.url_disallowed"),
        QStringLiteral("tool.browser.provider_unavailable"),
        QStringLiteral("tool.browser.navigation_cancelled"),
        QStringLiteral("tool.browser.profile_unavailable"),
        QStringLiteral("tool.browser.authentication_required"),
        QStringLiteral("tool.browser.needs_user"),
        QStringLiteral("tool.browser.page_changed"),
        QStringLiteral("tool.browser.element_not_found"),
        QStringLiteral("tool.browser.region_not_actionable"),
        QStringLiteral("tool.browser.focus_required"),
        QStringLiteral("tool.browser.action_not_allowed"),
        QStringLiteral("tool.browser.grant_not_applicable"),
        QStringLiteral("tool.browser.output_invalid"),
        QStringLiteral("tool.browser.outcome_unknown"),
    };
    QStringList actual;
    for (ReasonCode code : kAllReasonCodes)
        actual.append(reasonCodeString(code));
    QCOMPARE(actual, expected);
}

void TestReasonCode::messagesAreFixedAndDistinct()
{
    QSet<QString> messages;
    for (ReasonCode code : kAllReasonCodes) {
        const QString message = reasonCodeMessage(code);
        QVERIFY(!message.isEmpty());
        QVERIFY(message.endsWith(QLatin1Char('.')));
        QVERIFY(!messages.contains(message));
        messages.insert(message);
        QCOMPARE(reasonCodeMessage(code), message); // fixed: the same every time
    }
}

void TestReasonCode::unknownWireStringsAreRejected()
{
    QVERIFY(!reasonCodeFromString(QStringLiteral("tool.browser.")).has_value());
    QVERIFY(!reasonCodeFromString(QStringLiteral("tool.browser.URL_DISALLOWED")).has_value());
    QVERIFY(!reasonCodeFromString(QString()).has_value());
    for (ReasonCode code : kAllReasonCodes)
        QCOMPARE(reasonCodeFromString(reasonCodeString(code)), std::optional<ReasonCode>(code));
}

void TestReasonCode::errorFromReason()
{
    const Error error = Error::fromReason(ReasonCode::PageChanged);
    QCOMPARE(error.code, QStringLiteral("tool.browser.page_changed"));
    QVERIFY(error.is(ReasonCode::PageChanged));
    QCOMPARE(error.reason(), std::optional<ReasonCode>(ReasonCode::PageChanged));
    const Result<int> failed = ReasonCode::UrlDisallowed;
    QVERIFY(!failed.ok());
    QVERIFY(failed.error().is(ReasonCode::UrlDisallowed));
    const Result<int> ok = 7;
    QCOMPARE(ok.value(), 7);
}

QTEST_GUILESS_MAIN(TestReasonCode)
#include "tst_reasoncode.moc"
