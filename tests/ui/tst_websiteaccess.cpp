// Website Access as a person uses it: a real window under the offscreen platform, the
// address typed and Add clicked, the sign-in view that opens, a brand-new website whose
// first sign-in is cancelled leaving nothing behind, Revoke and Delete confirmed in their
// dialogs, and the "Sign in to <site> again" notices of websites whose runs wait at a
// sign-in wall, against the real profile service.

#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "RemoteInput.h"
#include "ServiceTestCase.h"
#include "SignInNotices.h"
#include "SignInWindow.h"
#include "TestPaths.h"
#include "WebsiteAccessWindow.h"
#include "net/EgressProxy.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlStores.h"

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace veetbot;

class TestWebsiteAccess : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void addressesBecomeOrigins_data();
    void addressesBecomeOrigins();
    void aCancelledFirstSignInLeavesNothing();
    void revokeThenDeleteAfterConfirming();
    void oneSignInNoticePerBlocker();
    void aNewWebsiteAdoptsItsWwwName();

private:
    template <typename T> T *child(QWidget *parent, const QString &accessibleName) const
    {
        for (T *widget : parent->findChildren<T *>()) {
            if (widget->accessibleName() == accessibleName)
                return widget;
        }
        return nullptr;
    }
    // Answers the next confirmation dialog with `button` once it is up.
    void answerNextDialog(QMessageBox::StandardButton button);
    EgressProxy *m_proxy = nullptr;
};

void TestWebsiteAccess::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_proxy = BrowserEnvironment::startEgressProxy(m_harness.overrides(), this);
    QVERIFY(m_proxy);
    m_harness.page(QStringLiteral("/login"), "<!doctype html><title>Sign in</title><form>"
                                             "<input type=password name=password></form>");
}

void TestWebsiteAccess::init()
{
    QVERIFY(setUpService());
    useServiceEnvironmentHere();
}

void TestWebsiteAccess::cleanup()
{
    QVERIFY(tearDownService());
}

void TestWebsiteAccess::answerNextDialog(QMessageBox::StandardButton button)
{
    // The dialog runs its own event loop; this answers it from inside that loop.
    auto *poll = new QTimer(this);
    poll->setInterval(20);
    connect(poll, &QTimer::timeout, this, [poll, button] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        poll->stop();
        poll->deleteLater();
        QTest::mouseClick(box->button(button), Qt::LeftButton);
    });
    poll->start();
}

void TestWebsiteAccess::addressesBecomeOrigins_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("origin");
    QTest::newRow("bare name") << "shop.acme-store.com"
                               << "https://shop.acme-store.com";
    QTest::newRow("a sign-in page") << "shop.acme-store.com/account/login?next=%2F"
                                    << "https://shop.acme-store.com";
    QTest::newRow("www stays www") << "https://www.shop.acme-store.com/"
                                   << "https://www.shop.acme-store.com";
    QTest::newRow("http is refused") << "http://shop.acme-store.com"
                                     << "";
    QTest::newRow("an address") << "https://127.0.0.1/"
                                << "";
    QTest::newRow("a local name") << "printer.local"
                                  << "";
}

void TestWebsiteAccess::addressesBecomeOrigins()
{
    QFETCH(QString, typed);
    QFETCH(QString, origin);
    const auto parsed = WebsiteAccessWindow::parseAddress(typed, TestOverrides());
    QCOMPARE(parsed.ok(), !origin.isEmpty());
    if (parsed)
        QCOMPARE(parsed->first.toString(), origin);
}

namespace {
// Whether the window's list, read afresh after everything under way, is empty (a reading is
// asked for whenever none is pending).
bool emptyOnceRead(WebsiteAccessWindow &window)
{
    if (window.isBusy())
        return false;
    if (window.profiles().isEmpty())
        return true;
    window.refresh();
    return false;
}
} // namespace

void TestWebsiteAccess::aCancelledFirstSignInLeavesNothing()
{
    WebsiteAccessWindow window(m_harness.overrides());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *address = child<QLineEdit>(&window, QStringLiteral("Website address"));
    QVERIFY(address);
    // The owner types the sign-in page's address without a scheme.
    const QString typed = url(QStringLiteral("/login")).mid(int(qstrlen("https://")));
    QTest::keyClicks(address, typed);
    QTest::mouseClick(child<QPushButton>(&window, QStringLiteral("Add website")), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&window] { return window.signInWindow() != nullptr; }, 20000));
    // The list is read again off the GUI thread.
    QVERIFY(testing::runEventsUntil([&window] { return !window.isBusy(); }, 20000));
    QCOMPARE(window.profiles().size(), 1);
    QCOMPARE(window.profiles().constFirst().status, ProfileStatus::AuthenticationRequired);
    // The full address opened in the sign-in view.
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/login")) == 1; }, 20000));
    QTest::mouseClick(window.signInWindow()->signInView()->cancelButton(), Qt::LeftButton);
    // Nothing is left of the brand-new website.
    QVERIFY(testing::runEventsUntil([&window] { return emptyOnceRead(window); }, 30000));
}

