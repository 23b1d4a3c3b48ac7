// The profile service's HTTP server on a real Unix socket, with a small route table and short
// limits: the request head's bounds (431 past 100 header lines or 16 KiB, never parsed, and
// the next connection served), the head's deadline, and the threads reserved for credential
// holders while anonymous connections hold theirs. HttpHead's rules without a socket.

#include "service/api/ServiceCredential.h"
#include "service/client/ServiceClient.h"
#include "service/server/HttpHead.h"
#include "service/server/HttpService.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using namespace veetbot;

namespace {

const QByteArray kCredential = "right-credential";

QList<HttpRoute> routeTable()
{
    HttpRoute live;
    live.method = "GET";
    live.pattern = QRegularExpression(QStringLiteral("/health/live"));
    live.access = HttpRoute::Access::Public;
    live.handle = [](const HttpRequest &) { return HttpResponse{200, "{\"live\":true}"}; };
    HttpRoute about;
    about.method = "GET";
    about.pattern = QRegularExpression(QStringLiteral("/v1/service"));
    about.handle = [](const HttpRequest &) { return HttpResponse{200, "{\"ready\":true}"}; };
    HttpRoute echo;
    echo.method = "POST";
    echo.pattern = QRegularExpression(QStringLiteral("/v1/echo"));
    echo.maxBody = 1024;
    echo.handle = [](const HttpRequest &request) {
        return HttpResponse{200, "{\"bytes\":" + QByteArray::number(request.body.size()) + "}"};
    };
    return {live, about, echo};
}

// A client connection over a plain POSIX socket.
class Connection
{
public:
    explicit Connection(const QString &socketPath)
    {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address = {};
        address.sun_family = AF_UNIX;
        const QByteArray path = QFile::encodeName(socketPath);
        std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
            ::close(m_fd);
            m_fd = -1;
        }
    }
    ~Connection()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    bool isOpen() const { return m_fd >= 0; }
    bool send(const QByteArray &bytes)
    {
        return ::send(m_fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL) == bytes.size();
    }
    // Everything the server sends until it closes, or until `timeoutMs`; `closed` says which.
    QByteArray receive(int timeoutMs, bool *closed = nullptr)
    {
        QByteArray answer;
        QElapsedTimer clock;
        clock.start();
        if (closed)
            *closed = false;
        while (clock.elapsed() < timeoutMs) {
            pollfd entry{m_fd, POLLIN, 0};
            if (::poll(&entry, 1, int(timeoutMs - clock.elapsed())) <= 0)
                break;
            char buffer[4096];
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                if (closed)
                    *closed = true;
                break;
            }
            answer.append(buffer, qsizetype(n));
        }
        return answer;
    }

private:
    int m_fd = -1;
};

int statusOf(const QByteArray &answer)
{
    if (!answer.startsWith("HTTP/1.1 ") || answer.size() < 12)
        return 0;
    return answer.mid(9, 3).toInt();
}

QByteArray errorCode(const QByteArray &answer)
{
    const QByteArray body = answer.mid(answer.indexOf("\r\n\r\n") + 4);
    return QJsonDocument::fromJson(body)
        .object()
        .value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("code"))
        .toString()
        .toUtf8();
}

QByteArray headWithLines(int lines)
{
    QByteArray head = "GET /health/live HTTP/1.1\r\nHost: s\r\n";
    for (int i = 1; i < lines; ++i)
        head += "X-Line-" + QByteArray::number(i) + ": x\r\n";
    return head + "\r\n";
}

const QByteArray kLive = "GET /health/live HTTP/1.1\r\nHost: s\r\n\r\n";
const QByteArray kAbout =
    "GET /v1/service HTTP/1.1\r\nHost: s\r\nAuthorization: Bearer " + kCredential + "\r\n\r\n";

} // namespace

class TestHttpService : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headRules_data();
    void headRules();
    void aHeadIsReadInPiecesWithinItsBound();
    void aHeadOverItsLinesIsRefused();
    void aHeadOverItsBytesIsRefused();
    void aHeadPastItsDeadlineIsClosed();
    void credentialHoldersKeepTheirThreads();
    void controlCharactersInIdsAreInvalid_data();
    void controlCharactersInIdsAreInvalid();
    void aClientSurvivesAServiceThatClosesOnIt();

