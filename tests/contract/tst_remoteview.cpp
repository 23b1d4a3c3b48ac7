// The owner's remote view of a Chromium browser (the remote sign-in, issue 29): the page's frames
// come out as JPEG while the screencast runs and stop after it; the owner's own mouse and
// keyboard reach the page as the browser's trusted input, so the owner can click into the site's
// fields, type, press its button, and the site receives the form once. Chromium only: the
// service's hosted sign-in browser is Chromium by design (spec 000, the remote mode); the
// owner's embedded view is Qt WebEngine and needs none of this.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "ChromiumProvider.h"
#include "EngineUnderTest.h"
#include "EventWait.h"

#include <QApplication>
#include <QTest>

#include <memory>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

const QString kShop = QStringLiteral("shop.test");

// Fields at fixed places, so the owner's clicks land where a person's would.
const QByteArray kLoginPage =
    "<!doctype html><title>Sign in</title><style>body{margin:0}"
    "#email,#password,#go{position:absolute;left:100px;width:200px;height:30px}"
    "#email{top:100px}#password{top:150px}#go{top:200px}</style>"
    "<form method=post action=/remote-session><input id=email name=email>"
    "<input id=password name=password type=password><button id=go>Sign in</button></form>";

OwnerInput mouse(OwnerInput::Kind kind, double x, double y)
{
    OwnerInput input;
    input.kind = kind;
    input.point = QPointF(x, y);
    if (kind != OwnerInput::Kind::MouseMove)
        input.button = OwnerInput::Button::Left;
    return input;
}

OwnerInput typed(const QString &text)
{
    OwnerInput input;
    input.kind = OwnerInput::Kind::Text;
    input.text = text;
    return input;
}

} // namespace

class TestRemoteView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void framesComeOnlyWhileTheScreencastRuns();
    void theOwnersInputSignsIn();
    void inputOutsideItsBoundsSendsNothing();

private:
    void click(double x, double y);
    QUrl url(const QString &path) const { return m_harness.url(kShop, path); }

    BrowserTestHarness m_harness;
    EngineUnderTest m_engine;
    std::unique_ptr<BrowserProvider> m_provider;
    chromium::ChromiumProvider *m_browser = nullptr;
};

void TestRemoteView::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    QVERIFY2(m_engine.start(m_harness, &error), qPrintable(error));
    QVERIFY2(m_engine.isChromium(), "the remote view is the Chromium placement's");
    m_harness.page(QStringLiteral("/remote-login"), kLoginPage);
    m_harness.page(QStringLiteral("/remote-session"),
                   "<!doctype html><title>Signed in</title><p>Welcome back");
    m_harness.page(QStringLiteral("/remote-other"),
                   "<!doctype html><title>Other</title><p style='font-size:80px'>Other page");
    m_provider = m_engine.makeProvider(m_harness.policy({kShop}), m_harness.overrides());
    m_browser = dynamic_cast<chromium::ChromiumProvider *>(m_provider.get());
    QVERIFY(m_browser);
    m_engine.admitFor(m_provider.get());
}

void TestRemoteView::cleanupTestCase()
{
    m_engine.admitFor(nullptr);
    m_provider.reset();
}

void TestRemoteView::click(double x, double y)
{
    QVERIFY(m_browser->ownerInput(mouse(OwnerInput::Kind::MouseMove, x, y)));
    QVERIFY(m_browser->ownerInput(mouse(OwnerInput::Kind::MouseDown, x, y)));
    QVERIFY(m_browser->ownerInput(mouse(OwnerInput::Kind::MouseUp, x, y)));
}

