// The owner's sign-in in the workbench, as a person does it: a real window under the
// offscreen platform, the fixture site's sign-in form filled with trusted keyboard input,
// "I'm signed in" clicked, and the real profile service verifying the session. The profile
// becomes READY, the agent's browser (`veetbot observe --profile`) sees the account page,
// the view's store is emptied, and the password and the session cookie appear nowhere but at
// the site.

#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "ServiceTestCase.h"
#include "SignInWindow.h"
#include "TestPaths.h"
#include "TrustedInput.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QPushButton>
#include <QTest>
#include <QWebEngineView>

using namespace veetbot;
using testing::BrowserTestHarness;

namespace {
constexpr char kPassword[] = "correct-horse-PASSWORD-CANARY";
constexpr char kSession[] = "good-VIEW-SESSION-CANARY-41";
} // namespace

class TestSignInWindow : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void signingInMakesTheProfileReady();
    void cancellingKeepsNothing();

private:
    EgressProxy *m_proxy = nullptr;
};

void TestSignInWindow::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_proxy = BrowserEnvironment::startEgressProxy(m_harness.overrides(), this);
    QVERIFY(m_proxy);
    fixtures::FixtureServer &site = m_harness.server();
    m_harness.page(QStringLiteral("/login"),
                   "<!doctype html><title>Sign in</title><form method=post action=/login>"
                   "<label>Email <input name=email autocomplete=username autofocus></label>"
                   "<label>Password <input type=password name=password "
                   "autocomplete=current-password></label><button>Sign in</button></form>");
    // The form's answer: the right password gets a session and the account page.
    site.setHandler(QStringLiteral("/login"), [](const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        if (r.method == QLatin1String("POST") &&
            r.body.contains(QByteArray(QByteArray("password=") + kPassword))) {
            response.status = 303;
            response.headers = {{"Location", "/account"},
                                {"Set-Cookie", QByteArray("session=") + kSession +
                                                   "; Secure; HttpOnly; Path=/; Max-Age=3600"}};
            return response;
        }
        response.body = "<!doctype html><title>Sign in</title><form method=post action=/login>"
                        "<label>Email <input name=email autocomplete=username autofocus></label>"
                        "<label>Password <input type=password name=password "
                        "autocomplete=current-password></label><button>Sign in</button></form>";
        return response;
    });
    site.setHandler(QStringLiteral("/account"), [](const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        if (r.header("Cookie").contains(QByteArray(QByteArray("session=") + kSession))) {
            response.body = "<!doctype html><title>Account</title><h1>Your account</h1>";
        } else {
            response.status = 302;
            response.headers = {{"Location", "/login"}};
        }
        return response;
    });
    m_harness.page(QStringLiteral("/control"), "<!doctype html><title>Control</title>");
}

void TestSignInWindow::init()
{
    QVERIFY(setUpService());
}

void TestSignInWindow::cleanup()
{
    QVERIFY(tearDownService());
}

