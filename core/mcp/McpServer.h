#pragma once

#include "JsonRpcChannel.h"
#include "domain/Result.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "ports/BrowserProvider.h"
#include "tools/AgentSession.h"
#include "tools/ModelProjection.h"
#include "tools/ToolPipeline.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QIODevice;

namespace veetbot {
class EffectLedger;
}

namespace veetbot::mcp {

// The Model Context Protocol server of `veetbot mcp` over one JSON-RPC channel: initialize
// (always protocol 2025-06-18), ping, tools/list, tools/call, notifications/initialized and
// notifications/cancelled.
//
// Without an origin policy it registers no browser tool and never creates a provider. With
// one, it offers veetbot_navigate, veetbot_observe and veetbot_act and creates the provider
// (which starts the browser) on the first browser call that gets past argument checks.
// Every call runs through one ToolPipeline (core/tools/ToolPipeline.h) over that provider:
// arguments, policy, approval, the effect ledger, serial dispatch. An act needs the owner's
// approval from the configured approver — deny (the default) refuses every act before any
// browser work; elicitation asks the client (ElicitationApprover) — except a bounded scroll
// when --allow-scroll is set. Acts are recorded in the effect ledger given in the options;
// without one every act is refused (tool.policy_denied).
// Results reach the client only as the model projection of the observation at the configured
// budget, as one text content item; a tool failure is isError with
// {"error":{"code","message"}}, a stable code and its fixed message; a call that went through
// the pipeline carries its content-free diagnostics in _meta. A cancelled call never
// answers: one waiting for approval or in the queue ends with nothing sent, one already
// dispatched ends in the ledger as the provider decides. It never writes a URL, argument
// value, page text or client string to a log.
class McpServer : public QObject
{
    Q_OBJECT
public:
    static constexpr QLatin1String kProtocolVersion{"2025-06-18"};
    static constexpr QLatin1String kServerName{"veetbot"};
    // The tools/call result's _meta key of the call's content-free diagnostics (version 1).
    static constexpr QLatin1String kDiagnosticsMetaKey{"veetbot/browser_diagnostics"};

    enum class Approver
    {
        Deny,        // every act is refused (tool.approval_denied)
        Elicitation, // each act asks the client (elicitation/create); only approve: true runs
        Workbench    // each act asks the owner's running workbench (WorkbenchApprover)
    };
    // How long an act waits for the owner's answer at the workbench.
    static constexpr int kWorkbenchWaitMs = 10 * 60 * 1000;

    // The session the owner composed (AgentSession), and what only the MCP server needs.
    struct Options : AgentSession
    {
        QString serverVersion;
        int budgetBytes = ModelProjection::kDefaultBudgetBytes;
        Approver approver = Approver::Deny;
        QString workbenchSocket; // Approver::Workbench: WorkbenchChannel::socketPath()
        // How often a running call with a progress token reports progress.
        int progressIntervalMs = 10'000;
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
        quint64 pipelineCall = 0; // the pipeline's id once submitted
        QJsonValue progressToken; // the client's _meta.progressToken (a string or a number)
        int progress = 0;
    };

    // While a call with a progress token runs (an act waiting for the owner's approval can
    // take minutes), a notifications/progress every progressIntervalMs keeps the client
    // from timing it out.
    void keepReportingProgress(const std::shared_ptr<Call> &call);

    void onRequest(const QJsonValue &id, const QString &method, const QJsonValue &params);
    void onNotification(const QString &method, const QJsonValue &params);
    void onInputEnded();
    void initialize(const QJsonValue &id, const QJsonObject &params);
    void listTools(const QJsonValue &id);
    void callTool(const QJsonValue &id, const QJsonObject &params);
    // The checks that need no browser; a call that fails them never creates the provider.
    Result<Unit> checkArguments(const QString &tool, const QJsonObject &arguments) const;
    ToolPipeline *pipeline();
    void submit(const std::shared_ptr<Call> &call, const QString &tool,
                const QJsonObject &arguments);
    void finishCall(const std::shared_ptr<Call> &call, const Result<QByteArray> &result,
                    const QJsonObject &meta = {});
    std::shared_ptr<Call> beginCall(const QJsonValue &id);

    JsonRpcChannel m_channel;
    Options m_options;
    ProviderFactory m_providerFactory;
    std::unique_ptr<BrowserProvider> m_provider;
    std::unique_ptr<veetbot::Approver> m_approver;
    std::unique_ptr<ToolPipeline> m_pipeline;
    QHash<QString, std::shared_ptr<Call>> m_calls;
    bool m_clientElicitation = false;
    bool m_stopped = false;
};

} // namespace veetbot::mcp
