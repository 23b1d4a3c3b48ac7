#include "HttpService.h"

#include <httplib.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <variant>
#include <vector>

namespace veetbot {

namespace {

// One thread per connection in progress, up to a cap, instead of httplib's fixed pool: a
// client that holds its connection open (headers sent a byte at a time, each within the read
// timeout) occupies one thread and never the one the next client needs, until `cap`
// connections are held at once.
class ConnectionPool final : public httplib::TaskQueue
{
public:
    explicit ConnectionPool(size_t cap) : m_cap(cap) {}
    ~ConnectionPool() override { shutdown(); }

    void enqueue(std::function<void()> job) override
    {
        const std::lock_guard lock(m_mutex);
        m_jobs.push_back(std::move(job));
        // Every waiting job needs a thread of its own: an idle thread already woken for an
        // earlier job does not count twice.
        if (m_jobs.size() > m_idle && m_threads.size() < m_cap)
            m_threads.emplace_back([this] { work(); });
        m_wake.notify_one();
    }

    void shutdown() override
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
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_jobs;
    std::vector<std::thread> m_threads;
    size_t m_idle = 0;
    bool m_shutdown = false;
};

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
    : m_server(std::make_unique<httplib::Server>()), m_routes(std::move(routes)),
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
    server.set_address_family(AF_UNIX);
    server.new_task_queue = [cap = m_options.maxConnections] {
        return new ConnectionPool(size_t(cap));
    };
    server.set_keep_alive_max_count(1);
    server.set_read_timeout(std::chrono::milliseconds(m_options.readTimeoutMs));
    server.set_write_timeout(std::chrono::milliseconds(m_options.writeTimeoutMs));
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
    // httplib listens with a backlog of 5; a Unix socket refuses connections beyond the
    // backlog at once (EAGAIN) rather than retrying like TCP, so a burst of clients would
    // turn away a good one. The socket is listened on again with the system's maximum.
    int listening = -1;
    m_server->set_socket_options([&listening](int fd) {
        httplib::default_socket_options(fd);
        listening = fd;
    });
    const mode_t previous = ::umask(077);
    // The port is meaningless for AF_UNIX; httplib treats 0 as "pick one" and fails.
    const bool bound = m_server->bind_to_port(path.constData(), 80);
    ::umask(previous);
    if (!bound)
        return false;
    if (::chmod(path.constData(), 0600) != 0 || listening < 0 ||
        ::listen(listening, SOMAXCONN) != 0)
        return false;
    m_bound = true;
    return true;
}

void HttpService::start()
{
    if (!m_bound || m_thread.joinable())
        return;
    m_thread = std::thread([this] { m_server->listen_after_bind(); });
}

void HttpService::stop()
{
    if (m_server)
        m_server->stop();
    if (m_thread.joinable())
        m_thread.join();
}

} // namespace veetbot
