#pragma once

#include "FixtureServer.h"
#include "TestCertificates.h"
#include "UdpListener.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "net/EgressProxy.h"
#include "ports/BrowserProvider.h"

#include <QTemporaryDir>
#include <QUrl>

#include <memory>
#include <optional>

namespace veetbot::testing {

// Fixture sites for browser tests: one HTTPS server (and a plain HTTP port) on 127.0.0.1 for
// the host names shop.test (the allowed origin), cdn.test (another public origin) and
// evil.test (a disallowed origin), made public only through the test-only overrides; a UDP
// listener; the test CA.
class BrowserTestHarness
{
public:
    // Fails (returns false with a message) when certificates or listeners cannot be set up.
    bool start(QString *error);
    // For in-process providers: the application proxy becomes an egress proxy on loopback
    // that trusts only the test overrides, as the browser host's forwarder does. False when
    // it cannot listen.
    bool routeThroughEgressProxy();
    // The egress proxy routeThroughEgressProxy() installed, or null.
    EgressProxy *egressProxy() const { return m_proxy.get(); }

    fixtures::FixtureServer &server() { return *m_server; }
    fixtures::UdpListener &udp() { return *m_udp; }
    const TestOverrides &overrides() const { return m_overrides; }
    QString caPath() const { return m_certificates->caPath(); }

    // "https://host:port" of the fixture server.
    QString origin(const QString &host) const;
    QUrl url(const QString &host, const QString &pathAndQuery) const;
    // A plain-HTTP URL on the fixture's HTTP port.
    QUrl plainUrl(const QString &host, const QString &pathAndQuery) const;
    // /redirect?to=<target>&code=<code> on host.
    QUrl redirect(const QString &host, const QUrl &target, int code = 302) const;
    OriginPolicy policy(const QStringList &hosts) const;

    // Serves an HTML page at path on every host.
    void page(const QString &path, const QByteArray &html);

    // The positive control that closes a "nothing (more) arrived" check: a request of the
    // test's own, sent on a new connection after whatever it checks has ended, and counted by
    // the fixture server. Its answer takes the server's event loop through every request a
    // browser had already sent. False when it was not counted within timeoutMs.
    bool settle(int timeoutMs = 10000);

    // Stands in for the tool pipeline's dispatch gate where a test drives a provider's act
    // directly: every act may dispatch. Installed for `owner`, so clearDispatchGate(owner)
    // removes it. Without a gate a provider dispatches nothing.
    static void admitEveryDispatch(BrowserProvider &provider, const void *owner)
    {
        provider.setDispatchGate([](const ActRequest &, GateAnswer answer) { answer(true); },
                                 owner);
    }

    // Drive a provider from a test (the event loop runs while waiting).
    static Result<BrowserObservation> navigate(BrowserProvider &provider, const QUrl &url,
                                               int timeoutMs = 40000);
    static Result<BrowserObservation>
    navigate(BrowserProvider &provider, const NavigateRequest &request, int timeoutMs = 40000);
    static Result<BrowserObservation>
    observe(BrowserProvider &provider, const ObserveRequest &request = {}, int timeoutMs = 40000);
    // An act approved (`ordinaryInteraction` false: no constraint) or under ordinary
    // interaction (its dispatch constraint, the write guard armed).
    static Result<BrowserObservation> act(BrowserProvider &provider, const ActRequest &request,
                                          bool ordinaryInteraction, int timeoutMs = 40000);

private:
    QTemporaryDir m_dir;
    std::optional<fixtures::TestCertificates> m_certificates;
    std::unique_ptr<fixtures::FixtureServer> m_server;
    std::unique_ptr<fixtures::UdpListener> m_udp;
    TestOverrides m_overrides;
    std::unique_ptr<EgressProxy> m_proxy;
};

// The ref of the element with this role and accessible name in `observation`, or "".
QString refOf(const BrowserObservation &observation, const QString &role, const QString &name);

} // namespace veetbot::testing

// The main() of a real-Chromium test: the process is configured for Qt WebEngine (no sandbox as
// root, the shared GL context) before the application exists.
#define VEETBOT_BROWSER_TEST_MAIN(TestClass)                                                       \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        veetbot::BrowserEnvironment::configureProcess();                                           \
        QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);                                \
        QApplication app(argc, argv);                                                              \
        TestClass test;                                                                            \
        return QTest::qExec(&test, argc, argv);                                                    \
    }
