#include "McpServer.h"

#include <QTimer>

#include "ElicitationApprover.h"
#include "approval/WorkbenchChannel.h"
#include "domain/ToolJson.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/web/Origin.h"
#include "tools/AgentTools.h"
#include "tools/Approvers.h"
#include "tools/ToolFailure.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace veetbot::mcp {

namespace {
const QLatin1String kMethodNotFound("Method not found.");
const QLatin1String kInvalidParams("Invalid params.");
const QLatin1String kUnknownTool("Unknown tool.");
const QLatin1String kDuplicateId("Invalid request: a request with this id is in progress.");

QJsonObject textContent(const QString &text, bool isError)
{
    return QJsonObject{{QStringLiteral("content"),
                        QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                               {QStringLiteral("text"), text}}}},
                       {QStringLiteral("isError"), isError}};
}

QByteArray errorBytes(const Error &error)
{
    const QJsonObject body{
        {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), error.code},
                                              {QStringLiteral("message"), error.message}}}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
} // namespace

McpServer::McpServer(QIODevice *output, Options options, ProviderFactory providerFactory,
                     QObject *parent)
    : QObject(parent), m_channel(output), m_options(std::move(options)),
      m_providerFactory(std::move(providerFactory))
{
    m_channel.setRequestHandler(
        [this](const QJsonValue &id, const QString &method, const QJsonValue &params) {
            onRequest(id, method, params);
        });
    m_channel.setNotificationHandler([this](const QString &method, const QJsonValue &params) {
        onNotification(method, params);
    });
    connect(&m_channel, &JsonRpcChannel::inputEnded, this, &McpServer::onInputEnded);
}

McpServer::~McpServer()
{
    m_stopped = true;
    m_channel.closeOutput();
    // Server-to-client requests still pending hear about it while this server is intact.
    m_channel.finishInput();
    if (m_provider)
        m_provider->close();
}

void McpServer::onRequest(const QJsonValue &id, const QString &method, const QJsonValue &params)
{
    if (m_stopped)
        return;
    const bool knownMethod =
        method == QLatin1String("initialize") || method == QLatin1String("ping") ||
        method == QLatin1String("tools/list") || method == QLatin1String("tools/call");
    if (!knownMethod) {
        m_channel.sendError(id, JsonRpcErrorCode::kMethodNotFound, kMethodNotFound);
        return;
    }
    // Every method here takes named parameters, or none.
    if (!params.isUndefined() && !params.isObject()) {
        m_channel.sendError(id, JsonRpcErrorCode::kInvalidParams, kInvalidParams);
        return;
    }
    const QJsonObject object = params.toObject();
    if (method == QLatin1String("initialize"))
        initialize(id, object);
    else if (method == QLatin1String("ping"))
        m_channel.sendResult(id, QJsonObject());
    else if (method == QLatin1String("tools/list"))
        listTools(id);
    else
        callTool(id, object);
}

void McpServer::onNotification(const QString &method, const QJsonValue &params)
{
    if (m_stopped || method != QLatin1String("notifications/cancelled"))
        return; // notifications/initialized and anything unknown need no answer
    const QJsonValue requestId = params.toObject().value(QLatin1String("requestId"));
    if (!JsonRpcChannel::isValidId(requestId))
        return;
    const auto it = m_calls.find(JsonRpcChannel::idKey(requestId));
    if (it == m_calls.end())
        return; // already answered, or never ours: nothing to do
    const std::shared_ptr<Call> call = it.value();
    call->cancelled = true;
    m_calls.erase(it);
    // Queued or waiting for approval: ends with nothing sent. Already dispatched: the
    // provider finishes it and the ledger records how; the answer is dropped either way.
    if (m_pipeline && call->pipelineCall)
        m_pipeline->cancel(call->pipelineCall);
}

void McpServer::onInputEnded()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_channel.closeOutput();
    const auto calls = m_calls;
    m_calls.clear();
    for (const auto &call : calls) {
        call->cancelled = true;
        if (m_pipeline && call->pipelineCall)
            m_pipeline->cancel(call->pipelineCall);
    }
    if (m_provider)
        m_provider->close();
    Q_EMIT finished();
}

