// Site verification definitions through the real profile service and its Chromium (docs/signin.md
// "Which account"): the demo shop as demo.veetbot.test, whose sessions each belong to one
// account, and a private definition file naming the profile's protected page, its ready
// evidence and the intended account. Without the file another account's session is ready (the
// sign-in can only tell a session from none); with it that sign-in is session_wrong_account, a
// definition on a public page is session_public_page, and a sealed session of another account is
// refused before its lease is published (tool.browser.account_mismatch) with the agent's page
// never loaded, closed by the same page loaded with the intended account's session. A file that
// is not private, or not valid, stops the service.

#include "DemoShop.h"
#include "ServiceTestCase.h"

#include <QFile>
#include <QJsonArray>
#include <QTest>

using namespace veetbot;
using namespace veetbot::testing;
using veetbot::fixtures::DemoShop;

namespace {
const QString kShop = QStringLiteral("demo.veetbot.test");
const QByteArray kOther = "other@veetbot.test";
} // namespace

class TestSiteVerification : public ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void withoutADefinitionAnotherAccountIsReady();
    void theDefinitionRefusesAnotherAccountAtSignIn();
    void aDefinitionOnAPublicPageIsRefused();
    void anotherAccountsSessionIsNeverPublished();
    void aFileThatIsNotPrivateOrValidStopsTheService_data();
    void aFileThatIsNotPrivateOrValidStopsTheService();

private:
    // The verification file for the test's profile (useSiteDefinition), with the protected path
    // and ready line given and the demo shop's account; the service reads it at its next start.
    void useDefinition(const QString &protectedPath, const QString &readyLine,
                       QFile::Permissions mode = QFile::ReadOwner | QFile::WriteOwner);
    void restartService();
    Run signIn(const QByteArray &account)
    {
        return signInWithCookie(m_profile, QString::fromLatin1(DemoShop::kCookie),
                                m_shop->issueSession(account), QStringLiteral("/account"), kShop);
    }
    Run observe(const QString &path)
    {
        return run(QStringLiteral("veetbot"),
                   {QStringLiteral("observe"), QStringLiteral("--profile"), m_profile,
                    m_harness.url(kShop, path).toString()});
    }
    int arrivedAt(const QString &path) { return m_harness.server().count(kShop, path); }
    QString definitionFile() const { return m_dir->path() + QStringLiteral("/sites.json"); }

    std::unique_ptr<DemoShop> m_shop;
    QString m_profile;
};

void TestSiteVerification::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_shop = std::make_unique<DemoShop>(m_harness.server());
}

void TestSiteVerification::init()
{
    QVERIFY(setUpService());
    m_profile = createProfile(false, kShop);
    QVERIFY(!m_profile.isEmpty());
    m_harness.server().resetCounters();
}

void TestSiteVerification::cleanup()
{
    QVERIFY(tearDownService());
}

void TestSiteVerification::restartService()
{
    const Run stopped =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")});
    QCOMPARE(stopped.exitCode, 0);
}

void TestSiteVerification::useDefinition(const QString &protectedPath, const QString &readyLine,
                                         QFile::Permissions mode)
{
    QVERIFY(useSiteDefinition(
        m_profile, m_harness.url(kShop, QStringLiteral("/")).adjusted(QUrl::RemovePath).toString(),
        protectedPath, readyLine, QString::fromLatin1(DemoShop::kEmail), mode));
}

void TestSiteVerification::withoutADefinitionAnotherAccountIsReady()
{
    const Run other = signIn(kOther);
    QVERIFY2(other.exitCode == 0, QByteArray(other.out + other.err).constData());
    // No definition, no account: the sign-in can only tell a session from none.
    const QJsonObject signedIn =
        QJsonDocument::fromJson(other.out).object().value(QLatin1String("profile")).toObject();
    QVERIFY(signedIn.contains(QLatin1String("account")));
    QVERIFY(signedIn.value(QLatin1String("account")).isNull());
    const Run observed = observe(QStringLiteral("/account"));
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    QVERIFY(observed.out.contains(kOther));
}

