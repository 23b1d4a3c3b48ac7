// The remote sign-in as a person does it: the workbench's window showing the profile service's
// own Chromium, the owner's trusted mouse and keyboard input into that picture, "I'm signed
// in", and the service verifying and sealing what its browser holds. Also a sign-in the site
// refused, a login address the site sends off the profile's origins, Cancel, and expiry; the
// owner's password nowhere but at the site; and a site verification definition (docs/signin.md
// "Which account") refusing a sign-in as another account than the profile's.

#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "RemoteInput.h"
#include "ServiceTestCase.h"
#include "TestPaths.h"
#include "TrustedInput.h"
#include "client/WebsiteAccess.h"

#include "SignInWindow.h"
#include "WebsiteAccessWindow.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QRandomGenerator>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>
#include <QUrlQuery>

using namespace veetbot;
using testing::BrowserTestHarness;

namespace {
constexpr char kPassword[] = "remote-horse-PASSWORD-CANARY";
constexpr char kSession[] = "good-REMOTE-SESSION-CANARY-29";
// The team site (/team/login, /team/account): two accounts, each with its own sessions.
constexpr char kOwner[] = "owner@example.com";
constexpr char kColleague[] = "colleague@example.com";
constexpr char kTeamCookie[] = "team_session";

} // namespace

class TestRemoteSignIn : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void signingInThroughTheViewMakesTheProfileReady();
    void aSignInTheSiteRefusedIsSignedOut();
    void aLoginAddressSentOffTheOriginsIsRefused();
    void cancelAndExpiryKeepNothing();
    void websiteAccessOffersThreeWays();
    void aSignInThroughAnAccountsHostWorksWhenListed();
    void theDefinitionRefusesAnotherAccountThroughTheView();

private:
    struct Ending
    {
        bool ended = false;
        bool ready = false;
        QString code;
    };
    // A shown window for `profileId` at `path`, its first frame drawn (false: it ended first).
    bool openWindow(RemoteSignInWindow &window, Ending &ending);
    void writeClock(qint64 aheadMs);
    // No ceremony of the profile is open in the orchestration record.
    static bool noOpenCeremony(const QString &profileId);
    // The requests since the counters' reset that carried `account`'s team session.
    int carryingSessionOf(const QByteArray &account);

    QHash<QByteArray, QByteArray> m_teamSessions; // cookie value: account
};

void TestRemoteSignIn::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    fixtures::FixtureServer &site = m_harness.server();
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
        response.body = testing::placedSignInForm();
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
    // A sign-in through an accounts host of another origin (cdn.test stands in for it): the
    // site sends the visitor there, the accounts host's form answers with a code, and the
    // site's callback sets the session.
    const auto redirect = [](int status, const QUrl &to) {
        fixtures::FixtureServer::Response response;
        response.status = status;
        response.headers = {{"Location", to.toEncoded()}};
        return response;
    };
    site.setRoute(
        QStringLiteral("/sso-login"),
        redirect(302, m_harness.url(QStringLiteral("cdn.test"), QStringLiteral("/authorize"))));
    site.setHandler(QStringLiteral("/authorize"), [this](
                                                      const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        if (r.method == QLatin1String("POST") &&
            r.body.contains(QByteArray(QByteArray("password=") + kPassword))) {
            response.status = 303;
            response.headers = {
                {"Location",
                 m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/sso-callback"))
                     .toEncoded()}};
            return response;
        }
        response.body = testing::placedSignInForm().replace("action=/login", "action=/authorize");
        return response;
    });
    site.setHandler(QStringLiteral("/sso-callback"), [](const fixtures::FixtureServer::Request &) {
        fixtures::FixtureServer::Response response;
        response.status = 303;
        response.headers = {{"Location", "/account"},
                            {"Set-Cookie", QByteArray("session=") + kSession +
                                               "; Secure; HttpOnly; Path=/; Max-Age=3600"}};
        return response;
    });
    // The team site: the placed form signs either account in with its own session, and the
    // account page says whose it is, in a button named "Account menu" showing the address.
    site.setHandler(QStringLiteral("/team/login"), [this](
                                                       const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        const QUrlQuery form(QString::fromUtf8(r.body));
        const QByteArray email =
            form.queryItemValue(QStringLiteral("email"), QUrl::FullyDecoded).toUtf8();
        if (r.method == QLatin1String("POST") && (email == kOwner || email == kColleague) &&
            form.queryItemValue(QStringLiteral("password"), QUrl::FullyDecoded) ==
                QLatin1String(kPassword)) {
            const QByteArray session =
                QByteArray::number(QRandomGenerator::system()->generate64(), 16);
            m_teamSessions.insert(session, email);
            response.status = 303;
            response.headers = {{"Location", "/team/account"},
                                {"Set-Cookie", QByteArray(kTeamCookie) + '=' + session +
                                                   "; Secure; HttpOnly; Path=/; Max-Age=3600"}};
            return response;
        }
        response.body = testing::placedSignInForm().replace("action=/login", "action=/team/login");
        return response;
    });
    site.setHandler(
        QStringLiteral("/team/account"), [this](const fixtures::FixtureServer::Request &r) {
            fixtures::FixtureServer::Response response;
            QByteArray account;
            for (const QByteArray &part : r.header("Cookie").split(';')) {
                const QByteArray cookie = part.trimmed();
                if (cookie.startsWith(QByteArray(QByteArray(kTeamCookie) + '=')))
                    account = m_teamSessions.value(cookie.mid(qstrlen(kTeamCookie) + 1));
            }
            if (account.isEmpty()) {
                response.status = 302;
                response.headers = {{"Location", "/team/login"}};
                return response;
            }
            response.body = "<!doctype html><title>Team account</title><h1>Your account</h1>"
                            "<p><button type=button aria-label=\"Account menu\">" +
                            account + "</button></p>";
            return response;
        });
    // The website's own move to its www name, before any sign-in.
    site.setRoute(
        QStringLiteral("/moved"),
        redirect(301, m_harness.url(QStringLiteral("www.shop.test"), QStringLiteral("/login"))));
}

