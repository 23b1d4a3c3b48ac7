#pragma once

#include "JsonRpcChannel.h"
#include "domain/OriginPolicy.h"
#include "domain/Result.h"
#include "domain/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "tools/ModelProjection.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QIODevice;

namespace veetbot::mcp {

// The Model Context Protocol server of `veetbot mcp` over one JSON-RPC channel: initialize
// (always protocol 2025-06-18), ping, tools/list, tools/call, notifications/initialized and
// notifications/cancelled.
//
// Without an origin policy it registers no browser tool and never creates a provider. With
// one, it offers veetbot_navigate, veetbot_observe and veetbot_act and creates the provider
// (which starts the browser) on the first browser call that gets past argument checks.
// Results reach the client only as the model projection of the observation at the configured
// budget, as one text content item; a tool failure is isError with
// {"error":{"code","message"}}, a stable code and its fixed message. Every act is refused
// before any browser work: argument checks, then approval, and no approver grants one yet.
// A cancelled call never answers, even when the provider finishes it later. It never writes a
// URL, argument value, page text or client string to a log.
class McpServer : public QObject
{
    Q_OBJECT
public:
    static constexpr QLatin1String kProtocolVersion{"2025-06-18"};
    static constexpr QLatin1String kServerName{"veetbot"};

    enum class Approver
    {
        Deny,       // every act is refused (tool.approval_denied)
        Elicitation // accepted; refuses like Deny until elicitation approval is wired
    };

    struct Options
    {
        QString serverVersion;
        std::optional<OriginPolicy> policy; // none: no browser tool
        TestOverrides overrides;
        int budgetBytes = ModelProjection::kDefaultBudgetBytes;
        Approver approver = Approver::Deny;
        bool allowScroll = false;
    };

    using ProviderFactory = std::function<std::unique_ptr<BrowserProvider>()>;

    McpServer(QIODevice *output, Options options, ProviderFactory providerFactory,
              QObject *parent = nullptr);
    ~McpServer() override;

    JsonRpcChannel &channel() { return m_channel; }
    // True once a provider exists (the browser may be starting or running).
    bool providerCreated() const { return bool(m_provider); }
    // Whether the client declared the elicitation capability in its last initialize.
    bool clientSupportsElicitation() const { return m_clientElicitation; }
    int callsInFlight() const { return int(m_calls.size()); }

Q_SIGNALS:
    // The input ended: the server has stopped answering and closed its provider.
    void finished();

private:
    struct Call
    {
        QJsonValue id;
        bool cancelled = false;
    };

    void onRequest(const QJsonValue &id, const QString &method, const QJsonValue &params);
    void onNotification(const QString &method, const QJsonValue &params);
    void onInputEnded();
    void initialize(const QJsonValue &id, const QJsonObject &params);
    void listTools(const QJsonValue &id);
    void callTool(const QJsonValue &id, const QJsonObject &params);
    void navigate(const std::shared_ptr<Call> &call, const QJsonObject &arguments);
    void observe(const std::shared_ptr<Call> &call, const QJsonObject &arguments);
    void act(const std::shared_ptr<Call> &call, const QJsonObject &arguments);
    BrowserProvider *provider();
    // Runs `done` with the observation unless the call was cancelled meanwhile.
    ObservationCallback answerWith(const std::shared_ptr<Call> &call);
    void finishCall(const std::shared_ptr<Call> &call, const Result<QByteArray> &result);
    std::shared_ptr<Call> beginCall(const QJsonValue &id);

    JsonRpcChannel m_channel;
    Options m_options;
    ProviderFactory m_providerFactory;
    std::unique_ptr<BrowserProvider> m_provider;
    QHash<QString, std::shared_ptr<Call>> m_calls;
    bool m_clientElicitation = false;
    bool m_stopped = false;
};

} // namespace veetbot::mcp
