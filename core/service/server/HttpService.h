#pragma once

#include "service/api/HttpApi.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <thread>

namespace httplib {
class Server;
}

namespace veetbot {

// HTTP/1.1 on a Unix domain socket (cpp-httplib). Before httplib sees a connection, one
// thread accepts it and reads its head with every other head in progress (poll, no thread
// each), within HttpHead's bounds (431 past them) and a deadline (closed past it). A complete
// head goes to one of two budgets of connection threads: one for heads that carry the
// service credential, a smaller one for every other (probes, hand-offs, refusals), so
// anonymous clients never hold the threads a credential holder needs. Every request is then
// admitted by HttpAdmission in the pre-routing handler, before a byte of its body is read; a
// body is read only through a content reader that stops at the route's limit (chunked bodies
// included); one request per connection; reads time out; an exception anywhere is the
// generic 500 with no exception text. Nothing here logs: a request's bytes, its credential
// and the socket's path never leave this class.
class HttpService
{
public:
    // Runs a route's work where the service's state lives (the Qt thread) and returns its
    // answer, which the work gives through the reply it is handed; called on the server's
    // worker threads.
    using Work = std::function<void(HttpRoute::Reply)>;
    // A refused POST body up to this size is read and discarded before the answer.
    static constexpr qint64 kDrainBytes = 64 * 1024;
    using Runner = std::function<HttpResponse(Work)>;
    struct Options
    {
        int readTimeoutMs = 5000;
        int writeTimeoutMs = 5000;
        // From the accept to the head's empty line; a connection past it is closed.
        int headDeadlineMs = 10000;
        // Heads read at once; one more closes the one that has waited longest.
        int maxHeadsInProgress = 256;
        // Connections whose head carries the service credential served at once, one thread
        // each; more wait for one to end.
        int maxConnections = 64;
        // Every other connection (probes, hand-offs, refusals): its own smaller budget, and
        // its reads end `headDeadlineMs` after the accept, body included.
        int maxAnonymousConnections = 16;
        // Complete heads waiting for a thread of a budget; more are closed unanswered.
        int maxWaiting = 256;
    };

    // `credentialMatches` compares a presented Bearer token in constant time.
    HttpService(QList<HttpRoute> routes, std::function<bool(QByteArrayView)> credentialMatches,
                Runner runner, Options options);
    HttpService(QList<HttpRoute> routes, std::function<bool(QByteArrayView)> credentialMatches,
                Runner runner)
        : HttpService(std::move(routes), std::move(credentialMatches), std::move(runner), Options())
    {
    }
    ~HttpService();
    HttpService(const HttpService &) = delete;
    HttpService &operator=(const HttpService &) = delete;

    // Binds `socketPath` (which must not exist) with umask 077 and leaves it mode 0600.
    bool bind(const QString &socketPath);
    // Serves on a thread of its own until stop().
    void start();
    // Stops accepting, lets requests in progress end, and joins the serving thread. The
    // thread that runs the Runner's work must keep running it meanwhile (see waitStopped).
    void stop();

private:
    class RequestServer;
    class ConnectionPool;

    void install();
    void acceptConnections();
    void dispatch(int fd, QByteArray bytes, bool credentialHolder, qint64 readDeadlineMs);

    std::unique_ptr<RequestServer> m_server;
    std::unique_ptr<ConnectionPool> m_credentialPool;
    std::unique_ptr<ConnectionPool> m_anonymousPool;
    int m_listener = -1;
    int m_wake[2] = {-1, -1}; // a pipe: stop() writes to end the accepting thread
    QList<HttpRoute> m_routes;
    std::function<bool(QByteArrayView)> m_credentialMatches;
    Runner m_runner;
    Options m_options;
    std::thread m_thread;
    bool m_bound = false;
};

} // namespace veetbot