void TestSiteVerification::theDefinitionRefusesAnotherAccountAtSignIn()
{
    useDefinition(QStringLiteral("/account"), QStringLiteral("Your account"));
    const Run other = signIn(kOther);
    QCOMPARE(other.exitCode, 3);
    QCOMPARE(other.errorCode(), QStringLiteral("session_wrong_account"));
    const Run intended = signIn(DemoShop::kEmail);
    QVERIFY2(intended.exitCode == 0, QByteArray(intended.out + intended.err).constData());
    const QJsonObject ready = QJsonDocument::fromJson(intended.out).object();
    QCOMPARE(ready.value(QLatin1String("status")), QJsonValue(QStringLiteral("ready")));
    // The account the definition confirmed, masked, recorded with the session; the address
    // itself is nowhere in the answer.
    const QJsonValue account = ready.value(QLatin1String("profile"))[QLatin1String("account")];
    QCOMPARE(account, QJsonValue(QStringLiteral("d\u2022\u2022\u2022@veetbot.test")));
    QVERIFY(!intended.out.contains(DemoShop::kEmail));
    const Run listed = run(QStringLiteral("veetbot"),
                           {QStringLiteral("profiles"), QStringLiteral("show"), m_profile});
    QVERIFY2(listed.exitCode == 0, QByteArray(listed.out + listed.err).constData());
    QCOMPARE(QJsonDocument::fromJson(listed.out).object().value(QLatin1String("account")), account);
}

void TestSiteVerification::aDefinitionOnAPublicPageIsRefused()
{
    // /about says "Your account" to anyone: it proves nothing of a sign-in.
    useDefinition(QStringLiteral("/about"), QStringLiteral("Your account"));
    const Run intended = signIn(DemoShop::kEmail);
    QCOMPARE(intended.exitCode, 3);
    QCOMPARE(intended.errorCode(), QStringLiteral("session_public_page"));
}

void TestSiteVerification::anotherAccountsSessionIsNeverPublished()
{
    // Sealed without the file, then checked with it before every lease.
    const Run other = signIn(kOther);
    QVERIFY2(other.exitCode == 0, QByteArray(other.out + other.err).constData());
    useDefinition(QStringLiteral("/account"), QStringLiteral("Your account"));
    m_harness.server().resetCounters();
    const Run refused = observe(QStringLiteral("/orders"));
    QCOMPARE(refused.exitCode, 3);
    QVERIFY2(refused.out.contains("tool.browser.account_mismatch") ||
                 refused.err.contains("tool.browser.account_mismatch"),
             QByteArray(refused.out + refused.err).constData());
    QVERIFY(arrivedAt(QStringLiteral("/account")) >= 1); // the check's own read
    // The positive control: the intended account's session is published, and the agent's page
    // arrives; the refused lease never loaded it.
    const Run intended = signIn(DemoShop::kEmail);
    QVERIFY2(intended.exitCode == 0, QByteArray(intended.out + intended.err).constData());
    const Run observed = observe(QStringLiteral("/orders"));
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    QCOMPARE(arrivedAt(QStringLiteral("/orders")), 1);
    // Without the file the same other account's session is used again (today's behaviour).
    const Run otherAgain = signIn(kOther);
    QCOMPARE(otherAgain.exitCode, 3);
    m_extraEnvironment.remove(QStringLiteral("VEETBOT_PROFILE_VERIFICATION_FILE"));
    restartService();
    const Run unchecked = signIn(kOther);
    QVERIFY2(unchecked.exitCode == 0, QByteArray(unchecked.out + unchecked.err).constData());
    const Run used = observe(QStringLiteral("/orders"));
    QVERIFY2(used.exitCode == 0, QByteArray(used.out + used.err).constData());
    QCOMPARE(arrivedAt(QStringLiteral("/orders")), 2);
}

void TestSiteVerification::aFileThatIsNotPrivateOrValidStopsTheService_data()
{
    QTest::addColumn<bool>("readable");
    QTest::addColumn<QString>("code");
    QTest::newRow("readable by others")
        << true << QStringLiteral("site_verification.file_not_private");
    QTest::newRow("not valid") << false << QStringLiteral("site_verification.invalid");
}

void TestSiteVerification::aFileThatIsNotPrivateOrValidStopsTheService()
{
    QFETCH(bool, readable);
    QFETCH(QString, code);
    useDefinition(QStringLiteral("/account"), QStringLiteral("Your account"),
                  readable ? QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther
                           : QFile::ReadOwner | QFile::WriteOwner);
    if (!readable) {
        QFile file(definitionFile());
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(file.write("{\"version\":1,\"sites\":[{\"id\":\"x\"}]}") > 0);
    }
    // The service itself, as its unit starts it: it ends at once, naming the code alone.
    const Run served = run(QStringLiteral("veetbot-profile-service"), {QStringLiteral("serve")});
    QVERIFY(served.exitCode != 0);
    QVERIFY2(served.err.contains(code.toUtf8()), served.err.constData());
    QVERIFY(!served.err.contains("test-site"));
    m_extraEnvironment.remove(QStringLiteral("VEETBOT_PROFILE_VERIFICATION_FILE"));
}

QTEST_MAIN(TestSiteVerification)
#include "tst_site_verification.moc"
