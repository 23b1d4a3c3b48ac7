// The workbench window against real Chromium (in-process developer preview) and the local
// HTTPS fixture site: allowed pages load through the egress proxy and show up in the
// observation panel; disallowed addresses and invalid origin lists show the fixed
// url_disallowed message and reach nothing. "Nothing was sent" is asserted at the fixture
// server's counters. A browser that cannot start fails the test; nothing skips.

#include "BrowserEnvironment.h"
#include "FixtureServer.h"
#include "ObservationPanel.h"
#include "TestCertificates.h"
#include "WorkbenchWindow.h"
#include "net/EgressProxy.h"
#include "ports/BrowserProvider.h"

#include <QApplication>
#include <QClipboard>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QWebEngineView>

#include <memory>
#include <optional>

using namespace veetbot;

namespace {
constexpr int kOperationTimeoutMs = 40000;
}

class TestWorkbenchWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void titleAndStatusSayDeveloperPreview();
    void openLoadsAllowedPage();
    void observeRefreshesRevision();
    void pageMarkupIsShownAsPlainText();
    void disallowedAddressSendsNothing();
    void invalidOriginsLoadNothing_data();
    void invalidOriginsLoadNothing();
    void changedOriginsReplaceTheBrowser();
    void closingWhileLoadingIsSafe();

private:
    QString origin(const QString &host) const
    {
        return QStringLiteral("https://%1:%2").arg(host).arg(m_server->httpsPort());
    }
    QString address(const QString &host, const QString &path) const { return origin(host) + path; }
    template <typename T> T *child(const char *name) const
    {
        return m_window->findChild<T *>(QString::fromLatin1(name));
    }
    // Types both fields and clicks Open; returns false when no answer came in time.
    bool open(const QString &origins, const QString &address);
    QString statusMessage() const { return m_window->statusBar()->currentMessage(); }
    static QString disallowedStatus()
    {
        const Error error = Error::fromReason(ReasonCode::UrlDisallowed);
        return error.code + QStringLiteral(": ") + error.message;
    }

    QTemporaryDir m_dir;
    std::optional<fixtures::TestCertificates> m_certificates;
    std::unique_ptr<fixtures::FixtureServer> m_server;
    TestOverrides m_overrides;
    EgressProxy *m_proxy = nullptr;
    std::unique_ptr<WorkbenchWindow> m_window;
};

void TestWorkbenchWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    m_certificates = fixtures::TestCertificates::generate(
        m_dir.path(), {QStringLiteral("shop.test"), QStringLiteral("evil.test")}, &error);
    QVERIFY2(m_certificates, qPrintable(error));
    m_server = std::make_unique<fixtures::FixtureServer>();
    QVERIFY(m_server->listen(*m_certificates));

    Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1,evil.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    m_overrides = overrides.value();
    m_overrides.setCaPath(m_certificates->caPath());

    m_proxy = WorkbenchWindow::startEgressProxy(m_overrides, this);
    QVERIFY(m_proxy);

    fixtures::FixtureServer::Response shop;
    shop.body = "<!doctype html><title>Shop page</title><h1>Welcome to the shop</h1>"
                "<p>Fresh coffee beans.</p><button>Add to cart</button>"
                "<label><input type=checkbox checked disabled> Gift wrap</label>";
    m_server->setRoute(QStringLiteral("/shop"), shop);
    fixtures::FixtureServer::Response landing;
    landing.body = "<!doctype html><title>Landing</title><p>Elsewhere</p>";
    m_server->setRoute(QStringLiteral("/landing"), landing);
    fixtures::FixtureServer::Response markup;
    markup.body = "<!doctype html><title><b>Bold</b> title</title>"
                  "<button>&lt;i&gt;Italic&lt;/i&gt;</button>";
    m_server->setRoute(QStringLiteral("/markup"), markup);
    fixtures::FixtureServer::Response slow = shop;
    slow.delayMs = 3000;
    m_server->setRoute(QStringLiteral("/slow"), slow);
}

