#pragma once

#include "BrowserTestHarness.h"
#include "net/LocalForwarder.h"
#include "ports/BrowserProvider.h"

#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <optional>

namespace veetbot::testing {

// The placement a provider test runs against: the engine VEETBOT_TEST_ENGINE names (CTest
// registers such a test once per engine: cmake/VeetbotTesting.cmake, ENGINES). Its browsers
// reach the harness's egress proxy through a forwarder, as inside the browser host; the
// forwarder admits a tunnel only where the admitting provider's request stage let a request go
// (Chromium, which otherwise contacts its vendor's services on its own), and records each tunnel
// it let open. A placement's own knobs (trial time, a collector-world script, the current
// revision) are reached here, so a test body never names an engine.
class EngineUnderTest
{
public:
    EngineUnderTest();
    ~EngineUnderTest();

    // Reads VEETBOT_TEST_ENGINE and opens the forwarder in front of `harness`'s egress proxy
    // (the harness routes through it already). False with the reason when it cannot: no
    // engine named, or Debian's chromium missing (a failure, never a skip).
    bool start(BrowserTestHarness &harness, QString *error);

    const QString &name() const { return m_name; }
    bool isChromium() const;
    // Whether the engine's request stage shows a request's body, so the write guard can tell a
    // GraphQL query from a mutation (Chromium does; Qt WebEngine 6.4 does not: ADR 0013).
    bool showsRequestBodies() const { return isChromium(); }
    // Whether the state a provider exports keeps each cookie's SameSite. Qt WebEngine 6.4 does
    // not report it converting Chromium's cookie (docs/decisions/0008): what it does not carry
    // is sealed as Lax. The reason leases move to the Chromium placement (issue 29).
    bool keepsSameSite() const { return isChromium(); }

    std::unique_ptr<BrowserProvider> makeProvider(const OriginPolicy &policy,
                                                  const TestOverrides &overrides) const;
    // The forwarder admits what `provider`'s request stage let go (Chromium), or everything.
    void admitFor(BrowserProvider *provider);

    LocalForwarder &forwarder() const { return *m_forwarder; }
    // host:port of every tunnel the forwarder let open since the last clear.
    QStringList &admitted() { return m_admitted; }

    static void setTrialMs(BrowserProvider &provider, int ms);
    // Makes `provider` a verification browser (observeNetwork()), before its first operation.
    static void observeNetwork(BrowserProvider &provider);
    static void runCollectorScript(BrowserProvider &provider, const QString &source,
                                   std::function<void(std::optional<QJsonObject>)> done);
    static QString currentRevision(const BrowserProvider &provider);

private:
    QString m_name;
    QTemporaryDir m_sockets;
    std::unique_ptr<LocalForwarder> m_forwarder;
    std::function<bool(const QString &, quint16)> m_admits;
    QStringList m_admitted;
};

} // namespace veetbot::testing
