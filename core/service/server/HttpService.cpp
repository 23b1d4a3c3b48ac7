#include "HttpService.h"

#include "service/api/ApiBody.h"
#include "service/server/HttpHead.h"

#include <httplib.h>

#include <QDeadlineTimer>

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <variant>
#include <vector>

namespace veetbot {

// httplib's request processing (the protected process_request) on a connection this service
// accepted and whose head it has read already.
class HttpService::RequestServer final : public httplib::Server
{
public:
    void serve(httplib::Stream &stream)
    {
        bool closed = false;
        process_request(stream, /*close_connection=*/true, closed, nullptr);
    }
};

// One thread per connection in progress, up to a cap, instead of a fixed pool: a client that
// holds its connection open occupies one thread and never the one the next client needs,
// until `cap` connections are held at once. At most `maxWaiting` jobs wait for a thread.
class HttpService::ConnectionPool final
{
public:
    ConnectionPool(size_t cap, size_t maxWaiting) : m_cap(cap), m_maxWaiting(maxWaiting) {}
    ~ConnectionPool() { shutdown(); }

    // False when the job was not taken (too many waiting, or shut down).
    bool enqueue(std::function<void()> job)
    {
        const std::lock_guard lock(m_mutex);
        if (m_shutdown || m_jobs.size() >= m_maxWaiting)
            return false;
        m_jobs.push_back(std::move(job));
        // Every waiting job needs a thread of its own: an idle thread already woken for an
        // earlier job does not count twice.
        if (m_jobs.size() > m_idle && m_threads.size() < m_cap)
            m_threads.emplace_back([this] { work(); });
        m_wake.notify_one();
        return true;
    }

    // Lets the jobs taken end (those waiting included), then joins every thread.
    void shutdown()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_shutdown = true;
        }
        m_wake.notify_all();
        for (std::thread &thread : m_threads) {
            if (thread.joinable())
                thread.join();
        }
    }

private:
    void work()
    {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(m_mutex);
                ++m_idle;
                m_wake.wait(lock, [this] { return m_shutdown || !m_jobs.empty(); });
                --m_idle;
                if (m_jobs.empty())
                    return; // shut down, nothing left to answer
                job = std::move(m_jobs.front());
                m_jobs.pop_front();
            }
            job();
        }
    }

    const size_t m_cap;
    const size_t m_maxWaiting;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_jobs;
    std::vector<std::thread> m_threads;
    size_t m_idle = 0;
    bool m_shutdown = false;
};

namespace {

qint64 nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Waits until `fd` is ready for `events` or `timeoutMs` passed (interrupted waits resume).
bool waitFor(int fd, short events, qint64 timeoutMs)
{
    const qint64 until = nowMs() + qMax<qint64>(0, timeoutMs);
    for (;;) {
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, int(qMax<qint64>(0, until - nowMs())));
        if (ready > 0)
            return true;
        if (ready == 0 || errno != EINTR)
            return false;
    }
}

// A connection after its head was read: the head's bytes (and whatever of the body came
// with them) first, then the socket, each read and write within its timeout and no read past
// `readDeadlineMs` (a steady-clock instant; 0: none).
class ConnectionStream final : public httplib::Stream
{
public:
    ConnectionStream(int fd, QByteArray prefix, int readTimeoutMs, int writeTimeoutMs,
                     qint64 readDeadlineMs)
        : m_fd(fd), m_prefix(std::move(prefix)), m_readTimeoutMs(readTimeoutMs),
          m_writeTimeoutMs(writeTimeoutMs), m_readDeadlineMs(readDeadlineMs)
    {
    }

    bool is_readable() const override
    {
        return m_offset < m_prefix.size() || waitFor(m_fd, POLLIN, readWait());
    }
    bool is_writable() const override { return waitFor(m_fd, POLLOUT, m_writeTimeoutMs); }

    ssize_t read(char *ptr, size_t size) override
    {
        if (m_offset < m_prefix.size()) {
            const size_t n = qMin(size, size_t(m_prefix.size() - m_offset));
            std::memcpy(ptr, m_prefix.constData() + m_offset, n);
            m_offset += qsizetype(n);
            return ssize_t(n);
        }
        for (;;) {
            if (!waitFor(m_fd, POLLIN, readWait()))
                return -1;
            const ssize_t n = ::recv(m_fd, ptr, size, 0);
            if (n >= 0 || (errno != EINTR && errno != EAGAIN))
                return n;
        }
    }

    ssize_t write(const char *ptr, size_t size) override
    {
        for (;;) {
            if (!waitFor(m_fd, POLLOUT, m_writeTimeoutMs))
                return -1;
            const ssize_t n = ::send(m_fd, ptr, size, MSG_NOSIGNAL);
            if (n >= 0 || (errno != EINTR && errno != EAGAIN))
                return n;
        }
    }

