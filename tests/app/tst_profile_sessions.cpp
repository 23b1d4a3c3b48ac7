// Browsing as a signed-in profile through the profile service, end to end: `veetbot observe
// --profile` and in-process ServiceProviders against the real service process, its real
// browser hosts and the fixture site. The lease rules as a client meets them: one run per
// profile, a killed client's lease ends, the fourth browser is refused, revocation ends a
// live runtime, a restarted service honours no lease. Every refusal is closed by a request
// that must arrive after it.

#include "EventWait.h"
#include "FileSweep.h"
#include "McpSession.h"
#include "ServiceTestCase.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/SqlStores.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QLocalSocket>
#include <QScopeGuard>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace veetbot;
using testing::BrowserTestHarness;
using veetbot::testing::McpSession;

class TestProfileSessions : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void observeAsAProfile();
    void observeAtASignInWallNeedsTheOwner();
    void refusalsSendNothing();
    void oneRunPerProfile();
    void aKilledClientsLeaseEnds();
    void theFourthBrowserIsRefused();
    void revocationEndsALiveRuntime();
    void aRestartedServiceHonoursNoLease_data();
    void aRestartedServiceHonoursNoLease();
    void theSealedSessionReachesTheSiteAndNothingElse();
    void aHealthyCloseSealsAndAFailedOneDoesNot();
    void stateOverABoundKeepsThePreviousSeal();
    void mcpServesAProfile();
    void aSignInPageStopsAnMcpAgent();
    void ordinaryInteractionThroughMcp();
    void taskGrantThroughMcp();
    void standingGrantThroughMcp();
    void theTimelineHoldsNoContent();
    void actsThroughASession();
    void anExpiredLeaseEndsUnsealed();
    void aHolderWithoutAKeeperDoesNotKeepTheProfile();
    void renewalNeverPassesAnHoursLife();
    void theKeeperSocketServesOnlyThisUser();
};

namespace {

// Connects to the keeper socket at `path` as `uid` (a forked child that drops to it: root only,
// unless `uid` is this user), sends `line` and reads the answer: 'o' when the service answered
// "ok", 'c' when it closed the connection unanswered, 'a' when connect() was refused (EACCES),
// 'e' on anything else. Between fork and _exit only async-signal-safe calls.
char keeperAnswerAs(uid_t uid, const QByteArray &path, const QByteArray &line)
{
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    if (size_t(path.size()) >= sizeof address.sun_path)
        return 'e';
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    const bool drop = uid != ::geteuid();
    const pid_t child = ::fork();
    if (child < 0)
        return 'e';
    if (child == 0) {
        if (drop && (::setgroups(0, nullptr) != 0 || ::setgid(gid_t(uid)) != 0 ||
                     ::setuid(uid) != 0 || ::getuid() != uid))
            ::_exit('e');
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            ::_exit('e');
        if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
            ::_exit(errno == EACCES ? 'a' : 'e');
        const timeval wait{10, 0};
        if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0 ||
            ::write(fd, line.constData(), size_t(line.size())) != line.size())
            ::_exit('e');
        char answer[3] = {};
        const ssize_t read = ::read(fd, answer, sizeof answer);
        if (read == 3 && std::memcmp(answer, "ok\n", 3) == 0)
            ::_exit('o');
        ::_exit(read == 0 || (read < 0 && errno == ECONNRESET) ? 'c' : 'e');
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? char(WEXITSTATUS(status)) : 'e';
}

} // namespace

void TestProfileSessions::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    for (const QString &path : {QStringLiteral("/"), QStringLiteral("/control"),
                                QStringLiteral("/refused"), QStringLiteral("/page")})
        m_harness.page(path, "<!doctype html><title>Shop</title><p>hello</p><button>Buy</button>");
    // Reports whether the sealed localStorage item is there, without showing it.
    m_harness.page(QStringLiteral("/storage"),
                   "<!doctype html><title>Storage</title><script>"
                   "if (localStorage.getItem('basket') === 'STORAGE-CANARY-3d9') "
                   "fetch('/storage-ok');</script>");
    fixtures::FixtureServer::Response setsSealed;
    setsSealed.body = "<!doctype html><title>Sealed</title>";
    setsSealed.headers = {{"Set-Cookie", "sealed=1; Secure; Path=/; Max-Age=3600"}};
    m_harness.server().setRoute(QStringLiteral("/set-sealed"), setsSealed);
    fixtures::FixtureServer::Response setsUnsealed;
    setsUnsealed.body = "<!doctype html><title>Unsealed</title><script>"
                        "addEventListener('load', () => fetch('/loaded'));</script>";
    setsUnsealed.headers = {{"Set-Cookie", "unsealed=1; Secure; Path=/; Max-Age=3600"}};
    m_harness.server().setRoute(QStringLiteral("/set-unsealed"), setsUnsealed);
    fixtures::FixtureServer::Response flood;
    flood.body = "<!doctype html><title>Flood</title><script>"
                 "for (let i = 0; i < 2001; ++i) localStorage.setItem('item' + i, 'x');"
                 "fetch('/flooded');</script>";
    flood.headers = {{"Set-Cookie", "flood=1; Secure; Path=/; Max-Age=3600"}};
    m_harness.server().setRoute(QStringLiteral("/flood"), flood);
    // Frames inside an open shadow root: a map, and a CAPTCHA service's challenge.
    for (const auto &[path, title] :
         {std::pair{QStringLiteral("/shadow-frame"), QByteArray("Store map")},
          std::pair{QStringLiteral("/shadow-captcha"), QByteArray("Security challenge")}})
        m_harness.page(path, "<!doctype html><title>Shop</title><p>hello</p><div id=host></div>"
                             "<script>document.getElementById('host').attachShadow({mode:'open'})"
                             ".innerHTML='<iframe title=\"" +
                                 title +
                                 "\" width=304 height=78 src=/frame-body></iframe>';</script>");
    m_harness.page(QStringLiteral("/frame-body"), "<!doctype html><title>Frame</title><p>x</p>");
    // A CAPTCHA frame after more elements than a walk for shadow roots looks at.
    m_harness.page(QStringLiteral("/late-captcha"),
                   "<!doctype html><title>Shop</title><div id=many></div><script>"
                   "const many=document.getElementById('many');for(let i=0;i<5000;i++)"
                   "many.appendChild(document.createElement('span'));</script><iframe "
                   "title=\"Security challenge\" width=304 height=78 src=/frame-body "
                   "style=\"position:fixed;top:10px;left:10px\"></iframe>");
    // A page asking to sign in again (a session that ended), with a canary in its text.
    m_harness.page(QStringLiteral("/signed-out"),
                   "<!doctype html><title>Sign in</title><p>WALL-CANARY-5c1</p><form "
                   "method=post action=/login><input name=u autocomplete=username "
                   "aria-label=Email><input type=password name=p aria-label=Password>"
                   "<button>Sign in</button></form>");
    m_harness.page(QStringLiteral("/storage-count"),
                   "<!doctype html><title>Count</title><script>"
                   "if (localStorage.length === 0) fetch('/storage-empty');</script>");
    m_harness.page(QStringLiteral("/form"),
                   "<!doctype html><title>Form</title><button onclick=\"fetch('/effect', "
                   "{method: 'POST', body: 'paid'})\">Pay</button>");
    fixtures::FixtureServer::Response setsExpiring;
    setsExpiring.body = "<!doctype html><title>Expiring</title>";
    setsExpiring.headers = {{"Set-Cookie", "expiring=1; Secure; Path=/; Max-Age=3600"}};
    m_harness.server().setRoute(QStringLiteral("/set-expiring"), setsExpiring);
    fixtures::FixtureServer::Response slow;
    slow.body = "<!doctype html><title>Slow</title>";
    slow.delayMs = 8000;
    m_harness.server().setRoute(QStringLiteral("/slow"), slow);
}

void TestProfileSessions::init()
{
    m_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/vss-XXXXXX"));
    m_dataDir = m_dir->path() + QStringLiteral("/data");
    m_runDir = m_dir->path() + QStringLiteral("/run");
    m_keyDir = m_dir->path() + QStringLiteral("/keys");
    m_harness.server().resetCounters();
    QCOMPARE(run(QStringLiteral("veetbot-profile-service"),
                 {QStringLiteral("keys"), QStringLiteral("init"), m_keyDir})
                 .exitCode,
             0);
    // This process reads the same configuration (tenant, principal) as the programs.
    qputenv("VEETBOT_DATA_DIR", m_dataDir.toUtf8());
}