void TestSignInWindow::signingInMakesTheProfileReady()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    SignInWindow window(profile(id), m_harness.overrides(), QUrl(url(QStringLiteral("/login"))));
    window.show();
    // The owner's keyboard goes to the active window.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    SignInView *view = window.signInView();
    QVERIFY(view);
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/login")) == 1; }, 20000));
    QVERIFY(testing::runEventsUntil(
        [view] { return view->view()->page()->title() == QLatin1String("Sign in"); }, 20000));
    QCOMPARE(view->shownOrigin(), m_harness.origin(QStringLiteral("shop.test")));
    // Trusted input into the page, as the owner gives it: a click into each field, then
    // its keys.
    QWidget *input = view->view()->focusProxy();
    QVERIFY(input);
    QVERIFY(testing::clickField(view, QStringLiteral("email")));
    testing::typeInto(input, QStringLiteral("owner@example.com"));
    QVERIFY(testing::clickField(view, QStringLiteral("password")));
    testing::typeInto(input, QString::fromLatin1(kPassword));
    // The screenshot of the view as the owner sees it, the form filled (the password masked),
    // once the compositor has drawn the page.
    QVERIFY(testing::runEventsUntil(
        [view] { return testing::showsText(view->view()->grab().toImage()); }, 10000));
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    QVERIFY(
        window.grab().save(testing::binaryPath(QStringLiteral("screenshots/sign-in-view.png"))));
    testing::press(input, Qt::Key_Return, QStringLiteral("\r"));
    QVERIFY(testing::runEventsUntil(
        [view] { return view->view()->page()->title() == QLatin1String("Account"); }, 20000));
    // Both fields were typed into: the site got the whole form.
    QByteArray posted;
    for (const fixtures::FixtureServer::Request &request : m_harness.server().requests()) {
        if (request.method == QLatin1String("POST") && request.path == QLatin1String("/login"))
            posted = request.body;
    }
    QVERIFY(posted.contains("email=owner%40example.com"));
    bool ended = false;
    bool ready = false;
    QString code;
    connect(&window, &SignInWindow::finished, this, [&](bool isReady, const QString &why) {
        ended = true;
        ready = isReady;
        code = why;
    });
    // The store is emptied once the session is read: a load from the view afterwards (it
    // lives, hidden, until the outcome) carries no cookie.
    bool confirmed = false;
    connect(view, &SignInView::confirmed, this, [&] {
        view->view()->load(QUrl(url(QStringLiteral("/control"))));
        confirmed = true;
    });
    QTest::mouseClick(view->confirmButton(), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&ended] { return ended; }, 60000));
    QVERIFY2(ready, qPrintable(code + QLatin1Char(' ') + window.outcome()));
    QVERIFY(confirmed);
    QVERIFY(testing::runEventsUntil([&window] { return window.signInView() == nullptr; }, 5000));
    QVERIFY(
        window.grab().save(testing::binaryPath(QStringLiteral("screenshots/sign-in-outcome.png"))));
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    QCOMPARE(cookieHeaderOf(QStringLiteral("/control")), QByteArray());
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    QVERIFY(profile(id).lastVerifiedAt.has_value());

    // The agent's browser sees the account page signed in.
    const Run observed =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/account"))});
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    QCOMPARE(QJsonDocument::fromJson(observed.out).object().value(QStringLiteral("title")),
             QJsonValue(QStringLiteral("Account")));
    // Nor what a model would receive of it: the projection.
    const Run projected =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), id, QStringLiteral("--budget"),
             QStringLiteral("4096"), url(QStringLiteral("/account"))});
    QCOMPARE(projected.exitCode, 0);
    // Neither the password nor the session's value is anywhere but at the site.
    for (const Run &ran : {observed, projected})
        QVERIFY(!ran.out.contains(kPassword) && !ran.out.contains(kSession) &&
                !ran.err.contains(kPassword) && !ran.err.contains(kSession));
    QVERIFY(!serviceLog().contains(kPassword) && !serviceLog().contains(kSession));
    int read = 0;
    const QStringList holding = dataFilesHolding({kPassword, kSession}, &read);
    QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u' ')));
    QVERIFY(read >= 3);
}

void TestSignInWindow::cancellingKeepsNothing()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    SignInWindow window(profile(id), m_harness.overrides(), QUrl(url(QStringLiteral("/login"))));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/login")) == 1; }, 20000));
    bool ended = false;
    QString code;
    connect(&window, &SignInWindow::finished, this, [&](bool, const QString &why) {
        ended = true;
        code = why;
    });
    QTest::keyClick(window.signInView()->cancelButton(), Qt::Key_Escape);
    QVERIFY(testing::runEventsUntil([&ended] { return ended; }, 10000));
    QCOMPARE(code, QStringLiteral("cancelled"));
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
}

int main(int argc, char **argv)
{
    // Before the QApplication exists: the sign-in view's Chromium (as root, no sandbox).
    BrowserEnvironment::configureProcess(BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestSignInWindow test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_signinwindow.moc"