    void get_remote_ip_and_port(std::string &ip, int &port) const override
    {
        ip.clear();
        port = 0;
    }
    void get_local_ip_and_port(std::string &ip, int &port) const override
    {
        ip.clear();
        port = 0;
    }
    int socket() const override { return m_fd; }

private:
    qint64 readWait() const
    {
        if (m_readDeadlineMs == 0)
            return m_readTimeoutMs;
        return qMin<qint64>(m_readTimeoutMs, m_readDeadlineMs - nowMs());
    }

    const int m_fd;
    const QByteArray m_prefix;
    qsizetype m_offset = 0;
    const int m_readTimeoutMs;
    const int m_writeTimeoutMs;
    const qint64 m_readDeadlineMs;
};

void closeConnection(int fd)
{
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
}

// A refused head's connection is read and thrown away for a while after the 431 (a peer
// that closes with unread data resets the connection, and a client still writing its head
// would never read the answer): at most this much, for at most this long.
constexpr qint64 kDiscardBytes = 256 * 1024;
constexpr qint64 kDiscardMs = 2000;

// The fixed 431, written at once without waiting (it is small enough for any socket buffer);
// the connection is then only read from, and what arrives is thrown away.
void refuseHead(int fd)
{
    const HttpResponse answer = HttpError::response(HttpError::Kind::HeadTooLarge);
    const QByteArray bytes = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
                             "Cache-Control: private, no-store\r\nConnection: close\r\n"
                             "Content-Type: application/json\r\nContent-Length: " +
                             QByteArray::number(answer.body.size()) + "\r\n\r\n" + answer.body;
    [[maybe_unused]] const ssize_t sent =
        ::send(fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_WR);
}

std::optional<QByteArray> header(const httplib::Request &request, const char *name)
{
    if (!request.has_header(name))
        return std::nullopt;
    // Repeated framing or credential headers are ambiguous: refused as malformed by giving
    // the admission a value it cannot accept.
    if (request.get_header_value_count(name) > 1)
        return QByteArray("\x01");
    const std::string value = request.get_header_value(name);
    return QByteArray(value.data(), qsizetype(value.size()));
}

HttpAdmission::Headers admissionHeaders(const httplib::Request &request)
{
    return {
        .authorization = header(request, "Authorization"),
        .contentType = header(request, "Content-Type"),
        .contentEncoding = header(request, "Content-Encoding"),
        .contentLength = header(request, "Content-Length"),
        .transferEncoding = header(request, "Transfer-Encoding"),
        .capability = header(request, HttpAdmission::kCapabilityHeader),
    };
}

void write(httplib::Response &response, const HttpResponse &answer)
{
    response.status = answer.status;
    if (answer.status == 401)
        response.set_header("WWW-Authenticate", "Bearer");
    response.set_header("Cache-Control", "private, no-store");
    if (!answer.body.isEmpty())
        response.set_content(answer.body.constData(), size_t(answer.body.size()),
                             "application/json");
}

} // namespace

HttpService::HttpService(QList<HttpRoute> routes,
                         std::function<bool(QByteArrayView)> credentialMatches, Runner runner,
                         Options options)
    : m_server(std::make_unique<RequestServer>()), m_routes(std::move(routes)),
      m_credentialMatches(std::move(credentialMatches)), m_runner(std::move(runner)),
      m_options(options)
{
    install();
}

HttpService::~HttpService()
{
    stop();
}

