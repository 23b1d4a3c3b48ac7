#include "EngineUnderTest.h"

#include "ChromiumProvider.h"
#include "WebEngineProvider.h"
#include "net/EgressProxy.h"

#include <QFileInfo>
#include <QNetworkProxy>

#include <unistd.h>

namespace veetbot::testing {

EngineUnderTest::EngineUnderTest() = default;

EngineUnderTest::~EngineUnderTest()
{
    if (m_forwarder)
        m_forwarder->setAdmission(nullptr);
}

bool EngineUnderTest::start(BrowserTestHarness &harness, QString *error)
{
    m_name = qEnvironmentVariable("VEETBOT_TEST_ENGINE");
    if (m_name != QLatin1String("chromium") && m_name != QLatin1String("qtwebengine")) {
        *error = QStringLiteral("VEETBOT_TEST_ENGINE names no engine");
        return false;
    }
    if (isChromium() && !QFileInfo(chromium::ChromiumProcess::defaultExecutable()).isExecutable()) {
        *error =
            QStringLiteral("Debian's chromium is not installed (scripts/setup.sh installs it)");
        return false;
    }
    qInfo("engine: %s", qPrintable(m_name));
    const QString socket = m_sockets.filePath(QStringLiteral("egress.sock"));
    if (!harness.egressProxy() || !harness.egressProxy()->listenLocal(socket)) {
        *error = QStringLiteral("the egress proxy does not listen on a local socket");
        return false;
    }
    m_forwarder = std::make_unique<LocalForwarder>(socket);
    if (!m_forwarder->listen()) {
        *error = QStringLiteral("the forwarder does not listen");
        return false;
    }
    m_forwarder->setAdmission([this](const QString &host, quint16 port) {
        const bool admitted = !m_admits || m_admits(host, port);
        if (admitted)
            m_admitted.append(host + QLatin1Char(':') + QString::number(port));
        return admitted;
    });
    // Qt WebEngine takes the application proxy: the same forwarder.
    QNetworkProxy::setApplicationProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), m_forwarder->port()));
    return true;
}

bool EngineUnderTest::isChromium() const
{
    return m_name == QLatin1String("chromium");
}

std::unique_ptr<BrowserProvider> EngineUnderTest::makeProvider(const OriginPolicy &policy,
                                                               const TestOverrides &overrides) const
{
    if (isChromium()) {
        chromium::ChromiumProcess::Options options;
        options.noSandbox = ::geteuid() == 0; // as root, as for Qt WebEngine
        options.proxy = QStringLiteral("127.0.0.1:%1").arg(m_forwarder->port());
        return std::make_unique<chromium::ChromiumProvider>(policy, overrides, options);
    }
    return std::make_unique<WebEngineProvider>(policy, overrides);
}

void EngineUnderTest::admitFor(BrowserProvider *provider)
{
    m_admits = nullptr;
    if (auto *browser = dynamic_cast<chromium::ChromiumProvider *>(provider)) {
        m_admits = [browser](const QString &host, quint16 port) {
            return browser->admitsTunnel(host, port);
        };
    }
}

void EngineUnderTest::setTrialMs(BrowserProvider &provider, int ms)
{
    if (auto *chromium = dynamic_cast<chromium::ChromiumProvider *>(&provider))
        chromium->setTimeouts({.actTrialMs = ms});
    else if (auto *webengine = dynamic_cast<WebEngineProvider *>(&provider))
        webengine->setTimeouts({.actTrialMs = ms});
}

void EngineUnderTest::observeNetwork(BrowserProvider &provider)
{
    if (auto *chromium = dynamic_cast<chromium::ChromiumProvider *>(&provider))
        chromium->observeNetwork();
    else if (auto *webengine = dynamic_cast<WebEngineProvider *>(&provider))
        webengine->observeNetwork();
}

void EngineUnderTest::runCollectorScript(BrowserProvider &provider, const QString &source,
                                         std::function<void(std::optional<QJsonObject>)> done)
{
    if (auto *chromium = dynamic_cast<chromium::ChromiumProvider *>(&provider))
        chromium->runCollectorScript(source, std::move(done));
    else if (auto *webengine = dynamic_cast<WebEngineProvider *>(&provider))
        webengine->runCollectorScript(source, std::move(done));
    else
        done(std::nullopt);
}

QString EngineUnderTest::currentRevision(const BrowserProvider &provider)
{
    if (auto *chromium = dynamic_cast<const chromium::ChromiumProvider *>(&provider))
        return chromium->currentRevision();
    if (auto *webengine = dynamic_cast<const WebEngineProvider *>(&provider))
        return webengine->currentRevision();
    return QString();
}

} // namespace veetbot::testing
