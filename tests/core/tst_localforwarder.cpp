#include "TunnelTestSupport.h"
#include "net/EgressProxy.h"
#include "net/LocalForwarder.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <cerrno>
#include <sys/socket.h>

using namespace veetbot;
using namespace veetbot::testing;

// The browser host's forwarder: TCP on the namespace's loopback relayed to the egress proxy's
// Unix socket, byte for byte, closes included (the browser plays the client, a loopback
// server the site).
class LocalForwarderTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void relaysBothWays();
    void siteCloseDeliversEveryByteThenEndOfStream();
    void propagatesARetiredTunnelAtOnce();
    void admissionOpensOnlyAdmittedTunnels();

private:
    void openTunnel(QTcpSocket &browser, int siteIndex);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Site> m_site;
    std::unique_ptr<EgressProxy> m_proxy;
    std::unique_ptr<LocalForwarder> m_forwarder;
};

void LocalForwarderTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_site = std::make_unique<Site>();
    QVERIFY(m_site->listen());
    Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    m_proxy = std::make_unique<EgressProxy>(overrides.value());
    const QString path = m_dir->filePath(QStringLiteral("egress.sock"));
    QVERIFY(m_proxy->listenLocal(path));
    m_forwarder = std::make_unique<LocalForwarder>(path);
    QVERIFY(m_forwarder->listen());
    QVERIFY(m_forwarder->port() != 0);
}

void LocalForwarderTest::cleanup()
{
    m_forwarder.reset();
    m_proxy.reset();
    m_site.reset();
    m_dir.reset();
}

