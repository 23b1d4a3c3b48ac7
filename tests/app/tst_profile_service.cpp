// veetbot-profile-service as a real process over its real socket: the probes, the credential
// before the body, the status table (chunked bodies included), idempotent lifecycle replays
// across a restart, one service per runtime directory, and clients that misbehave.

#include "EventWait.h"
#include "service/api/LifecycleApi.h"
#include "service/api/ServiceCredential.h"
#include "service/client/ServiceClient.h"
#include "service/client/ServiceConnection.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <thread>
#include <vector>

using namespace veetbot;

class TestProfileService : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void probesAndPrivateFiles();
    void theCredentialIsCheckedBeforeTheBody();
    void statusTable_data();
    void statusTable();
    void lifecycleReplaysSurviveARestart();
    void oneServicePerRuntimeDirectory();
    void aStaleSocketIsReplaced();
    void aSlowClientDoesNotBlockOthers();
    void wrongCredentialsDoNotStopAGoodClient();
    void aHeadOverItsBoundsIsRefusedBeforeTheCredential();
    void controlCharactersInIdsAreInvalid();
    void tricklingAnonymousClientsLeaveRoomForTheCredential();
    void notReadyWithoutKeys();
    void anUnsafeCredentialIsReportedAndStartsNothing_data();
    void anUnsafeCredentialIsReportedAndStartsNothing();
    void aLooseOrLinkedRuntimeDirectoryIsRefused_data();
    void aLooseOrLinkedRuntimeDirectoryIsRefused();
    void anOnDemandStartOutlastsAServiceStillEnding();
    void aServiceOfAnotherVersionIsRestartedWhenIdle();

private:
    bool startService(QString *why = nullptr);
    void stopService();
    QProcessEnvironment environment() const;
    // One request on its own connection; the whole answer (the service closes after one).
    QByteArray exchange(const QByteArray &request, int timeoutMs = 10000);
    static int statusOf(const QByteArray &answer);
    static QByteArray bodyOf(const QByteArray &answer);
    QByteArray post(const QByteArray &path, const QByteArray &body,
                    const QByteArray &extraHeaders = {});
    QByteArray credential() const;
    // `veetbot service ACTION` in this test's directories: its exit code and its JSON output.
    int veetbotService(const QString &action, QJsonObject *output);
    QString socketPath() const { return m_runDir + QStringLiteral("/service.sock"); }
    std::shared_ptr<ServiceClient> client() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
    QString m_keyDir;
    QString m_runDir;
    std::unique_ptr<QProcess> m_service;
    QByteArray m_serviceErr;
};

namespace {
const QString kId = QStringLiteral("6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7");
const QByteArray kCanary = "canary-7f3e9d";

QByteArray scopeBody(const QString &tenant = QStringLiteral("tenant-1"))
{
    return QJsonDocument(
               QJsonObject{{QStringLiteral("profile_id"), kId},
                           {QStringLiteral("tenant_id"), tenant},
                           {QStringLiteral("principal_id"), QStringLiteral("principal-1")},
                           {QStringLiteral("allowed_origins"),
                            QJsonArray{QStringLiteral("https://shop.de")}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray provisionPath()
{
    return "/v1/browser-profiles/" + kId.toLatin1() + ":provision";
}

QByteArray provisionKey()
{
    return "Idempotency-Key: browser-profile:" + kId.toLatin1() + ":provision\r\n";
}

QByteArray chunked(const QByteArray &body, int chunk)
{
    QByteArray out;
    for (int i = 0; i < body.size(); i += chunk) {
        const QByteArray part = body.mid(i, chunk);
        out += QByteArray::number(part.size(), 16) + "\r\n" + part + "\r\n";
    }
    return out + "0\r\n\r\n";
}

// One request over a plain POSIX socket (usable off the Qt threads); the whole answer.
QByteArray rawExchange(const QString &socketPath, const QByteArray &request)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return {};
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    const QByteArray path = QFile::encodeName(socketPath);
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    QByteArray answer;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
        ::write(fd, request.constData(), size_t(request.size())) == request.size()) {
        char buffer[4096];
        for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
            answer.append(buffer, qsizetype(n));
    }
    ::close(fd);
    return answer;
}

MaterialScope scope(const QString &tenant = QStringLiteral("tenant-1"))
{
    return MaterialScope{QUuid::fromString(kId),
                         tenant,
                         QStringLiteral("principal-1"),
                         {*Origin::parse(QStringLiteral("https://shop.de"), TestOverrides())}};
}
} // namespace

void TestProfileService::init()
{
    m_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/vps-XXXXXX"));
    QVERIFY(m_dir->isValid());
    m_dataDir = m_dir->path() + QStringLiteral("/data");
    m_keyDir = m_dir->path() + QStringLiteral("/keys");
    m_runDir = m_dir->path() + QStringLiteral("/run");
    QProcess keys;
    keys.setProcessEnvironment(environment());
    keys.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-profile-service"),
               {QStringLiteral("keys"), QStringLiteral("init"), m_keyDir});
    QVERIFY(keys.waitForFinished(30000));
    QCOMPARE(keys.exitCode(), 0);
    QString why;
    QVERIFY2(startService(&why), qPrintable(why));
}

void TestProfileService::cleanup()
{
    stopService();
    // Nothing secret ever reaches the service's own output.
    QVERIFY(!m_serviceErr.contains(kCanary));
    const QByteArray token = credential();
    QVERIFY(token.isEmpty() || !m_serviceErr.contains(token));
}

QProcessEnvironment TestProfileService::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VEETBOT_DATA_DIR"), m_dataDir);
    env.insert(QStringLiteral("VEETBOT_KEY_DIR"), m_keyDir);
    env.insert(QStringLiteral("VEETBOT_RUNTIME_DIR"), m_runDir);
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    env.remove(QStringLiteral("VEETBOT_TEST_RESOLVE"));
    env.remove(QStringLiteral("VEETBOT_TEST_CA"));
    return env;
}