void TestRemoteSignIn::init()
{
    QVERIFY(setUpService());
}

void TestRemoteSignIn::cleanup()
{
    QVERIFY(tearDownService());
}

bool TestRemoteSignIn::noOpenCeremony(const QString &profileId)
{
    const Result<MetadataStore> store = openMetadataStore({});
    const auto open =
        store ? store->repository->profiles().newestOpenCeremony(store->scope(), QUuid(profileId))
              : Result<std::optional<AuthenticationCeremony>>(store.error());
    return open && !open->has_value();
}

bool TestRemoteSignIn::openWindow(RemoteSignInWindow &window, Ending &ending)
{
    connect(&window, &RemoteSignInWindow::finished, this,
            [&ending](bool ready, const QString &code) {
                ending = {true, ready, code};
            });
    window.show();
    window.activateWindow();
    if (!QTest::qWaitForWindowActive(&window))
        return false;
    return testing::runEventsUntil(
               [&window, &ending] { return ending.ended || window.screen()->hasFrame(); }, 60000) &&
           !ending.ended;
}

int TestRemoteSignIn::carryingSessionOf(const QByteArray &account)
{
    int carrying = 0;
    for (const fixtures::FixtureServer::Request &request : m_harness.server().requests()) {
        for (auto it = m_teamSessions.cbegin(); it != m_teamSessions.cend(); ++it) {
            if (it.value() == account && request.header("Cookie").contains(
                                             QByteArray(QByteArray(kTeamCookie) + '=' + it.key())))
                ++carrying;
        }
    }
    return carrying;
}

void TestRemoteSignIn::writeClock(qint64 aheadMs)
{
    QFile clock(m_dir->path() + QStringLiteral("/clock"));
    QVERIFY(clock.open(QIODevice::WriteOnly | QIODevice::Truncate));
    clock.write(QByteArray::number(aheadMs));
}