void TestWebsiteAccess::revokeThenDeleteAfterConfirming()
{
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    WebsiteAccessWindow window(m_harness.overrides());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *table = child<QTableWidget>(&window, QStringLiteral("Websites"));
    QVERIFY(table);
    QVERIFY(testing::runEventsUntil([&window] { return !window.isBusy(); }, 20000));
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("Sign-in needed"));
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    QVERIFY(
        window.grab().save(testing::binaryPath(QStringLiteral("screenshots/website-access.png"))));
    auto *revoke = child<QPushButton>(&window, QStringLiteral("Revoke the selected website"));
    auto *remove = child<QPushButton>(&window, QStringLiteral("Delete the selected website"));
    QVERIFY(revoke && remove);
    QVERIFY(!revoke->isEnabled());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualItemRect(table->item(0, 0)).center());
    QVERIFY(revoke->isEnabled());
    QVERIFY(!remove->isEnabled()); // only after revoke
    // Cancelled: nothing happens.
    answerNextDialog(QMessageBox::Cancel);
    QTest::mouseClick(revoke, Qt::LeftButton);
    QCOMPARE(profile(id).status, ProfileStatus::AuthenticationRequired);
    answerNextDialog(QMessageBox::Yes);
    QTest::mouseClick(revoke, Qt::LeftButton);
    QVERIFY(testing::runEventsUntil(
        [&] { return !window.isBusy() && profile(id).status == ProfileStatus::Revoked; }, 20000));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("Revoked"));
    QVERIFY(remove->isEnabled());
    answerNextDialog(QMessageBox::Yes);
    QTest::mouseClick(remove, Qt::LeftButton);
    QVERIFY(
        testing::runEventsUntil([&] { return !window.isBusy() && table->rowCount() == 0; }, 20000));
    QCOMPARE(window.statusText(), QStringLiteral("Deleted."));
}