bool TestProfileService::startService(QString *why)
{
    m_service = std::make_unique<QProcess>();
    m_service->setProcessEnvironment(environment());
    m_service->start(QCoreApplication::applicationDirPath() +
                     QStringLiteral("/veetbot-profile-service"));
    if (!m_service->waitForStarted(10000)) {
        *why = QStringLiteral("the service did not start");
        return false;
    }
    const bool ready = testing::runEventsUntil(
        [this] {
            return m_service->state() != QProcess::Running ||
                   statusOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n", 2000)) == 200;
        },
        15000);
    if (!ready || m_service->state() != QProcess::Running) {
        if (why)
            *why = QStringLiteral("the service is not ready: ") +
                   QString::fromUtf8(m_service->readAllStandardError());
        return false;
    }
    return true;
}

void TestProfileService::stopService()
{
    if (!m_service)
        return;
    if (m_service->state() == QProcess::Running) {
        m_service->terminate();
        QVERIFY(m_service->waitForFinished(10000));
        QCOMPARE(m_service->exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_service->exitCode(), 0);
    }
    m_serviceErr += m_service->readAllStandardError();
    m_service.reset();
}

QByteArray TestProfileService::credential() const
{
    QFile file(ServiceCredential::path(m_dataDir));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

std::shared_ptr<ServiceClient> TestProfileService::client() const
{
    Result<ServiceCredential> token = ServiceCredential::read(m_dataDir);
    if (!token)
        return nullptr;
    return std::make_shared<ServiceClient>(socketPath(), std::move(token).value());
}

QByteArray TestProfileService::exchange(const QByteArray &request, int timeoutMs)
{
    // Plain descriptors and poll(): a QLocalSocket read at the moment the service closes the
    // connection prints "device not open" (a Qt warning, which fails the test under load).
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return {};
    const auto closeFd = qScopeGuard([fd] { ::close(fd); });
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    const QByteArray path = QFile::encodeName(socketPath());
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    QElapsedTimer clock;
    clock.start();
    const auto wait = [&](short events) {
        pollfd watched{fd, events, 0};
        const qint64 left = timeoutMs - clock.elapsed();
        return left > 0 && ::poll(&watched, 1, int(left)) == 1;
    };
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 &&
        !(errno == EAGAIN || errno == EINPROGRESS))
        return {};
    qsizetype sent = 0;
    while (sent < request.size()) {
        if (!wait(POLLOUT))
            return {};
        const ssize_t n =
            ::send(fd, request.constData() + sent, size_t(request.size() - sent), MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0)
            return {};
        sent += n;
    }
    QByteArray answer;
    char buffer[4096];
    while (wait(POLLIN)) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0)
            break;
        answer.append(buffer, qsizetype(n));
    }
    return answer;
}

int TestProfileService::statusOf(const QByteArray &answer)
{
    // "HTTP/1.1 200 OK"
    if (!answer.startsWith("HTTP/1.1 ") || answer.size() < 12)
        return 0;
    return answer.mid(9, 3).toInt();
}

QByteArray TestProfileService::bodyOf(const QByteArray &answer)
{
    const qsizetype split = answer.indexOf("\r\n\r\n");
    return split < 0 ? QByteArray() : answer.mid(split + 4);
}

QByteArray TestProfileService::post(const QByteArray &path, const QByteArray &body,
                                    const QByteArray &extraHeaders)
{
    return exchange("POST " + path + " HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer " +
                    credential() + "\r\nContent-Type: application/json\r\nContent-Length: " +
                    QByteArray::number(body.size()) + "\r\n" + extraHeaders + "\r\n" + body);
}