void TestRemoteSignIn::signingInThroughTheViewMakesTheProfileReady()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/login"))));
    Ending ending;
    QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
    QVERIFY(testing::waitForPage(window, QStringLiteral("/login")));
    // The address line says where the service's browser is, and that it is not https here.
    QVERIFY2(window.address().contains(QStringLiteral("shop.test")), qPrintable(window.address()));
    QCOMPARE(liveBrowsers(), 1);

    // The owner's clicks and keys, into the picture; the form as the owner sees it filled in
    // (the password masked by the website) once the frames of the typing stopped.
    testing::clickPage(window, testing::kPlacedEmail);
    testing::typeInto(window.screen(), QStringLiteral("owner@example.com"));
    testing::clickPage(window, testing::kPlacedPassword);
    testing::typeInto(window.screen(), QString::fromLatin1(kPassword));
    const int typed = window.screen()->framesShown();
    QVERIFY(testing::runEventsUntil(
        [&window, typed] { return window.screen()->framesShown() > typed; }, 5000));
    for (int quiet = window.screen()->framesShown();;) {
        testing::runEventsUntil([] { return false; }, 300);
        if (window.screen()->framesShown() == quiet)
            break;
        quiet = window.screen()->framesShown();
    }
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    QVERIFY(window.grab().save(
        testing::binaryPath(QStringLiteral("screenshots/remote-sign-in-view.png"))));
    testing::press(window.screen(), Qt::Key_Return, QStringLiteral("\r"));
    QVERIFY(
        testing::runEventsUntil([this] { return posts(QStringLiteral("/login")) == 1; }, 20000));
    QByteArray posted;
    for (const fixtures::FixtureServer::Request &request : m_harness.server().requests()) {
        if (request.method == QLatin1String("POST") && request.path == QLatin1String("/login"))
            posted = request.body;
    }
    // Every character arrived, in order.
    QVERIFY2(posted.contains("email=owner%40example.com"), posted.constData());
    QVERIFY(posted.contains(QByteArray(QByteArray("password=") + kPassword)));
    QVERIFY(testing::waitForPage(window, QStringLiteral("/account")));
    QVERIFY(window.grab().save(
        testing::binaryPath(QStringLiteral("screenshots/remote-sign-in-account.png"))));

    QTest::mouseClick(window.signedInButton(), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 90000));
    QVERIFY2(ending.ready, qPrintable(ending.code + QLatin1Char(' ') + window.outcome()));
    QVERIFY(window.grab().save(
        testing::binaryPath(QStringLiteral("screenshots/remote-sign-in-outcome.png"))));
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));

    // The agent's browser sees the account page signed in, from the sealed session.
    const Run observed =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/account"))});
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    QCOMPARE(QJsonDocument::fromJson(observed.out).object().value(QStringLiteral("title")),
             QJsonValue(QStringLiteral("Account")));
    // The password and the session are nowhere but at the site: not in what the programs
    // print, the service's log, or any file of the data directory.
    QVERIFY(!observed.out.contains(kPassword) && !observed.err.contains(kPassword) &&
            !observed.out.contains(kSession) && !observed.err.contains(kSession));
    QVERIFY(!serviceLog().contains(kPassword) && !serviceLog().contains(kSession));
    int read = 0;
    const QStringList holding = dataFilesHolding({kPassword, kSession}, &read);
    QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u' ')));
    QVERIFY(read >= 3);
}

void TestRemoteSignIn::aSignInTheSiteRefusedIsSignedOut()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/login"))));
    Ending ending;
    QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
    // The password pasted, as a password manager gives it.
    QGuiApplication::clipboard()->setText(QStringLiteral("wrong-pasted"));
    testing::clickPage(window, testing::kPlacedEmail);
    testing::typeInto(window.screen(), QStringLiteral("owner@example.com"));
    testing::clickPage(window, testing::kPlacedPassword);
    QTest::keyClick(window.screen(), Qt::Key_V, Qt::ControlModifier);
    testing::press(window.screen(), Qt::Key_Return, QStringLiteral("\r"));
    QVERIFY(
        testing::runEventsUntil([this] { return posts(QStringLiteral("/login")) == 1; }, 20000));
    QVERIFY(m_harness.server()
                .bodies(QStringLiteral("/login"))
                .constLast()
                .contains("password=wrong-pasted"));
    // The site shows its form again; the owner says they are signed in anyway.
    QTest::mouseClick(window.signedInButton(), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 60000));
    QVERIFY(!ending.ready);
    QCOMPARE(ending.code, QStringLiteral("session_signed_out"));
    QVERIFY2(window.outcome().contains(QStringLiteral("sign in again")),
             qPrintable(window.outcome()));
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
}

