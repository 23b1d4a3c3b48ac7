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
        QStringLiteral("tool.browser.write_requires_approval"),
        QStringLiteral("tool.browser.output_invalid"),
        QStringLiteral("tool.browser.outcome_unknown"),
        QStringLiteral("tool.browser.account_mismatch"),
    };
    QStringList actual;
    for (ReasonCode code : kAllReasonCodes)
        actual.append(reasonCodeString(code));
    QCOMPARE(actual, expected);
}

void TestReasonCode::messagesAreFixedAndDistinct()
{
    // Fixed: each code has exactly this text, the same wherever the failure is made, and it
    // carries nothing from the page or the request. In kAllReasonCodes order.
    const QStringList expected = {
        QStringLiteral("The destination is not an allowed public HTTPS origin."),
        QStringLiteral("The browser could not complete the operation."),
        QStringLiteral("The page cancelled the navigation; the current page remains open. If it "
                       "holds unsaved input, navigate with discard_unsaved: true to leave it; "
                       "nothing is sent."),
        QStringLiteral("The browser profile is not available."),
        QStringLiteral("The browser profile needs the owner to sign in."),
        QStringLiteral("The site needs the owner's attention."),
        QStringLiteral("The page changed; observe it again and use the new references."),
        QStringLiteral("The element is not available for this action."),
        QStringLiteral("A region reference cannot be used for this operation."),
        QStringLiteral("Text continuation needs the matching region focus."),
        QStringLiteral("This action is not allowed."),
        QStringLiteral("No grant covers this action."),
        QStringLiteral("The action would have sent a change to the site; nothing was sent. It "
                       "needs the owner's approval."),
        QStringLiteral("The browser result could not be represented within its bounds."),
        QStringLiteral("The action may have reached the site; it will not be repeated."),
        QStringLiteral("The website shows another account than the profile is for; the owner "
                       "needs to sign in with that account."),
    };
    QStringList actual;
    QSet<QString> messages;
    for (ReasonCode code : kAllReasonCodes) {
        const QString message = reasonCodeMessage(code);
        actual.append(message);
        QVERIFY(message.endsWith(QLatin1Char('.')));
        QVERIFY2(!messages.contains(message), qPrintable(message));
        messages.insert(message);
        QCOMPARE(Error::fromReason(code).message, message);
    }
    QCOMPARE(actual, expected);
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