void TestProfileSessions::cleanup()
{
    QCOMPARE(run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
                 .exitCode,
             0);
    qunsetenv("VEETBOT_DATA_DIR");
}

void TestProfileSessions::observeAsAProfile()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const Run observed =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/page"))});
    QVERIFY2(observed.exitCode == 0, QByteArray(observed.out + observed.err).constData());
    const QJsonObject observation = QJsonDocument::fromJson(observed.out).object();
    QCOMPARE(observation.value(QStringLiteral("title")).toString(), QStringLiteral("Shop"));
    QCOMPARE(arrived(QStringLiteral("/page")), 1);
    // The observation names no lease, reference or key.
    QVERIFY(!observed.out.contains(profile(id).providerReference->toUtf8()));
    QVERIFY(!observed.out.contains("lease"));
    // The browser ran in the service, and the lease ended with the command.
    const Run status =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("status")});
    QCOMPARE(status.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(status.out).object().value(QStringLiteral("browsers")).toInt(),
             0);
}

// `observe --profile` screens the page as the agent tools do: a page asking to sign in (the
// session the site ended) prints nothing of itself, answers tool.browser.needs_user (exit 3),
// and the profile needs its owner: the next command is refused before any request.
void TestProfileSessions::observeAtASignInWallNeedsTheOwner()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const Run wall =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/signed-out"))});
    QCOMPARE(wall.exitCode, 3);
    QCOMPARE(wall.errorCode(), QStringLiteral("tool.browser.needs_user"));
    QCOMPARE(arrived(QStringLiteral("/signed-out")), 1); // loaded, and shown to no one
    for (const QByteArray &output : {wall.out, wall.err})
        QVERIFY(!output.contains("WALL-CANARY") && !output.contains("Password") &&
                !output.contains("revision"));
    QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
    // The same with --budget and --wait-for: nothing of the page either way.
    const Run waited =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), id, QStringLiteral("--budget"),
             QStringLiteral("4096"), url(QStringLiteral("/signed-out"))});
    QCOMPARE(waited.exitCode, 3);
    QCOMPARE(waited.errorCode(), QStringLiteral("tool.browser.needs_user")); // refused at bind
    QCOMPARE(arrived(QStringLiteral("/signed-out")), 1);
    // Another READY profile's ordinary page still prints (the positive control), with --wait-for
    // on a wall screened before the wait.
    const QString other = createProfile();
    const Run page =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"),
                                        other, url(QStringLiteral("/page"))});
    QVERIFY2(page.exitCode == 0, QByteArray(page.out + page.err).constData());
    QCOMPARE(QJsonDocument::fromJson(page.out).object().value(QStringLiteral("title")).toString(),
             QStringLiteral("Shop"));
    const Run polled =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), other,
             QStringLiteral("--wait-for"),
             QStringLiteral(R"({"role":"button","name":"Sign in","timeout_ms":500})"),
             url(QStringLiteral("/signed-out"))});
    QCOMPARE(polled.exitCode, 3);
    QCOMPARE(polled.errorCode(), QStringLiteral("tool.browser.needs_user"));
    QVERIFY(!polled.out.contains("WALL-CANARY") && !polled.out.contains("wait_for"));
    QCOMPARE(profile(other).status, ProfileStatus::NeedsUser);
}

void TestProfileSessions::refusalsSendNothing()
{
    const QString ready = createProfile();
    const QString signedOut = createProfile(false);
    QVERIFY(!ready.isEmpty() && !signedOut.isEmpty());
    const QString refused = url(QStringLiteral("/refused"));
    const Run notReady =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), signedOut, refused});
    QCOMPARE(notReady.exitCode, 3);
    QCOMPARE(notReady.errorCode(), QStringLiteral("tool.browser.authentication_required"));
    const Run unknown = run(QStringLiteral("veetbot"),
                            {QStringLiteral("observe"), QStringLiteral("--profile"),
                             QUuid::createUuid().toString(QUuid::WithoutBraces), refused});
    QCOMPARE(unknown.exitCode, 3);
    QCOMPARE(unknown.errorCode(), QStringLiteral("tool.browser.profile_unavailable"));
    const Run both =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"),
                                        ready, QStringLiteral("--allow-origin"),
                                        m_harness.origin(QStringLiteral("shop.test")), refused});
    QCOMPARE(both.exitCode, 2);
    const Run elsewhere =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), ready,
             m_harness.url(QStringLiteral("evil.test"), QStringLiteral("/refused")).toString()});
    QCOMPARE(elsewhere.exitCode, 3);
    QCOMPARE(elsewhere.errorCode(), QStringLiteral("tool.browser.url_disallowed"));
    // The positive control: the ready profile's page arrives, and nothing refused did before.
    QCOMPARE(run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"),
                                             ready, url(QStringLiteral("/control"))})
                 .exitCode,
             0);
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    QCOMPARE(m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/refused")), 0);
    QCOMPARE(m_harness.server().countHost(QStringLiteral("evil.test")), 0);
}

void TestProfileSessions::oneRunPerProfile()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto first = provider(id, QStringLiteral("run-a"));
    auto second = provider(id, QStringLiteral("run-b"));
    QVERIFY(BrowserTestHarness::navigate(*first, QUrl(url(QStringLiteral("/page")))).ok());
    const Result<BrowserObservation> refused =
        BrowserTestHarness::navigate(*second, QUrl(url(QStringLiteral("/refused"))));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, QStringLiteral("tool.browser.profile_unavailable"));
    // The same run again (another provider, as after a resumption) gets its lease back.
    auto again = provider(id, QStringLiteral("run-a"));
    QVERIFY(BrowserTestHarness::observe(*again).ok());
    first->close();
    QVERIFY(BrowserTestHarness::navigate(*second, QUrl(url(QStringLiteral("/control")))).ok());
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    QCOMPARE(arrived(QStringLiteral("/refused")), 0);
    second->close();
}

void TestProfileSessions::aKilledClientsLeaseEnds()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *client = start(
        {QStringLiteral("observe"), QStringLiteral("--profile"), id, url(QStringLiteral("/slow"))});
    // It holds the lease while the slow page loads; then it is killed.
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/slow")) == 1; }, 60000));
    ::kill(pid_t(client->processId()), SIGKILL);
    QVERIFY(client->waitForFinished(10000));
    // The lease ends with its holder, as soon as the service sees the holder's keeper
    // connection close; then another run may use the profile.
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    auto next = provider(id, QStringLiteral("run-after"));
    const Result<BrowserObservation> observed =
        BrowserTestHarness::navigate(*next, QUrl(url(QStringLiteral("/control"))));
    QVERIFY2(observed.ok(), observed.ok() ? "" : qPrintable(observed.error().code));
    next->close();
}

void TestProfileSessions::theFourthBrowserIsRefused()
{
    QStringList ids;
    for (int i = 0; i < 4; ++i)
        ids << createProfile();
    QVERIFY(!ids.contains(QString()));
    std::vector<std::unique_ptr<ServiceProvider>> holders;
    for (int i = 0; i < 3; ++i) {
        holders.push_back(provider(ids.at(i), QStringLiteral("run-%1").arg(i)));
        QVERIFY(
            BrowserTestHarness::navigate(*holders.back(), QUrl(url(QStringLiteral("/page")))).ok());
    }
    auto fourth = provider(ids.at(3), QStringLiteral("run-3"));
    const Result<BrowserObservation> refused =
        BrowserTestHarness::navigate(*fourth, QUrl(url(QStringLiteral("/refused"))));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    holders.front()->close();
    QVERIFY(BrowserTestHarness::navigate(*fourth, QUrl(url(QStringLiteral("/control")))).ok());
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    QCOMPARE(arrived(QStringLiteral("/refused")), 0);
}

void TestProfileSessions::revocationEndsALiveRuntime()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto holder = provider(id, QStringLiteral("run-r"));
    QVERIFY(BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/page")))).ok());
    QCOMPARE(
        run(QStringLiteral("veetbot"), {QStringLiteral("profiles"), QStringLiteral("revoke"), id})
            .exitCode,
        0);
    const Result<BrowserObservation> after = BrowserTestHarness::observe(*holder);
    QVERIFY(!after.ok());
    QCOMPARE(after.error().code, QStringLiteral("tool.browser.profile_unavailable"));
    // And a new acquire is refused too: the fence holds.
    const Result<BrowserObservation> again =
        BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/refused"))));
    QVERIFY(!again.ok());
    QCOMPARE(arrived(QStringLiteral("/refused")), 0);
}

