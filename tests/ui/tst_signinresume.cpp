// The owner's whole path when a website asks to sign in again, as a person takes it. A task
// run (`veetbot run --approver workbench`, a scripted model, the approvals answered by an
// in-process workbench broker) meets the sign-in form of an expired session and waits. The
// workbench's windows, wired as app/workbench/main.cpp wires them, show one "Sign in to <site>
// again" notice; a click on it opens the sign-in view on the site, where the form is filled
// with trusted keyboard input and "I'm signed in" clicked, and the real profile service
// verifies the session. The run then goes on by itself and places the order once. The site is
// the witness: nothing reaches it, and no model call is made, while the run waits.

#include "BrowserEnvironment.h"
#include "EventWait.h"
#include "RemoteInput.h"
#include "ScriptedModelServer.h"
#include "ServiceTestCase.h"
#include "SignInNotices.h"
#include "SignInWindow.h"
#include "TestPaths.h"
#include "TrustedInput.h"
#include "WebsiteAccessWindow.h"
#include "approval/WorkbenchChannel.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"
#include "domain/profile/SessionState.h"
#include "net/EgressProxy.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QWebEnginePage>
#include <QWebEngineView>

using namespace veetbot;
using namespace veetbot::testing;

namespace {
constexpr char kPassword[] = "tuesday-PASSWORD-CANARY-77";
const QString kTask = QStringLiteral("Reorder my last order.");
const QString kOrders = QStringLiteral("/tasks/sign-in-wall/orders");
const QString kReorder = QStringLiteral("/tasks/sign-in-wall/reorder");

QByteArray signInForm()
{
    return placedSignInForm();
}

} // namespace

class TestSignInResume : public ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void aWaitingRunGoesOnOnceTheOwnerSignsIn();

private:
    // The site's one valid session; a new one replaces it (the old one has expired).
    QByteArray rotateSession();
    bool isMember(const fixtures::FixtureServer::Request &request) const;

    EgressProxy *m_proxy = nullptr;
    QByteArray m_session;
    ScriptedModelServer m_model;
    std::unique_ptr<TaskModel> m_taskModel;
    QByteArray m_sentToModel; // every request body the model received
};

void TestSignInResume::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    // The sign-in view's traffic goes through the egress proxy, as in the workbench.
    m_proxy = BrowserEnvironment::startEgressProxy(m_harness.overrides(), this);
    QVERIFY(m_proxy);
    fixtures::FixtureServer &site = m_harness.server();
    // The home page, where the sign-in view opens: the sign-in form.
    site.setHandler(QStringLiteral("/"), [](const fixtures::FixtureServer::Request &) {
        fixtures::FixtureServer::Response response;
        response.body = signInForm();
        return response;
    });
    // The form's answer: the right password gets a new session and the orders page.
    site.setHandler(QStringLiteral("/login"), [this](const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        if (r.method == QLatin1String("POST") &&
            r.body.contains(QByteArray(QByteArray("password=") + kPassword))) {
            response.status = 303;
            response.headers = {{"Location", kOrders.toUtf8()},
                                {"Set-Cookie", "member=" + rotateSession() +
                                                   "; Secure; HttpOnly; Path=/; SameSite=Lax"}};
            return response;
        }
        response.body = signInForm();
        return response;
    });
    // The orders page only a member sees; anyone else gets the sign-in form at its address.
    site.setHandler(kOrders, [this](const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        response.body = isMember(r) ? QByteArray("<!doctype html><title>Orders</title><h1>Your "
                                                 "orders</h1><form method=post action=reorder>"
                                                 "<button>Reorder</button></form>")
                                    : signInForm();
        return response;
    });
    site.setHandler(kReorder, [this](const fixtures::FixtureServer::Request &r) {
        fixtures::FixtureServer::Response response;
        response.body = isMember(r) ? QByteArray("<!doctype html><title>Ordered</title>"
                                                 "<h1>Your order is placed</h1>")
                                    : signInForm();
        return response;
    });
    QVERIFY(m_model.listen());
    m_taskModel = std::make_unique<TaskModel>(
        QList<TaskModel::Script>{
            TaskModel::Script{.id = QStringLiteral("sign-in-wall"),
                              .summary = kTask,
                              .steps = {TaskModel::Step{.verb = QStringLiteral("navigate"),
                                                        .page = QStringLiteral("orders")},
                                        TaskModel::Step{.verb = QStringLiteral("click"),
                                                        .role = QStringLiteral("button"),
                                                        .name = QStringLiteral("Reorder")}}}},
        [this](const QString &path) { return url(path); });
    m_model.setBrain([this](const QJsonObject &request) {
        m_sentToModel += QJsonDocument(request).toJson(QJsonDocument::Compact);
        return m_taskModel->next(request);
    });
}