void TestProfileService::probesAndPrivateFiles()
{
    const QByteArray live = exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n");
    QCOMPARE(statusOf(live), 200);
    QCOMPARE(bodyOf(live), QByteArray("{\"live\":true}"));
    QCOMPARE(bodyOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n")),
             QByteArray("{\"ready\":true}"));
    struct stat status = {};
    QCOMPARE(::lstat(QFile::encodeName(socketPath()).constData(), &status), 0);
    QVERIFY(S_ISSOCK(status.st_mode));
    QCOMPARE(status.st_mode & 0777, 0600u);
    // The keeper socket a lease's holder connects to is as private as the service's own.
    QCOMPARE(
        ::lstat(QFile::encodeName(m_runDir + QStringLiteral("/lease.sock")).constData(), &status),
        0);
    QVERIFY(S_ISSOCK(status.st_mode));
    QCOMPARE(status.st_mode & 0777, 0600u);
    QCOMPARE(status.st_uid, ::geteuid());
    QCOMPARE(::lstat(QFile::encodeName(m_runDir).constData(), &status), 0);
    QVERIFY(S_ISDIR(status.st_mode));
    QCOMPARE(status.st_mode & 0777, 0700u);
    QCOMPARE(::lstat(QFile::encodeName(ServiceCredential::path(m_dataDir)).constData(), &status),
             0);
    QVERIFY(S_ISREG(status.st_mode));
    QCOMPARE(status.st_mode & 0777, 0600u);
    QCOMPARE(credential().size(), ServiceCredential::kTextLength);
    // The credential-protected description names no path.
    const QByteArray about = exchange("GET /v1/service HTTP/1.1\r\nHost: s\r\nAuthorization: "
                                      "Bearer " +
                                      credential() + "\r\n\r\n");
    QCOMPARE(statusOf(about), 200);
    const QJsonObject described = QJsonDocument::fromJson(bodyOf(about)).object();
    QCOMPARE(described.value(QStringLiteral("ready")).toBool(), true);
    QCOMPARE(described.value(QStringLiteral("pid")).toInteger(), m_service->processId());
    QVERIFY(!bodyOf(about).contains(m_dir->path().toUtf8()));
}

void TestProfileService::theCredentialIsCheckedBeforeTheBody()
{
    // Headers only: the body would follow, but a caller without the credential is answered
    // at once, before any of it is sent (a body this large is never read at all).
    QLocalSocket socket;
    socket.connectToServer(socketPath());
    QVERIFY(socket.waitForConnected(5000));
    socket.write("POST " + provisionPath() +
                 " HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer wrong\r\nContent-Type: "
                 "application/json\r\nContent-Length: 70000\r\n\r\n");
    QVERIFY(socket.waitForReadyRead(5000));
    QByteArray answer = socket.readAll();
    QCOMPARE(statusOf(answer), 401);
    // A small body sent with it is thrown away unread, never parsed: 401, not 400, and the
    // client that wrote it whole still reads its answer.
    QCOMPARE(statusOf(exchange("POST " + provisionPath() +
                               " HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer wrong\r\n"
                               "Content-Type: application/json\r\nContent-Length: 9\r\n\r\n"
                               "not json!")),
             401);
    // And one with the credential whose announced body is over the limit: 413, unsent.
    QLocalSocket large;
    large.connectToServer(socketPath());
    QVERIFY(large.waitForConnected(5000));
    large.write("POST " + provisionPath() + " HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer " +
                credential() +
                "\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n");
    QVERIFY(large.waitForReadyRead(5000));
    QCOMPARE(statusOf(large.readAll()), 413);
}