void McpServer::initialize(const QJsonValue &id, const QJsonObject &params)
{
    const QJsonValue capabilities = params.value(QLatin1String("capabilities"));
    if ((params.contains(QLatin1String("capabilities")) && !capabilities.isObject()) ||
        (params.contains(QLatin1String("protocolVersion")) &&
         !params.value(QLatin1String("protocolVersion")).isString())) {
        m_channel.sendError(id, JsonRpcErrorCode::kInvalidParams, kInvalidParams);
        return;
    }
    m_clientElicitation = capabilities.toObject().value(QLatin1String("elicitation")).isObject();
    // One protocol version, whatever the client asked for; a client that cannot speak it
    // disconnects.
    m_channel.sendResult(
        id, QJsonObject{{QStringLiteral("protocolVersion"), QString(kProtocolVersion)},
                        {QStringLiteral("capabilities"),
                         QJsonObject{{QStringLiteral("tools"),
                                      QJsonObject{{QStringLiteral("listChanged"), false}}}}},
                        {QStringLiteral("serverInfo"),
                         QJsonObject{{QStringLiteral("name"), QString(kServerName)},
                                     {QStringLiteral("version"), m_options.serverVersion}}}});
}

void McpServer::listTools(const QJsonValue &id)
{
    const QJsonArray tools =
        m_options.policy ? AgentTools::definitions(*m_options.policy) : QJsonArray();
    m_channel.sendResult(id, QJsonObject{{QStringLiteral("tools"), tools}});
}

std::shared_ptr<McpServer::Call> McpServer::beginCall(const QJsonValue &id)
{
    const QString key = JsonRpcChannel::idKey(id);
    if (m_calls.contains(key))
        return nullptr;
    auto call = std::make_shared<Call>();
    call->id = id;
    m_calls.insert(key, call);
    return call;
}

void McpServer::callTool(const QJsonValue &id, const QJsonObject &params)
{
    const QJsonValue name = params.value(QLatin1String("name"));
    const QJsonValue arguments = params.value(QLatin1String("arguments"));
    if (!name.isString() || (!arguments.isUndefined() && !arguments.isObject())) {
        m_channel.sendError(id, JsonRpcErrorCode::kInvalidParams, kInvalidParams);
        return;
    }
    const QString tool = name.toString();
    const bool known =
        m_options.policy &&
        (tool == AgentTools::kNavigate || tool == AgentTools::kObserve || tool == AgentTools::kAct);
    if (!known) {
        m_channel.sendError(id, JsonRpcErrorCode::kInvalidParams, kUnknownTool);
        return;
    }
    const std::shared_ptr<Call> call = beginCall(id);
    if (!call) {
        m_channel.sendError(id, JsonRpcErrorCode::kInvalidRequest, kDuplicateId);
        return;
    }
    const QJsonValue token =
        params.value(QLatin1String("_meta")).toObject().value(QLatin1String("progressToken"));
    if (token.isString() || (token.isDouble() && JsonRpcChannel::isValidId(token)))
        call->progressToken = token;
    submit(call, tool, arguments.toObject());
    if ((call->progressToken.isString() || call->progressToken.isDouble()) && !call->cancelled)
        keepReportingProgress(call);
}

void McpServer::keepReportingProgress(const std::shared_ptr<Call> &call)
{
    auto *timer = new QTimer(this);
    timer->setInterval(m_options.progressIntervalMs);
    connect(timer, &QTimer::timeout, this, [this, timer, call] {
        if (m_stopped || call->cancelled) { // answered, cancelled or the input ended
            timer->deleteLater();
            return;
        }
        m_channel.sendNotification(
            QStringLiteral("notifications/progress"),
            QJsonObject{{QStringLiteral("progressToken"), call->progressToken},
                        {QStringLiteral("progress"), ++call->progress},
                        {QStringLiteral("message"),
                         QStringLiteral("Still working; an action may be waiting for the "
                                        "owner's approval.")}});
    });
    timer->start();
}