void TestProfileSessions::aRestartedServiceHonoursNoLease_data()
{
    QTest::addColumn<bool>("killed");
    QTest::newRow("stopped") << false;
    // Killed mid-lease: no close, no seal, a stale socket and lock file left behind.
    QTest::newRow("killed") << true;
}

void TestProfileSessions::aRestartedServiceHonoursNoLease()
{
    QFETCH(bool, killed);
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto sealer = provider(id, QStringLiteral("run-before"));
    QVERIFY(BrowserTestHarness::navigate(*sealer, QUrl(url(QStringLiteral("/set-sealed")))).ok());
    sealer->close();
    auto holder = provider(id, QStringLiteral("run-s"));
    QVERIFY(BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/set-unsealed")))).ok());
    if (killed) {
        const Run status =
            run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("status")});
        const int pid =
            QJsonDocument::fromJson(status.out).object().value(QStringLiteral("pid")).toInt();
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QVERIFY(testing::runEventsUntil([pid] { return ::kill(pid_t(pid), 0) != 0; }, 10000));
    } else {
        QCOMPARE(run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
                     .exitCode,
                 0);
    }
    QCOMPARE(run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("start")})
                 .exitCode,
             0);
    // The old lease is not honoured; the provider drops it and the next call acquires anew,
    // from the state sealed before it: nothing of the lease that ended with its service.
    const Result<BrowserObservation> stale = BrowserTestHarness::observe(*holder);
    QVERIFY(!stale.ok());
    QVERIFY(BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/control")))).ok());
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    const QByteArray cookies = cookieHeaderOf(QStringLiteral("/control"));
    QVERIFY2(cookies.contains("sealed=1"), cookies.constData());
    QVERIFY2(!cookies.contains("unsealed=1"), cookies.constData());
    holder->close();
}

void TestProfileSessions::theSealedSessionReachesTheSiteAndNothingElse()
{
    const QByteArray canary = "SEALED-COOKIE-CANARY-8c2e";
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QCOMPARE(run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")})
                 .exitCode,
             0);
    SessionState state;
    state.cookies = {StoredCookie{QStringLiteral("session"), QString::fromLatin1(canary),
                                  QStringLiteral("shop.test"), QStringLiteral("/"), -1, true, true,
                                  QStringLiteral("Lax")},
                     // Another site's cookie never reaches a lease's browser.
                     StoredCookie{QStringLiteral("elsewhere"), QStringLiteral("x"),
                                  QStringLiteral("evil.test"), QStringLiteral("/"), -1, false, true,
                                  QStringLiteral("Lax")}};
    state.origins = {
        OriginStorage{m_harness.origin(QStringLiteral("shop.test")),
                      {{QStringLiteral("basket"), QStringLiteral("STORAGE-CANARY-3d9")}}}};
    QVERIFY(seal(id, state));

    const Run observed =
        run(QStringLiteral("veetbot"), {QStringLiteral("observe"), QStringLiteral("--profile"), id,
                                        url(QStringLiteral("/storage"))});
    QCOMPARE(observed.exitCode, 0);
    // The site got the session; the page found its storage.
    QVERIFY(cookieHeaderOf(QStringLiteral("/storage"))
                .contains(QByteArray(QByteArray("session=") + canary)));
    QVERIFY(!cookieHeaderOf(QStringLiteral("/storage")).contains("elsewhere"));
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/storage-ok")) == 1; },
                                    10000));
    // Nothing else ever holds it: the observation, the command's output, the service's log,
    // the metadata database.
    QVERIFY(!observed.out.contains(canary) && !observed.err.contains(canary));
    // Nor what a model would receive: the projection of the same page.
    const Run projected =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("observe"), QStringLiteral("--profile"), id, QStringLiteral("--budget"),
             QStringLiteral("4096"), url(QStringLiteral("/storage"))});
    QCOMPARE(projected.exitCode, 0);
    QVERIFY(!projected.out.isEmpty());
    QVERIFY(!projected.out.contains(canary) && !projected.out.contains("STORAGE-CANARY"));
    QVERIFY(!observed.out.contains("STORAGE-CANARY"));
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("profiles"), QStringLiteral("show"), id});
    QVERIFY(!shown.out.contains(canary));
    // Nor any file (the service's log, the metadata database and any write-ahead log, the
    // vault, which holds both sealed, never in the clear); the sweep finds the profile's id in
    // the metadata database.
    const testing::FileSweep files({m_dir->path()});
    QVERIFY2(files.unreadable().isEmpty(), qPrintable(files.unreadable().join(u' ')));
    for (const QByteArray &secret : {canary, QByteArray("STORAGE-CANARY")})
        QVERIFY2(files.holding(secret).isEmpty(), qPrintable(files.holding(secret).join(u' ')));
    QVERIFY(files.holding(id.toUtf8()).contains(m_dataDir + QStringLiteral("/profiles.sqlite")));
    // The other site's cookie was never restored into the lease's browser (Chromium would not
    // have sent it to shop.test anyway): the state sealed back on the lease's healthy close
    // holds the session, and nothing of evil.test.
    const std::optional<SessionState> sealed = sealedState(id);
    QVERIFY(sealed);
    QStringList domains;
    bool session = false;
    for (const StoredCookie &cookie : sealed->cookies) {
        domains << cookie.domain;
        session = session ||
                  (cookie.name == QLatin1String("session") && cookie.value.toLatin1() == canary);
    }
    QVERIFY(session);
    QVERIFY2(!domains.join(QLatin1Char(' ')).contains(QLatin1String("evil.test")),
             qPrintable(domains.join(QLatin1Char(' '))));
}

void TestProfileSessions::aHealthyCloseSealsAndAFailedOneDoesNot()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    // A healthy close seals what the site set during the lease.
    auto first = provider(id, QStringLiteral("run-seal"));
    QVERIFY(BrowserTestHarness::navigate(*first, QUrl(url(QStringLiteral("/set-sealed")))).ok());
    first->close();
    // A lease whose holder is killed closes without sealing, however late.
    QProcess *client = start(
        {QStringLiteral("observe"), QStringLiteral("--profile"), id, QStringLiteral("--wait-for"),
         QStringLiteral(R"({"role":"button","name":"Never","timeout_ms":5000})"),
         url(QStringLiteral("/set-unsealed"))});
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/loaded")) == 1; }, 60000));
    ::kill(pid_t(client->processId()), SIGKILL);
    QVERIFY(client->waitForFinished(10000));
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    // The next lease starts from the sealed state: the first cookie, not the second.
    auto next = provider(id, QStringLiteral("run-next"));
    QVERIFY(BrowserTestHarness::navigate(*next, QUrl(url(QStringLiteral("/control")))).ok());
    const QByteArray cookies = cookieHeaderOf(QStringLiteral("/control"));
    QVERIFY2(cookies.contains("sealed=1"), cookies.constData());
    QVERIFY2(!cookies.contains("unsealed=1"), cookies.constData());
    next->close();
}

void TestProfileSessions::stateOverABoundKeepsThePreviousSeal()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto first = provider(id, QStringLiteral("run-seal"));
    QVERIFY(BrowserTestHarness::navigate(*first, QUrl(url(QStringLiteral("/set-sealed")))).ok());
    first->close();
    // A healthy close of a browser holding more than 2,000 localStorage items of one origin
    // seals nothing: not the flood, and not the cookie set beside it.
    auto flooding = provider(id, QStringLiteral("run-flood"));
    QVERIFY(BrowserTestHarness::navigate(*flooding, QUrl(url(QStringLiteral("/flood")))).ok());
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/flooded")) == 1; },
                                    10000));
    flooding->close();
    auto next = provider(id, QStringLiteral("run-next"));
    QVERIFY(BrowserTestHarness::navigate(*next, QUrl(url(QStringLiteral("/storage-count")))).ok());
    const QByteArray cookies = cookieHeaderOf(QStringLiteral("/storage-count"));
    QVERIFY2(cookies.contains("sealed=1"), cookies.constData());
    QVERIFY2(!cookies.contains("flood=1"), cookies.constData());
    QVERIFY(testing::runEventsUntil(
        [this] { return arrived(QStringLiteral("/storage-empty")) == 1; }, 10000));
    next->close();
}