void TestProfileService::statusTable_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("code");
    const QByteArray auth = "Authorization: Bearer @CREDENTIAL@\r\n";
    const QByteArray json = "Content-Type: application/json\r\n";
    const QByteArray head = "POST " + provisionPath() + " HTTP/1.1\r\nHost: s\r\n";
    const QByteArray body = scopeBody();
    const QByteArray length = "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    QTest::newRow("unknown route")
        << QByteArray("GET /v1/anything HTTP/1.1\r\nHost: s\r\n" + auth + "\r\n") << 404
        << QByteArray("not_found");
    QTest::newRow("no documentation")
        << QByteArray("GET /docs HTTP/1.1\r\nHost: s\r\n\r\n") << 404 << QByteArray("not_found");
    QTest::newRow("no openapi") << QByteArray("GET /openapi.json HTTP/1.1\r\nHost: s\r\n\r\n")
                                << 404 << QByteArray("not_found");
    QTest::newRow("upper-case id")
        << QByteArray("POST /v1/browser-profiles/" + kId.toUpper().toLatin1() +
                      ":provision HTTP/1.1\r\nHost: s\r\n" + auth + json + length + provisionKey() +
                      "\r\n" + body)
        << 404 << QByteArray("not_found");
    QTest::newRow("no credential")
        << QByteArray(head + json + length + provisionKey() + "\r\n" + body) << 401
        << QByteArray("unauthorized");
    QTest::newRow("text/plain") << QByteArray(head + auth + "Content-Type: text/plain\r\n" +
                                              length + provisionKey() + "\r\n" + body)
                                << 415 << QByteArray("unsupported_media_type");
    QTest::newRow("gzip") << QByteArray(head + auth + json + "Content-Encoding: gzip\r\n" + length +
                                        provisionKey() + "\r\n" + body)
                          << 415 << QByteArray("unsupported_media_type");
    QTest::newRow("no framing") << QByteArray(head + auth + json + provisionKey() + "\r\n") << 400
                                << QByteArray("malformed_request");
    QTest::newRow("chunked over the limit")
        << QByteArray(head + auth + json + "Transfer-Encoding: chunked\r\n" + provisionKey() +
                      "\r\n" + chunked(QByteArray(70000, ' ') + body, 4096))
        << 413 << QByteArray("payload_too_large");
    QTest::newRow("chunked within the limit")
        << QByteArray(head + auth + json + "Transfer-Encoding: chunked\r\n" + provisionKey() +
                      "\r\n" + chunked(body, 7))
        << 201 << QByteArray();
    QTest::newRow("no idempotency key") << QByteArray(head + auth + json + length + "\r\n" + body)
                                        << 400 << QByteArray("malformed_request");
    QTest::newRow("malformed JSON")
        << QByteArray(head + auth + json + "Content-Length: 1\r\n" + provisionKey() + "\r\n{")
        << 400 << QByteArray("malformed_request");
    const QByteArray duplicate = body.chopped(1) + ",\"tenant_id\":\"" + kCanary + "\"}";
    QTest::newRow("duplicate member")
        << QByteArray(head + auth + json +
                      "Content-Length: " + QByteArray::number(duplicate.size()) + "\r\n" +
                      provisionKey() + "\r\n" + duplicate)
        << 400 << QByteArray("malformed_request");
    const QByteArray changed = scopeBody(QStringLiteral("tenant-2"));
    QTest::newRow("changed scope")
        << QByteArray(head + auth + json + "Content-Length: " + QByteArray::number(changed.size()) +
                      "\r\n" + provisionKey() + "\r\n" + changed)
        << 409 << QByteArray("conflict");
    QTest::newRow("provision") << QByteArray(head + auth + json + length + provisionKey() + "\r\n" +
                                             body)
                               << 201 << QByteArray();
}

void TestProfileService::statusTable()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    QFETCH(QByteArray, code);
    // A first provision, so the changed scope has something to conflict with.
    QCOMPARE(statusOf(post(provisionPath(), scopeBody(), provisionKey())), 201);
    request.replace("@CREDENTIAL@", credential());
    const QByteArray answer = exchange(request);
    QCOMPARE(statusOf(answer), status);
    if (!code.isEmpty()) {
        const QJsonObject error = QJsonDocument::fromJson(bodyOf(answer))
                                      .object()
                                      .value(QStringLiteral("error"))
                                      .toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString().toLatin1(), code);
        QVERIFY(!bodyOf(answer).contains(kCanary));
        QVERIFY(!bodyOf(answer).contains("tenant"));
    }
    // One request per connection: the service closed it after answering (exchange() read to
    // the end), and it still answers the next.
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n")), 200);
}

void TestProfileService::lifecycleReplaysSurviveARestart()
{
    ServiceControlPlane plane(client());
    const Result<ProvisionedMaterial> first = plane.provision(scope());
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().code));
    QCOMPARE(first->providerName, QStringLiteral("webengine"));

    stopService();
    QString why;
    QVERIFY2(startService(&why), qPrintable(why));

    ServiceControlPlane again(client());
    const Result<ProvisionedMaterial> replay = again.provision(scope());
    QVERIFY(replay.ok());
    QCOMPARE(replay->providerReference, first->providerReference);
    QCOMPARE(replay->keyVersion, first->keyVersion);
    const Result<ProvisionedMaterial> changed = again.provision(scope(QStringLiteral("tenant-2")));
    QVERIFY(!changed.ok());
    QCOMPARE(changed.error().code, QStringLiteral("profile.conflict"));

    QVERIFY(again.revoke(scope(), first->providerReference).ok());
    QVERIFY(again.revoke(scope(), first->providerReference).ok());
    QVERIFY(again.remove(scope(), first->providerReference).ok());
    QVERIFY(again.remove(scope(), first->providerReference).ok());
}

void TestProfileService::oneServicePerRuntimeDirectory()
{
    QProcess second;
    second.setProcessEnvironment(environment());
    second.start(QCoreApplication::applicationDirPath() +
                 QStringLiteral("/veetbot-profile-service"));
    QVERIFY(second.waitForFinished(10000));
    QCOMPARE(second.exitCode(), 3);
    QVERIFY(second.readAllStandardError().contains("service.already_running"));
    // The first one still answers: the second touched nothing.
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n")), 200);
}