void TestWebsiteAccess::oneSignInNoticePerBlocker()
{
    // Both websites' home pages, where a sign-in view opens.
    fixtures::FixtureServer::Response home;
    home.body = "<!doctype html><title>Shop</title>";
    m_harness.server().setRoute(QStringLiteral("shop.test"), QStringLiteral("/"), home);
    m_harness.server().setRoute(QStringLiteral("www.shop.test"), QStringLiteral("/"), home);
    const QString first = createProfile();
    const QString second = createProfile(true, QStringLiteral("www.shop.test"));
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    QVERIFY(config);
    Result<std::unique_ptr<SqlStores>> opened =
        SqlStores::openSqlite(config->metadataPath(), {}, m_harness.overrides());
    QVERIFY(opened);
    SqlStores &repository = **opened;
    const ProfileScope scope{config->tenant(), config->principal()};
    // What a run does at a sign-in wall (READY -> NEEDS_USER), and revocation.
    const auto move = [&](const QString &id, ProfileStatus status) {
        const BrowserProfile current = profile(id);
        return repository.profiles().transition(scope, current.id, current.generation, status).ok();
    };
    // A sign-in as the profile service records one: begun (the generation advances, the
    // status stays), then ended with `outcome` (READY: verified now).
    const auto signInEnds = [&](const QString &id, CeremonyStatus outcome, const QString &failure) {
        const BrowserProfile current = profile(id);
        const Result<CeremonyBegun> begun = repository.profiles().beginCeremony(
            scope, current.id, current.generation, QStringLiteral("device"),
            [](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
                return CeremonyLaunchRecord{
                    .ceremonyId = QUuid::createUuid().toString(QUuid::WithoutBraces),
                    .expiresAt = QDateTime::currentDateTimeUtc().addSecs(60)};
            });
        return begun && repository.profiles().finishCeremony(scope, begun->ceremony.id, outcome,
                                                             failure, {});
    };
    const QString shopTitle = QStringLiteral("Sign in to %1 again")
                                  .arg(m_harness.origin(QStringLiteral("shop.test")).mid(8));
    const QString wwwTitle = QStringLiteral("Sign in to %1 again")
                                 .arg(m_harness.origin(QStringLiteral("www.shop.test")).mid(8));
    const auto windows = [] {
        const QWidgetList all = QApplication::topLevelWidgets();
        return QSet<QWidget *>(all.cbegin(), all.cend());
    };

    SignInNotices notices([&] { return repository.profiles().list(scope); });
    QSignalSpy requested(&notices, &SignInNotices::signInRequested);
    // Wired as the workbench does it.
    WebsiteAccessWindow window(m_harness.overrides());
    connect(&notices, &SignInNotices::signInRequested, &window, &WebsiteAccessWindow::signInAgain);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    notices.refresh();
    QVERIFY(notices.notices().isEmpty()); // both READY

    // A run meets a sign-in wall on the first website: one notice.
    QVERIFY(move(first, ProfileStatus::NeedsUser));
    notices.refresh();
    QCOMPARE(notices.notices().size(), 1);
    QPointer<QWidget> firstNotice = notices.notices().constFirst();
    QVERIFY(child<QLabel>(firstNotice, shopTitle));
    QVERIFY(QTest::qWaitForWindowExposed(notices.window()));
    QVERIFY(firstNotice->isVisible());
    const QSet<QWidget *> shown = windows();
    // Read again and again, and after a sign-in that failed (the generation advanced, the
    // status stayed): the same notice, no other window.
    for (int read = 0; read < 3; ++read) {
        QTest::qWait(20);
        notices.refresh();
    }
    const qint64 blockedAt = profile(first).generation;
    QVERIFY(signInEnds(first, CeremonyStatus::Failed, QStringLiteral("session_signed_out")));
    QCOMPARE(profile(first).generation, blockedAt + 1);
    QCOMPARE(profile(first).status, ProfileStatus::NeedsUser);
    notices.refresh();
    QTest::qWait(20);
    QCOMPARE(notices.notices(), QList<QWidget *>{firstNotice});
    QCOMPARE(windows(), shown);

    // The second website too: a row of its own in the same window.
    QVERIFY(move(second, ProfileStatus::NeedsUser));
    notices.refresh();
    QCOMPARE(notices.notices().size(), 2);
    QCOMPARE(notices.notices().constFirst(), firstNotice.data());
    QPointer<QWidget> secondNotice = notices.notices().at(1);
    QVERIFY(child<QLabel>(secondNotice, wwwTitle));
    QVERIFY(firstNotice->isVisible() && secondNotice->isVisible());
    QCOMPARE(windows(), shown);
    QVERIFY(!notices.window()->accessibleName().isEmpty());
    for (QWidget *widget : notices.window()->findChildren<QWidget *>())
        QVERIFY2(!widget->accessibleName().isEmpty(), widget->metaObject()->className());
    QDir().mkpath(testing::binaryPath(QStringLiteral("screenshots")));
    notices.window()->show();
    QVERIFY(notices.window()->grab().save(
        testing::binaryPath(QStringLiteral("screenshots/sign-in-notice.png"))));

    // "Sign in to ... again" opens that website's sign-in, in the secure browser by default.
    QTest::mouseClick(child<QPushButton>(firstNotice, shopTitle), Qt::LeftButton);
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.constFirst().constFirst().toUuid(), QUuid::fromString(first));
    // Website Access reads its list afresh, then opens that website's sign-in.
    QVERIFY(testing::runEventsUntil([&window] { return window.remoteSignInWindow() != nullptr; },
                                    20000));
    QPointer<RemoteSignInWindow> signIn = window.remoteSignInWindow();
    QVERIFY2(testing::waitForPage(*signIn, QStringLiteral("/")), qPrintable(signIn->outcome()));
    QVERIFY(signIn->address().contains(m_harness.origin(QStringLiteral("shop.test"))));
    // One sign-in at a time: the other notice's button (Enter on it) brings the open one to
    // the front.
    QTest::keyClick(child<QPushButton>(secondNotice, wwwTitle), Qt::Key_Return);
    QCOMPARE(requested.size(), 2);
    QCOMPARE(window.remoteSignInWindow(), signIn.data());
    // Cancelled: the run still waits, and its notice stays.
    QTest::mouseClick(signIn->cancelButton(), Qt::LeftButton);
    QVERIFY(testing::runEventsUntil([&] { return signIn->hasEnded(); }, 10000));
    signIn->close();
    // qWaitFor also delivers the deferred delete that closing the window posted.
    QVERIFY(QTest::qWaitFor([&] { return window.remoteSignInWindow() == nullptr; }, 10000));
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    QCOMPARE(profile(first).status, ProfileStatus::NeedsUser);
    notices.refresh();
    QCOMPARE(notices.notices(), (QList<QWidget *>{firstNotice, secondNotice}));

    // Later: the second notice goes, and does not come back for this blocker.
    QTest::mouseClick(child<QPushButton>(secondNotice, QStringLiteral("Later")), Qt::LeftButton);
    QCOMPARE(notices.notices(), QList<QWidget *>{firstNotice});
    for (int read = 0; read < 3; ++read) {
        QTest::qWait(20);
        notices.refresh();
    }
    QCOMPARE(notices.notices(), QList<QWidget *>{firstNotice});
    QVERIFY(!secondNotice);

    // Signed in: the first notice closes itself, and the window with it.
    QVERIFY(signInEnds(first, CeremonyStatus::Ready, QString()));
    notices.refresh();
    QVERIFY(notices.notices().isEmpty());
    QVERIFY(!notices.window()->isVisible());
    QTest::qWait(20);
    QVERIFY(!firstNotice);
    // A new wall on it (a new generation): a new notice; the second stays hidden.
    QVERIFY(move(first, ProfileStatus::NeedsUser));
    notices.refresh();
    QCOMPARE(notices.notices().size(), 1);
    QVERIFY(child<QLabel>(notices.notices().constFirst(), shopTitle));
    QVERIFY(notices.notices().constFirst()->isVisible());
    // Revoked: its notice closes too.
    QVERIFY(move(first, ProfileStatus::Revoked));
    notices.refresh();
    QVERIFY(notices.notices().isEmpty());
    QVERIFY(!notices.window()->isVisible());
    // Signed in and blocked again between two reads: a new blocker all the same (a newer
    // verification), with a new notice.
    QVERIFY(signInEnds(second, CeremonyStatus::Ready, QString()));
    QCOMPARE(profile(second).status, ProfileStatus::Ready);
    QVERIFY(move(second, ProfileStatus::NeedsUser));
    notices.refresh();
    QCOMPARE(notices.notices().size(), 1);
    QVERIFY(child<QLabel>(notices.notices().constFirst(), wwwTitle));
    // Esc in the window is Later for what it shows.
    notices.window()->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(notices.window()));
    QCOMPARE(notices.window()->focusWidget(),
             child<QPushButton>(notices.notices().constFirst(), wwwTitle));
    QTest::keyClick(notices.window(), Qt::Key_Escape);
    QVERIFY(notices.notices().isEmpty());
    QVERIFY(!notices.window()->isVisible());
    notices.refresh();
    QVERIFY(notices.notices().isEmpty());
}

