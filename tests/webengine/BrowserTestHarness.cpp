#include "BrowserTestHarness.h"

#include "EventWait.h"

#include <QNetworkProxy>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

namespace veetbot::testing {

bool BrowserTestHarness::start(QString *error)
{
    if (!m_dir.isValid()) {
        *error = QStringLiteral("no temporary directory");
        return false;
    }
    m_certificates = fixtures::TestCertificates::generate(
        m_dir.path(),
        {QStringLiteral("shop.test"), QStringLiteral("www.shop.test"), QStringLiteral("cdn.test"),
         QStringLiteral("evil.test"), QStringLiteral("localhost"), QStringLiteral("fixture"),
         QStringLiteral("demo.veetbot.test")},
        error);
    if (!m_certificates)
        return false;
    m_server = std::make_unique<fixtures::FixtureServer>();
    if (!m_server->listen(*m_certificates) || !m_server->listenPlainHttp()) {
        *error = QStringLiteral("fixture server cannot listen");
        return false;
    }
    m_udp = std::make_unique<fixtures::UdpListener>();
    if (!m_udp->bind()) {
        *error = QStringLiteral("UDP listener cannot bind");
        return false;
    }
    Result<TestOverrides> overrides = TestOverrides::parseResolve(
        QStringLiteral("shop.test=127.0.0.1,www.shop.test=127.0.0.1,cdn.test=127.0.0.1,"
                       "evil.test=127.0.0.1,demo.veetbot.test=127.0.0.1"));
    if (!overrides) {
        *error = overrides.error().message;
        return false;
    }
    m_overrides = overrides.value();
    m_overrides.setCaPath(m_certificates->caPath());
    return true;
}

QString BrowserTestHarness::origin(const QString &host) const
{
    return QStringLiteral("https://%1:%2").arg(host).arg(m_server->httpsPort());
}

QUrl BrowserTestHarness::url(const QString &host, const QString &pathAndQuery) const
{
    return QUrl(origin(host) + pathAndQuery, QUrl::StrictMode);
}

QUrl BrowserTestHarness::plainUrl(const QString &host, const QString &pathAndQuery) const
{
    return QUrl(QStringLiteral("http://%1:%2").arg(host).arg(m_server->httpPort()) + pathAndQuery,
                QUrl::StrictMode);
}

QUrl BrowserTestHarness::redirect(const QString &host, const QUrl &target, int code) const
{
    QUrl url = this->url(host, QStringLiteral("/redirect"));
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("to"), QString::fromUtf8(QUrl::toPercentEncoding(
                                                 QString::fromUtf8(target.toEncoded()))));
    query.addQueryItem(QStringLiteral("code"), QString::number(code));
    url.setQuery(query.query(QUrl::FullyEncoded), QUrl::StrictMode);
    return url;
}

OriginPolicy BrowserTestHarness::policy(const QStringList &hosts) const
{
    QList<Origin> origins;
    for (const QString &host : hosts)
        origins.append(Origin::parse(origin(host), m_overrides).value());
    return OriginPolicy::create(origins).value();
}

void BrowserTestHarness::page(const QString &path, const QByteArray &html)
{
    fixtures::FixtureServer::Response response;
    response.body = html;
    m_server->setRoute(path, response);
}

namespace {
Result<BrowserObservation> wait(std::function<void(ObservationCallback)> start, int timeoutMs)
{
    // Shared: a late answer after a timeout must not touch a dead stack frame.
    auto result = std::make_shared<std::optional<Result<BrowserObservation>>>();
    start([result](Result<BrowserObservation> r) { *result = std::move(r); });
    if (!runEventsUntil([result] { return result->has_value(); }, timeoutMs))
        return Error{QStringLiteral("test.timeout"), QStringLiteral("no answer in time")};
    return std::move(**result);
}
} // namespace

Result<BrowserObservation> BrowserTestHarness::navigate(BrowserProvider &provider, const QUrl &url,
                                                        int timeoutMs)
{
    return wait([&](ObservationCallback done) { provider.navigate({url}, std::move(done)); },
                timeoutMs);
}

Result<BrowserObservation> BrowserTestHarness::navigate(BrowserProvider &provider,
                                                        const NavigateRequest &request,
                                                        int timeoutMs)
{
    return wait([&](ObservationCallback done) { provider.navigate(request, std::move(done)); },
                timeoutMs);
}

Result<BrowserObservation> BrowserTestHarness::act(BrowserProvider &provider,
                                                   const ActRequest &request,
                                                   bool ordinaryInteraction, int timeoutMs)
{
    return wait(
        [&](ObservationCallback done) {
            if (ordinaryInteraction)
                provider.actUnderConstraint(request, DispatchConstraint{}, std::move(done));
            else
                provider.act(request, std::move(done));
        },
        timeoutMs);
}

Result<BrowserObservation> BrowserTestHarness::observe(BrowserProvider &provider,
                                                       const ObserveRequest &request, int timeoutMs)
{
    return wait([&](ObservationCallback done) { provider.observe(request, std::move(done)); },
                timeoutMs);
}

bool BrowserTestHarness::routeThroughEgressProxy()
{
    m_proxy = std::make_unique<EgressProxy>(m_overrides);
    if (!m_proxy->listenTcp())
        return false;
    QNetworkProxy::setApplicationProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), m_proxy->tcpPort()));
    return true;
}

bool BrowserTestHarness::settle(int timeoutMs)
{
    static int controls = 0;
    const QString path = QStringLiteral("/.settled/%1").arg(++controls);
    QTcpSocket socket;
    socket.setProxy(QNetworkProxy::NoProxy);
    socket.connectToHost(QHostAddress::LocalHost, m_server->httpPort());
    const QByteArray request =
        "GET " + path.toLatin1() + " HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n";
    bool sent = false;
    return runEventsUntil(
        [&] {
            if (!sent && socket.state() == QAbstractSocket::ConnectedState) {
                socket.write(request);
                sent = true;
            }
            return m_server->count(QStringLiteral("shop.test"), path) == 1;
        },
        timeoutMs);
}

QString refOf(const BrowserObservation &observation, const QString &role, const QString &name)
{
    for (const ElementRecord &element : observation.elements) {
        if (element.role == role && element.name == name)
            return element.ref;
    }
    return {};
}

} // namespace veetbot::testing