void TestProfileService::aStaleSocketIsReplaced()
{
    ::kill(pid_t(m_service->processId()), SIGKILL);
    QVERIFY(m_service->waitForFinished(10000));
    m_service.reset();
    QVERIFY(QFile::exists(socketPath())); // left behind by the killed service
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n", 1000)), 0);
    QString why;
    QVERIFY2(startService(&why), qPrintable(why));
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n")), 200);
}

void TestProfileService::aSlowClientDoesNotBlockOthers()
{
    // A client that sends its request line a byte at a time, never finishing its headers.
    std::vector<std::unique_ptr<QLocalSocket>> slow;
    // More of them than a fixed pool of worker threads would have.
    for (int i = 0; i < 24; ++i) {
        auto socket = std::make_unique<QLocalSocket>();
        socket->connectToServer(socketPath());
        QVERIFY(socket->waitForConnected(5000));
        socket->write("G");
        socket->flush();
        slow.push_back(std::move(socket));
    }
    QElapsedTimer clock;
    clock.start();
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n", 3000)), 200);
    for (auto &socket : slow) {
        socket->write("E");
        socket->flush();
    }
    QCOMPARE(statusOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n", 3000)), 200);
}

void TestProfileService::wrongCredentialsDoNotStopAGoodClient()
{
    std::atomic<int> refused = 0;
    std::vector<std::thread> threads;
    const QString path = socketPath();
    for (int i = 0; i < 100; ++i) {
        threads.emplace_back([&refused, path] {
            const QByteArray answer = rawExchange(
                path, "GET /v1/service HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer wrong\r\n\r\n");
            if (answer.startsWith("HTTP/1.1 401"))
                ++refused;
        });
    }
    const auto good = client();
    QVERIFY(good);
    const Result<HttpResponse> answer = good->get("/v1/service");
    for (std::thread &thread : threads)
        thread.join();
    QVERIFY(answer.ok());
    QCOMPARE(answer->status, 200);
    QCOMPARE(refused.load(), 100);
}

void TestProfileService::aHeadOverItsBoundsIsRefusedBeforeTheCredential()
{
    // 101 header lines, and 25 header lines of 8 KB: 431 before the credential is looked at,
    // and the connection closed.
    QByteArray lines = "GET /v1/service HTTP/1.1\r\nHost: s\r\n";
    for (int i = 0; i < 100; ++i)
        lines += "X-Line-" + QByteArray::number(i) + ": x\r\n";
    QByteArray refused = exchange(lines + "\r\n");
    QCOMPARE(statusOf(refused), 431);
    QCOMPARE(bodyOf(refused), QByteArray("{\"error\":{\"code\":\"header_fields_too_large\","
                                         "\"message\":\"The request head is over 100 header "
                                         "lines or 16 KiB.\"}}"));
    QByteArray large = "GET /v1/service HTTP/1.1\r\nHost: s\r\n";
    for (int i = 0; i < 25; ++i)
        large += "X-Large-" + QByteArray::number(i) + ": " + QByteArray(8000, 'a') + "\r\n";
    QCOMPARE(statusOf(exchange(large + "\r\n")), 431);
    // A good request on a new connection is served.
    const auto good = client();
    QVERIFY(good);
    const Result<HttpResponse> answer = good->get("/v1/service");
    QVERIFY(answer.ok());
    QCOMPARE(answer->status, 200);
}

void TestProfileService::controlCharactersInIdsAreInvalid()
{
    // Stored, a NUL or another control character in a scope would fail the store (a 500);
    // every one is refused first as 400 invalid_request.
    for (const QString &tenant : {QStringLiteral("tenant\u0000x"), QStringLiteral("tenant\x1f"),
                                  QStringLiteral("tenant\x7f"), QStringLiteral("\ttenant")}) {
        const QByteArray answer = post(provisionPath(), scopeBody(tenant), provisionKey());
        QCOMPARE(statusOf(answer), 400);
        QCOMPARE(QJsonDocument::fromJson(bodyOf(answer))
                     .object()
                     .value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("code"))
                     .toString(),
                 QStringLiteral("invalid_request"));
    }
    const QByteArray frame =
        post("/v1/runs/run-1:frame", R"({"tenant_id":"t","principal_id":"p\u0000"})");
    QCOMPARE(statusOf(frame), 400);
    QVERIFY(bodyOf(frame).contains("invalid_request"));
    // The same provision without them is served.
    QCOMPARE(statusOf(post(provisionPath(), scopeBody(), provisionKey())), 201);
}