// A tunnel through forwarder and proxy that carried one exchange: the site answered last.
void LocalForwarderTest::openTunnel(QTcpSocket &browser, int siteIndex)
{
    browser.connectToHost(QHostAddress::LocalHost, m_forwarder->port());
    QVERIFY(browser.waitForConnected(5000));
    browser.write("CONNECT shop.test:" + QByteArray::number(m_site->port()) +
                  " HTTP/1.1\r\n\r\nrequest");
    QTRY_COMPARE(browser.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(browser.readAll(), kEstablished);
    QTRY_COMPARE(m_site->sockets.size(), siteIndex + 1);
    QTRY_VERIFY(m_site->received.endsWith("request"));
    m_site->sockets.at(siteIndex)->write("response");
    QTRY_COMPARE(browser.bytesAvailable(), qint64(8));
    QCOMPARE(browser.readAll(), QByteArray("response"));
}

void LocalForwarderTest::relaysBothWays()
{
    QTcpSocket browser;
    openTunnel(browser, 0);
    browser.write("more");
    QTRY_COMPARE(m_site->received, QByteArray("requestmore"));
    QTcpSocket *site = m_site->sockets.constFirst();
    browser.disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(site->state(), QAbstractSocket::UnconnectedState, 5000);
}

// The site sends a large response and closes (a response delimited by the close, or the last
// TLS records before it): every byte reaches the browser before its end of stream.
void LocalForwarderTest::siteCloseDeliversEveryByteThenEndOfStream()
{
    QTcpSocket browser;
    openTunnel(browser, 0);
    QByteArray big(4 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char(i * 13 + i / 509);
    QByteArray got;
    connect(&browser, &QIODevice::readyRead, &browser, [&] { got += browser.readAll(); });
    QTcpSocket *site = m_site->sockets.constFirst();
    site->write(big);
    site->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(browser.state(), QAbstractSocket::UnconnectedState, 10000);
    got += browser.readAll();
    QCOMPARE(got.size(), big.size());
    QCOMPARE(got, big);
}

// The proxy retires an idle tunnel; its close reaches the forwarder's Unix socket at once, but
// the browser's connection only closes when the forwarder acts on it: on the next event-loop
// pass, or at once through propagateProxyCloses(). A tunnel the proxy kept stays open.
void LocalForwarderTest::propagatesARetiredTunnelAtOnce()
{
    QTcpSocket idle;
    openTunnel(idle, 0);
    QTcpSocket busy;
    openTunnel(busy, 1);
    busy.write("awaiting");
    QTRY_VERIFY(m_site->received.endsWith("awaiting"));

    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    // No event loop has run: the forwarder has not seen the close yet.
    QCOMPARE(peekState(idle.socketDescriptor()), QByteArray("idle"));
    QCOMPARE(m_forwarder->propagateProxyCloses(), 1);
    QCOMPARE(peekState(idle.socketDescriptor()), QByteArray("eof"));
    QCOMPARE(peekState(busy.socketDescriptor()), QByteArray("idle"));
    QCOMPARE(m_forwarder->propagateProxyCloses(), 0);

    m_site->sockets.at(1)->write("answer");
    QTRY_COMPARE(busy.bytesAvailable(), qint64(6));
    QCOMPARE(busy.readAll(), QByteArray("answer"));
    QTRY_COMPARE_WITH_TIMEOUT(idle.state(), QAbstractSocket::UnconnectedState, 5000);
    QCOMPARE(busy.state(), QAbstractSocket::ConnectedState);

    // Without the call, the next event-loop pass closes it too.
    QCOMPARE(m_proxy->retireIdleTunnels(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(busy.state(), QAbstractSocket::UnconnectedState, 5000);
}

// With an admission (the Chromium placement), a connection's first line must be a tunnel
// request to a host:port it admits; anything else is answered 403 and nothing of it reaches the
// proxy. The admitted tunnel after the refusals is the positive control: it reaches the site.
void LocalForwarderTest::admissionOpensOnlyAdmittedTunnels()
{
    QList<QString> asked;
    m_forwarder->setAdmission([&asked, this](const QString &host, quint16 port) {
        asked.append(host + QLatin1Char(':') + QString::number(port));
        return host == QLatin1String("shop.test") && port == m_site->port();
    });
    const QByteArray forbidden = "HTTP/1.1 403 Forbidden\r\n";
    const QList<QByteArray> refused = {
        "CONNECT update.example.org:443 HTTP/1.1\r\n\r\n",              // not admitted
        "CONNECT shop.test:" + QByteArray::number(m_site->port() + 1) + // another port
            " HTTP/1.1\r\n\r\n",
        "GET http://shop.test/ HTTP/1.1\r\nHost: shop.test\r\n\r\n", // not a tunnel
        "CONNECT " + QByteArray(600, 'a') + ":443 HTTP/1.1\r\n\r\n", // past the line bound
    };
    for (const QByteArray &request : refused) {
        QTcpSocket browser;
        browser.connectToHost(QHostAddress::LocalHost, m_forwarder->port());
        QVERIFY(browser.waitForConnected(5000));
        QByteArray answer;
        connect(&browser, &QIODevice::readyRead, &browser,
                [&answer, &browser] { answer += browser.readAll(); });
        browser.write(request);
        QTRY_COMPARE_WITH_TIMEOUT(browser.state(), QAbstractSocket::UnconnectedState, 5000);
        QVERIFY2(answer.startsWith(forbidden), request.left(40).constData());
    }
    QCOMPARE(m_forwarder->tunnelsRefused(), refused.size());
    QCOMPARE(asked.size(), 2); // only well-formed tunnel requests are asked about
    QCOMPARE(m_proxy->tunnelsOpened(), 0);
    QCOMPARE(m_site->accepted, 0);

    // A first line that arrives in pieces is read whole, then relayed with what followed it.
    QTcpSocket browser;
    browser.connectToHost(QHostAddress::LocalHost, m_forwarder->port());
    QVERIFY(browser.waitForConnected(5000));
    browser.write("CONNECT shop.t");
    QVERIFY(browser.waitForBytesWritten(5000));
    QTest::qWait(50);
    browser.write("est:" + QByteArray::number(m_site->port()) + " HTTP/1.1\r\n\r\nrequest");
    QTRY_COMPARE(browser.bytesAvailable(), qint64(kEstablished.size()));
    QCOMPARE(browser.readAll(), kEstablished);
    QTRY_VERIFY(m_site->received.endsWith("request"));
    QCOMPARE(m_site->accepted, 1);
    QCOMPARE(m_forwarder->tunnelsRefused(), refused.size());
}

QTEST_GUILESS_MAIN(LocalForwarderTest)
#include "tst_localforwarder.moc"