void TestSignInResume::init()
{
    QVERIFY(setUpService());
    // The ledger of this data directory's agents lives in the test's directory too.
    m_extraEnvironment.insert(QStringLiteral("XDG_DATA_HOME"),
                              m_dir->path() + QStringLiteral("/xdg"));
    m_model.reset();
    m_sentToModel.clear();
}

void TestSignInResume::cleanup()
{
    QVERIFY(tearDownService());
}

QByteArray TestSignInResume::rotateSession()
{
    m_session = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    return m_session;
}

bool TestSignInResume::isMember(const fixtures::FixtureServer::Request &request) const
{
    return !m_session.isEmpty() &&
           request.header("Cookie").contains(QByteArray(QByteArray("member=") + m_session));
}

void TestSignInResume::aWaitingRunGoesOnOnceTheOwnerSignsIn()
{
    // The owner signed in to the website once (a verified sign-in); then the site ended that
    // session.
    const QString id = createProfile(false);
    QVERIFY(!id.isEmpty());
    const Run signedUp = signInWithCookie(id, QStringLiteral("member"), rotateSession(), kOrders);
    QVERIFY2(signedUp.exitCode == 0, QByteArray(signedUp.out + signedUp.err).constData());
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    const QDateTime firstVerified = profile(id).lastVerifiedAt.value();
    const QByteArray expired = m_session;
    rotateSession();
    m_harness.server().resetCounters();

    // The workbench's approvals, where the workbench serves them: the owner approves each
    // card as it comes.
    useServiceEnvironmentHere();
    ApprovalBroker approvals;
    const Result<QString> socket = workbenchSocketPath();
    QVERIFY(socket.ok());
    QVERIFY(approvals.listen(*socket));
    int cards = 0;
    connect(&approvals, &ApprovalBroker::asked, &approvals,
            [&approvals, &cards](const ApprovalBroker::Question &question) {
                ++cards;
                QTimer::singleShot(0, &approvals, [&approvals, key = question.key] {
                    approvals.answer(key, ApprovalAnswer::Approved);
                });
            });

    m_extraEnvironment.insert(QStringLiteral("VEETBOT_MODEL_API_KEY"), QString());
    QProcess *process = start(
        {QStringLiteral("run"), QStringLiteral("--profile"), id, QStringLiteral("--task"), kTask,
         QStringLiteral("--model-url"), m_model.baseUrl(), QStringLiteral("--model"),
         QStringLiteral("scripted"), QStringLiteral("--approver"), QStringLiteral("workbench")});
    m_extraEnvironment.remove(QStringLiteral("VEETBOT_MODEL_API_KEY"));
    const auto stopRun = qScopeGuard([process] {
        if (process->state() != QProcess::NotRunning) {
            process->kill();
            process->waitForFinished(5000);
        }
    });
    QByteArray err;
    const auto readErr = [&err, process] { err += process->readAllStandardError(); };
    const auto said = [&err, &readErr](const QByteArray &words) {
        readErr();
        return int(err.count(words));
    };
    const auto ended = [process] { return process->state() == QProcess::NotRunning; };

    // The wall: the run waits, the profile needs its owner, nothing was sent.
    QVERIFY2(runEventsUntil([&] { return said("asks to sign in") == 1 || ended(); }, 60000),
             err.constData());
    QVERIFY2(!ended(), err.constData());
    QElapsedTimer waiting;
    waiting.start();
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
    const QString runId = startedRunId(err);
    QVERIFY(!runId.isEmpty());
    const auto shown = [this, &runId] {
        const Run ran =
            run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"), runId});
        return QJsonDocument::fromJson(ran.out).object();
    };
    QCOMPARE(shown().value("task_run").toObject().value("status").toString(),
             QStringLiteral("needs_user"));
    QCOMPARE(m_model.requests(), 1);
    QCOMPARE(arrived(kOrders), 1);
    QCOMPARE(posts(kReorder), 0);
    QCOMPARE(cards, 0);

    // The workbench, wired as app/workbench/main.cpp wires it: Website Access, and the
    // notices read from the metadata store.
    Result<MetadataStore> metadata = openMetadataStore(QString());
    QVERIFY(metadata.ok());
    WebsiteAccessWindow window(m_harness.overrides());
    SignInNotices notices(
        [&metadata] { return metadata->repository->profiles().list(metadata->scope()); });
    connect(&notices, &SignInNotices::signInRequested, &window, &WebsiteAccessWindow::signInAgain);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *websites = window.findChild<QTableWidget *>();
    QVERIFY(websites);
    // The list is read off the GUI thread.
    QVERIFY(QTest::qWaitFor([&window] { return !window.isBusy(); }, 20000));
    QCOMPARE(websites->rowCount(), 1);
    QCOMPARE(websites->item(0, 1)->text(), QStringLiteral("Needs you"));
    notices.refresh();
    QCOMPARE(notices.notices().size(), 1);
    const QString site =
        m_harness.origin(QStringLiteral("shop.test")).mid(int(qstrlen("https://")));
    const QString action = QStringLiteral("Sign in to %1 again").arg(site);
    QPushButton *signInAgain = nullptr;
    for (auto *button : notices.notices().constFirst()->findChildren<QPushButton *>()) {
        if (button->accessibleName() == action)
            signInAgain = button;
    }
    QVERIFY2(signInAgain, qPrintable(action));
    QVERIFY(QTest::qWaitForWindowExposed(notices.window()));
    QVERIFY(signInAgain->isVisible());
    QDir().mkpath(binaryPath(QStringLiteral("screenshots")));
    QVERIFY(notices.window()->grab().save(
        binaryPath(QStringLiteral("screenshots/sign-in-notice-run.png"))));

    // The owner clicks it: the sign-in opens on the site, in the secure browser by default.
    QTest::mouseClick(signInAgain, Qt::LeftButton);
    // Website Access reads its list afresh, then opens that website's sign-in.
    QVERIFY(QTest::qWaitFor([&window] { return window.remoteSignInWindow() != nullptr; }, 20000));
    QPointer<RemoteSignInWindow> signIn = window.remoteSignInWindow();
    QVERIFY(QTest::qWaitForWindowExposed(signIn));
    signIn->activateWindow(); // the owner's keyboard goes to the active window
    QVERIFY(QTest::qWaitForWindowActive(signIn));
    QVERIFY2(waitForPage(*signIn, QStringLiteral("/")), qPrintable(signIn->outcome()));
    QVERIFY(signIn->address().contains(m_harness.origin(QStringLiteral("shop.test"))));
    QCOMPARE(arrived(QStringLiteral("/")), 1);

    // Signs in with the mouse and keyboard: the site's new session, and its orders page.
    signInByHand(*signIn, QStringLiteral("owner@example.com"), QString::fromLatin1(kPassword));
    QVERIFY(waitForPage(*signIn, kOrders));
    QCOMPARE(posts(QStringLiteral("/login")), 1);
    QVERIFY(m_harness.server()
                .bodies(QStringLiteral("/login"))
                .constFirst()
                .contains("email=owner%40example.com"));
    QVERIFY(m_session != expired);

    // Signed in at the site but not yet verified: the run still waits, and has sent nothing
    // all this time. It reads its profile twice a second; the wait spans at least three reads.
    runEventsUntil([&] { return ended() || waiting.elapsed() >= 1500; }, 5000);
    QCOMPARE(said("signed in again"), 0);
    QVERIFY(!ended());
    QCOMPARE(m_model.requests(), 1);
    QCOMPARE(posts(kReorder), 0);
    QCOMPARE(cards, 0);
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);

    // "I'm signed in": the service verifies the session and the profile is READY again.
    bool finished = false;
    bool ready = false;
    QString code;
    connect(signIn.data(), &RemoteSignInWindow::finished, this,
            [&](bool isReady, const QString &why) {
                finished = true;
                ready = isReady;
                code = why;
            });
    QTest::mouseClick(signIn->signedInButton(), Qt::LeftButton);
    QVERIFY(runEventsUntil([&finished] { return finished; }, 60000));
    QVERIFY2(ready, qPrintable(code + QLatin1Char(' ') + signIn->outcome()));

    // The run goes on by itself, orders once, and ends.
    QVERIFY2(runEventsUntil([&] { return said("signed in again") == 1 || ended(); }, 30000),
             err.constData());
    QVERIFY2(runEventsUntil(ended, 60000), err.constData());
    readErr();
    const QByteArray out = process->readAllStandardOutput();
    QVERIFY2(process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0,
             err.constData());
    QCOMPARE(said("asks to sign in"), 1);
    QCOMPARE(said("signed in again"), 1);
    QCOMPARE(out.trimmed(), QByteArray("Done."));
    const QJsonObject summary = runSummaryOf(err);
    QCOMPARE(summary.value("status").toString(), QStringLiteral("completed"));
    QCOMPARE(summary.value("run").toString(), runId);
    // Nothing more may arrive: the positive control closes what the site saw.
    QVERIFY(m_harness.settle());
    QCOMPARE(posts(kReorder), 1);
    // Sent with the session the owner's sign-in brought (sealed by the service's verification).
    QVERIFY(cookieHeaderOf(kReorder).contains(QByteArray(QByteArray("member=") + m_session)));
    QCOMPARE(cards, 1);
    // The call that met the wall, the click, the answer.
    QCOMPARE(m_model.requests(), 3);
    // Neither the password nor a session reached the model or the run's output.
    for (const QByteArray &secret : {QByteArray(kPassword), expired, m_session})
        QVERIFY(!m_sentToModel.contains(secret) && !out.contains(secret) && !err.contains(secret));

    // The timeline: one wall, one resumption.
    const QJsonObject record = shown();
    QCOMPARE(record.value("task_run").toObject().value("status").toString(),
             QStringLiteral("completed"));
    QCOMPARE(record.value("task_run").toObject().value("sign_in_waits").toInt(), 1);
    QStringList kinds;
    for (const QJsonValue &event : record.value("events").toArray()) {
        const QString kind = event.toObject().value("kind").toString();
        if (kind.startsWith(QLatin1String("sign_in.")))
            kinds << kind;
    }
    QCOMPARE(kinds,
             (QStringList{QStringLiteral("sign_in.required"), QStringLiteral("sign_in.resumed")}));

    // The website is ready again, and its notice has gone.
    QCOMPARE(profile(id).status, ProfileStatus::Ready);
    QVERIFY(profile(id).lastVerifiedAt.value() > firstVerified);
    notices.refresh();
    QVERIFY(notices.notices().isEmpty());
    QVERIFY(!notices.window()->isVisible());
    window.refresh();
    QVERIFY(QTest::qWaitFor([&window] { return !window.isBusy(); }, 20000));
    QCOMPARE(websites->item(0, 1)->text(), QStringLiteral("Ready"));
    signIn->close();
    QVERIFY(QTest::qWaitFor([&window] { return window.remoteSignInWindow() == nullptr; }, 10000));
}

int main(int argc, char **argv)
{
    // Before the QApplication exists: the sign-in view's Chromium (as root, no sandbox).
    BrowserEnvironment::configureProcess(BrowserEnvironment::Use::SignIn);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestSignInResume test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_signinresume.moc"