void TestProfileService::tricklingAnonymousClientsLeaveRoomForTheCredential()
{
    // 64 clients that send their heads a byte at a time, and 64 that send an anonymous head
    // and then trickle a body the service reads and throws away: as many as the service has
    // threads, twice over.
    std::vector<std::unique_ptr<QLocalSocket>> trickling;
    const QByteArray head = "POST /v1/keys:rotate HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer "
                            "wrong\r\nContent-Type: application/json\r\nContent-Length: "
                            "1000\r\n\r\n";
    for (int i = 0; i < 128; ++i) {
        auto socket = std::make_unique<QLocalSocket>();
        socket->connectToServer(socketPath());
        QVERIFY(socket->waitForConnected(5000));
        socket->write(i % 2 == 0 ? QByteArray("P") : head + "{");
        socket->flush();
        trickling.push_back(std::move(socket));
    }
    for (auto &socket : trickling) {
        socket->write("O");
        socket->flush();
    }
    // `veetbot service status`, holding the credential, is answered beside them.
    QElapsedTimer clock;
    clock.start();
    QProcess status;
    status.setProcessEnvironment(environment());
    status.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                 {QStringLiteral("service"), QStringLiteral("status")});
    QVERIFY(status.waitForFinished(15000));
    QCOMPARE(status.exitCode(), 0);
    QCOMPARE(QJsonDocument::fromJson(status.readAllStandardOutput())
                 .object()
                 .value(QStringLiteral("ready"))
                 .toBool(),
             true);
    QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    // None of the trickling clients has been answered.
    for (auto &socket : trickling)
        QCOMPARE(socket->bytesAvailable(), 0);
    // Once they go, an anonymous probe is served again.
    trickling.clear();
    QCOMPARE(statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n", 5000)), 200);
}

int TestProfileService::veetbotService(const QString &action, QJsonObject *output)
{
    QProcess veetbot;
    veetbot.setProcessEnvironment(environment());
    veetbot.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                  {QStringLiteral("service"), action});
    if (!veetbot.waitForFinished(30000))
        return -1;
    const QByteArray out = veetbot.readAllStandardOutput();
    m_serviceErr += out + veetbot.readAllStandardError(); // swept for secrets at cleanup
    *output = QJsonDocument::fromJson(out).object();
    return veetbot.exitCode();
}

void TestProfileService::anUnsafeCredentialIsReportedAndStartsNothing_data()
{
    QTest::addColumn<QString>("problem");
    QTest::newRow("group-readable") << QStringLiteral("0640");
    QTest::newRow("owner read-only") << QStringLiteral("0400");
    QTest::newRow("symbolic link") << QStringLiteral("link");
    if (::geteuid() == 0) // only root can give a file away
        QTest::newRow("another owner") << QStringLiteral("owner");
}

void TestProfileService::anUnsafeCredentialIsReportedAndStartsNothing()
{
    QFETCH(QString, problem);
    stopService();
    const QByteArray path = QFile::encodeName(ServiceCredential::path(m_dataDir));
    const QByteArray real = path + ".real";
    if (problem == QLatin1String("link")) {
        QCOMPARE(::rename(path.constData(), real.constData()), 0);
        QCOMPARE(::symlink(real.constData(), path.constData()), 0);
    } else if (problem == QLatin1String("owner")) {
        QCOMPARE(::chown(path.constData(), 65534, 65534), 0);
    } else {
        QCOMPARE(::chmod(path.constData(), mode_t(problem.toUInt(nullptr, 8))), 0);
    }
    ServiceCredential::Problem found = ServiceCredential::Problem::None;
    const Result<ServiceCredential> refused = ServiceCredential::read(m_dataDir, &found);
    QVERIFY(!refused);
    QVERIFY(ServiceCredential::isUnsafe(found));
    // `service status` and `service start` (a client that would start one on demand) report
    // the problem at once, and no service is started because of it.
    for (const QString &action : {QStringLiteral("status"), QStringLiteral("start")}) {
        QElapsedTimer clock;
        clock.start();
        QJsonObject output;
        QCOMPARE(veetbotService(action, &output), 3);
        const QJsonObject error = output.value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(),
                 QStringLiteral("service.credential_unavailable"));
        QCOMPARE(error.value(QStringLiteral("message")).toString(), refused.error().message);
        QVERIFY2(clock.elapsed() < 8000, qPrintable(QString::number(clock.elapsed())));
    }
    QVERIFY(!QFile::exists(socketPath()));
    QVERIFY(!QFile::exists(m_dataDir + QStringLiteral("/logs/service.log")));
    // The file put right, the same command starts a ready service.
    if (problem == QLatin1String("link")) {
        QCOMPARE(::unlink(path.constData()), 0);
        QCOMPARE(::rename(real.constData(), path.constData()), 0);
    } else if (problem == QLatin1String("owner")) {
        QCOMPARE(::chown(path.constData(), ::geteuid(), ::getegid()), 0);
    } else {
        QCOMPARE(::chmod(path.constData(), 0600), 0);
    }
    QJsonObject output;
    QCOMPARE(veetbotService(QStringLiteral("start"), &output), 0);
    QCOMPARE(output.value(QStringLiteral("ready")).toBool(), true);
    QCOMPARE(veetbotService(QStringLiteral("stop"), &output), 0);
}