Result<Unit> McpServer::checkArguments(const QString &tool, const QJsonObject &arguments) const
{
    if (tool == AgentTools::kObserve) {
        const Result<ObserveRequest> request = ObserveRequest::fromJson(arguments);
        return request ? Result<Unit>(Unit{}) : Result<Unit>(request.error());
    }
    if (tool == AgentTools::kAct)
        return AgentTools::checkActArguments(arguments);
    const Result<NavigateRequest> navigation = BrowserTools::parseNavigate(arguments);
    if (!navigation)
        return navigation.error();
    // Refused before any browser work: a URL never authorizes its own origin.
    const Result<QUrl> url =
        PublicUrl::parse(arguments.value(QLatin1String("url")).toString(), m_options.overrides);
    if (!url)
        return url.error();
    if (!m_options.policy->allowsNavigation(*url, m_options.overrides))
        return Error::fromReason(ReasonCode::UrlDisallowed);
    return Unit{};
}

ToolPipeline *McpServer::pipeline()
{
    if (m_pipeline)
        return m_pipeline.get();
    // The provider exists from here on; the browser itself starts with its first operation.
    if (!m_provider && m_providerFactory)
        m_provider = m_providerFactory();
    if (!m_provider)
        return nullptr;
    if (m_options.approver == Approver::Elicitation) {
        QPointer<McpServer> self(this);
        m_approver = std::make_unique<ElicitationApprover>(
            m_channel, [self] { return self && self->m_clientElicitation; });
    } else if (m_options.approver == Approver::Workbench) {
        auto workbench = std::make_unique<WorkbenchApprover>(m_options.workbenchSocket);
        (void)workbench->connectToWorkbench(); // without one, every question is denied
        m_approver = std::move(workbench);
    } else {
        m_approver = std::make_unique<DenyApprover>();
    }
    ToolPipeline::Options options = m_options.pipelineOptions();
    if (m_options.approver == Approver::Workbench)
        options.approvalWaitMs = kWorkbenchWaitMs; // the owner's time, not a client's
    m_pipeline =
        std::make_unique<ToolPipeline>(m_provider.get(), *m_approver, m_options.ledger, options);
    return m_pipeline.get();
}

void McpServer::submit(const std::shared_ptr<Call> &call, const QString &tool,
                       const QJsonObject &arguments)
{
    const Result<Unit> checked = checkArguments(tool, arguments);
    if (!checked) {
        finishCall(call, checked.error());
        return;
    }
    if (tool == AgentTools::kAct && !m_pipeline) {
        // No browser call came first, so no revision was ever observed: refused without
        // creating the provider, as the pipeline would refuse it.
        finishCall(call, Error::fromReason(ReasonCode::PageChanged));
        return;
    }
    ToolPipeline *tools = pipeline();
    if (!tools) {
        finishCall(call, Error::fromReason(ReasonCode::ProviderUnavailable));
        return;
    }
    const QString browserTool = tool == AgentTools::kNavigate  ? QString(BrowserTools::kNavigate)
                                : tool == AgentTools::kObserve ? QString(BrowserTools::kObserve)
                                                               : QString(BrowserTools::kAct);
    const int budget = m_options.budgetBytes;
    QPointer<McpServer> self(this);
    call->pipelineCall =
        tools->call(browserTool, arguments, [self, call, budget](ToolPipeline::Outcome outcome) {
            if (!self || call->cancelled)
                return; // nothing stale reaches the client
            // The call's content-free diagnostics travel as result metadata; a client may
            // ignore them.
            const QJsonObject meta =
                outcome.diagnostics
                    ? QJsonObject{{QString(kDiagnosticsMetaKey), outcome.diagnostics->toJson()}}
                    : QJsonObject();
            if (!outcome.result) {
                self->finishCall(call, outcome.result.error(), meta);
                return;
            }
            self->finishCall(call, ModelProjection::project(*outcome.result, budget), meta);
        });
}

void McpServer::finishCall(const std::shared_ptr<Call> &call, const Result<QByteArray> &result,
                           const QJsonObject &meta)
{
    if (m_stopped || call->cancelled)
        return;
    m_calls.remove(JsonRpcChannel::idKey(call->id));
    call->cancelled = true; // answered: exactly once
    QJsonObject answer = result ? textContent(QString::fromUtf8(*result), false)
                                : textContent(QString::fromUtf8(errorBytes(result.error())), true);
    if (!meta.isEmpty())
        answer.insert(QStringLiteral("_meta"), meta);
    m_channel.sendResult(call->id, answer);
}

} // namespace veetbot::mcp