void TestProfileSessions::mcpServesAProfile()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QCOMPARE(run(QStringLiteral("veetbot"),
                 {QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                  QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test"))})
                 .exitCode,
             2);
    QCOMPARE(run(QStringLiteral("veetbot"),
                 {QStringLiteral("mcp"), QStringLiteral("--profile"), createProfile(false)})
                 .exitCode,
             3);
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id});
    QVERIFY(server->waitForStarted(10000));
    QByteArray received;
    connect(server, &QProcess::readyReadStandardOutput, this,
            [server, &received] { received += server->readAllStandardOutput(); });
    const auto answer = [&received](int requestId) -> QJsonObject {
        for (const QByteArray &line : received.split('\n')) {
            const QJsonObject message = QJsonDocument::fromJson(line).object();
            if (message.value(QStringLiteral("id")).toInt() == requestId)
                return message;
        }
        return {};
    };
    const auto ask = [&](int requestId, const QByteArray &request) {
        server->write(request + '\n');
        return testing::runEventsUntil([&] { return !answer(requestId).isEmpty(); }, 60000);
    };
    QVERIFY(
        ask(1, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})"));
    QVERIFY(ask(2, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"));
    QStringList tools;
    for (const QJsonValue &tool : answer(2)
                                      .value(QStringLiteral("result"))
                                      .toObject()
                                      .value(QStringLiteral("tools"))
                                      .toArray())
        tools << tool.toObject().value(QStringLiteral("name")).toString();
    QCOMPARE(tools,
             QStringList({QStringLiteral("veetbot_navigate"), QStringLiteral("veetbot_observe"),
                          QStringLiteral("veetbot_act")}));
    const QByteArray navigate =
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"veetbot_navigate",)"
        R"("arguments":{"url":")" +
        url(QStringLiteral("/page")).toUtf8() + R"("}}})";
    QVERIFY(ask(3, navigate));
    const QJsonObject result = answer(3).value(QStringLiteral("result")).toObject();
    QVERIFY2(!result.value(QStringLiteral("isError")).toBool(),
             QJsonDocument(result).toJson().constData());
    QVERIFY(QJsonDocument(result).toJson().contains("Shop"));
    QCOMPARE(arrived(QStringLiteral("/page")), 1);
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    QCOMPARE(server->exitCode(), 0);
    // Its lease ended with it.
    const Run status =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("status")});
    QCOMPARE(QJsonDocument::fromJson(status.out).object().value(QStringLiteral("browsers")).toInt(),
             0);
}

// An MCP agent meets a page asking to sign in: its call answers tool.browser.needs_user with
// nothing of the page, the profile needs its owner (NEEDS_USER, no new session binds it), and
// the owner's timeline says so. Closed by a control: the same session's earlier page came
// through whole.
void TestProfileSessions::aSignInPageStopsAnMcpAgent()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id});
    QVERIFY(server->waitForStarted(10000));
    {
        McpSession mcp(server);
        QVERIFY(!mcp.ask(QStringLiteral("initialize"),
                         {{QStringLiteral("capabilities"), QJsonObject()}})
                     .isEmpty());
        const QJsonObject page = mcp.tool(QStringLiteral("veetbot_navigate"),
                                          {{QStringLiteral("url"), url(QStringLiteral("/page"))}});
        QVERIFY2(!page.contains(QLatin1String("error")), QJsonDocument(page).toJson().constData());
        // A frame in a shadow root is no wall; a CAPTCHA service's frame there is one.
        const QJsonObject framed =
            mcp.tool(QStringLiteral("veetbot_navigate"),
                     {{QStringLiteral("url"), url(QStringLiteral("/shadow-frame"))}});
        QVERIFY2(!framed.contains(QLatin1String("error")),
                 QJsonDocument(framed).toJson().constData());
        QCOMPARE(profile(id).status, ProfileStatus::Ready);
        const QJsonObject captcha =
            mcp.tool(QStringLiteral("veetbot_navigate"),
                     {{QStringLiteral("url"), url(QStringLiteral("/shadow-captcha"))}});
        QCOMPARE(captcha.value("error").toObject().value("code").toString(),
                 QStringLiteral("tool.browser.needs_user"));
        const QJsonObject late =
            mcp.tool(QStringLiteral("veetbot_navigate"),
                     {{QStringLiteral("url"), url(QStringLiteral("/late-captcha"))}});
        QCOMPARE(late.value("error").toObject().value("code").toString(),
                 QStringLiteral("tool.browser.needs_user"));
        const QJsonObject wall =
            mcp.tool(QStringLiteral("veetbot_navigate"),
                     {{QStringLiteral("url"), url(QStringLiteral("/signed-out"))}});
        QCOMPARE(wall.value("error").toObject().value("code").toString(),
                 QStringLiteral("tool.browser.needs_user"));
        QCOMPARE(arrived(QStringLiteral("/signed-out")), 1); // it was loaded, and shown to no one
        const QByteArray text = QJsonDocument(wall).toJson();
        QVERIFY(!text.contains("WALL-CANARY") && !text.contains("Password") &&
                !text.contains("revision"));
        // Looking again changes nothing.
        QCOMPARE(mcp.tool(QStringLiteral("veetbot_observe"), {})
                     .value("error")
                     .toObject()
                     .value("code")
                     .toString(),
                 QStringLiteral("tool.browser.needs_user"));
        QCOMPARE(profile(id).status, ProfileStatus::NeedsUser);
        server->closeWriteChannel();
        QVERIFY(testing::runEventsUntil(
            [server] { return server->state() == QProcess::NotRunning; }, 30000));
    }
    // No new session binds it until the owner signs in again.
    const Run refused =
        run(QStringLiteral("veetbot"), {QStringLiteral("mcp"), QStringLiteral("--profile"), id});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY(refused.err.contains("tool.browser.needs_user"));
    // The owner's timeline: the interruption, where it happened, and nothing of the page.
    const Run runs =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("list")});
    const QString newest = QJsonDocument::fromJson(runs.out)
                               .object()
                               .value("runs")
                               .toArray()
                               .first()
                               .toObject()
                               .value("id")
                               .toString();
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"), newest});
    QVERIFY(shown.out.contains("\"sign_in.required\""));
    QVERIFY(shown.out.contains("\"signed-out\""));
    QVERIFY(!shown.out.contains("WALL-CANARY"));
}