void TestProfileService::aLooseOrLinkedRuntimeDirectoryIsRefused_data()
{
    QTest::addColumn<QString>("problem");
    QTest::newRow("0755") << QStringLiteral("0755");
    QTest::newRow("group-writable") << QStringLiteral("0770");
    QTest::newRow("other-writable") << QStringLiteral("0703");
    QTest::newRow("symbolic link") << QStringLiteral("link");
}

void TestProfileService::aLooseOrLinkedRuntimeDirectoryIsRefused()
{
    QFETCH(QString, problem);
    const QByteArray path = QFile::encodeName(m_runDir);
    const QByteArray real = path + ".real";
    const auto loosen = [&] {
        if (problem == QLatin1String("link"))
            return ::rename(path.constData(), real.constData()) == 0 &&
                   ::symlink(real.constData(), path.constData()) == 0;
        return ::chmod(path.constData(), mode_t(problem.toUInt(nullptr, 8))) == 0;
    };
    QVERIFY(loosen());
    const QJsonObject refusal{
        {QStringLiteral("code"), QStringLiteral("service.runtime_unavailable")},
        {QStringLiteral("message"),
         QStringLiteral("The profile service's runtime directory is not private to this user or "
                        "its socket path is too long; set VEETBOT_RUNTIME_DIR to a short private "
                        "directory.")}};
    // A client sends its credential to no socket there, even with a service answering on it.
    QCOMPARE(m_service->state(), QProcess::Running);
    QJsonObject output;
    QCOMPARE(veetbotService(QStringLiteral("status"), &output), 3);
    QCOMPARE(output.value(QStringLiteral("error")).toObject(), refusal);
    stopService();
    QVERIFY(!QFile::exists(socketPath()));
    // A service refuses to start there, and a client that would start one starts nothing.
    QProcess service;
    service.setProcessEnvironment(environment());
    service.start(QCoreApplication::applicationDirPath() +
                  QStringLiteral("/veetbot-profile-service"));
    QVERIFY(service.waitForFinished(10000));
    QCOMPARE(service.exitCode(), 1); // 3 is only for a service already running
    const QByteArray serviceErr = service.readAllStandardError();
    m_serviceErr += serviceErr; // swept for secrets at cleanup
    QVERIFY2(serviceErr.contains("service.runtime_unavailable"), serviceErr.constData());
    for (const QString &action : {QStringLiteral("start"), QStringLiteral("status")}) {
        QCOMPARE(veetbotService(action, &output), 3);
        QCOMPARE(output.value(QStringLiteral("error")).toObject(), refusal);
    }
    QVERIFY(!QFile::exists(socketPath()));
    QVERIFY(!QFile::exists(m_dataDir + QStringLiteral("/logs/service.log")));
    // The directory put right, the same command starts a ready service there.
    if (problem == QLatin1String("link")) {
        QCOMPARE(::unlink(path.constData()), 0);
        QCOMPARE(::rename(real.constData(), path.constData()), 0);
    } else {
        QCOMPARE(::chmod(path.constData(), 0700), 0);
    }
    QCOMPARE(veetbotService(QStringLiteral("start"), &output), 0);
    QCOMPARE(output.value(QStringLiteral("ready")).toBool(), true);
    QCOMPARE(veetbotService(QStringLiteral("stop"), &output), 0);
}