private:
    std::unique_ptr<HttpService> serve(HttpService::Options options);
    QString socketPath() const { return m_dir->path() + QStringLiteral("/s.sock"); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

std::unique_ptr<HttpService> TestHttpService::serve(HttpService::Options options)
{
    m_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/vhs-XXXXXX"));
    auto service = std::make_unique<HttpService>(
        routeTable(), [](QByteArrayView presented) { return presented == kCredential; },
        [](HttpService::Work work) {
            HttpResponse answer;
            work([&answer](HttpResponse response) { answer = std::move(response); });
            return answer;
        },
        options);
    if (!service->bind(socketPath()))
        return nullptr;
    service->start();
    return service;
}

void TestHttpService::headRules_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("state");
    QTest::addColumn<QByteArray>("authorization"); // "-": none

    const auto complete = int(HttpHead::State::Complete);
    const auto incomplete = int(HttpHead::State::Incomplete);
    const auto tooLarge = int(HttpHead::State::TooLarge);
    QTest::newRow("request line only")
        << QByteArray("GET / HTTP/1.1\r\n\r\n") << complete << QByteArray("-");
    QTest::newRow("no empty line yet")
        << QByteArray("GET / HTTP/1.1\r\nHost: s\r\n") << incomplete << QByteArray("-");
    QTest::newRow("100 header lines") << headWithLines(100) << complete << QByteArray("-");
    QTest::newRow("101 header lines") << headWithLines(101) << tooLarge << QByteArray("-");
    QTest::newRow("101 lines, no end yet")
        << headWithLines(101).chopped(2) << tooLarge << QByteArray("-");
    QTest::newRow("16 KiB exactly")
        << "GET / HTTP/1.1\r\nX: " + QByteArray(HttpHead::kMaxBytes - 23, 'a') + "\r\n\r\n"
        << complete << QByteArray("-");
    QTest::newRow("one byte more")
        << "GET / HTTP/1.1\r\nX: " + QByteArray(HttpHead::kMaxBytes - 22, 'a') + "\r\n\r\n"
        << tooLarge << QByteArray("-");
    QTest::newRow("the body after it is kept apart")
        << QByteArray("POST / HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n{\"a\":1}") << complete
        << QByteArray("Bearer x");
    QTest::newRow("any case") << QByteArray("GET / HTTP/1.1\r\nauthORIZATION:  Bearer y \r\n\r\n")
                              << complete << QByteArray("Bearer y");
    QTest::newRow("repeated: none")
        << QByteArray("GET / HTTP/1.1\r\nAuthorization: Bearer x\r\nAuthorization: Bearer "
                      "x\r\n\r\n")
        << complete << QByteArray("-");
    QTest::newRow("a bare line feed does not end it")
        << QByteArray("GET / HTTP/1.1\nHost: s\n\n") << incomplete << QByteArray("-");
}

void TestHttpService::headRules()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, state);
    QFETCH(QByteArray, authorization);
    HttpHead head;
    QCOMPARE(int(head.append(bytes)), state);
    QVERIFY(head.bytes().size() <= HttpHead::kMaxBytes);
    QVERIFY(head.bytes().capacity() <= HttpHead::kMaxBytes);
    const std::optional<QByteArrayView> found = head.authorization();
    QCOMPARE(found ? found->toByteArray() : QByteArray("-"), authorization);
    if (state == int(HttpHead::State::Complete))
        QVERIFY(bytes.left(head.headLength()).endsWith("\r\n\r\n"));
}

void TestHttpService::aHeadIsReadInPiecesWithinItsBound()
{
    // A byte at a time, as a trickling client sends it: the same answer as all at once.
    const QByteArray request = "POST /v1/echo HTTP/1.1\r\nAuthorization: Bearer z\r\n\r\n";
    HttpHead head;
    for (const char c : request) {
        QVERIFY(head.room() > 0);
        head.append(QByteArrayView(&c, 1));
    }
    QCOMPARE(head.state(), HttpHead::State::Complete);
    QCOMPARE(head.headLength(), request.size());
    QCOMPARE(head.room(), 0);
    QCOMPARE(head.authorization()->toByteArray(), QByteArray("Bearer z"));
    // An endless head stops at its bound: nothing past kMaxBytes is taken.
    HttpHead endless;
    const QByteArray chunk(1000, 'a');
    int appended = 0;
    while (endless.state() == HttpHead::State::Incomplete && appended < 100) {
        endless.append(chunk);
        ++appended;
    }
    QCOMPARE(endless.state(), HttpHead::State::TooLarge);
    QCOMPARE(endless.bytes().size(), HttpHead::kMaxBytes);
    QCOMPARE(endless.room(), 0);
    QCOMPARE(appended, 17);
}

