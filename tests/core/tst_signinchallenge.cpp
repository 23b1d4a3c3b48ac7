// The sign-in challenge detector: element facts and the page's private evidence, never values.

#include "domain/signin/SignInChallenge.h"

#include <QTest>

using namespace veetbot;

class TestSignInChallenge : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void detects_data();
    void detects();
};

namespace {
ElementFacts field(const QString &role, const QString &type, const QString &autocomplete)
{
    ElementFacts facts;
    facts.role = role;
    facts.accessibleName = QStringLiteral("Field");
    facts.inputType = type;
    facts.autocomplete = autocomplete;
    return facts;
}
} // namespace

void TestSignInChallenge::detects_data()
{
    QTest::addColumn<QList<ElementFacts>>("elements");
    QTest::addColumn<int>("frames");
    QTest::addColumn<bool>("challenge");
    const ElementFacts search = field(QStringLiteral("searchbox"), QStringLiteral("search"), {});
    const ElementFacts link = field(QStringLiteral("link"), {}, {});
    QTest::newRow("nothing") << QList<ElementFacts>{} << 0 << false;
    QTest::newRow("ordinary page") << QList<ElementFacts>{search, link} << 0 << false;
    QTest::newRow("password field")
        << QList<ElementFacts>{link,
                               field(QStringLiteral("textbox"), QStringLiteral("password"), {})}
        << 0 << true;
    QTest::newRow("current-password")
        << QList<ElementFacts>{field(QStringLiteral("textbox"), QStringLiteral("text"),
                                     QStringLiteral("current-password"))}
        << 0 << true;
    QTest::newRow("one-time code")
        << QList<ElementFacts>{field(QStringLiteral("textbox"), QStringLiteral("text"),
                                     QStringLiteral("one-time-code"))}
        << 0 << true;
    QTest::newRow("first step: account name")
        << QList<ElementFacts>{field(QStringLiteral("textbox"), QStringLiteral("email"),
                                     QStringLiteral("section-login USERNAME"))}
        << 0 << true;
    QTest::newRow("passkey") << QList<ElementFacts>{field(QStringLiteral("textbox"),
                                                          QStringLiteral("text"),
                                                          QStringLiteral("username webauthn"))}
                             << 0 << true;
    QTest::newRow("a name that only contains the word")
        << QList<ElementFacts>{field(QStringLiteral("textbox"), QStringLiteral("text"),
                                     QStringLiteral("usernames"))}
        << 0 << false;
    QTest::newRow("payment field is not a sign-in")
        << QList<ElementFacts>{field(QStringLiteral("textbox"), QStringLiteral("text"),
                                     QStringLiteral("cc-number"))}
        << 0 << false;
    QTest::newRow("a CAPTCHA frame") << QList<ElementFacts>{search} << 1 << true;
    QTest::newRow("several CAPTCHA frames") << QList<ElementFacts>{} << 16 << true;
}

void TestSignInChallenge::detects()
{
    QFETCH(QList<ElementFacts>, elements);
    QFETCH(int, frames);
    QFETCH(bool, challenge);
    QCOMPARE(showsSignInChallenge(elements, PageEvidence{frames}), challenge);
}

QTEST_GUILESS_MAIN(TestSignInChallenge)
#include "tst_signinchallenge.moc"