void TestProfileService::notReadyWithoutKeys()
{
    stopService();
    QVERIFY(QDir(m_keyDir).removeRecursively());
    m_service = std::make_unique<QProcess>();
    m_service->setProcessEnvironment(environment());
    m_service->start(QCoreApplication::applicationDirPath() +
                     QStringLiteral("/veetbot-profile-service"));
    QVERIFY(m_service->waitForStarted(10000));
    // Live, but never ready; lifecycle routes answer 503, not a hang.
    QVERIFY(testing::runEventsUntil(
        [this] {
            return statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n", 1000)) == 200;
        },
        10000));
    QVERIFY(testing::runEventsUntil(
        [this] {
            return bodyOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n", 1000))
                .contains("keyring_unavailable");
        },
        10000));
    QCOMPARE(statusOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n")), 503);
    QCOMPARE(statusOf(post(provisionPath(), scopeBody(), provisionKey())), 503);
}

void TestProfileService::anOnDemandStartOutlastsAServiceStillEnding()
{
    stopService();
    // This process holds the service lock, as a service still ending would.
    const QByteArray lockPath = QFile::encodeName(m_runDir + QStringLiteral("/service.lock"));
    const int lock = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    QVERIFY(lock >= 0);
    QCOMPARE(::flock(lock, LOCK_EX | LOCK_NB), 0);
    QProcess start;
    start.setProcessEnvironment(environment());
    start.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                {QStringLiteral("service"), QStringLiteral("start")});
    QVERIFY(start.waitForStarted(10000));
    // The service it started gave way (the lock is held)...
    const QString logPath = m_dataDir + QStringLiteral("/logs/service.log");
    QVERIFY(testing::runEventsUntil(
        [&logPath] {
            QFile log(logPath);
            return log.open(QIODevice::ReadOnly) &&
                   log.readAll().contains("service.already_running");
        },
        10000));
    // ...and once the lock is free, the command starts another, which becomes ready.
    ::close(lock);
    QVERIFY(start.waitForFinished(15000));
    QCOMPARE(start.exitCode(), 0);
    QVERIFY(QJsonDocument::fromJson(start.readAllStandardOutput())
                .object()
                .value(QStringLiteral("ready"))
                .toBool());
    QCOMPARE(statusOf(exchange("GET /health/ready HTTP/1.1\r\nHost: s\r\n\r\n")), 200);
    // The test's own service object does not own this one: stop it by hand.
    QProcess stop;
    stop.setProcessEnvironment(environment());
    stop.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
               {QStringLiteral("service"), QStringLiteral("stop")});
    QVERIFY(stop.waitForFinished(15000));
    QCOMPARE(stop.exitCode(), 0);
}

void TestProfileService::aServiceOfAnotherVersionIsRestartedWhenIdle()
{
    // The client runs in this process: the service it starts gets this environment.
    const QProcessEnvironment env = environment();
    for (const QString &name :
         {QStringLiteral("VEETBOT_DATA_DIR"), QStringLiteral("VEETBOT_KEY_DIR"),
          QStringLiteral("VEETBOT_RUNTIME_DIR")})
        qputenv(name.toUtf8().constData(), env.value(name).toUtf8());
    const auto restore = qScopeGuard([] {
        qunsetenv("VEETBOT_DATA_DIR");
        qunsetenv("VEETBOT_KEY_DIR");
        qunsetenv("VEETBOT_RUNTIME_DIR");
    });
    QStringList notices;
    ServiceConnection::Options options;
    options.dataDirectory = m_dataDir;
    options.programPath =
        QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-profile-service");
    options.notice = [&notices](const QString &notice) { notices.append(notice); };
    const qint64 oldPid = m_service->processId();

    // The same version, and any version without a start: the running service, untouched.
    options.version = QStringLiteral(VEETBOT_VERSION);
    Result<ServiceConnection> same =
        ServiceConnection::connect(options, ServiceConnection::Start::OnDemand);
    QVERIFY(same);
    QCOMPARE(same->description().value(QStringLiteral("pid")).toInteger(), oldPid);
    QCOMPARE(same->description().value(QStringLiteral("supervised")).toBool(), false);
    options.version = QStringLiteral("0.0.0-other");
    Result<ServiceConnection> never =
        ServiceConnection::connect(options, ServiceConnection::Start::Never);
    QVERIFY(never);
    QCOMPARE(never->description().value(QStringLiteral("pid")).toInteger(), oldPid);
    QVERIFY(notices.isEmpty());
    QCOMPARE(m_service->state(), QProcess::Running);

    // Another version, no browser open: the old service ends with the restart status and a
    // new one answers.
    Result<ServiceConnection> renewed =
        ServiceConnection::connect(options, ServiceConnection::Start::OnDemand);
    QVERIFY2(renewed, qPrintable(renewed ? QString() : renewed.error().code));
    QVERIFY(m_service->waitForFinished(10000));
    QCOMPARE(m_service->exitCode(), 75);
    const qint64 newPid = renewed->description().value(QStringLiteral("pid")).toInteger();
    QVERIFY(newPid > 0);
    QVERIFY(newPid != oldPid);
    QVERIFY(renewed->isReady());
    QCOMPARE(renewed->description().value(QStringLiteral("version")).toString(),
             QStringLiteral(VEETBOT_VERSION));
    QVERIFY2(notices.contains(QStringLiteral("restarted the profile service of version %1 for "
                                             "version 0.0.0-other")
                                  .arg(QStringLiteral(VEETBOT_VERSION))),
             qPrintable(notices.join(QLatin1Char('\n'))));

    // The test's own service object does not own the new one: stop it by hand.
    const Result<HttpResponse> stopping =
        renewed->client()->post("/v1/service:stop", QByteArray(), QByteArray());
    QVERIFY(stopping);
    QCOMPARE(stopping->status, 202);
    QVERIFY(testing::runEventsUntil(
        [this] {
            return statusOf(exchange("GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n", 500)) == 0;
        },
        10000));
}

QTEST_MAIN(TestProfileService)
#include "tst_profile_service.moc"