void TestRemoteSignIn::aLoginAddressSentOffTheOriginsIsRefused()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();
    {
        RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/moved"))));
        Ending ending;
        QVERIFY(!openWindow(window, ending));
        QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 60000));
        QCOMPARE(ending.code, QStringLiteral("malformed_request"));
        // The fixed message names the bare-versus-www case and asks for the final address.
        QVERIFY2(window.outcome().contains(QStringLiteral("www")), qPrintable(window.outcome()));
        QVERIFY(window.outcome().contains(QStringLiteral("final address")));
    }
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/moved")), 1);
    // The hop to the www name was refused before it was sent.
    QCOMPARE(m_harness.server().count(QStringLiteral("www.shop.test"), QStringLiteral("/login")),
             0);
    // No ceremony was recorded, and the browser is gone.
    QVERIFY(noOpenCeremony(id));
    QCOMPARE(liveBrowsers(), 0);
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    // A corrected retry begins at once (the positive control: the profile stayed available).
    {
        RemoteSignInWindow retry(profile(id), QUrl(url(QStringLiteral("/login"))));
        Ending retried;
        QVERIFY2(openWindow(retry, retried), qPrintable(retry.outcome()));
        QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/login")),
                 1);
    }
    // The window went without an outcome: that is Cancel, and the service's browser closes.
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 20000));
    QVERIFY(testing::runEventsUntil([&id] { return noOpenCeremony(id); }, 20000));
}

void TestRemoteSignIn::cancelAndExpiryKeepNothing()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    {
        // Cancelled at once, while the service's browser is still starting: the begin, once it
        // answers, is cancelled as well.
        RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/login"))));
        Ending ending;
        connect(&window, &RemoteSignInWindow::finished, this,
                [&ending](bool ready, const QString &code) {
                    ending = {true, ready, code};
                });
        window.show();
        QTest::mouseClick(window.cancelButton(), Qt::LeftButton);
        QVERIFY(ending.ended);
        QCOMPARE(ending.code, QStringLiteral("cancelled"));
        // The launch happened, and then nothing stayed: no browser, no open ceremony.
        QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/login")) >= 1; },
                                        20000));
        QVERIFY(testing::runEventsUntil(
            [this, &id] { return liveBrowsers() == 0 && noOpenCeremony(id); }, 20000));
    }
    {
        RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/login"))));
        Ending ending;
        QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
        testing::clickPage(window, testing::kPlacedPassword);
        testing::typeInto(window.screen(), QString::fromLatin1(kPassword));
        QTest::mouseClick(window.cancelButton(), Qt::LeftButton);
        QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 20000));
        QCOMPARE(ending.code, QStringLiteral("cancelled"));
        QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
        QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    }
    // Expiry: five minutes pass with the window open. The service's sweep closes its browser,
    // the window hears its capability is gone, and the record ends expired.
    RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/login"))));
    Ending ending;
    QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
    QCOMPARE(liveBrowsers(), 1);
    writeClock(5 * 60 * 1000 + 1000);
    QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 30000));
    QVERIFY(!ending.ready);
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 20000));
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    QVERIFY(!serviceLog().contains(kPassword));
}

void TestRemoteSignIn::websiteAccessOffersThreeWays()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    useServiceEnvironmentHere();
    WebsiteAccessWindow window(m_harness.overrides());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(testing::runEventsUntil([&window] { return window.profiles().size() == 1; }, 20000));
    auto *table = window.findChild<QTableWidget *>();
    QVERIFY(table);
    table->selectRow(0);
    QToolButton *signIn = nullptr;
    for (auto *button : window.findChildren<QToolButton *>()) {
        if (button->accessibleName() == QLatin1String("Sign in to the selected website"))
            signIn = button;
    }
    QVERIFY(signIn && signIn->isEnabled() && signIn->menu());
    QStringList ways;
    for (const QAction *action : signIn->menu()->actions())
        ways << action->text().remove(QLatin1Char('&'));
    QCOMPARE(ways,
             (QStringList{QStringLiteral("In a secure browser"), QStringLiteral("In this window"),
                          QStringLiteral("Import a session file…")}));
    // The menu as the owner sees it under the button.
    QMenu *menu = signIn->menu();
    menu->popup(signIn->mapToGlobal(QPoint(0, signIn->height())));
    QVERIFY(QTest::qWaitForWindowExposed(menu));
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    // The window with its menu drawn where it opened (a popup is a window of its own).
    const QPoint menuAt = window.mapFromGlobal(menu->pos());
    QPixmap shot(window.width(), qMax(window.height(), menuAt.y() + menu->height() + 8));
    shot.fill(window.palette().window().color());
    {
        QPainter painter(&shot);
        painter.drawPixmap(0, 0, window.grab());
        painter.drawPixmap(menuAt, menu->grab());
    }
    QVERIFY(shot.save(testing::binaryPath(QStringLiteral("screenshots/sign-in-ways.png"))));
    // The owner's click on the first: the secure browser opens on the website.
    QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier,
                      menu->actionGeometry(menu->actions().constFirst()).center());
    QVERIFY(testing::runEventsUntil([&window] { return window.remoteSignInWindow(); }, 10000));
    QPointer<RemoteSignInWindow> remote = window.remoteSignInWindow();
    QVERIFY2(testing::waitForPage(*remote, QStringLiteral("/")), qPrintable(remote->outcome()));
    QCOMPARE(liveBrowsers(), 1);
    remote->close(); // closing is Cancel
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    QVERIFY(QTest::qWaitFor([&window] { return window.remoteSignInWindow() == nullptr; }, 10000));
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
}

