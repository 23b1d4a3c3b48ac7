#include "TunnelTestSupport.h"
#include "net/EgressProxy.h"

#include <QLocalSocket>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

#include <cerrno>
#include <sys/socket.h>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

const QByteArray kForbidden =
    QByteArrayLiteral("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

TestOverrides shopOverrides()
{
    Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1,down.test=127.0.0.1"));
    if (!overrides)
        qFatal("overrides do not parse");
    return std::move(overrides).value();
}

// A loopback port with nothing listening on it.
quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost))
        qFatal("cannot bind a probe port");
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace

// The browser egress proxy: only CONNECT to public DNS names on 443, checked addresses only.
class EgressProxyTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void tunnelsToMappedTestHost();
    void headSplitAcrossWrites();
    void siteCloseFlushesAndClosesClient();
    void refusals_data();
    void refusals();
    void testHostNeedsOverrides();
    void resolverAnswers_data();
    void resolverAnswers();
    void unreachableUpstreamIsBadGateway();
    void localSocketListener();
    void replacesStaleSocketFile();
    void destructorClosesTunnels();
    void retiresATunnelWhoseServerSpokeLast();
    void keepsATunnelAwaitingItsAnswer();
    void keepsATunnelWithUnreadRequestBytes();
    void keepsATunnelNothingWasRelayedOn();
    void retiresOverTheLocalSocketAtOnce();

private:
    void roundTrip(QTcpSocket &client, const QByteArray &request, QByteArray *response);
    void openTunnel(QTcpSocket &client);

    std::unique_ptr<Site> m_site;
    std::unique_ptr<EgressProxy> m_proxy;
};

void EgressProxyTest::init()
{
    m_site = std::make_unique<Site>();
    QVERIFY(m_site->listen());
    m_proxy = std::make_unique<EgressProxy>(shopOverrides());
    QVERIFY(m_proxy->listenTcp());
    QVERIFY(m_proxy->tcpPort() != 0);
}

void EgressProxyTest::cleanup()
{
    m_proxy.reset();
    m_site.reset();
}

// Sends a request and collects the whole response until the proxy closes the connection.
void EgressProxyTest::roundTrip(QTcpSocket &client, const QByteArray &request, QByteArray *response)
{
    client.connectToHost(QHostAddress::LocalHost, m_proxy->tcpPort());
    QVERIFY(client.waitForConnected(5000));
    QObject::connect(&client, &QIODevice::readyRead, &client,
                     [&client, response] { *response += client.readAll(); });
    client.write(request);
    QTRY_COMPARE_WITH_TIMEOUT(client.state(), QAbstractSocket::UnconnectedState, 5000);
    *response += client.readAll();
}

void EgressProxyTest::openTunnel(QTcpSocket &client)
{
    client.connectToHost(QHostAddress::LocalHost, m_proxy->tcpPort());
    QVERIFY(client.waitForConnected(5000));
    const QByteArray head = "CONNECT shop.test:" + QByteArray::number(m_site->port()) +
                            " HTTP/1.1\r\nHost: shop.test\r\n\r\n";
    // Bytes sent right behind the head (a TLS ClientHello in real use) must be relayed too.
    client.write(head + "early");
    QTRY_COMPARE_WITH_TIMEOUT(client.bytesAvailable(), qint64(kEstablished.size()), 5000);
    QCOMPARE(client.readAll(), kEstablished);
}