void TestHttpService::aHeadOverItsLinesIsRefused()
{
    const auto service = serve({});
    QVERIFY(service);
    Connection over(socketPath());
    QVERIFY(over.send(headWithLines(101)));
    bool closed = false;
    const QByteArray refused = over.receive(5000, &closed);
    QCOMPARE(statusOf(refused), 431);
    QCOMPARE(errorCode(refused), QByteArray("header_fields_too_large"));
    QVERIFY(closed);
    // The same request with 100 lines, on a new connection, is served.
    Connection within(socketPath());
    QVERIFY(within.send(headWithLines(100)));
    QCOMPARE(statusOf(within.receive(5000)), 200);
}

void TestHttpService::aHeadOverItsBytesIsRefused()
{
    const auto service = serve({});
    QVERIFY(service);
    // 64 KiB of one header line: refused at 16 KiB, the rest never read.
    Connection over(socketPath());
    QVERIFY(over.send("GET /health/live HTTP/1.1\r\nX: " + QByteArray(64 * 1024, 'a')));
    bool closed = false;
    const QByteArray refused = over.receive(5000, &closed);
    QCOMPARE(statusOf(refused), 431);
    QCOMPARE(errorCode(refused), QByteArray("header_fields_too_large"));
    QVERIFY(closed);
    // Just under the bound, with the credential, on a new connection: served (in two lines:
    // httplib itself reads no header line over 8 KiB).
    Connection within(socketPath());
    const QByteArray filler((HttpHead::kMaxBytes - kAbout.size()) / 2 - 8, 'b');
    QVERIFY(within.send(kAbout.chopped(2) + "X: " + filler + "\r\nY: " + filler + "\r\n\r\n"));
    QCOMPARE(statusOf(within.receive(5000)), 200);
}

void TestHttpService::aHeadPastItsDeadlineIsClosed()
{
    const auto service = serve({.headDeadlineMs = 400});
    QVERIFY(service);
    // One byte every 50 ms, each within any read timeout: closed at the head's deadline.
    Connection trickling(socketPath());
    QVERIFY(trickling.isOpen());
    QElapsedTimer clock;
    clock.start();
    bool closed = false;
    QByteArray answer;
    const QByteArray slow = "GET /health/live HTTP/1.1\r\nX-Slow: " + QByteArray(200, 'a');
    for (const char c : slow) {
        if (!trickling.send(QByteArray(1, c))) {
            closed = true;
            break;
        }
        answer += trickling.receive(50, &closed);
        if (closed)
            break;
    }
    QVERIFY(closed);
    QVERIFY(answer.isEmpty()); // closed unanswered
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    // A client that sends its head at once is served.
    Connection prompt(socketPath());
    QVERIFY(prompt.send(kLive));
    QCOMPARE(statusOf(prompt.receive(5000)), 200);
}

void TestHttpService::credentialHoldersKeepTheirThreads()
{
    const auto service = serve({.headDeadlineMs = 5000, .maxAnonymousConnections = 2});
    QVERIFY(service);
    // Heads that never end, and anonymous requests whose bodies never come: each of the
    // latter holds a thread of the anonymous budget while its body is read and thrown away.
    std::vector<std::unique_ptr<Connection>> holding;
    for (int i = 0; i < 64; ++i) {
        auto connection = std::make_unique<Connection>(socketPath());
        QVERIFY(connection->isOpen());
        QVERIFY(connection->send(i % 2 == 0 ? QByteArray("POST /v1/ec")
                                            : QByteArray("POST /v1/echo HTTP/1.1\r\nAuthorization: "
                                                         "Bearer wrong\r\nContent-Type: "
                                                         "application/json\r\nContent-Length: "
                                                         "100\r\n\r\n{")));
        holding.push_back(std::move(connection));
    }
    // A credential holder is answered at once beside them.
    QElapsedTimer clock;
    clock.start();
    Connection holder(socketPath());
    QVERIFY(holder.send(kAbout));
    QCOMPARE(statusOf(holder.receive(4000)), 200);
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    // The anonymous ones are still held, unanswered.
    for (const auto &connection : holding) {
        bool closed = false;
        QVERIFY(connection->receive(0, &closed).isEmpty());
        QVERIFY(!closed);
    }
    // Once they go, an anonymous probe is served again.
    holding.clear();
    Connection probe(socketPath());
    QVERIFY(probe.send(kLive));
    QCOMPARE(statusOf(probe.receive(4000)), 200);
}