void TestProfileSessions::ordinaryInteractionThroughMcp()
{
    // A routine control and two that delete the account, one spelt with a Cyrillic "е".
    m_harness.page(QStringLiteral("/controls"),
                   "<!doctype html><title>Controls</title>"
                   "<button onclick=\"fetch('/hit/more')\">Show more</button>"
                   "<button onclick=\"fetch('/hit/delete',{method:'POST'})\">Delete "
                   "account</button><button onclick=\"fetch('/hit/lookalike',{method:'POST'})"
                   "\">D\xd0\xb5lete account</button>"
                   "<button onclick=\"location.href='/billing/cards'\">Go on</button>");
    // A routine-looking control that becomes "Delete account" in its visible text two seconds
    // after the page loaded (it tells the site when: /relabelled-now), beside a routine one.
    m_harness.page(QStringLiteral("/relabelled"),
                   "<!doctype html><title>Relabelled</title>"
                   "<button id=b aria-label=\"Show more\" "
                   "onclick=\"fetch('/hit/relabelled',{method:'POST'})\">More</button>"
                   "<button onclick=\"fetch('/hit/next')\">Next page</button>"
                   "<script>setTimeout(function(){document.getElementById('b').textContent="
                   "'Delete account';fetch('/relabelled-now');},2000);</script>");
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const auto serve = [&](const QStringList &extra) {
        QProcess *server = start(QStringList{QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                                             QStringLiteral("--approver"), QStringLiteral("deny")} +
                                 extra);
        return server->waitForStarted(10000) ? server : nullptr;
    };
    const auto stop = [](QProcess *server) {
        server->closeWriteChannel();
        return testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                       30000);
    };
    {
        QProcess *server = serve({QStringLiteral("--trust-turns"), QStringLiteral("owner")});
        QVERIFY(server);
        McpSession mcp(server);
        mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
        QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                          {{QStringLiteral("url"), url(QStringLiteral("/controls"))}})
                     .contains(QStringLiteral("error")));
        // The routine control runs without anyone asked, once.
        QCOMPARE(mcp.click(QStringLiteral("Show more")), QString());
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/more")) == 1; }, 10000));
        // Named consequences still need an approval, and the deny approver gives none.
        QCOMPARE(mcp.click(QStringLiteral("Delete account")),
                 QStringLiteral("tool.approval_denied"));
        QCOMPARE(mcp.click(QString::fromUtf8("D\xd0\xb5lete account")),
                 QStringLiteral("tool.approval_denied"));
        // A routine control whose script navigates to a page that names a payment: the act
        // runs, but while it runs documents stay off consequential paths, so the page stays.
        QCOMPARE(mcp.click(QStringLiteral("Go on")), QString());
        // Positive control: a click sent after them arrives, and they never did.
        QCOMPARE(mcp.click(QStringLiteral("Show more")), QString());
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/more")) == 2; }, 10000));
        QCOMPARE(arrived(QStringLiteral("/hit/delete")), 0);
        QCOMPARE(arrived(QStringLiteral("/hit/lookalike")), 0);
        QCOMPARE(arrived(QStringLiteral("/billing/cards")), 0);

        // A control observed as routine whose visible text turns into "Delete account" before
        // the act (its accessible name stays): the browser reads it again just before input
        // and refuses; nothing reaches the site.
        QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                          {{QStringLiteral("url"), url(QStringLiteral("/relabelled"))}})
                     .contains(QStringLiteral("error")));
        const QJsonObject observed = mcp.observe();
        QVERIFY(QJsonDocument(observed).toJson().contains("More"));
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/relabelled-now")) == 1; }, 10000));
        QCOMPARE(mcp.click(observed, QStringLiteral("Show more")),
                 QStringLiteral("tool.browser.grant_not_applicable"));
        QCOMPARE(mcp.click(QStringLiteral("Next page")), QString()); // positive control
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/next")) == 1; }, 10000));
        QCOMPARE(arrived(QStringLiteral("/hit/relabelled")), 0);
        QVERIFY(stop(server));
    }
    // Without the owner's statement about turns, or with ordinary interaction off, even the
    // routine control needs an approval.
    for (const QStringList &extra :
         {QStringList(),
          QStringList{QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                      QStringLiteral("--ordinary-interaction"), QStringLiteral("off")}}) {
        QProcess *server = serve(extra);
        QVERIFY(server);
        McpSession mcp(server);
        mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
        mcp.tool(QStringLiteral("veetbot_navigate"),
                 {{QStringLiteral("url"), url(QStringLiteral("/controls"))}});
        QCOMPARE(mcp.click(QStringLiteral("Show more")), QStringLiteral("tool.approval_denied"));
        QVERIFY(stop(server));
    }
    QCOMPARE(arrived(QStringLiteral("/hit/more")), 2);
}

void TestProfileSessions::taskGrantThroughMcp()
{
    m_harness.page(QStringLiteral("/lesson/one"),
                   "<!doctype html><title>Lesson</title>"
                   "<button onclick=\"fetch('/hit/next',{method:'POST'})\">Next</button>"
                   "<button onclick=\"fetch('/hit/delete',{method:'POST'})\">Delete "
                   "account</button><label>Note <input type=text></label>");
    // "Save" turns into "Delete account" in its visible text two seconds after the page loaded
    // (it tells the site when: /lesson-relabelled); its accessible name stays, so the page's
    // revision checks still see the same element.
    m_harness.page(QStringLiteral("/lesson/relabel"),
                   "<!doctype html><title>Relabel</title>"
                   "<button id=b aria-label=Save onclick=\"fetch('/hit/save',{method:'POST'})\">"
                   "Save</button>"
                   "<button onclick=\"fetch('/hit/page',{method:'POST'})\">Next page</button>"
                   "<script>setTimeout(function(){document.getElementById('b').textContent="
                   "'Delete account';fetch('/lesson-relabelled');},2000);</script>");
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const Run added =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("scopes"), QStringLiteral("add"), url(QStringLiteral("/lesson"))});
    QVERIFY2(added.exitCode == 0, added.err.constData());
    // Ordinary interaction off, so every act but those a task grant covers needs a card; the
    // client answers the cards (elicitation), accepting the first offer.
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--approver"), QStringLiteral("elicitation"),
                              QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                              QStringLiteral("--ordinary-interaction"), QStringLiteral("off")});
    QVERIFY(server->waitForStarted(10000));
    McpSession mcp(server);
    bool acceptOffer = true;
    mcp.onElicitation([&acceptOffer](const QJsonObject &params) {
        const bool offered = params.value(QStringLiteral("requestedSchema"))
                                 .toObject()
                                 .value(QStringLiteral("properties"))
                                 .toObject()
                                 .contains(QStringLiteral("for_task"));
        if (!offered || !acceptOffer)
            return QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}};
        acceptOffer = false;
        return QJsonObject{
            {QStringLiteral("action"), QStringLiteral("accept")},
            {QStringLiteral("content"),
             QJsonObject{{QStringLiteral("approve"), true}, {QStringLiteral("for_task"), true}}}};
    });
    mcp.ask(QStringLiteral("initialize"),
            {{QStringLiteral("capabilities"),
              QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}}}});
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/lesson/one"))}})
                 .contains(QStringLiteral("error")));

    // The first act asks; the card offers the scope, and approve_for_task runs it once.
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(mcp.elicitations(), 1);
    QVERIFY(mcp.lastElicitation()
                .value(QStringLiteral("message"))
                .toString()
                .contains(url(QStringLiteral("/lesson"))));
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/hit/next")) == 1; },
                                    10000));
    // Then the grant stands in for the card: a click, and text that keeps the typed-text rules.
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(mcp.type(QStringLiteral("Note"), QStringLiteral("lemon tart")), QString());
    QCOMPARE(mcp.elicitations(), 1);
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/hit/next")) == 2; },
                                    10000));
    // Text the rules refuse (a run of four digits, an address, an email) asks, and is denied.
    for (const QString &text : {QStringLiteral("call 5551234"), QStringLiteral("www.example.com"),
                                QStringLiteral("me@example.com")})
        QCOMPARE(mcp.type(QStringLiteral("Note"), text), QStringLiteral("tool.approval_denied"));
    QCOMPARE(mcp.elicitations(), 4);
    // A named consequence is never covered: it asks, and the denial sends nothing.
    QCOMPARE(mcp.click(QStringLiteral("Delete account")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(mcp.elicitations(), 5);

    // "Save", covered when observed, is "Delete account" by the time it runs: the browser
    // reads it again just before input and refuses under the grant; nothing is sent.
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/lesson/relabel"))}})
                 .contains(QStringLiteral("error")));
    const QJsonObject observed = mcp.observe();
    QVERIFY(QJsonDocument(observed).toJson().contains("Save"));
    QVERIFY(testing::runEventsUntil(
        [this] { return arrived(QStringLiteral("/lesson-relabelled")) == 1; }, 10000));
    QCOMPARE(mcp.click(observed, QStringLiteral("Save")),
             QStringLiteral("tool.browser.grant_not_applicable"));
    QCOMPARE(mcp.click(QStringLiteral("Next page")), QString()); // positive control
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/hit/page")) == 1; },
                                    10000));
    QCOMPARE(arrived(QStringLiteral("/hit/save")), 0);
    QCOMPARE(arrived(QStringLiteral("/hit/delete")), 0);
    QCOMPARE(mcp.elicitations(), 5);

    // The owner revokes it: the next act asks again.
    const Run listed =
        run(QStringLiteral("veetbot"), {QStringLiteral("task-grants"), QStringLiteral("list")});
    QCOMPARE(listed.exitCode, 0);
    const QJsonArray grants =
        QJsonDocument::fromJson(listed.out).object().value(QStringLiteral("task_grants")).toArray();
    QCOMPARE(grants.size(), 1);
    const QJsonObject grant = grants.first().toObject();
    QCOMPARE(grant.value(QStringLiteral("status")).toString(), QStringLiteral("active"));
    QCOMPARE(grant.value(QStringLiteral("scope")).toString(), url(QStringLiteral("/lesson")));
    // Two clicks, a type and the refused "Save": a use is consumed before dispatch, never
    // refunded.
    QCOMPARE(grant.value(QStringLiteral("actions_used")).toInt(), 4);
    const QString grantId = grant.value(QStringLiteral("id")).toString();
    QCOMPARE(run(QStringLiteral("veetbot"),
                 {QStringLiteral("task-grants"), QStringLiteral("revoke"), grantId})
                 .exitCode,
             0);
    QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/lesson/one"))}})
                 .contains(QStringLiteral("error")));
    QCOMPARE(mcp.click(QStringLiteral("Next")), QStringLiteral("tool.approval_denied"));
    QCOMPARE(mcp.elicitations(), 6);
    QCOMPARE(arrived(QStringLiteral("/hit/next")), 2);
    // A new grant, accepted on the next card, ends with its session.
    acceptOffer = true;
    QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
    QCOMPARE(mcp.elicitations(), 7);
    QVERIFY(testing::runEventsUntil([this] { return arrived(QStringLiteral("/hit/next")) == 3; },
                                    10000));
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
    const Run after =
        run(QStringLiteral("veetbot"), {QStringLiteral("task-grants"), QStringLiteral("list")});
    const QJsonArray ended =
        QJsonDocument::fromJson(after.out).object().value(QStringLiteral("task_grants")).toArray();
    QCOMPARE(ended.size(), 2);
    QStringList reasons;
    for (const QJsonValue &value : ended)
        reasons << value.toObject().value(QStringLiteral("end_reason")).toString();
    reasons.sort();
    QCOMPARE(reasons, (QStringList{QStringLiteral("revoked"), QStringLiteral("session_ended")}));

    // The audit: created, one authorized record per use, exactly one ended; the views keep
    // the typed text's length, never the text.
    const Run shown = run(QStringLiteral("veetbot"),
                          {QStringLiteral("task-grants"), QStringLiteral("show"), grantId});
    QCOMPARE(shown.exitCode, 0);
    const QJsonObject detail = QJsonDocument::fromJson(shown.out).object();
    QCOMPARE(detail.value(QStringLiteral("end_reason")).toString(), QStringLiteral("revoked"));
    QStringList kinds;
    int typedViews = 0;
    for (const QJsonValue &record : detail.value(QStringLiteral("audit")).toArray()) {
        kinds << record.toObject().value(QStringLiteral("kind")).toString();
        const QJsonObject view =
            record.toObject().value(QStringLiteral("approval_view")).toObject();
        if (view.value(QStringLiteral("kind")) == QLatin1String("type")) {
            ++typedViews;
            QCOMPARE(view.value(QStringLiteral("text_code_points")).toInt(), 10);
            QVERIFY(!view.contains(QStringLiteral("text")));
        }
    }
    QCOMPARE(typedViews, 1);
    QCOMPARE(
        kinds,
        (QStringList{QStringLiteral("browser.task_grant.created"),
                     QStringLiteral("tool.call.authorized"), QStringLiteral("tool.call.authorized"),
                     QStringLiteral("tool.call.authorized"), QStringLiteral("tool.call.authorized"),
                     QStringLiteral("browser.task_grant.ended")}));
    QVERIFY(!shown.out.contains("lemon"));
    // Nothing the owner or the model typed is in any file of the data directory (write-ahead
    // logs included), where the profile's id is.
    const testing::FileSweep files({m_dataDir});
    QVERIFY2(files.unreadable().isEmpty(), qPrintable(files.unreadable().join(u' ')));
    for (const QByteArray &typed : {QByteArray("lemon tart"), QByteArray("5551234")})
        QVERIFY2(files.holding(typed).isEmpty(), qPrintable(files.holding(typed).join(u' ')));
    QVERIFY(!files.holding(id.toUtf8()).isEmpty());
}