void HttpService::install()
{
    httplib::Server &server = *m_server;
    // Bodies are read only by the content readers below, each bounded by its route; this is
    // httplib's own ceiling besides.
    qint64 largest = 0;
    for (const HttpRoute &route : std::as_const(m_routes))
        largest = qMax(largest, route.maxBody);
    server.set_payload_max_length(size_t(largest));
    server.set_exception_handler(
        [](const httplib::Request &, httplib::Response &response, std::exception_ptr) {
            write(response, HttpError::response(HttpError::Kind::Internal));
        });
    server.set_pre_routing_handler([this](const httplib::Request &request,
                                          httplib::Response &response) {
        const auto decision = HttpAdmission::admit(m_routes, QByteArrayView(request.method),
                                                   QByteArrayView(request.path),
                                                   admissionHeaders(request), m_credentialMatches);
        if (const auto *refused = std::get_if<HttpError::Kind>(&decision)) {
            // A small POST body is discarded unread by the route handler before the same
            // refusal (kDrainBytes), so that its client can read the answer.
            const std::optional<qint64> length =
                request.has_header("Transfer-Encoding")
                    ? std::nullopt
                    : HttpAdmission::contentLength(
                          header(request, "Content-Length").value_or(QByteArray()));
            if (request.method == "POST" && length && *length > 0 && *length <= kDrainBytes)
                return httplib::Server::HandlerResponse::Unhandled;
            write(response, HttpError::response(*refused));
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    const auto serve = [this](const httplib::Request &request, httplib::Response &response,
                              const httplib::ContentReader *reader) {
        // Admitted in the pre-routing handler; decided again here for the route itself.
        const auto decision = HttpAdmission::admit(m_routes, QByteArrayView(request.method),
                                                   QByteArrayView(request.path),
                                                   admissionHeaders(request), m_credentialMatches);
        const auto *admitted = std::get_if<HttpAdmission::Admitted>(&decision);
        if (!admitted) {
            // Refused before its body: a small one is read and thrown away, never kept or
            // parsed, so that the client is not cut off mid-request (a peer that closes
            // with unread data resets the connection, and the client never sees its answer).
            if (reader) {
                qint64 discarded = 0;
                (*reader)([&discarded](const char *, size_t length) {
                    discarded += qint64(length);
                    return discarded <= kDrainBytes;
                });
            }
            write(response, HttpError::response(std::get<HttpError::Kind>(decision)));
            return;
        }
        HttpRequest call;
        call.parameters = admitted->parameters;
        if (admitted->route->maxBody > 0) {
            const qint64 limit = admitted->route->maxBody;
            bool tooLarge = false;
            bool complete = reader != nullptr;
            if (reader) {
                complete = (*reader)([&](const char *data, size_t length) {
                    if (call.body.size() + qint64(length) > limit) {
                        tooLarge = true;
                        return false; // stop reading: nothing more is buffered
                    }
                    call.body.append(data, qsizetype(length));
                    return true;
                });
            }
            if (tooLarge) {
                write(response, HttpError::response(HttpError::Kind::PayloadTooLarge));
                return;
            }
            if (!complete || (!admitted->chunked && call.body.size() != admitted->contentLength)) {
                write(response, HttpError::response(HttpError::Kind::MalformedRequest));
                return;
            }
        }
        // An id with a control character is nothing any route or store accepts: refused here
        // for every route alike, before a route could fail on it.
        if (!call.body.isEmpty() && ApiBody::idHoldsControlCharacter(call.body)) {
            write(response, HttpError::response(HttpError::Kind::InvalidRequest));
            return;
        }
        call.idempotencyKey = header(request, "Idempotency-Key").value_or(QByteArray());
        if (admitted->route->access == HttpRoute::Access::Capability)
            call.capability =
                header(request, HttpAdmission::kCapabilityHeader).value_or(QByteArray());
        // The work owns its copy of the request: it may outlive this thread's wait.
        const HttpRoute *route = admitted->route;
        write(response, m_runner([route, call](HttpRoute::Reply reply) {
                  if (route->handleAsync)
                      route->handleAsync(call, std::move(reply));
                  else
                      reply(route->handle(call));
              }));
    };
    server.Get(".*", [serve](const httplib::Request &request, httplib::Response &response) {
        serve(request, response, nullptr);
    });
    server.Post(
        ".*", [serve](const httplib::Request &request, httplib::Response &response,
                      const httplib::ContentReader &reader) { serve(request, response, &reader); });
}

bool HttpService::bind(const QString &socketPath)
{
    const QByteArray path = socketPath.toLocal8Bit();
    sockaddr_un address = {};
    if (m_listener >= 0 || path.isEmpty() || size_t(path.size()) >= sizeof address.sun_path)
        return false;
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return false;
    const mode_t previous = ::umask(077);
    const bool bound =
        ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0;
    ::umask(previous);
    // A Unix socket refuses a connection beyond its backlog at once (EAGAIN) rather than
    // retrying like TCP, so a burst of clients would turn away a good one: it is listened on
    // with the system's maximum.
    if (!bound || ::chmod(path.constData(), 0600) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
        ::pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        ::close(fd);
        return false;
    }
    m_listener = fd;
    m_bound = true;
    return true;
}

void HttpService::start()
{
    if (!m_bound || m_thread.joinable())
        return;
    m_credentialPool = std::make_unique<ConnectionPool>(size_t(m_options.maxConnections),
                                                        size_t(m_options.maxWaiting));
    m_anonymousPool = std::make_unique<ConnectionPool>(size_t(m_options.maxAnonymousConnections),
                                                       size_t(m_options.maxWaiting));
    m_thread = std::thread([this] { acceptConnections(); });
}

void HttpService::stop()
{
    if (m_thread.joinable()) {
        const char byte = 0;
        [[maybe_unused]] const ssize_t woken = ::write(m_wake[1], &byte, 1);
        m_thread.join();
    }
    // Nothing new is accepted; requests in progress end (their work still runs).
    if (m_listener >= 0) {
        ::close(m_listener);
        m_listener = -1;
    }
    if (m_credentialPool)
        m_credentialPool->shutdown();
    if (m_anonymousPool)
        m_anonymousPool->shutdown();
    for (int &fd : m_wake) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
    m_bound = false;
}

void HttpService::acceptConnections()
{
    struct Pending
    {
        int fd = -1;
        qint64 acceptedAt = 0;
        qint64 closeAt = 0; // the head's deadline, or the end of a refused one's discarding
        bool refused = false;
        qint64 discarded = 0;
        HttpHead head;
    };
    std::deque<std::unique_ptr<Pending>> pending; // the longest waiting first
    std::vector<pollfd> polled;
    qint64 acceptPausedUntil = 0; // out of descriptors: accepting again after a pause
    char buffer[HttpHead::kMaxBytes];
    for (;;) {
        const qint64 now = nowMs();
        const bool accepting = now >= acceptPausedUntil;
        polled.clear();
        polled.push_back({m_wake[0], POLLIN, 0});
        polled.push_back({m_listener, short(accepting ? POLLIN : 0), 0});
        qint64 wait = accepting ? -1 : acceptPausedUntil - now;
        for (const auto &connection : pending) {
            polled.push_back({connection->fd, POLLIN, 0});
            const qint64 left = qMax<qint64>(0, connection->closeAt - now);
            wait = wait < 0 ? left : qMin(wait, left);
        }
        if (::poll(polled.data(), nfds_t(polled.size()), int(wait)) < 0 && errno != EINTR)
            continue;
        if (polled[0].revents != 0)
            break;
        // Heads first, in the order their connections arrived; then deadlines; then new
        // connections.
        const qint64 after = nowMs();
        std::deque<std::unique_ptr<Pending>> still;
        for (size_t i = 0; i < pending.size(); ++i) {
            std::unique_ptr<Pending> &connection = pending[i];
            if (polled[i + 2].revents != 0 && connection->refused) {
                const ssize_t n = ::recv(connection->fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (n > 0)
                    connection->discarded += n;
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
                    connection->discarded > kDiscardBytes) {
                    closeConnection(connection->fd);
                    continue;
                }
            } else if (polled[i + 2].revents != 0) {
                const ssize_t n =
                    ::recv(connection->fd, buffer, size_t(connection->head.room()), MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                    closeConnection(connection->fd);
                    continue;
                }
                const HttpHead::State state =
                    n > 0 ? connection->head.append(QByteArrayView(buffer, n))
                          : connection->head.state();
                if (state == HttpHead::State::TooLarge) {
                    refuseHead(connection->fd);
                    connection->refused = true;
                    connection->closeAt = qMin(connection->closeAt, after + kDiscardMs);
                }
                if (state == HttpHead::State::Complete) {
                    const std::optional<QByteArrayView> authorization =
                        connection->head.authorization();
                    static constexpr QByteArrayView kBearer("Bearer ");
                    const bool holder = authorization && authorization->startsWith(kBearer) &&
                                        m_credentialMatches(authorization->sliced(kBearer.size()));
                    dispatch(connection->fd, connection->head.bytes(), holder,
                             holder ? 0 : connection->acceptedAt + m_options.headDeadlineMs);
                    continue;
                }
            }
            if (after >= connection->closeAt) {
                closeConnection(connection->fd);
                continue;
            }
            still.push_back(std::move(connection));
        }
        pending = std::move(still);
        if (!accepting || polled[1].revents == 0)
            continue;
        for (;;) {
            const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                    acceptPausedUntil = nowMs() + 100;
                break;
            }
            if (pending.size() >= size_t(m_options.maxHeadsInProgress)) {
                closeConnection(pending.front()->fd);
                pending.pop_front();
            }
            auto connection = std::make_unique<Pending>();
            connection->fd = fd;
            connection->acceptedAt = nowMs();
            connection->closeAt = connection->acceptedAt + m_options.headDeadlineMs;
            pending.push_back(std::move(connection));
        }
    }
    for (const auto &connection : pending)
        closeConnection(connection->fd);
}

void HttpService::dispatch(int fd, QByteArray bytes, bool credentialHolder, qint64 readDeadlineMs)
{
    ConnectionPool &pool = credentialHolder ? *m_credentialPool : *m_anonymousPool;
    const bool taken = pool.enqueue([this, fd, bytes = std::move(bytes), readDeadlineMs] {
        try {
            ConnectionStream stream(fd, bytes, m_options.readTimeoutMs, m_options.writeTimeoutMs,
                                    readDeadlineMs);
            m_server->serve(stream);
        } catch (...) {
            // httplib answers a handler's exception itself; anything else ends the connection.
        }
        closeConnection(fd);
    });
    if (!taken)
        closeConnection(fd);
}

} // namespace veetbot
