#include "McpCommand.h"

#include "AgentComposition.h"
#include "CommandOutput.h"
#include "ProfileBinding.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"

#include "approval/WorkbenchChannel.h"
#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "ledger/EffectLedger.h"
#include "mcp/McpServer.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/RunPresence.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTextStream>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace veetbot {

namespace {

int usage(const QString &problem, const QCommandLineParser &parser)
{
    return CommandOutput::usage(QStringLiteral("mcp"), problem, parser);
}

// stdout is the protocol: a refusal before serving goes to stderr.
int refuse(const Error &error)
{
    const QJsonObject body{
        {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), error.code},
                                              {QStringLiteral("message"), error.message}}}};
    QTextStream(stderr) << QJsonDocument(body).toJson(QJsonDocument::Compact) << '\n';
    return CommandOutput::kExitFailure;
}

// Reads stdin as it arrives and hands the bytes to the channel; end of file (or a read error)
// ends the input.
class StdinReader : public QObject
{
public:
    StdinReader(mcp::JsonRpcChannel &channel, QObject *parent = nullptr)
        : QObject(parent), m_channel(channel), m_notifier(STDIN_FILENO, QSocketNotifier::Read, this)
    {
        connect(&m_notifier, &QSocketNotifier::activated, this, &StdinReader::readSome);
    }

private:
    void readSome()
    {
        char buffer[64 * 1024];
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n > 0) {
            m_channel.receive(QByteArrayView(buffer, qsizetype(n)));
            return;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        m_notifier.setEnabled(false);
        m_channel.finishInput();
    }

    mcp::JsonRpcChannel &m_channel;
    QSocketNotifier m_notifier;
};

// Only protocol bytes on stdout: `output` gets a private copy of fd 1 for the protocol, and
// fd 1 points at stderr before any browser, library or child process could write to it. A
// client that went away shows up as a failed write, not as a signal. False when it cannot.
bool openProtocolOutput(QFile &output)
{
    std::fflush(stdout);
    const int protocolFd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocolFd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return false;
    std::signal(SIGPIPE, SIG_IGN);
    if (!output.open(protocolFd, QIODevice::WriteOnly | QIODevice::Unbuffered,
                     QFileDevice::AutoCloseHandle)) {
        ::close(protocolFd);
        return false;
    }
    return true;
}

// This process is one run on the owner's activity timeline, its events content-free. Its
// presence is held, so a run it leaves without ending (a crash, a kill) is ended as
// interrupted by the next look at the timeline; earlier such runs are ended now. A store
// that cannot be written costs the record, never the session: whether the run is recorded.
bool recordMcpRun(mcp::McpServer::Options &options, SqlStores &metadata, const QUuid &runId,
                  RunPresence &presence)
{
    if (const Result<LocalConfiguration> local = LocalConfiguration::load()) {
        RunPresence::endAbandonedRuns(metadata.timeline(), options.owner, local->dataDirectory());
        Result<RunPresence> held = RunPresence::hold(local->dataDirectory(), runId);
        if (held)
            presence = std::move(held).value();
    }
    ActivityRun run;
    run.id = runId;
    run.kind = QStringLiteral("mcp");
    run.profileId = options.pins.profileId;
    run.website = options.policy->origins().isEmpty()
                      ? QString()
                      : options.policy->origins().constFirst().toString();
    run.startedAt = QDateTime::currentDateTimeUtc();
    return recordOnTimeline(options, metadata, run, QStringLiteral("mcp"));
}

// `veetbot mcp`'s options, added to the parser in the order --help lists them.
struct McpCommandLine
{
    explicit McpCommandLine(QCommandLineParser &parser)
    {
        parser.addOptions({allowOrigin, profileOption, engine, approver, allowScroll, trustTurns,
                           ordinary, taskGrants, grantOption, purposeOption, budget});
    }