void TestProfileSessions::standingGrantThroughMcp()
{
    m_harness.page(QStringLiteral("/routine"),
                   "<!doctype html><title>Routine</title>"
                   "<button onclick=\"fetch('/hit/routine')\">Next</button>"
                   "<button onclick=\"fetch('/hit/gone',{method:'POST'})\">Delete "
                   "account</button><button aria-label=\"Show more\" "
                   "onclick=\"fetch('/hit/mixed',{method:'POST'})\">Continue</button>");
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    // A standing grant needs a sign-in with a recorded outcome: record one.
    QVERIFY(recordReadySignIn(id));
    const Run created =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("grants"), QStringLiteral("create"), QStringLiteral("--profile"), id,
             QStringLiteral("--origin"), m_harness.origin(QStringLiteral("shop.test")),
             QStringLiteral("--action"), QStringLiteral("click"), QStringLiteral("--expires-in"),
             QStringLiteral("1h")});
    QVERIFY2(created.exitCode == 0, QByteArray(created.out + created.err).constData());
    const QString grant =
        QJsonDocument::fromJson(created.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!grant.isEmpty());

    const auto session = [&](const QStringList &extra,
                             const std::function<void(McpSession &)> &use) {
        QProcess *server = start(QStringList{QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                                             QStringLiteral("--grant"), grant} +
                                 extra);
        QVERIFY(server->waitForStarted(10000));
        McpSession mcp(server);
        mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
        QVERIFY(!mcp.tool(QStringLiteral("veetbot_navigate"),
                          {{QStringLiteral("url"), url(QStringLiteral("/routine"))}})
                     .contains(QStringLiteral("error")));
        use(mcp);
        server->closeWriteChannel();
        QVERIFY(testing::runEventsUntil(
            [server] { return server->state() == QProcess::NotRunning; }, 30000));
    };
    // Under the grant (turns untrusted, the deny approver): the routine click runs once; a
    // named consequence and a control whose labels read different words still need an
    // approval, which the deny approver never gives.
    session({}, [this](McpSession &mcp) {
        QCOMPARE(mcp.click(QStringLiteral("Next")), QString());
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/routine")) == 1; }, 10000));
        QCOMPARE(mcp.click(QStringLiteral("Delete account")),
                 QStringLiteral("tool.approval_denied"));
        // Named "Show more", it shows "Continue": two routine words, not the same one.
        QCOMPARE(mcp.click(QStringLiteral("Show more")), QStringLiteral("tool.approval_denied"));
        QCOMPARE(mcp.click(QStringLiteral("Next")), QString()); // positive control
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/routine")) == 2; }, 10000));
    });
    // A session under other policy settings cannot use it.
    session({QStringLiteral("--ordinary-interaction"), QStringLiteral("off")}, [](McpSession &mcp) {
        QCOMPARE(mcp.click(QStringLiteral("Next")), QStringLiteral("tool.approval_denied"));
    });
    // Revoked, it no longer holds at the next act.
    QCOMPARE(
        run(QStringLiteral("veetbot"), {QStringLiteral("grants"), QStringLiteral("revoke"), grant})
            .exitCode,
        0);
    session({}, [](McpSession &mcp) {
        QCOMPARE(mcp.click(QStringLiteral("Next")), QStringLiteral("tool.approval_denied"));
    });
    QCOMPARE(arrived(QStringLiteral("/hit/routine")), 2);
    QCOMPARE(arrived(QStringLiteral("/hit/gone")), 0);
    QCOMPARE(arrived(QStringLiteral("/hit/mixed")), 0);
    // An unknown grant is refused before the server starts.
    const Run unknown =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("mcp"), QStringLiteral("--profile"), id, QStringLiteral("--grant"),
             QUuid::createUuid().toString(QUuid::WithoutBraces)});
    QCOMPARE(unknown.exitCode, 3);
    QVERIFY(unknown.err.contains("grant.not_found"));
}