void TestRemoteSignIn::aSignInThroughAnAccountsHostWorksWhenListed()
{
    // Website Access takes the accounts host as a sign-in origin of the new website.
    useServiceEnvironmentHere();
    {
        WebsiteAccessWindow window(m_harness.overrides());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *address = window.findChild<QLineEdit *>();
        QLineEdit *signInOrigins = nullptr;
        for (auto *field : window.findChildren<QLineEdit *>()) {
            if (field->accessibleName() == QLatin1String("Sign-in origins"))
                signInOrigins = field;
            if (field->accessibleName() == QLatin1String("Website address"))
                address = field;
        }
        QVERIFY(address && signInOrigins);
        QTest::keyClicks(address, url(QStringLiteral("/sso-login")));
        QTest::keyClicks(signInOrigins, m_harness.origin(QStringLiteral("cdn.test")));
        QTest::keyClick(signInOrigins, Qt::Key_Return);
        QVERIFY(testing::runEventsUntil([&window] { return window.signInWindow(); }, 20000));
        QVERIFY(
            testing::runEventsUntil([&window] { return window.profiles().size() == 1; }, 20000));
        QCOMPARE(window.profiles().constFirst().allowedOrigins.size(), 2);
        auto *table = window.findChild<QTableWidget *>();
        QVERIFY(table->item(0, 0)->text().contains(QStringLiteral("cdn.test")));
        window.signInWindow()->close();
    }
    // Listed, the accounts host's form is where the owner signs in, in the secure browser.
    const Run created =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("profiles"), QStringLiteral("create"), QStringLiteral("--origin"),
             m_harness.origin(QStringLiteral("shop.test")), QStringLiteral("--origin"),
             m_harness.origin(QStringLiteral("cdn.test"))});
    QCOMPARE(created.exitCode, 0);
    const QString id =
        QJsonDocument::fromJson(created.out).object().value(QStringLiteral("id")).toString();
    RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/sso-login"))));
    Ending ending;
    QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
    QVERIFY(testing::waitForPage(window, QStringLiteral("/authorize")));
    QVERIFY(window.address().contains(QStringLiteral("cdn.test")));
    testing::signInByHand(window, QStringLiteral("owner@example.com"),
                          QString::fromLatin1(kPassword));
    QVERIFY(testing::waitForPage(window, QStringLiteral("/account")));
    QTest::mouseClick(window.signedInButton(), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 90000));
    QVERIFY2(ending.ready, qPrintable(ending.code + QLatin1Char(' ') + window.outcome()));
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    // The password went to the accounts host only.
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/authorize")),
             0);
    QVERIFY(!serviceLog().contains(kPassword));
}