void TestHttpService::controlCharactersInIdsAreInvalid_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::newRow("NUL in tenant_id") << QByteArray(R"({"tenant_id":"a\u0000b"})") << 400;
    QTest::newRow("US in principal_id") << QByteArray(R"({"principal_id":"\u001f"})") << 400;
    QTest::newRow("DEL in run_id, nested")
        << QByteArray(R"({"holder":{"run_id":"r\u007f"}})") << 400;
    QTest::newRow("line feed in a reference") << QByteArray(R"({"lease_reference":"x\ny"})") << 400;
    QTest::newRow("in an array of owners")
        << QByteArray(R"({"owners":[{"profile_id":"\t"}]})") << 400;
    // Positive controls: the same bodies without them, and control characters elsewhere.
    QTest::newRow("clean ids") << QByteArray(R"({"tenant_id":"a b","holder":{"run_id":"r"}})")
                               << 200;
    QTest::newRow("not an id") << QByteArray(R"({"note":"a\u0000b"})") << 200;
    QTest::newRow("U+0080 is not one") << QByteArray(R"({"tenant_id":"a\u0080"})") << 200;
}

void TestHttpService::controlCharactersInIdsAreInvalid()
{
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    const auto service = serve({});
    QVERIFY(service);
    Connection connection(socketPath());
    QVERIFY(connection.send("POST /v1/echo HTTP/1.1\r\nAuthorization: Bearer " + kCredential +
                            "\r\nContent-Type: application/json\r\nContent-Length: " +
                            QByteArray::number(body.size()) + "\r\n\r\n" + body));
    const QByteArray answer = connection.receive(5000);
    QCOMPARE(statusOf(answer), status);
    if (status == 400)
        QCOMPARE(errorCode(answer), QByteArray("invalid_request"));
}

// A service that closes the connection while the client still writes its request (one that
// is ending, or refusing an over-long head): the client's write meets a closed socket, which
// must be a failed request, not SIGPIPE ending the client's process. Debian's cpp-httplib
// writes without MSG_NOSIGNAL (it looks at the socket first, so the death needs a close
// between the look and the write, as under load), so the first client of a process ignores
// SIGPIPE where it had its default action: asserted, and the requests fail and nothing dies.
// The client runs in a child process of this test (this one already ignores SIGPIPE: the
// library's server, which the other functions start, sets that), with the default action.
void TestHttpService::aClientSurvivesAServiceThatClosesOnIt()
{
    const QString childSocket = qEnvironmentVariable("VEETBOT_TEST_CLOSING_SOCKET");
    if (!childSocket.isEmpty()) {
        ::signal(SIGPIPE, SIG_DFL);
        Result<ServiceCredential> credential =
            ServiceCredential::readOrCreate(qEnvironmentVariable("VEETBOT_TEST_CLOSING_DIR"));
        QVERIFY(credential.ok());
        const ServiceClient client(childSocket, std::move(credential).value());
        struct sigaction now = {};
        QCOMPARE(::sigaction(SIGPIPE, nullptr, &now), 0);
        QVERIFY(now.sa_handler == SIG_IGN);
        // A body far larger than a socket buffer: the write goes on after the close.
        for (int i = 0; i < 2; ++i)
            QVERIFY(
                !client.post("/v1/keys:rotate", QByteArray(4 * 1024 * 1024, 'x'), "key-1").ok());
        return;
    }
    QTemporaryDir dir(QStringLiteral("/tmp/vhc-XXXXXX"));
    QVERIFY(dir.isValid());
    const QByteArray path = QFile::encodeName(dir.path() + QStringLiteral("/closing.sock"));
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    QVERIFY(listener >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    QCOMPARE(::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    QCOMPARE(::listen(listener, 4), 0);
    // It takes each connection and closes it at once, reading nothing.
    std::atomic<int> closed = 0;
    std::thread service([listener, &closed] {
        for (int i = 0; i < 2; ++i) {
            const int connection = ::accept(listener, nullptr, nullptr);
            if (connection < 0)
                return;
            ::close(connection);
            ++closed;
        }
    });
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("VEETBOT_TEST_CLOSING_SOCKET"), QString::fromUtf8(path));
    environment.insert(QStringLiteral("VEETBOT_TEST_CLOSING_DIR"), dir.path());
    child.setProcessEnvironment(environment);
    child.start(QCoreApplication::applicationFilePath(),
                {QStringLiteral("aClientSurvivesAServiceThatClosesOnIt")});
    const bool finished = child.waitForFinished(30000);
    if (closed.load() < 2) { // a child that never connected: let the thread go
        ::shutdown(listener, SHUT_RDWR);
    }
    service.join();
    ::close(listener);
    QVERIFY(finished);
    QVERIFY2(child.exitStatus() == QProcess::NormalExit,
             qPrintable(QStringLiteral("killed by signal %1").arg(child.exitCode())));
    QVERIFY2(child.exitCode() == 0, child.readAllStandardOutput().constData());
    QCOMPARE(closed.load(), 2);
}

QTEST_GUILESS_MAIN(TestHttpService)
#include "tst_httpservice.moc"