void TestProfileSessions::theTimelineHoldsNoContent()
{
    // Canaries in the page's text, in a URL query and in typed text.
    m_harness.page(QStringLiteral("/canary"),
                   "<!doctype html><title>Canary PAGE-CANARY-title</title><p>PAGE-CANARY-text</p>"
                   "<label>Note <input type=text></label>"
                   "<button onclick=\"fetch('/hit/canary')\">Show more</button>");
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    // This process holds the metadata database open, as the workbench does: what the session
    // writes stays in its write-ahead log (SQLite removes it at the last close).
    QSqlDatabase held =
        QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("held"));
    const auto forget = qScopeGuard([&held] {
        held = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("held"));
    });
    held.setDatabaseName(m_dataDir + QStringLiteral("/profiles.sqlite"));
    QVERIFY(held.open());
    QSqlQuery read(held);
    QVERIFY(read.exec(QStringLiteral("SELECT count(*) FROM browser_profiles")) && read.next());
    QCOMPARE(read.value(0).toInt(), 1);
    read.finish();
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                              QStringLiteral("--trust-turns"), QStringLiteral("owner")});
    QVERIFY(server->waitForStarted(10000));
    QByteArray mcpErr;
    {
        McpSession mcp(server);
        mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
        QVERIFY(
            !mcp.tool(QStringLiteral("veetbot_navigate"),
                      {{QStringLiteral("url"), url(QStringLiteral("/canary?q=QUERY-CANARY-q"))}})
                 .contains(QStringLiteral("error")));
        QCOMPARE(mcp.type(QStringLiteral("Note"), QStringLiteral("typed canary words")), QString());
        QCOMPARE(mcp.click(QStringLiteral("Show more")), QString());
        QVERIFY(testing::runEventsUntil(
            [this] { return arrived(QStringLiteral("/hit/canary")) == 1; }, 10000));
        server->closeWriteChannel();
        QVERIFY(testing::runEventsUntil(
            [server] { return server->state() == QProcess::NotRunning; }, 30000));
        mcpErr = server->readAllStandardError();
    }
    const Run listed =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("list")});
    QCOMPARE(listed.exitCode, 0);
    const QJsonArray runs =
        QJsonDocument::fromJson(listed.out).object().value(QStringLiteral("runs")).toArray();
    QVERIFY(!runs.isEmpty());
    const QJsonObject last = runs.first().toObject();
    QCOMPARE(last.value(QStringLiteral("status")).toString(), QStringLiteral("ended"));
    QCOMPARE(last.value(QStringLiteral("end_reason")).toString(), QStringLiteral("input_ended"));
    QCOMPARE(last.value(QStringLiteral("profile_id")).toString(), id);
    QCOMPARE(last.value(QStringLiteral("acts")).toInt(), 2);
    QCOMPARE(last.value(QStringLiteral("last_approval_source")).toString(),
             QStringLiteral("ordinary_interaction"));
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"),
                                        last.value(QStringLiteral("id")).toString()});
    QCOMPARE(shown.exitCode, 0);
    const QJsonArray events =
        QJsonDocument::fromJson(shown.out).object().value(QStringLiteral("events")).toArray();
    QStringList calls;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        if (event.value(QStringLiteral("kind")) == QLatin1String("tool.call"))
            calls << event.value(QStringLiteral("tool")).toString() + u' ' +
                         event.value(QStringLiteral("action")).toString() + u' ' +
                         event.value(QStringLiteral("approval_source")).toString() + u' ' +
                         event.value(QStringLiteral("outcome")).toString() + u' ' +
                         event.value(QStringLiteral("path_segment")).toString();
    }
    QVERIFY2(calls.contains(QStringLiteral("browser.navigate   succeeded canary")),
             qPrintable(calls.join(u'|')));
    QVERIFY2(
        calls.contains(QStringLiteral("browser.act type ordinary_interaction succeeded canary")),
        qPrintable(calls.join(u'|')));
    QVERIFY2(
        calls.contains(QStringLiteral("browser.act click ordinary_interaction succeeded canary")),
        qPrintable(calls.join(u'|')));
    // No canary in what the owner reads, nor in any file of the data directory.
    for (const QByteArray &canary : {QByteArray("CANARY"), QByteArray("canary words")}) {
        QVERIFY(!shown.out.contains(canary));
        QVERIFY(!listed.out.contains(canary));
    }
    // The sweep reads the metadata database's write-ahead log, held open by this process
    // while the session wrote its timeline: the run's id is there.
    const testing::FileSweep files({m_dataDir});
    QVERIFY2(files.unreadable().isEmpty(), qPrintable(files.unreadable().join(u' ')));
    for (const QByteArray &canary :
         {QByteArray("PAGE-CANARY"), QByteArray("QUERY-CANARY"), QByteArray("typed canary")}) {
        QVERIFY2(files.holding(canary).isEmpty(), qPrintable(files.holding(canary).join(u' ')));
        QVERIFY2(!mcpErr.contains(canary), mcpErr.constData());
    }
    QVERIFY2(files.holding(last.value(QStringLiteral("id")).toString().toUtf8())
                 .contains(m_dataDir + QStringLiteral("/profiles.sqlite-wal")),
             qPrintable(files.walFiles().join(u' ')));
    held.close();
    // A session that ended as it said leaves no presence file behind.
    QVERIFY(QDir(m_dataDir + QStringLiteral("/runs")).isEmpty());

    // A session killed outright never says it ended: the next look at the timeline ends it as
    // interrupted (its process is gone: its presence file is left and nobody holds it). While
    // it runs it stays running.
    QProcess *killed = start({QStringLiteral("mcp"), QStringLiteral("--profile"), id});
    QVERIFY(killed->waitForStarted(10000));
    {
        McpSession mcp(killed);
        mcp.ask(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject()}});
        const auto newest = [this] {
            const Run now =
                run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("list")});
            return QJsonDocument::fromJson(now.out)
                .object()
                .value(QStringLiteral("runs"))
                .toArray()
                .first()
                .toObject();
        };
        QCOMPARE(newest().value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        ::kill(pid_t(killed->processId()), SIGKILL);
        QVERIFY(testing::runEventsUntil(
            [killed] { return killed->state() == QProcess::NotRunning; }, 10000));
        const QJsonObject interrupted = newest();
        QCOMPARE(interrupted.value(QStringLiteral("status")).toString(), QStringLiteral("ended"));
        QCOMPARE(interrupted.value(QStringLiteral("end_reason")).toString(),
                 QStringLiteral("interrupted"));
        QVERIFY(QDir(m_dataDir + QStringLiteral("/runs")).isEmpty());
    }
}

void TestProfileSessions::actsThroughASession()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto holder = provider(id, QStringLiteral("run-act"));
    const Result<BrowserObservation> page =
        BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/form"))));
    QVERIFY(page.ok());
    QString pay;
    for (const ElementRecord &element : page->elements) {
        if (element.name == QLatin1String("Pay"))
            pay = element.ref;
    }
    QVERIFY(!pay.isEmpty());
    // Facts cross for the approval view; they never enter the observation.
    QVERIFY(holder->elementFacts(page->revision, pay).has_value());
    const auto act = [&holder](const QString &revision, const QString &ref) {
        std::optional<Result<BrowserObservation>> result;
        holder->act(ActRequest::click(revision, ref).value(),
                    [&result](Result<BrowserObservation> r) { result = r; });
        testing::runEventsUntil([&result] { return result.has_value(); }, 60000);
        return result.value_or(Result<BrowserObservation>(ReasonCode::ProviderUnavailable));
    };
    // No gate: the service stops at the gate and nothing is sent.
    const Result<BrowserObservation> ungated = act(page->revision, pay);
    QCOMPARE(ungated.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    // A stale revision is refused before the gate.
    BrowserTestHarness::admitEveryDispatch(*holder, this);
    const Result<BrowserObservation> current = BrowserTestHarness::observe(*holder);
    QVERIFY(current.ok());
    const Result<BrowserObservation> stale = act(page->revision, pay);
    QCOMPARE(stale.error().code, QStringLiteral("tool.browser.page_changed"));
    // The positive control: with the gate, the click arrives exactly once.
    QString currentPay;
    for (const ElementRecord &element : current->elements) {
        if (element.name == QLatin1String("Pay"))
            currentPay = element.ref;
    }
    const Result<BrowserObservation> clicked = act(current->revision, currentPay);
    QVERIFY2(clicked.ok(), clicked.ok() ? "" : qPrintable(clicked.error().code));
    QVERIFY(clicked->action.has_value());
    QVERIFY(
        testing::runEventsUntil([this] { return arrived(QStringLiteral("/effect")) == 1; }, 10000));
    // Nothing before it arrived, and no second effect follows.
    QVERIFY(BrowserTestHarness::observe(*holder).ok());
    QCOMPARE(arrived(QStringLiteral("/effect")), 1);
    holder->close();
}