void TestRemoteSignIn::theDefinitionRefusesAnotherAccountThroughTheView()
{
    // The profile's definition: the team account page, its heading, and the owner's account in
    // the account menu. The service reads it at start.
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    QVERIFY(useSiteDefinition(id, m_harness.origin(QStringLiteral("shop.test")),
                              QStringLiteral("/team/account"), QStringLiteral("Your account"),
                              QString::fromLatin1(kOwner)));
    // Started with it before the window asks: a start on the window's demand would not carry
    // the setting.
    const Run started =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("start")});
    QVERIFY2(started.exitCode == 0, QByteArray(started.out + started.err).constData());
    useServiceEnvironmentHere();
    m_harness.server().resetCounters();

    // A colleague signs in, in the secure browser: the site has a session, of another account.
    {
        RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/team/login"))));
        Ending ending;
        QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
        QVERIFY(testing::waitForPage(window, QStringLiteral("/team/login")));
        testing::signInByHand(window, QString::fromLatin1(kColleague),
                              QString::fromLatin1(kPassword));
        QVERIFY(testing::waitForPage(window, QStringLiteral("/team/account")));
        QTest::mouseClick(window.signedInButton(), Qt::LeftButton);
        QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 90000));
        QVERIFY(!ending.ready);
        QCOMPARE(ending.code, QStringLiteral("session_wrong_account"));
        QVERIFY2(window.outcome().contains(QStringLiteral("another account")),
                 qPrintable(window.outcome()));
    }
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    QVERIFY(!profile(id).verifiedAccount);
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    // The verification did read the colleague's page with that session.
    QVERIFY(carryingSessionOf(kColleague) >= 1);

    // Nothing was kept: an agent's look at the profile is refused, and reaches nothing.
    m_harness.server().resetCounters();
    const Run refused =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/team/account"))});
    QCOMPARE(refused.exitCode, 3);
    QCOMPARE(refused.errorCode(), QStringLiteral("tool.browser.authentication_required"));
    QCOMPARE(m_harness.server().connections(), 0);

    // The owner signs in the same way: ready.
    {
        RemoteSignInWindow window(profile(id), QUrl(url(QStringLiteral("/team/login"))));
        Ending ending;
        QVERIFY2(openWindow(window, ending), qPrintable(window.outcome()));
        QVERIFY(testing::waitForPage(window, QStringLiteral("/team/login")));
        testing::signInByHand(window, QString::fromLatin1(kOwner), QString::fromLatin1(kPassword));
        QVERIFY(testing::waitForPage(window, QStringLiteral("/team/account")));
        QTest::mouseClick(window.signedInButton(), Qt::LeftButton);
        QVERIFY(testing::runEventsUntil([&ending] { return ending.ended; }, 90000));
        QVERIFY2(ending.ready, qPrintable(ending.code + QLatin1Char(' ') + window.outcome()));
    }
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    // The account the definition confirmed, masked, is what Website Access says it is signed
    // in as.
    const QString ownerShown = QStringLiteral("o\u2022\u2022\u2022@example.com");
    QCOMPARE(profile(id).verifiedAccount, std::optional<QString>(ownerShown));
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    {
        WebsiteAccessWindow websites(m_harness.overrides());
        websites.resize(900, 360);
        websites.show();
        QVERIFY(QTest::qWaitForWindowExposed(&websites));
        QVERIFY(testing::runEventsUntil([&websites] { return websites.profiles().size() == 1; },
                                        20000));
        auto *table = websites.findChild<QTableWidget *>();
        QVERIFY(table);
        QCOMPARE(table->horizontalHeaderItem(2)->text(), QStringLiteral("Signed in as"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("Ready"));
        QCOMPARE(table->item(0, 2)->text(), ownerShown);
        table->selectRow(0);
        QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
        QVERIFY(websites.grab().save(
            testing::binaryPath(QStringLiteral("screenshots/website-access-signed-in-as.png"))));
    }

    // The positive control: the same look now reaches the site, as the owner (past the lease's
    // own check of the definition). The colleague's session never came back, in the owner's
    // sign-in or the agent's browser.
    const int owners = carryingSessionOf(kOwner);
    QVERIFY(owners >= 1); // the owner's sign-in
    const Run observed =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/team/account"))});
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    QVERIFY2(observed.out.contains(kOwner), observed.out.constData());
    QVERIFY(carryingSessionOf(kOwner) > owners);
    QCOMPARE(carryingSessionOf(kColleague), 0);
    QVERIFY(!serviceLog().contains(kPassword));
}

int main(int argc, char **argv)
{
    // Before the QApplication exists: Website Access's own sign-in view (Chromium, as root no
    // sandbox), which a new website opens.
    BrowserEnvironment::configureProcess(BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestRemoteSignIn test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_remotesignin.moc"