void TestWorkbenchWindow::init()
{
    m_server->resetCounters();
    m_window = std::make_unique<WorkbenchWindow>(m_proxy, m_overrides);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestWorkbenchWindow::cleanup()
{
    m_window.reset();
}

bool TestWorkbenchWindow::open(const QString &origins, const QString &address)
{
    auto *originsEdit = child<QLineEdit>("allowedOrigins");
    auto *addressEdit = child<QLineEdit>("address");
    originsEdit->clear();
    QTest::keyClicks(originsEdit, origins);
    addressEdit->clear();
    QTest::keyClicks(addressEdit, address);
    QSignalSpy finished(m_window.get(), &WorkbenchWindow::operationFinished);
    QTest::mouseClick(child<QPushButton>("open"), Qt::LeftButton);
    return finished.size() == 1 || finished.wait(kOperationTimeoutMs);
}

void TestWorkbenchWindow::titleAndStatusSayDeveloperPreview()
{
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Veetbot Workbench \u2014 developer preview"));
    auto *caveat = child<QLabel>("previewCaveat");
    QVERIFY(caveat);
    QVERIFY(caveat->isVisible());
    QVERIFY(caveat->text().startsWith(QStringLiteral("Developer preview: the page runs in this "
                                                     "process")));
    QVERIFY(!child<QPushButton>("observe")->isEnabled()); // nothing to observe yet
    QVERIFY(m_window->provider() == nullptr);
}

void TestWorkbenchWindow::openLoadsAllowedPage()
{
    const int tunnelsBefore = m_proxy->tunnelsOpened();
    auto *originsEdit = child<QLineEdit>("allowedOrigins");
    auto *addressEdit = child<QLineEdit>("address");
    QTest::keyClicks(originsEdit, origin(QStringLiteral("shop.test")));
    QTest::keyClicks(addressEdit, address(QStringLiteral("shop.test"), QStringLiteral("/shop")));
    QSignalSpy finished(m_window.get(), &WorkbenchWindow::operationFinished);
    auto *openButton = child<QPushButton>("open");
    auto *observeButton = child<QPushButton>("observe");
    QTest::mouseClick(openButton, Qt::LeftButton);
    // Both buttons stay disabled while the browser works.
    QVERIFY(m_window->isBusy());
    QVERIFY(!openButton->isEnabled());
    QVERIFY(!observeButton->isEnabled());
    // A browser that cannot start never answers with an observation: that is a failure.
    QVERIFY(finished.wait(kOperationTimeoutMs));
    ObservationPanel *panel = m_window->panel();
    QVERIFY2(panel->observation().has_value(),
             panel->error() ? qPrintable(panel->error()->code) : "no observation");
    QVERIFY(openButton->isEnabled());
    QVERIFY(observeButton->isEnabled());

    QCOMPARE(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 1);
    QVERIFY(m_proxy->tunnelsOpened() > tunnelsBefore); // the page came through the proxy
    QCOMPARE(statusMessage(), QStringLiteral("Page opened."));

    const BrowserObservation &observation = *panel->observation();
    QCOMPARE(observation.title, QStringLiteral("Shop page"));
    QCOMPARE(child<QLabel>("titleLabel")->text(), QStringLiteral("Shop page"));
    QCOMPARE(child<QLabel>("urlLabel")->text(),
             address(QStringLiteral("shop.test"), QStringLiteral("/shop")));
    QVERIFY(observation.readiness.has_value());
    QCOMPARE(child<QLabel>("readinessLabel")->text(), readinessString(*observation.readiness));
    QCOMPARE(child<QLabel>("revisionLabel")->text(),
             ObservationPanel::shortRevision(observation.revision));
    QVERIFY(child<QLabel>("revisionLabel")->text().size() < observation.revision.size());
    QVERIFY(child<QPlainTextEdit>("readableText")
                ->toPlainText()
                .contains(QStringLiteral("Welcome to the shop")));

    auto *elements = child<QTreeWidget>("elements");
    QCOMPARE(elements->topLevelItemCount(), 2);
    QCOMPARE(elements->topLevelItem(0)->text(0), QStringLiteral("button"));
    QCOMPARE(elements->topLevelItem(0)->text(1), QStringLiteral("Add to cart"));
    QCOMPARE(elements->topLevelItem(0)->text(2), QString());
    QCOMPARE(elements->topLevelItem(1)->text(0), QStringLiteral("checkbox"));
    QCOMPARE(elements->topLevelItem(1)->text(1), QStringLiteral("Gift wrap"));
    QCOMPARE(elements->topLevelItem(1)->text(2), QStringLiteral("disabled, checked"));

    // The live view sits in the window, not in a window of its own.
    auto *view = child<QWebEngineView>("browserView");
    QVERIFY(view);
    QVERIFY(view->isVisible());
    QCOMPARE(view->window(), m_window.get());

    // Copy JSON copies exactly the observation.
    auto *copy = child<QPushButton>("copyJson");
    QVERIFY(copy->isEnabled());
    QTest::mouseClick(copy, Qt::LeftButton);
    const QJsonDocument copied =
        QJsonDocument::fromJson(QGuiApplication::clipboard()->text().toUtf8());
    QCOMPARE(copied.object(), observation.toJson());
}

void TestWorkbenchWindow::observeRefreshesRevision()
{
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/shop"))));
    QVERIFY(m_window->panel()->observation().has_value());
    const QString firstRevision = m_window->panel()->observation()->revision;

    QSignalSpy finished(m_window.get(), &WorkbenchWindow::operationFinished);
    QTest::mouseClick(child<QPushButton>("observe"), Qt::LeftButton);
    QVERIFY(!child<QPushButton>("open")->isEnabled());
    QVERIFY(finished.wait(kOperationTimeoutMs));
    const auto &observation = m_window->panel()->observation();
    QVERIFY(observation.has_value());
    QVERIFY(!observation->revision.isEmpty());
    QVERIFY(observation->revision != firstRevision);
    QVERIFY(!observation->readiness.has_value()); // observe does not settle a navigation
    QCOMPARE(child<QLabel>("revisionLabel")->text(),
             ObservationPanel::shortRevision(observation->revision));
    QCOMPARE(observation->title, QStringLiteral("Shop page"));
    QCOMPARE(statusMessage(), QStringLiteral("Page observed."));
    // Observing reads the page already loaded; it requests nothing.
    QCOMPARE(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 1);
}

void TestWorkbenchWindow::pageMarkupIsShownAsPlainText()
{
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/markup"))));
    QVERIFY(m_window->panel()->observation().has_value());
    auto *title = child<QLabel>("titleLabel");
    QCOMPARE(title->text(), QStringLiteral("<b>Bold</b> title"));
    QCOMPARE(title->textFormat(), Qt::PlainText);
    QCOMPARE(child<QTreeWidget>("elements")->topLevelItem(0)->text(1),
             QStringLiteral("<i>Italic</i>"));
    // The status line never repeats page text.
    QCOMPARE(statusMessage(), QStringLiteral("Page opened."));
}

void TestWorkbenchWindow::disallowedAddressSendsNothing()
{
    const int tunnelsBefore = m_proxy->tunnelsOpened();
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("evil.test"), QStringLiteral("/landing"))));
    QCOMPARE(statusMessage(), disallowedStatus());
    QVERIFY(m_window->panel()->error().has_value());
    QCOMPARE(*m_window->panel()->error(), Error::fromReason(ReasonCode::UrlDisallowed));
    QVERIFY(!m_window->panel()->observation().has_value());
    QCOMPARE(child<QLabel>("errorLabel")->text(), disallowedStatus());
    QVERIFY(child<QPushButton>("open")->isEnabled());
    QCOMPARE(m_proxy->tunnelsOpened(), tunnelsBefore); // refused before any connection
    // Positive control: the same browser opens an allowed page, which reaches the site after
    // anything the refused navigation could still send; only then are the counts final.
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/shop"))));
    QVERIFY(m_window->panel()->observation().has_value());
    QCOMPARE(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/shop")), 1);
    QCOMPARE(m_server->countHost(QStringLiteral("evil.test")), 0);
    QCOMPARE(m_server->total(), 1);
}