    const QCommandLineOption allowOrigin{
        QStringLiteral("allow-origin"),
        QStringLiteral("An exact origin the browser may navigate to (https://host[:port]). "
                       "Repeat for several; without any, no browser tool is offered."),
        QStringLiteral("origin")};
    const QCommandLineOption approver{
        QStringLiteral("approver"),
        QStringLiteral("Who approves actions: deny (default) refuses every action; "
                       "elicitation asks the client; workbench asks you in the running "
                       "workbench's approval cards."),
        QStringLiteral("deny|elicitation|workbench"), QStringLiteral("deny")};
    const QCommandLineOption allowScroll{
        QStringLiteral("allow-scroll"),
        QStringLiteral("Let bounded scrolls run without an approval.")};
    const QCommandLineOption trustTurns{
        QStringLiteral("trust-turns"),
        QStringLiteral("Who opens the client's turns: untrusted (default) or owner, the "
                       "owner's statement that only they write to this agent and that it calls "
                       "no other tools in a browsing turn. Permissions that need a turn the "
                       "owner opened (--allow-scroll) apply only with owner."),
        QStringLiteral("owner|untrusted"), QStringLiteral("untrusted")};
    const QCommandLineOption ordinary{
        QStringLiteral("ordinary-interaction"),
        QStringLiteral("on (default) or off: with --profile and --trust-turns owner, routine "
                       "and unknown controls run without an approval; named consequences "
                       "always need one."),
        QStringLiteral("on|off"), QStringLiteral("on")};
    const QCommandLineOption taskGrants{
        QStringLiteral("task-grants"),
        QStringLiteral("on (default) or off: with --profile and --trust-turns owner, an "
                       "approval inside one of your task scopes may offer to approve later "
                       "actions like it for 30 minutes (at most 200)."),
        QStringLiteral("on|off"), QStringLiteral("on")};
    const QCommandLineOption grantOption{
        QStringLiteral("grant"),
        QStringLiteral("With --profile: a standing grant (veetbot grants create) that lets "
                       "routine interaction run without an approval while it holds."),
        QStringLiteral("id")};
    const QCommandLineOption purposeOption{
        QStringLiteral("purpose"),
        QStringLiteral("With --grant: this session's purpose, for a grant made for one."),
        QStringLiteral("text")};
    const QCommandLineOption budget{
        QStringLiteral("budget"),
        QStringLiteral("The byte budget of each result's projection (1024-1048576, default "
                       "16384)."),
        QStringLiteral("bytes")};
    const QCommandLineOption profileOption{
        QStringLiteral("profile"),
        QStringLiteral("Serve the browser of this READY browser profile (its id), in the "
                       "profile service: its allowed origins are the policy, so "
                       "--allow-origin is not given with it."),
        QStringLiteral("id")};
    const QCommandLineOption engine = CommandOutput::engineOption();
};

// The server's approver, authority and budget options as given, or the exit code of a usage
// error.
std::optional<int> readAuthorityOptions(const QCommandLineParser &parser, const McpCommandLine &cli,
                                        mcp::McpServer::Options &options)
{
    const QString approverName = parser.value(cli.approver);
    if (approverName == QLatin1String("deny"))
        options.approver = mcp::McpServer::Approver::Deny;
    else if (approverName == QLatin1String("elicitation"))
        options.approver = mcp::McpServer::Approver::Elicitation;
    else if (approverName == QLatin1String("workbench"))
        options.approver = mcp::McpServer::Approver::Workbench;
    else
        return usage(QStringLiteral("--approver must be deny, elicitation or workbench"), parser);
    options.allowScroll = parser.isSet(cli.allowScroll);
    const QString turns = parser.value(cli.trustTurns);
    if (turns == QLatin1String("owner"))
        options.turns = TurnSource::Owner;
    else if (turns != QLatin1String("untrusted"))
        return usage(QStringLiteral("--trust-turns must be owner or untrusted"), parser);
    const std::variant<CommandOutput::AuthoritySwitches, QString> switches =
        CommandOutput::readAuthoritySwitches(parser, cli.ordinary, cli.taskGrants);
    if (const QString *problem = std::get_if<QString>(&switches))
        return usage(*problem, parser);
    options.ordinaryInteraction =
        std::get<CommandOutput::AuthoritySwitches>(switches).ordinaryInteraction;
    options.taskGrants = std::get<CommandOutput::AuthoritySwitches>(switches).taskGrants;
    if (parser.isSet(cli.budget)) {
        const std::optional<int> bytes = CommandOutput::parseBudget(parser.value(cli.budget));
        if (!bytes)
            return usage(CommandOutput::kBudgetProblem, parser);
        options.budgetBytes = *bytes;
    }
    return std::nullopt;
}

} // namespace

int runMcpCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Serve the browser tools over the Model Context Protocol on stdin and "
                       "stdout (newline-delimited JSON-RPC 2.0)."));
    parser.addHelpOption();
    const McpCommandLine cli(parser);
    if (const auto exitCode = CommandOutput::parseOrExit(parser, arguments, QStringLiteral("mcp")))
        return *exitCode;
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("mcp takes no arguments"), parser);

    mcp::McpServer::Options options;
    options.serverVersion = QCoreApplication::applicationVersion();
    if (const std::optional<int> exitCode = readAuthorityOptions(parser, cli, options))
        return *exitCode;

    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides) {
        QTextStream(stderr) << "veetbot mcp: " << overrides.error().message << '\n';
        return CommandOutput::kExitUsage;
    }
    if (options.approver == mcp::McpServer::Approver::Workbench) {
        // The workbench of this data directory's runtime directory answers the cards.
        const Result<QString> socket = workbenchSocketPath();
        if (!socket)
            return refuse(socket.error());
        options.workbenchSocket = *socket;
        WorkbenchApprover probe(options.workbenchSocket);
        if (!probe.connectToWorkbench(1000))
            QTextStream(stderr) << "veetbot mcp: no workbench is running: every action that "
                                   "needs approval is refused until one is\n";
    }
    options.overrides = *overrides;
    if (parser.isSet(cli.grantOption) && !parser.isSet(cli.profileOption))
        return usage(QStringLiteral("--grant is given with --profile"), parser);
    if (parser.isSet(cli.purposeOption) && !parser.isSet(cli.grantOption))
        return usage(QStringLiteral("--purpose is given with --grant"), parser);
    if (parser.isSet(cli.profileOption) && parser.isSet(cli.allowOrigin))
        return usage(QStringLiteral("--profile brings its own origins; --allow-origin is not "
                                    "given with it"),
                     parser);
    if (parser.isSet(cli.profileOption) && parser.isSet(cli.engine))
        return usage(CommandOutput::engineWithProfileProblem(), parser);
    const CommandOutput::EngineChoice chosen =
        CommandOutput::chooseEngine(parser, cli.engine, QStringLiteral("mcp"));
    if (chosen.exitCode)
        return *chosen.exitCode;
    // The profile's browser, bound now: a profile that may not be used is refused before the
    // server starts.
    std::shared_ptr<std::unique_ptr<ServiceProvider>> profileProvider;
    std::unique_ptr<SqlStores> metadata;
    if (parser.isSet(cli.profileOption)) {
        // This process is one run: the lease's holder carries the id its timeline records.
        const QUuid session = BrowserProfile::newId();
        Result<BoundProfile> bound =
            bindProfile(parser.value(cli.profileOption), *overrides, session);
        if (!bound)
            return refuse(bound.error());
        // This process is one session: a task grant made in it serves it alone, and ends
        // with it.
        bindProfileSession(options, bound.value(), session);
        metadata = std::move(bound.value().repository);
        if (parser.isSet(cli.grantOption)) {
            if (const Result<Unit> used =
                    useStandingGrant(options, *metadata, parser.value(cli.grantOption),
                                     parser.value(cli.purposeOption));
                !used)
                return refuse(used.error());
        }
        profileProvider =
            std::make_shared<std::unique_ptr<ServiceProvider>>(std::move(bound.value().provider));
    } else if (parser.isSet(cli.allowOrigin)) {
        const Result<QList<Origin>> origins =
            Origin::parseAll(parser.values(cli.allowOrigin), *overrides);
        if (!origins)
            return refuse(origins.error());
        const Result<OriginPolicy> policy = OriginPolicy::create(*origins);
        if (!policy)
            return refuse(policy.error());
        options.policy = *policy;
    }

    // The owner's activity timeline: this process is one run, its events content-free. A
    // store that cannot be opened or written costs the record, never the session.
    if (!metadata && options.policy) {
        Result<MetadataStore> opened = openMetadataStore(QString());
        if (opened) {
            options.owner = opened->scope();
            metadata = std::move(opened.value().repository);
        }
    }
    const QUuid runId =
        options.pins.session.isNull() ? BrowserProfile::newId() : options.pins.session;
    RunPresence presence;
    const bool recording =
        metadata && options.policy && recordMcpRun(options, *metadata, runId, presence);

    // The effect ledger: opening it ends the calls an earlier process left mid-way (a write
    // that may have been sent becomes outcome_unknown and is never resent). Without it the
    // server still reads, and refuses every act.
    std::unique_ptr<EffectLedger> ledger;
    if (options.policy) {
        ledger = openAgentLedger(QStringLiteral("mcp"));
        options.ledger = ledger.get();
    }

    QFile output;
    if (!openProtocolOutput(output)) {
        QTextStream(stderr) << "veetbot mcp: cannot set up the protocol output\n";
        return CommandOutput::kExitFailure;
    }

    const std::optional<OriginPolicy> policy = options.policy;
    const ProfileScope owner = options.owner;
    const QUuid session = options.pins.session;
    const TestOverrides providerOverrides = options.overrides;
    mcp::McpServer server(&output, std::move(options),
                          [policy, providerOverrides, profileProvider,
                           engine = chosen.engine]() -> std::unique_ptr<BrowserProvider> {
                              // A profile's lease is acquired by its first call.
                              if (profileProvider)
                                  return std::move(*profileProvider);
                              // Created on the first browser call; the host process starts
                              // only then.
                              IsolatedBrowserProvider::Options browser;
                              browser.engine = engine;
                              return std::make_unique<IsolatedBrowserProvider>(
                                  *policy, providerOverrides, browser);
                          });
    QObject::connect(&server, &mcp::McpServer::finished, &server,
                     [] { QCoreApplication::exit(0); });
    StdinReader reader(server.channel());
    QCoreApplication::exec();
    if (recording)
        (void)metadata->timeline().endRun(owner, runId, QStringLiteral("input_ended"));
    presence.release();
    if (metadata && !session.isNull())
        endSessionTaskGrant(*metadata, owner, session);
    return CommandOutput::kExitOk;
}

} // namespace veetbot