void TestWebsiteAccess::aNewWebsiteAdoptsItsWwwName()
{
    // The bare name sends every visitor to its www name.
    const QString www = m_harness.origin(QStringLiteral("www.shop.test"));
    fixtures::FixtureServer::Response moved;
    moved.status = 301;
    moved.headers = {{"Location", (www + QStringLiteral("/login")).toUtf8()}};
    m_harness.server().setRoute(QStringLiteral("shop.test"), QStringLiteral("/"), moved);
    m_harness.server().setRoute(
        QStringLiteral("www.shop.test"), QStringLiteral("/login"),
        fixtures::FixtureServer::Response{
            200, "text/html; charset=utf-8", "<!doctype html><title>Sign in</title>", {}, 0});
    WebsiteAccessWindow window(m_harness.overrides());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *address = child<QLineEdit>(&window, QStringLiteral("Website address"));
    QTest::keyClicks(address, m_harness.origin(QStringLiteral("shop.test")).mid(8));
    QTest::keyClick(address, Qt::Key_Return);
    // The first load went to the www name: the website is that origin now, and the sign-in
    // goes on there.
    QVERIFY2(testing::runEventsUntil(
                 [this] {
                     return m_harness.server().count(QStringLiteral("www.shop.test"),
                                                     QStringLiteral("/login")) == 1;
                 },
                 30000),
             qPrintable(window.statusText()));
    QVERIFY(testing::runEventsUntil(
        [&window] {
            window.refresh();
            return window.profiles().size() == 1 &&
                   window.profiles().constFirst().allowedOrigins.constFirst().host() ==
                       QLatin1String("www.shop.test");
        },
        20000));
    QVERIFY(window.signInWindow());
    QVERIFY(testing::runEventsUntil(
        [&window, &www] { return window.signInWindow()->signInView()->shownOrigin() == www; },
        10000));
    QTest::mouseClick(window.signInWindow()->signInView()->cancelButton(), Qt::LeftButton);
    // Cancelled in turn: nothing is left.
    QVERIFY(testing::runEventsUntil([&window] { return emptyOnceRead(window); }, 30000));
}

int main(int argc, char **argv)
{
    // Before the QApplication exists: the sign-in view's Chromium (as root, no sandbox).
    BrowserEnvironment::configureProcess(BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestWebsiteAccess test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_websiteaccess.moc"