void TestRemoteView::framesComeOnlyWhileTheScreencastRuns()
{
    const auto page = BrowserTestHarness::navigate(
        *m_browser, url(QStringLiteral("/remote-login?next=%2Faccount&token=t0k3n")));
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error().code));
    QList<QSize> sizes;
    QList<QUrl> pages; // where each frame says the page is
    const auto connection = connect(m_browser, &BrowserProvider::ownerViewFrame, this,
                                    [&sizes, &pages](const OwnerViewFrame &frame) {
                                        if (frame.isValid()) {
                                            sizes.append(frame.size);
                                            pages.append(frame.page);
                                        }
                                    });
    QVERIFY(m_browser->startOwnerView(QSize(640, 400)));
    QVERIFY(m_browser->ownerViewing());
    QVERIFY(runEventsUntil([&sizes] { return !sizes.isEmpty(); }, 20000));
    QVERIFY(sizes.constFirst().width() > 0 && sizes.constFirst().height() > 0);
    // The page's address, bare: no query or fragment ever rides on a frame.
    QCOMPARE(pages.constFirst(), url(QStringLiteral("/remote-login")));

    m_browser->stopOwnerView();
    QVERIFY(!m_browser->ownerViewing());
    (void)runEventsUntil([] { return false; }, 300); // frames already on their way arrive
    const qsizetype stopped = sizes.size();
    const auto other =
        BrowserTestHarness::navigate(*m_browser, url(QStringLiteral("/remote-other")));
    QVERIFY(other.ok());
    (void)runEventsUntil([] { return false; }, 1000);
    QCOMPARE(sizes.size(), stopped); // the page changed, and no frame came

    // Positive control: started again, the changed page's frames come.
    QVERIFY(m_browser->startOwnerView(QSize(640, 400)));
    QVERIFY(runEventsUntil([&sizes, stopped] { return sizes.size() > stopped; }, 20000));
    QCOMPARE(pages.constLast().path(), QStringLiteral("/remote-other"));
    m_browser->stopOwnerView();
    disconnect(connection);
}

void TestRemoteView::theOwnersInputSignsIn()
{
    const auto page =
        BrowserTestHarness::navigate(*m_browser, url(QStringLiteral("/remote-login")));
    QVERIFY2(page.ok(), page.ok() ? "" : qPrintable(page.error().code));
    const int before = m_harness.server().count(kShop, QStringLiteral("/remote-session"));
    click(200, 115); // the email field
    QVERIFY(m_browser->ownerInput(typed(QStringLiteral("owner@example.test"))));
    click(200, 165); // the password field
    QVERIFY(m_browser->ownerInput(typed(QStringLiteral("hunter2-secret"))));
    // The site's button, by the keyboard: Enter in the password field submits the form.
    OwnerInput enter;
    enter.kind = OwnerInput::Kind::KeyDown;
    enter.key = QStringLiteral("Enter");
    enter.code = QStringLiteral("Enter");
    enter.virtualKey = 13;
    enter.text = QStringLiteral("\r");
    QVERIFY(m_browser->ownerInput(enter));
    enter.kind = OwnerInput::Kind::KeyUp;
    enter.text.clear();
    QVERIFY(m_browser->ownerInput(enter));
    QVERIFY(runEventsUntil(
        [this, before] {
            return m_harness.server().count(kShop, QStringLiteral("/remote-session")) > before;
        },
        20000));
    (void)runEventsUntil([] { return false; }, 500);
    QCOMPARE(m_harness.server().count(kShop, QStringLiteral("/remote-session")), before + 1);
    QCOMPARE(m_harness.server().bodies(QStringLiteral("/remote-session")).constLast(),
             QByteArray("email=owner%40example.test&password=hunter2-secret"));
}

void TestRemoteView::inputOutsideItsBoundsSendsNothing()
{
    const auto page =
        BrowserTestHarness::navigate(*m_browser, url(QStringLiteral("/remote-login")));
    QVERIFY(page.ok());
    const int before = m_harness.server().count(kShop, QStringLiteral("/remote-session"));
    QVERIFY(!m_browser->ownerInput(typed(QString(OwnerInput::kMaxTextCodePoints + 1, 'x'))));
    QVERIFY(!m_browser->ownerInput(typed(QString())));
    QVERIFY(!m_browser->ownerInput(mouse(OwnerInput::Kind::MouseDown, 1e9, 10)));
    OwnerInput noButton = mouse(OwnerInput::Kind::MouseDown, 10, 10);
    noButton.button = OwnerInput::Button::None;
    QVERIFY(!m_browser->ownerInput(noButton));
    OwnerInput noKey;
    noKey.kind = OwnerInput::Kind::KeyDown;
    QVERIFY(!m_browser->ownerInput(noKey));
    // Positive control: the button clicked within bounds sends the (empty) form.
    click(150, 215);
    QVERIFY(runEventsUntil(
        [this, before] {
            return m_harness.server().count(kShop, QStringLiteral("/remote-session")) == before + 1;
        },
        20000));
}

VEETBOT_BROWSER_TEST_MAIN(TestRemoteView)
#include "tst_remoteview.moc"
