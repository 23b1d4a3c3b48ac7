// What a task grant or ordinary interaction may type without a fresh approval.

#include "domain/GrantCoverage.h"

#include <QTest>

using namespace veetbot;
using namespace veetbot::GrantCoverage;

class TestGrantCoverage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void typedText_data();
    void typedText();
};

void TestGrantCoverage::typedText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("refusal"); // empty: covered
    QTest::newRow("a search") << QStringLiteral("blue running shoes") << QString();
    QTest::newRow("empty") << QString() << QString();
    QTest::newRow("three digits") << QStringLiteral("size 425") << QString();
    QTest::newRow("digits apart") << QStringLiteral("1 2 3 4 5") << QString();
    QTest::newRow("a year") << QStringLiteral("in 2026") << QStringLiteral("digit_run");
    QTest::newRow("a code") << QStringLiteral("482913") << QStringLiteral("digit_run");
    QTest::newRow("arabic-indic digits")
        << QString::fromUtf8("\u0664\u0665\u0666\u0667") << QStringLiteral("digit_run");
    QTest::newRow("fullwidth digits")
        << QString::fromUtf8("\uFF11\uFF12\uFF13\uFF14") << QStringLiteral("digit_run");
    QTest::newRow("mathematical digits")
        << QString::fromUtf8("\U0001D7CF\U0001D7D0\U0001D7D1\U0001D7D2")
        << QStringLiteral("digit_run");
    QTest::newRow("an email") << QStringLiteral("me@example.org")
                              << QStringLiteral("email_or_handle");
    QTest::newRow("a handle") << QStringLiteral("@someone") << QStringLiteral("email_or_handle");
    QTest::newRow("fullwidth at") << QString::fromUtf8("me\uFF20example")
                                  << QStringLiteral("email_or_handle");
    QTest::newRow("a link") << QStringLiteral("see https://evil.example/x")
                            << QStringLiteral("address");
    QTest::newRow("another scheme") << QStringLiteral("ftp://x") << QStringLiteral("address");
    QTest::newRow("www") << QStringLiteral("go to www.example.org") << QStringLiteral("address");
    QTest::newRow("WWW") << QStringLiteral("WWW.EXAMPLE.ORG") << QStringLiteral("address");
    QTest::newRow("a key") << QStringLiteral("token aB3dE5fG7hJ9kL1mN3pQ5rS7")
                           << QStringLiteral("credential_shape");
    QTest::newRow("a JWT") << QStringLiteral(
                                  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl")
                           << QStringLiteral("credential_shape");
    QTest::newRow("bearer") << QStringLiteral("Bearer abcdefghijklmnopqrstu")
                            << QStringLiteral("credential_shape");
    QTest::newRow("256 characters") << QString(256, u'a') << QString();
    QTest::newRow("257 characters") << QString(257, u'a') << QStringLiteral("too_long");
    // Characters are code points: 256 emoji are 512 UTF-16 units and still covered.
    QString emoji;
    for (int i = 0; i < 256; ++i)
        emoji += QString::fromUtf8("\U0001F600");
    QTest::newRow("256 emoji") << emoji << QString();
    QTest::newRow("257 emoji") << emoji + QString::fromUtf8("\U0001F600")
                               << QStringLiteral("too_long");
    // The first rule broken is the one named.
    QTest::newRow("long email") << QString(300, u'a') + QLatin1Char('@')
                                << QStringLiteral("too_long");
}

void TestGrantCoverage::typedText()
{
    QFETCH(QString, text);
    QFETCH(QString, refusal);
    const std::optional<TextRefusal> refused = refuseTypedText(text);
    QCOMPARE(refused ? textRefusalString(*refused) : QString(), refusal);
}

QTEST_GUILESS_MAIN(TestGrantCoverage)
#include "tst_grantcoverage.moc"
