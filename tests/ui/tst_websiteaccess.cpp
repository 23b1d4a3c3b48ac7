// Website Access as a person uses it: a real window under the offscreen platform, the
// address typed and Add clicked, the sign-in view that opens, a brand-new website whose
// first sign-in is cancelled leaving nothing behind, Revoke and Delete confirmed in their
// dialogs, against the real profile service.

#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "ServiceTestCase.h"
#include "SignInWindow.h"
#include "TestPaths.h"
#include "WebsiteAccessWindow.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
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
    QCOMPARE(window.profiles().size(), 1);
    QCOMPARE(window.profiles().constFirst().status, ProfileStatus::AuthenticationRequired);
    // The full address opened in the sign-in view.
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/login")) == 1; }, 20000));
    QTest::mouseClick(window.signInWindow()->signInView()->cancelButton(), Qt::LeftButton);
    // Nothing is left of the brand-new website.
    QVERIFY(testing::runEventsUntil(
        [&window] {
            window.refresh();
            return window.profiles().isEmpty() && !window.isBusy();
        },
        30000));
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
    QVERIFY(testing::runEventsUntil(
        [&window] {
            window.refresh();
            return window.profiles().isEmpty() && !window.isBusy();
        },
        30000));
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