void TestProfileSessions::anExpiredLeaseEndsUnsealed()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    auto holder = provider(id, QStringLiteral("run-expiring"));
    QVERIFY(BrowserTestHarness::navigate(*holder, QUrl(url(QStringLiteral("/set-expiring")))).ok());
    QCOMPARE(liveBrowsers(), 1);
    // Fifteen minutes and a second later (the lease asked for no deadline, so it got the
    // 15-minute cap), the lease and its browser are gone within the service's sweep.
    {
        QFile clock(m_dir->path() + QStringLiteral("/clock"));
        QVERIFY(clock.open(QIODevice::WriteOnly | QIODevice::Truncate));
        clock.write(QByteArray::number(15 * 60 * 1000 + 1000));
    }
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
    const Result<BrowserObservation> late = BrowserTestHarness::observe(*holder);
    QVERIFY(!late.ok());
    QCOMPARE(late.error().code, QStringLiteral("tool.browser.profile_unavailable"));
    // Another run may use the profile now, from the state sealed before the lease: nothing
    // of the expired lease was sealed.
    auto next = provider(id, QStringLiteral("run-after-expiry"));
    QVERIFY(BrowserTestHarness::navigate(*next, QUrl(url(QStringLiteral("/control")))).ok());
    QVERIFY(!cookieHeaderOf(QStringLiteral("/control")).contains("expiring=1"));
    next->close();
}

void TestProfileSessions::aHolderWithoutAKeeperDoesNotKeepTheProfile()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    // Acquired over the route alone, as a client that died right after would leave it.
    const BrowserProfile bound = profile(id);
    SessionApi::Call acquire;
    acquire.operation = SessionApi::Operation::Acquire;
    acquire.holder = {bound.id,
                      bound.tenant,
                      bound.principal,
                      *bound.providerReference,
                      QStringLiteral("run-gone"),
                      1};
    const ServiceClient client = serviceClient();
    const Result<HttpResponse> acquired =
        client.post(SessionApi::path(acquire.operation), SessionApi::requestBody(acquire), {});
    QVERIFY(acquired.ok());
    QVERIFY(SessionApi::parseAcquired(acquired->body).has_value());
    // Another run is refused while the lease lives, and may use the profile once it ended
    // for want of a keeper (10 s after the acquire).
    auto other = provider(id, QStringLiteral("run-other"));
    QCOMPARE(
        BrowserTestHarness::navigate(*other, QUrl(url(QStringLiteral("/refused")))).error().code,
        QStringLiteral("tool.browser.profile_unavailable"));
    QCOMPARE(liveBrowsers(), 1);
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 20000));
    QVERIFY(BrowserTestHarness::navigate(*other, QUrl(url(QStringLiteral("/control")))).ok());
    QCOMPARE(arrived(QStringLiteral("/control")), 1);
    QCOMPARE(arrived(QStringLiteral("/refused")), 0);
    other->close();
}

void TestProfileSessions::renewalNeverPassesAnHoursLife()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const BrowserProfile bound = profile(id);
    const ServiceClient client = serviceClient();
    SessionApi::Call call;
    call.holder = {bound.id,
                   bound.tenant,
                   bound.principal,
                   *bound.providerReference,
                   QStringLiteral("run-hour"),
                   1};
    const auto send = [&client, &call](SessionApi::Operation operation) {
        call.operation = operation;
        return client.post(SessionApi::path(operation), SessionApi::requestBody(call), {});
    };
    const auto moveClock = [this](qint64 minutes) {
        QFile clock(m_dir->path() + QStringLiteral("/clock"));
        return clock.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
               clock.write(QByteArray::number(minutes * 60 * 1000)) > 0;
    };
    const Result<HttpResponse> acquired = send(SessionApi::Operation::Acquire);
    QVERIFY(acquired.ok());
    const auto lease = SessionApi::parseAcquired(acquired->body);
    QVERIFY(lease.has_value());
    call.leaseReference = lease->leaseReference;
    // The holder keeps its keeper connected, as a client process does.
    QLocalSocket keeper;
    keeper.connectToServer(m_runDir + QStringLiteral("/lease.sock"));
    QVERIFY(keeper.waitForConnected(5000));
    keeper.write(lease->leaseReference + '\n');
    QVERIFY(keeper.waitForReadyRead(5000));
    QCOMPARE(keeper.readAll(), QByteArray("ok\n"));
    const QDateTime start = lease->expiresAt.addSecs(-15 * 60);
    // Renewed every ten minutes: fifteen minutes ahead each time, never past the hour.
    for (const qint64 minutes : {10, 20, 30, 40, 50}) {
        QVERIFY(moveClock(minutes));
        const Result<HttpResponse> renewed = send(SessionApi::Operation::Renew);
        QVERIFY(renewed.ok());
        const std::optional<QDateTime> expires = SessionApi::parseRenewed(renewed->body);
        QVERIFY(expires.has_value());
        const qint64 expected = std::min<qint64>(minutes + 15, 60) * 60;
        // The real seconds the test took count too: within a minute of the expected expiry.
        QVERIFY2(qAbs(start.secsTo(*expires) - expected) < 60,
                 qPrintable(QString::number(start.secsTo(*expires))));
    }
    // Still alive at 59 minutes: the same run attaches to it, and its browser answers.
    QVERIFY(moveClock(59));
    auto attached = provider(id, QStringLiteral("run-hour"));
    QVERIFY(BrowserTestHarness::navigate(*attached, QUrl(url(QStringLiteral("/page")))).ok());
    // Past the hour no renewal helps: the lease and its browser end.
    QVERIFY(moveClock(61));
    const Result<HttpResponse> late = send(SessionApi::Operation::Renew);
    QVERIFY(late.ok());
    QVERIFY(late->body.contains("tool.browser.profile_unavailable"));
    QVERIFY(testing::runEventsUntil(
        [&keeper] { return keeper.state() == QLocalSocket::UnconnectedState; }, 10000));
}

void TestProfileSessions::theKeeperSocketServesOnlyThisUser()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    const BrowserProfile bound = profile(id);
    SessionApi::Call call;
    call.operation = SessionApi::Operation::Acquire;
    call.holder = {bound.id,
                   bound.tenant,
                   bound.principal,
                   *bound.providerReference,
                   QStringLiteral("run-keeper"),
                   1};
    const Result<HttpResponse> acquired =
        serviceClient().post(SessionApi::path(call.operation), SessionApi::requestBody(call), {});
    QVERIFY(acquired.ok());
    const auto lease = SessionApi::parseAcquired(acquired->body);
    QVERIFY(lease.has_value());
    QCOMPARE(liveBrowsers(), 1);
    const QByteArray line = lease->leaseReference + '\n';
    const QByteArray path = QFile::encodeName(m_runDir + QStringLiteral("/lease.sock"));
    const QByteArray runDir = QFile::encodeName(m_runDir);
    const QByteArray top = QFile::encodeName(m_dir->path());
    struct stat status = {};
    QCOMPARE(::lstat(path.constData(), &status), 0);
    QVERIFY(S_ISSOCK(status.st_mode));
    QCOMPARE(status.st_mode & 0777, 0600u);
    QCOMPARE(::lstat(runDir.constData(), &status), 0);
    QCOMPARE(status.st_mode & 0777, 0700u);
    if (::geteuid() == 0) { // only root can be another user
        constexpr uid_t kNobody = 65534;
        // The modes stop another user before the service sees anything.
        QCOMPARE(keeperAnswerAs(kNobody, path, line), 'a');
        // The peer check (SO_PEERCRED) holds on its own: with the path opened to everyone
        // for a moment, another user's connection naming the live lease is closed unanswered
        // and does not hold the lease.
        QCOMPARE(::chmod(top.constData(), 0711), 0);
        QCOMPARE(::chmod(runDir.constData(), 0711), 0);
        QCOMPARE(::chmod(path.constData(), 0666), 0);
        const char other = keeperAnswerAs(kNobody, path, line);
        QCOMPARE(::chmod(path.constData(), 0600), 0);
        QCOMPARE(::chmod(runDir.constData(), 0700), 0);
        QCOMPARE(::chmod(top.constData(), 0700), 0);
        QCOMPARE(other, 'c');
        QCOMPARE(liveBrowsers(), 1);
    }
    // The same line from this user is answered; that keeper was the lease's only one, so when
    // it goes the lease and its browser end.
    QCOMPARE(keeperAnswerAs(::geteuid(), path, line), 'o');
    QVERIFY(testing::runEventsUntil([this] { return liveBrowsers() == 0; }, 10000));
}

QTEST_MAIN(TestProfileSessions)
#include "tst_profile_sessions.moc"