void EgressProxyTest::tunnelsToMappedTestHost()
{
    QSignalSpy opened(m_proxy.get(), &EgressProxy::tunnelOpened);
    QTcpSocket client;
    openTunnel(client);
    QCOMPARE(opened.size(), 1);
    QCOMPARE(m_proxy->tunnelsOpened(), 1);
    QCOMPARE(m_proxy->requestsRefused(), 0);
    QCOMPARE(m_site->accepted, 1);
    QTRY_COMPARE(m_site->received, QByteArray("early"));

    client.write("ping");
    QTRY_COMPARE(m_site->received, QByteArray("earlyping"));
    m_site->sockets.constFirst()->write("pong");
    QTRY_COMPARE(client.bytesAvailable(), qint64(4));
    QCOMPARE(client.readAll(), QByteArray("pong"));

    // A larger transfer in both directions arrives intact.
    QByteArray big(1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char(i * 7 + i / 251);
    client.write(big);
    QTRY_COMPARE_WITH_TIMEOUT(m_site->received.size(), qsizetype(9 + big.size()), 10000);
    QCOMPARE(m_site->received.mid(9), big);
    m_site->sockets.constFirst()->write(big);
    QByteArray back;
    QObject::connect(&client, &QIODevice::readyRead, &client,
                     [&client, &back] { back += client.readAll(); });
    QTRY_COMPARE_WITH_TIMEOUT(back.size(), big.size(), 10000);
    QCOMPARE(back, big);

    // The client closing ends the site's side too.
    QTcpSocket *siteSide = m_site->sockets.constFirst();
    client.disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(siteSide->state(), QAbstractSocket::UnconnectedState, 5000);
    QCOMPARE(m_site->accepted, 1);
}

void EgressProxyTest::headSplitAcrossWrites()
{
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, m_proxy->tcpPort());
    QVERIFY(client.waitForConnected(5000));
    const QByteArray head =
        "CONNECT SHOP.test:" + QByteArray::number(m_site->port()) + " HTTP/1.0\r\n\r\n";
    for (const char c : head) {
        client.write(&c, 1);
        QVERIFY(client.waitForBytesWritten(1000));
        // A pause by design: it lets the proxy read each byte on its own (the split head is what
        // is tested), and nothing it exposes tells when it has read one.
        QTest::qWait(1);
    }
    QTRY_COMPARE(client.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(client.readAll(), kEstablished);
    client.write("x");
    QTRY_COMPARE(m_site->received, QByteArray("x"));
}

void EgressProxyTest::siteCloseFlushesAndClosesClient()
{
    QTcpSocket client;
    openTunnel(client);
    QTRY_COMPARE(m_site->accepted, 1);
    QByteArray got;
    QObject::connect(&client, &QIODevice::readyRead, &client,
                     [&client, &got] { got += client.readAll(); });
    QTcpSocket *siteSide = m_site->sockets.constFirst();
    siteSide->write("last words");
    siteSide->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(client.state(), QAbstractSocket::UnconnectedState, 5000);
    got += client.readAll();
    QCOMPARE(got, QByteArray("last words"));
}

void EgressProxyTest::refusals_data()
{
    QTest::addColumn<QByteArray>("request");
    // %PORT% is replaced by the site's port.
    QTest::newRow("ipv4 literal") << QByteArray("CONNECT 127.0.0.1:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("short ipv4") << QByteArray("CONNECT 127.1:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("hex ipv4") << QByteArray("CONNECT 0x7f000001:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("ipv6 literal") << QByteArray("CONNECT [::1]:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("bare ipv6") << QByteArray("CONNECT ::1:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("localhost") << QByteArray("CONNECT localhost:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("sub localhost") << QByteArray("CONNECT a.localhost:443 HTTP/1.1\r\n\r\n");
    QTest::newRow("unlisted test host") << QByteArray("CONNECT evil.test:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("sub of listed") << QByteArray("CONNECT www.shop.test:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("listed with dot") << QByteArray("CONNECT shop.test.:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("single label") << QByteArray("CONNECT fixture:443 HTTP/1.1\r\n\r\n");
    QTest::newRow("port 80") << QByteArray("CONNECT example.com:80 HTTP/1.1\r\n\r\n");
    QTest::newRow("public port 8443") << QByteArray("CONNECT shop.de:8443 HTTP/1.1\r\n\r\n");
    QTest::newRow("no port") << QByteArray("CONNECT shop.test HTTP/1.1\r\n\r\n");
    QTest::newRow("port 0") << QByteArray("CONNECT shop.test:0 HTTP/1.1\r\n\r\n");
    QTest::newRow("port leading zero") << QByteArray("CONNECT shop.test:0%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("port too big") << QByteArray("CONNECT shop.test:65536 HTTP/1.1\r\n\r\n");
    QTest::newRow("userinfo") << QByteArray("CONNECT u@shop.test:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("plain get") << QByteArray("GET http://shop.test:%PORT%/ HTTP/1.1\r\n"
                                             "Host: shop.test\r\n\r\n");
    QTest::newRow("post") << QByteArray("POST http://shop.test:%PORT%/ HTTP/1.1\r\n\r\n");
    QTest::newRow("lower-case method") << QByteArray("connect shop.test:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("http/2") << QByteArray("CONNECT shop.test:%PORT% HTTP/2\r\n\r\n");
    QTest::newRow("double space") << QByteArray("CONNECT  shop.test:%PORT% HTTP/1.1\r\n\r\n");
    QTest::newRow("bare newlines") << QByteArray("CONNECT shop.test:%PORT% HTTP/1.1\n\n\r\n\r\n");
    static const char kNul[] = "CONNECT shop.test:%PORT%\0 HTTP/1.1\r\n\r\n";
    QTest::newRow("nul byte") << QByteArray(kNul, sizeof kNul - 1);
    QTest::newRow("non-ascii host") << QByteArray("CONNECT b\xc3\xbc.test:443 HTTP/1.1\r\n\r\n");
    static const char kTlsHello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\r\n\r\n";
    QTest::newRow("tls hello") << QByteArray(kTlsHello, sizeof kTlsHello - 1);
    QTest::newRow("head over 8 KiB") << QByteArray("CONNECT shop.test:%PORT% HTTP/1.1\r\nX-Pad: ") +
                                            QByteArray(9000, 'a') + QByteArray("\r\n\r\n");
    QTest::newRow("endless header") << QByteArray(20000, 'a');
}

void EgressProxyTest::refusals()
{
    QFETCH(QByteArray, request);
    request.replace("%PORT%", QByteArray::number(m_site->port()));
    QSignalSpy refused(m_proxy.get(), &EgressProxy::requestRefused);
    QTcpSocket client;
    QByteArray response;
    roundTrip(client, request, &response);
    QCOMPARE(response, kForbidden);
    QCOMPARE(refused.size(), 1);
    QCOMPARE(m_proxy->requestsRefused(), 1);
    QCOMPARE(m_proxy->tunnelsOpened(), 0);
    QCOMPARE(m_site->accepted, 0);
}

void EgressProxyTest::testHostNeedsOverrides()
{
    // Without test overrides *.test is special-use: nothing resolves it, nothing dials it.
    m_proxy = std::make_unique<EgressProxy>(TestOverrides());
    QVERIFY(m_proxy->listenTcp());
    int lookups = 0;
    m_proxy->setResolver([&lookups](const QString &, auto done) {
        ++lookups;
        done({QHostAddress(QHostAddress::LocalHost)});
    });
    for (const QByteArray &port : {QByteArray::number(m_site->port()), QByteArray("443")}) {
        QTcpSocket client;
        QByteArray response;
        roundTrip(client, "CONNECT shop.test:" + port + " HTTP/1.1\r\n\r\n", &response);
        QCOMPARE(response, kForbidden);
    }
    QCOMPARE(m_proxy->requestsRefused(), 2);
    QCOMPARE(lookups, 0);
    QCOMPARE(m_site->accepted, 0);
}

void EgressProxyTest::resolverAnswers_data()
{
    QTest::addColumn<QList<QHostAddress>>("answer");
    auto a = [](const char *text) { return QHostAddress(QString::fromLatin1(text)); };
    QTest::newRow("mixed public and private")
        << QList<QHostAddress>{a("93.184.216.34"), a("10.0.0.1")};
    QTest::newRow("private then public")
        << QList<QHostAddress>{a("192.168.1.1"), a("93.184.216.34")};
    QTest::newRow("metadata") << QList<QHostAddress>{a("169.254.169.254")};
    QTest::newRow("loopback") << QList<QHostAddress>{a("127.0.0.1")};
    QTest::newRow("mapped loopback v6") << QList<QHostAddress>{a("::ffff:127.0.0.1")};
    QTest::newRow("ula v6") << QList<QHostAddress>{a("2606:2800:220:1::1"), a("fd00::1")};
    QTest::newRow("empty") << QList<QHostAddress>{};
}

void EgressProxyTest::resolverAnswers()
{
    QFETCH(QList<QHostAddress>, answer);
    QStringList asked;
    EgressProxy *proxy = m_proxy.get();
    m_proxy->setResolver([&asked, answer, proxy](const QString &host, auto done) {
        asked.append(host);
        // Answer later, as a real resolver does.
        QTimer::singleShot(0, proxy, [done, answer] { done(answer); });
    });
    QTcpSocket client;
    QByteArray response;
    roundTrip(client, "CONNECT Shop.DE:443 HTTP/1.1\r\n\r\n", &response);
    QCOMPARE(response, kForbidden);
    QCOMPARE(asked, QStringList{QStringLiteral("shop.de")});
    QCOMPARE(m_proxy->requestsRefused(), 1);
    QCOMPARE(m_proxy->tunnelsOpened(), 0);
}

void EgressProxyTest::unreachableUpstreamIsBadGateway()
{
    QTcpSocket client;
    QByteArray response;
    roundTrip(client, "CONNECT down.test:" + QByteArray::number(closedPort()) + " HTTP/1.1\r\n\r\n",
              &response);
    QCOMPARE(response, QByteArray("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                                  "Connection: close\r\n\r\n"));
    QCOMPARE(m_proxy->tunnelsOpened(), 0);
}

void EgressProxyTest::localSocketListener()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("egress.sock"));
    QVERIFY(m_proxy->listenLocal(path));

    QLocalSocket client;
    client.connectToServer(path);
    QVERIFY(client.waitForConnected(5000));
    client.write("CONNECT shop.test:" + QByteArray::number(m_site->port()) +
                 " HTTP/1.1\r\n\r\nhello");
    QTRY_COMPARE(client.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(client.readAll(), kEstablished);
    QTRY_COMPARE(m_site->received, QByteArray("hello"));
    m_site->sockets.constFirst()->write("world");
    QTRY_COMPARE(client.bytesAvailable(), qint64(5));
    QCOMPARE(client.readAll(), QByteArray("world"));
    QCOMPARE(m_proxy->tunnelsOpened(), 1);

    QLocalSocket refusedClient;
    refusedClient.connectToServer(path);
    QVERIFY(refusedClient.waitForConnected(5000));
    refusedClient.write("CONNECT 127.0.0.1:" + QByteArray::number(m_site->port()) +
                        " HTTP/1.1\r\n\r\n");
    QByteArray response;
    QObject::connect(&refusedClient, &QIODevice::readyRead, &refusedClient,
                     [&] { response += refusedClient.readAll(); });
    QTRY_COMPARE(refusedClient.state(), QLocalSocket::UnconnectedState);
    response += refusedClient.readAll();
    QCOMPARE(response, kForbidden);
    QCOMPARE(m_proxy->requestsRefused(), 1);
    QCOMPARE(m_site->accepted, 1);
}

void EgressProxyTest::replacesStaleSocketFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("egress.sock"));
    {
        QFile stale(path);
        QVERIFY(stale.open(QIODevice::WriteOnly));
    }
    QVERIFY(m_proxy->listenLocal(path));
    QLocalSocket client;
    client.connectToServer(path);
    QVERIFY(client.waitForConnected(5000));
}

void EgressProxyTest::destructorClosesTunnels()
{
    QTcpSocket client;
    openTunnel(client);
    QTRY_COMPARE(m_site->accepted, 1);
    QTcpSocket *siteSide = m_site->sockets.constFirst();
    m_proxy.reset();
    QTRY_COMPARE_WITH_TIMEOUT(client.state(), QAbstractSocket::UnconnectedState, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(siteSide->state(), QAbstractSocket::UnconnectedState, 5000);
}

// An HTTP exchange on a kept-alive tunnel: the client asked, the site answered in full. The
// tunnel is idle; retiring it closes both sides before retireIdleTunnels() returns, so the
// client's very next look at its socket (no event loop in between) reads end of stream.
void EgressProxyTest::retiresATunnelWhoseServerSpokeLast()
{
    QTcpSocket client;
    openTunnel(client);
    QTRY_COMPARE(m_site->received, QByteArray("early"));
    QTcpSocket *siteSide = m_site->sockets.constFirst();
    siteSide->write("answer");
    QTRY_COMPARE(client.bytesAvailable(), qint64(6));
    QCOMPARE(client.readAll(), QByteArray("answer"));
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("idle"));

    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("eof"));
    QCOMPARE(m_proxy->tunnelsRetired(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(siteSide->state(), QAbstractSocket::UnconnectedState, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(client.state(), QAbstractSocket::UnconnectedState, 5000);
    QCOMPARE(m_site->received, QByteArray("early"));
    // Nothing is left to retire.
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);
    QCOMPARE(m_proxy->tunnelsRetired(), 1);
}

// The client spoke last: its request is awaiting the answer. Closing would make a browser
// resend it, so the tunnel stays and carries the answer and the next exchange; once the
// answer is through, the tunnel is idle.
void EgressProxyTest::keepsATunnelAwaitingItsAnswer()
{
    QTcpSocket idleClient;
    openTunnel(idleClient);
    QTRY_COMPARE(m_site->accepted, 1);
    QTcpSocket *idleSite = m_site->sockets.constFirst();
    idleSite->write("done");
    QTRY_COMPARE(idleClient.bytesAvailable(), qint64(4));
    idleClient.readAll();

    QTcpSocket client;
    openTunnel(client);
    QTRY_COMPARE(m_site->accepted, 2);
    QTcpSocket *siteSide = m_site->sockets.at(1);
    QTRY_COMPARE(m_site->received, QByteArray("earlyearly"));
    client.write("request");
    QTRY_COMPARE(m_site->received.size(), qsizetype(17));

    // Only the idle tunnel goes.
    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    QCOMPARE(peekState(idleClient.socketDescriptor()), QByteArray("eof"));
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("idle"));
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);

    siteSide->write("answer");
    QTRY_COMPARE(client.bytesAvailable(), qint64(6));
    QCOMPARE(client.readAll(), QByteArray("answer"));
    client.write("again");
    QTRY_VERIFY(m_site->received.endsWith("requestagain"));
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);
    siteSide->write("ok");
    QTRY_COMPARE(client.bytesAvailable(), qint64(2));
    client.readAll();
    QCOMPARE(client.state(), QAbstractSocket::ConnectedState);
    QCOMPARE(siteSide->state(), QAbstractSocket::ConnectedState);

    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("eof"));
    QCOMPARE(m_proxy->tunnelsRetired(), 2);
}

// The client sent a request that the proxy has not read yet (it waits in the kernel): the
// tunnel looks idle from what was relayed, but it is not, and it stays.
void EgressProxyTest::keepsATunnelWithUnreadRequestBytes()
{
    QTcpSocket client;
    openTunnel(client);
    QTRY_COMPARE(m_site->received, QByteArray("early"));
    QTcpSocket *siteSide = m_site->sockets.constFirst();
    siteSide->write("answer");
    QTRY_COMPARE(client.bytesAvailable(), qint64(6));
    client.readAll();

    // No event loop between the write and the retirement: the proxy has not seen the bytes.
    client.write("next request");
    QVERIFY(client.flush());
    QCOMPARE(client.bytesToWrite(), qint64(0));
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);
    QTRY_COMPARE(m_site->received, QByteArray("earlynext request"));
    QCOMPARE(client.state(), QAbstractSocket::ConnectedState);
    QCOMPARE(m_proxy->tunnelsRetired(), 0);
}

// A tunnel that relayed nothing yet (the browser is about to start its TLS handshake), and
// one whose client spoke first, are both in use.
void EgressProxyTest::keepsATunnelNothingWasRelayedOn()
{
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, m_proxy->tcpPort());
    QVERIFY(client.waitForConnected(5000));
    client.write("CONNECT shop.test:" + QByteArray::number(m_site->port()) + " HTTP/1.1\r\n\r\n");
    QTRY_COMPARE(client.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(client.readAll(), kEstablished);
    QTRY_COMPARE(m_site->accepted, 1);
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);

    QTcpSocket hello;
    openTunnel(hello); // its first bytes ride behind the head
    QTRY_COMPARE(m_site->received, QByteArray("early"));
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);
    client.write("hello");
    QTRY_COMPARE(m_site->received.size(), qsizetype(10));
    QCOMPARE(client.state(), QAbstractSocket::ConnectedState);
    QCOMPARE(hello.state(), QAbstractSocket::ConnectedState);
}

// The browser host reaches the proxy over its Unix socket: the retired tunnel's end of stream
// is there when retireIdleTunnels() returns.
void EgressProxyTest::retiresOverTheLocalSocketAtOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("egress.sock"));
    QVERIFY(m_proxy->listenLocal(path));
    QLocalSocket client;
    client.connectToServer(path);
    QVERIFY(client.waitForConnected(5000));
    client.write("CONNECT shop.test:" + QByteArray::number(m_site->port()) +
                 " HTTP/1.1\r\n\r\nrequest");
    QTRY_COMPARE(client.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(client.readAll(), kEstablished);
    QTRY_COMPARE(m_site->received, QByteArray("request"));
    QCOMPARE(m_proxy->retireIdleTunnels(), 0);
    m_site->sockets.constFirst()->write("response");
    QTRY_COMPARE(client.bytesAvailable(), qint64(8));
    client.readAll();
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("idle"));

    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    QCOMPARE(peekState(client.socketDescriptor()), QByteArray("eof"));
    QTRY_COMPARE(client.state(), QLocalSocket::UnconnectedState);
}

QTEST_GUILESS_MAIN(EgressProxyTest)
#include "tst_egressproxy.moc"