void TestWorkbenchWindow::invalidOriginsLoadNothing_data()
{
    QTest::addColumn<QString>("origins");
    QTest::newRow("empty") << QString();
    QTest::newRow("plain http") << QStringLiteral("http://shop.test");
    QTest::newRow("with path") << QStringLiteral("https://shop.test/shop");
    QTest::newRow("one bad of two") << QStringLiteral("https://shop.test, https://127.0.0.1");
    QTest::newRow("not a url") << QStringLiteral("shop");
    QTest::newRow("unmapped special-use") << QStringLiteral("https://other.test");
}

void TestWorkbenchWindow::invalidOriginsLoadNothing()
{
    QFETCH(QString, origins);
    const int tunnelsBefore = m_proxy->tunnelsOpened();
    QVERIFY(open(origins, address(QStringLiteral("shop.test"), QStringLiteral("/shop"))));
    QCOMPARE(statusMessage(), disallowedStatus());
    QCOMPARE(*m_window->panel()->error(), Error::fromReason(ReasonCode::UrlDisallowed));
    QVERIFY(m_window->provider() == nullptr);
    QVERIFY(child<QWebEngineView>("browserView") == nullptr);
    QCOMPARE(m_proxy->tunnelsOpened(), tunnelsBefore);
    // Positive control: valid origins in the same window open another page, which reaches the
    // site after anything the refused open could still send; only then are the counts final.
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/markup"))));
    QVERIFY(m_window->panel()->observation().has_value());
    QCOMPARE(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/markup")), 1);
    QCOMPARE(m_server->total(), 1);
}

void TestWorkbenchWindow::changedOriginsReplaceTheBrowser()
{
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/shop"))));
    QVERIFY(m_window->panel()->observation().has_value());
    const QPointer<BrowserProvider> first = m_window->provider();
    QVERIFY(first);

    // A wider set: the old browser is closed and deleted, a new one opens the page.
    const QString both = origin(QStringLiteral("shop.test")) + QStringLiteral(" ") +
                         origin(QStringLiteral("evil.test"));
    QVERIFY(open(both, address(QStringLiteral("evil.test"), QStringLiteral("/landing"))));
    QVERIFY(m_window->panel()->observation().has_value());
    QCOMPARE(m_window->panel()->observation()->title, QStringLiteral("Landing"));
    QVERIFY(first.isNull());
    const QPointer<BrowserProvider> second = m_window->provider();
    QVERIFY(second);
    QCOMPARE(m_window->findChildren<QWebEngineView *>().size(), 1);
    QCOMPARE(m_server->count(QStringLiteral("evil.test"), QStringLiteral("/landing")), 1);

    // The same set written differently keeps the browser.
    const QString reordered = origin(QStringLiteral("evil.test")) + QStringLiteral(",") +
                              origin(QStringLiteral("shop.test"));
    QVERIFY(open(reordered, address(QStringLiteral("shop.test"), QStringLiteral("/shop"))));
    QVERIFY(m_window->panel()->observation().has_value());
    QCOMPARE(m_window->provider(), second.data());
}

void TestWorkbenchWindow::closingWhileLoadingIsSafe()
{
    auto *originsEdit = child<QLineEdit>("allowedOrigins");
    auto *addressEdit = child<QLineEdit>("address");
    QTest::keyClicks(originsEdit, origin(QStringLiteral("shop.test")));
    QTest::keyClicks(addressEdit, address(QStringLiteral("shop.test"), QStringLiteral("/slow")));
    QTest::keyClick(addressEdit, Qt::Key_Return); // Return in the address field opens too
    QVERIFY(m_window->isBusy());
    QTRY_COMPARE_WITH_TIMEOUT(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/slow")),
                              1, kOperationTimeoutMs);
    // A call waiting behind the load, as any other caller of the provider would leave one.
    const QPointer<BrowserProvider> provider = m_window->provider();
    QVERIFY(provider);
    auto answers = std::make_shared<QStringList>(); // outlives the provider, whatever happens
    provider->observe(ObserveRequest(), [answers](Result<BrowserObservation> result) {
        answers->append(result.ok() ? QStringLiteral("observation") : result.error().code);
    });
    QVERIFY(answers->isEmpty());
    QSignalSpy finished(m_window.get(), &WorkbenchWindow::operationFinished);

    m_window.reset(); // closes and deletes the browser mid-load
    // Safe means: the waiting call was answered once, during the close, as provider_unavailable;
    // the browser is gone; the closing window reported nothing.
    QCOMPARE(*answers, QStringList{QStringLiteral("tool.browser.provider_unavailable")});
    QVERIFY(provider.isNull());
    QCOMPARE(finished.size(), 0);

    // The delayed answer arrives with nobody waiting for it. Positive control: a page the
    // server answers only after that answer was due loads in a new window, and still nothing
    // else was answered and nothing was asked again.
    fixtures::FixtureServer::Response later;
    later.body = "<!doctype html><title>Later</title><p>after the slow answer</p>";
    later.delayMs = 3000;
    m_server->setRoute(QStringLiteral("/later"), later);
    m_window = std::make_unique<WorkbenchWindow>(m_proxy, m_overrides);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(open(origin(QStringLiteral("shop.test")),
                 address(QStringLiteral("shop.test"), QStringLiteral("/later"))));
    QVERIFY(m_window->panel()->observation().has_value());
    QCOMPARE(m_window->panel()->observation()->title, QStringLiteral("Later"));
    QCOMPARE(*answers, QStringList{QStringLiteral("tool.browser.provider_unavailable")});
    QCOMPARE(m_server->count(QStringLiteral("shop.test"), QStringLiteral("/slow")), 1);
}

int main(int argc, char **argv)
{
    // Before the QApplication exists: Chromium's flags (and, as root, no sandbox).
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestWorkbenchWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_workbenchwindow.moc"
