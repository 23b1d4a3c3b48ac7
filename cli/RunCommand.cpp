#include "RunCommand.h"

#include "AgentComposition.h"
#include "CommandOutput.h"
#include "ProfileBinding.h"
#include "client/ServiceAccess.h"
#include "client/WebsiteAccess.h"

#include "approval/WorkbenchChannel.h"
#include "domain/Sha256.h"
#include "domain/schedule/Schedule.h"
#include "domain/web/TestOverrides.h"
#include "profiles/RunPresence.h"
#include "runs/ChatClient.h"
#include "runs/ModelEndpoint.h"
#include "runs/RecipeCatalog.h"
#include "runs/RecipeRunner.h"
#include "runs/TaskRunner.h"
#include "tools/AgentTools.h"
#include "tools/Approvers.h"
#include "tools/ModelProjection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <unistd.h>
#include <variant>

namespace veetbot {

namespace {

constexpr int kMaxTaskCharacters = 16 * 1024;
constexpr int kApprovalWaitMs = 10 * 60 * 1000;

int usage(const QString &problem, const QCommandLineParser &parser)
{
    CommandOutput::usage(QStringLiteral("run"), problem, parser);
    return RunExit::kUsage;
}

// stdout is the final answer: every refusal goes to stderr, as {"error":{code,message}}.
int refuse(const Error &error, int exitCode = RunExit::kRefused)
{
    const QJsonObject body{
        {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), error.code},
                                              {QStringLiteral("message"), error.message}}}};
    QTextStream(stderr) << QJsonDocument(body).toJson(QJsonDocument::Compact) << '\n';
    return exitCode;
}

int exitCodeFor(RunStatus status)
{
    switch (status) {
    case RunStatus::Completed:
        return RunExit::kCompleted;
    case RunStatus::BudgetExhausted:
        return RunExit::kBudgetExhausted;
    case RunStatus::Cancelled:
        return RunExit::kCancelled;
    case RunStatus::NeedsUser:
        return RunExit::kNeedsUser;
    case RunStatus::Refused:
        return RunExit::kRefused;
    case RunStatus::Running:
    case RunStatus::Failed:
        break;
    }
    return RunExit::kFailed;
}

// SIGINT and SIGTERM reach the event loop through a pipe; a second one ends the process.
int g_signalPipe[2] = {-1, -1};
void onSignal(int signal)
{
    const char byte = char(signal);
    (void)!::write(g_signalPipe[1], &byte, 1);
    std::signal(signal, SIG_DFL);
}

std::optional<double> price(const QString &text)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !(value >= 0) || value > 10'000)
        return std::nullopt;
    return value;
}

QJsonObject usageJson(const RunUsage &usage)
{
    return QJsonObject{{QStringLiteral("steps"), usage.steps},
                       {QStringLiteral("model_calls"), usage.modelCalls},
                       {QStringLiteral("tool_calls"), usage.toolCalls},
                       {QStringLiteral("stale_recoveries"), usage.staleRecoveries},
                       {QStringLiteral("acts"), usage.acts},
                       {QStringLiteral("prompt_tokens"), usage.promptTokens},
                       {QStringLiteral("completion_tokens"), usage.completionTokens},
                       {QStringLiteral("cost_usd"), double(usage.costMicroUsd) / 1e6}};
}

// The progress line on a terminal: one line, rewritten in place.
class ProgressLine
{
public:
    ProgressLine() : m_tty(::isatty(STDERR_FILENO) == 1) {}
    void show(const RunUsage &usage, const QString &phase, bool priced)
    {
        if (!m_tty)
            return;
        QString line = QStringLiteral("veetbot run: step %1/%2, model %3/%4, tools %5/%6")
                           .arg(usage.steps)
                           .arg(RunCeilings::kSteps)
                           .arg(usage.modelCalls)
                           .arg(RunCeilings::kModelCalls)
                           .arg(usage.toolCalls)
                           .arg(RunCeilings::kToolCalls);
        if (priced)
            line += QStringLiteral(", USD %1").arg(double(usage.costMicroUsd) / 1e6, 0, 'f', 2);
        else
            line += QStringLiteral(", %1 tokens").arg(usage.promptTokens + usage.completionTokens);
        line += QStringLiteral(": ") + phase;
        QTextStream(stderr) << "\r\033[K" << line.left(160);
        m_shown = true;
    }
    void clear()
    {
        if (m_shown)
            QTextStream(stderr) << "\r\033[K";
        m_shown = false;
    }

private:
    bool m_tty = false;
    bool m_shown = false;
};

// stdin as a device for the terminal approver: bytes read as they arrive (a QSocketNotifier;
// a QFile on a terminal or pipe never says readyRead), readChannelFinished at the end.
class StdinDevice final : public QIODevice
{
public:
    StdinDevice() : m_notifier(STDIN_FILENO, QSocketNotifier::Read)
    {
        QIODevice::open(QIODevice::ReadOnly | QIODevice::Unbuffered);
        QObject::connect(&m_notifier, &QSocketNotifier::activated, this, [this] {
            char buffer[4096];
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n > 0) {
                m_buffer.append(buffer, qsizetype(n));
                Q_EMIT readyRead();
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                m_notifier.setEnabled(false);
                Q_EMIT readChannelFinished();
            }
        });
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_buffer.size() + QIODevice::bytesAvailable(); }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        const qint64 n = std::min<qint64>(maxSize, m_buffer.size());
        std::memcpy(data, m_buffer.constData(), size_t(n));
        m_buffer.remove(0, qsizetype(n));
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QSocketNotifier m_notifier;
    QByteArray m_buffer;
};

bool processAlive(qint64 pid)
{
    return pid > 0 && pid != qint64(::getpid()) && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
}

} // namespace

// The model API key: the environment's when set (even empty: no key), else the keyring's.
SecretBytes modelApiKey(const ModelKeyReader &readKey)
{
    if (qEnvironmentVariableIsSet("VEETBOT_MODEL_API_KEY"))
        return SecretBytes(qgetenv("VEETBOT_MODEL_API_KEY"));
    if (!readKey)
        return {};
    Result<SecretBytes> stored = readKey();
    if (stored)
        return std::move(stored).value();
    QTextStream(stderr) << "veetbot run: the keyring did not answer (" << stored.error().code
                        << "); the model is asked without a key\n";
    return {};
}

// What a resumed run carries over from its earlier attempts.
struct Earlier
{
    QString profileId;
    RunUsage usage;
    int signInSuspensions = 0;
    QSet<QUuid> ledgers; // the effect-ledger owners of the earlier attempts
};

// The interrupted run `id` of the same task: resumable only while running or waiting for the
// owner, and only when no earlier attempt's process is still alive.
Result<Earlier> earlierRun(SqlStores &store, const ProfileScope &owner, const QUuid &id,
                           const QString &taskDigest)
{
    const Result<TaskRunRecord> record = store.taskRuns().taskRun(owner, id);
    if (!record)
        return record.error();
    if (record->taskDigest != taskDigest ||
        (record->status != RunStatus::Running && record->status != RunStatus::NeedsUser))
        return taskRunError(TaskRunFailure::NotResumable);
    const Result<QList<TaskRunAttempt>> attempts = store.taskRuns().taskRunAttempts(owner, id);
    if (!attempts)
        return attempts.error();
    Earlier earlier{record->profileId.toString(QUuid::WithoutBraces),
                    record->usage,
                    record->signInSuspensions,
                    {}};
    for (const TaskRunAttempt &attempt : *attempts) {
        if (!attempt.endedAt && processAlive(attempt.pid))
            return taskRunError(TaskRunFailure::InProgress);
        earlier.ledgers.insert(attempt.ledgerOwner);
    }
    return earlier;
}

// The acts of a resumed run's earlier attempts, as the model is told of them: those whose
// outcome is unknown (never sent again) and those that were sent.
struct EarlierActs
{
    QStringList uncertain;
    QStringList sent;
};

Result<EarlierActs> actsOf(EffectLedger &ledger, const QSet<QUuid> &owners)
{
    const Result<QList<EffectRecord>> records = ledger.records();
    if (!records)
        return records.error();
    EarlierActs acts;
    for (const EffectRecord &record : *records) {
        if (!owners.contains(record.owner))
            continue;
        const QString described =
            QStringLiteral("%1 on %2").arg(record.call.kind, record.call.origin);
        if (record.state == EffectState::OutcomeUnknown)
            acts.uncertain << described;
        else if (record.state == EffectState::Dispatched ||
                 record.state == EffectState::ObservedComplete ||
                 record.state == EffectState::ObservedNotComplete)
            acts.sent << described;
    }
    return acts;
}

// The approver of a run: the owner at the workbench or on this terminal, or nobody (deny).
struct RunApprover
{
    explicit RunApprover(const QString &name)
    {
        if (name == QLatin1String("workbench")) {
            const Result<QString> socket = workbenchSocketPath();
            auto workbench = std::make_unique<WorkbenchApprover>(socket ? *socket : QString());
            if (!socket || !workbench->connectToWorkbench(1000))
                QTextStream(stderr) << "veetbot run: no workbench is running: every action that "
                                       "needs approval is refused until one is\n";
            approver = std::move(workbench);
        } else if (name == QLatin1String("terminal")) {
            input = std::make_unique<StdinDevice>();
            (void)output.open(STDERR_FILENO, QIODevice::WriteOnly | QIODevice::Unbuffered);
            approver = std::make_unique<TerminalApprover>(input.get(), &output);
        } else {
            approver = std::make_unique<DenyApprover>();
        }
    }

    // Cards no owner could answer (WorkbenchApprover::unanswered); the other approvers answer
    // every card.
    int unanswered() const
    {
        const auto *workbench = qobject_cast<const WorkbenchApprover *>(approver.get());
        return workbench ? workbench->unanswered() : 0;
    }

    std::unique_ptr<StdinDevice> input;
    QFile output;
    std::unique_ptr<Approver> approver;
};

// Ctrl-C (or SIGTERM) cancels the run truthfully; a second one ends the process. The notifier
// lives as long as the run.
std::unique_ptr<QSocketNotifier> cancelOnSignals(RunDriver &runner)
{
    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    auto signals = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(signals.get(), &QSocketNotifier::activated, &runner, [&runner] {
        char byte = 0;
        while (::read(g_signalPipe[0], &byte, 1) > 0) {
        }
        runner.cancel();
    });
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    return signals;
}

// The final answer on stdout (it may quote website content); the closed summary on stderr.
void printOutcome(const QUuid &runId, const RunDriver::Result &result, const QString &recipe)
{
    if (!result.answer.isEmpty()) {
        QTextStream out(stdout);
        out << result.answer;
        if (!result.answer.endsWith(u'\n'))
            out << '\n';
    }
    QJsonObject summary{{QStringLiteral("run"), runId.toString(QUuid::WithoutBraces)},
                        {QStringLiteral("status"), runStatusString(result.status)},
                        {QStringLiteral("outcome"), runOutcomeString(result.outcome)},
                        {QStringLiteral("uncertain_acts"), result.uncertainActs},
                        {QStringLiteral("usage"), usageJson(result.usage)}};
    if (!result.stopCode.isEmpty())
        summary.insert(QStringLiteral("stop_code"), result.stopCode);
    if (result.evidence != RunDriver::Evidence::None)
        summary.insert(QStringLiteral("evidence"), RunDriver::evidenceString(result.evidence));
    if (!recipe.isEmpty())
        summary.insert(QStringLiteral("recipe"), recipe);
    QTextStream(stderr) << QJsonDocument(summary).toJson(QJsonDocument::Compact) << '\n';
}

// `veetbot run`'s arguments, each checked.
struct RunArguments
{
    QString task;
    // The model (both set, or neither: then only a recipe can carry the run).
    QString model;
    QUrl endpoint;
    bool hasModel() const { return !model.isEmpty(); }
    // A reviewed recipe whose intent is the task runs instead of the model (docs/recipes.md);
    // `veetbot recipes run` names one.
    bool recipes = true;
    QString recipeId;
    QString approver; // workbench, terminal or deny
    bool taskGrants = true;
    bool ordinary = true;
    QString grant;   // a standing grant's id as given, or empty
    QString purpose; // with a grant only
    std::optional<TaskRunner::Price> prices;
    int budget = ModelProjection::kDefaultBudgetBytes;
    int signInWaitMinutes = 30;
    bool resuming = false;
    QUuid resumeId;    // resuming only
    QString profileId; // a new run only
    // An occurrence of a schedule: its turns are the scheduler's (never a task grant), the
    // profile must still be at the generation the schedule pinned, and it ends at its deadline.
    std::optional<QUuid> schedule;
    qint64 pinnedGeneration = 0;
    int deadlineMinutes = 0;
};

// The run's arguments, checked: what the run needs, or the exit code of a usage error, a
// refusal or --help.
std::variant<RunArguments, int> parseRunArguments(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Carry out a task on a signed-in website with a model: the model calls the "
                       "browser tools of the profile until it answers; or, when the whole task is "
                       "a reviewed recipe's intent, with that recipe and no model. The final "
                       "answer goes to stdout (it may quote website content); everything else to "
                       "stderr."));
    parser.addHelpOption();
    const QCommandLineOption profileOption(QStringLiteral("profile"),
                                           QStringLiteral("The READY browser profile (its id)."),
                                           QStringLiteral("id"));
    const QCommandLineOption taskOption(QStringLiteral("task"),
                                        QStringLiteral("The task, in your words: the only "
                                                       "instruction the model follows."),
                                        QStringLiteral("text"));
    const QCommandLineOption urlOption(
        QStringLiteral("model-url"),
        QStringLiteral("The OpenAI-compatible endpoint: .../chat/completions as given, or a base "
                       "URL (/chat/completions is appended). HTTPS, or HTTP to a loopback "
                       "address only."),
        QStringLiteral("url"));
    const QCommandLineOption modelOption(QStringLiteral("model"),
                                         QStringLiteral("The model's name at that endpoint."),
                                         QStringLiteral("name"));
    const QCommandLineOption approverOption(
        QStringLiteral("approver"),
        QStringLiteral("Who approves actions that need it: workbench (default) asks you in the "
                       "running workbench's approval cards; terminal asks on this terminal; "
                       "deny refuses them."),
        QStringLiteral("workbench|terminal|deny"), QStringLiteral("workbench"));
    const QCommandLineOption taskGrantsOption(
        QStringLiteral("task-grants"),
        QStringLiteral("on (default) or off: an approval inside one of your task scopes may "
                       "offer to approve later actions like it for 30 minutes (at most 200)."),
        QStringLiteral("on|off"), QStringLiteral("on"));
    const QCommandLineOption ordinaryOption(
        QStringLiteral("ordinary-interaction"),
        QStringLiteral("on (default) or off: routine and unknown controls run without an "
                       "approval; named consequences always need one."),
        QStringLiteral("on|off"), QStringLiteral("on"));
    const QCommandLineOption grantOption(
        QStringLiteral("grant"),
        QStringLiteral("A standing grant of the profile (veetbot grants create) that lets "
                       "routine interaction run without an approval while it holds."),
        QStringLiteral("id"));
    const QCommandLineOption purposeOption(
        QStringLiteral("purpose"),
        QStringLiteral("With --grant: this run's purpose, for a grant made for one."),
        QStringLiteral("text"));
    const QCommandLineOption priceIn(
        QStringLiteral("price-in"),
        QStringLiteral("USD per million prompt tokens: with --price-out, the run's money cap "
                       "(USD 30, USD 3 kept for the final answer) applies; without prices, a "
                       "cap of 2,000,000 tokens (200,000 kept)."),
        QStringLiteral("usd"));
    const QCommandLineOption priceOut(QStringLiteral("price-out"),
                                      QStringLiteral("USD per million completion tokens."),
                                      QStringLiteral("usd"));
    const QCommandLineOption budgetOption(
        QStringLiteral("budget"),
        QStringLiteral("The byte budget of each tool result's projection (1024-1048576, "
                       "default 16384)."),
        QStringLiteral("bytes"));
    const QCommandLineOption resumeOption(
        QStringLiteral("resume"),
        QStringLiteral("Resume a run that was interrupted (or needs you): give its id and the "
                       "same --task; its profile and limits are the run's."),
        QStringLiteral("run-id"));
    const QCommandLineOption signInWaitOption(
        QStringLiteral("sign-in-wait"),
        QStringLiteral("When the website asks to sign in, wait this many minutes (0-1440, "
                       "default 30) for you to sign in again, then go on by itself; 0 ends the "
                       "run needs_user at once."),
        QStringLiteral("minutes"), QStringLiteral("30"));
    const QCommandLineOption recipesOption(
        QStringLiteral("recipes"),
        QStringLiteral("on (default) or off: when your whole task is the intent of one reviewed "
                       "recipe for the profile's website (veetbot recipes list), the recipe "
                       "runs instead of the model, and needs no model."),
        QStringLiteral("on|off"), QStringLiteral("on"));
    // A run drives its profile's lease browser in the profile service: the engine is the
    // service's. --engine is taken only to say so.
    const QCommandLineOption engineOption = CommandOutput::engineOption();
    parser.addOptions({profileOption, taskOption, urlOption, modelOption, approverOption,
                       ordinaryOption, taskGrantsOption, grantOption, purposeOption, priceIn,
                       priceOut, budgetOption, resumeOption, signInWaitOption, recipesOption,
                       engineOption});
    if (const auto exitCode = CommandOutput::parseOrExit(parser, arguments, QStringLiteral("run")))
        return *exitCode == CommandOutput::kExitOk ? RunExit::kCompleted : RunExit::kUsage;
    RunArguments run;
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("run takes no arguments"), parser);
    if (parser.isSet(engineOption))
        return usage(CommandOutput::engineWithProfileProblem(), parser);
    run.resuming = parser.isSet(resumeOption);
    if (!parser.isSet(taskOption))
        return usage(QStringLiteral("--task is required"), parser);
    if (parser.isSet(urlOption) != parser.isSet(modelOption))
        return usage(QStringLiteral("--model-url and --model are given together"), parser);
    if (run.resuming == parser.isSet(profileOption))
        return usage(QStringLiteral("give --profile for a new run, or --resume for an earlier "
                                    "one"),
                     parser);
    run.task = parser.value(taskOption);
    if (run.task.trimmed().isEmpty() || run.task.size() > kMaxTaskCharacters)
        return usage(QStringLiteral("--task must hold 1-16384 characters"), parser);
    run.model = parser.value(modelOption);
    if (parser.isSet(modelOption) && (run.model.isEmpty() || run.model.size() > 128))
        return usage(QStringLiteral("--model must hold 1-128 characters"), parser);
    const QString recipes = parser.value(recipesOption);
    if (recipes != QLatin1String("on") && recipes != QLatin1String("off"))
        return usage(QStringLiteral("--recipes must be on or off"), parser);
    run.recipes = recipes == QLatin1String("on");
    run.approver = parser.value(approverOption);
    if (run.approver != QLatin1String("workbench") && run.approver != QLatin1String("terminal") &&
        run.approver != QLatin1String("deny"))
        return usage(QStringLiteral("--approver must be workbench, terminal or deny"), parser);
    const std::variant<CommandOutput::AuthoritySwitches, QString> switches =
        CommandOutput::readAuthoritySwitches(parser, ordinaryOption, taskGrantsOption);
    if (const QString *problem = std::get_if<QString>(&switches))
        return usage(*problem, parser);
    run.ordinary = std::get<CommandOutput::AuthoritySwitches>(switches).ordinaryInteraction;
    run.taskGrants = std::get<CommandOutput::AuthoritySwitches>(switches).taskGrants;
    if (parser.isSet(purposeOption) && !parser.isSet(grantOption))
        return usage(QStringLiteral("--purpose is given with --grant"), parser);
    if (parser.isSet(grantOption))
        run.grant = parser.value(grantOption);
    if (parser.isSet(purposeOption))
        run.purpose = parser.value(purposeOption);
    if (parser.isSet(priceIn) || parser.isSet(priceOut)) {
        const std::optional<double> in = price(parser.value(priceIn));
        const std::optional<double> out = price(parser.value(priceOut));
        if (!in || !out)
            return usage(QStringLiteral("--price-in and --price-out are given together, each "
                                        "0-10000 USD per million tokens"),
                         parser);
        run.prices = TaskRunner::Price{*in, *out};
    }
    if (parser.isSet(budgetOption)) {
        const std::optional<int> bytes = CommandOutput::parseBudget(parser.value(budgetOption));
        if (!bytes)
            return usage(CommandOutput::kBudgetProblem, parser);
        run.budget = *bytes;
    }
    bool minutesOk = false;
    run.signInWaitMinutes = parser.value(signInWaitOption).toInt(&minutesOk);
    if (!minutesOk || run.signInWaitMinutes < 0 || run.signInWaitMinutes > 24 * 60)
        return usage(QStringLiteral("--sign-in-wait must be an integer from 0 to 1440"), parser);
    if (run.resuming) {
        run.resumeId = QUuid::fromString(parser.value(resumeOption));
        if (run.resumeId.isNull() || parser.value(resumeOption).size() != 36)
            return refuse(taskRunError(TaskRunFailure::NotFound));
    }

    if (parser.isSet(urlOption)) {
        const Result<QUrl> endpoint = ModelEndpoint::parse(parser.value(urlOption));
        if (!endpoint)
            return refuse(endpoint.error());
        run.endpoint = *endpoint;
    }
    run.profileId = parser.value(profileOption);
    return run;
}

namespace {

// Tests only: the process dies right after the act numbered by VEETBOT_TEST_KILL_AFTER_ACT.
std::function<void()> killAfterActHook(const TestOverrides &overrides)
{
    const std::optional<int> killAfter = overrides.killAfterAct();
    if (!killAfter)
        return {};
    auto count = std::make_shared<int>(0);
    return [count, limit = *killAfter] {
        if (++*count == limit)
            ::raise(SIGKILL);
    };
}

// The run's browser and the pipeline over it, built from the session's authority; a verified
// sign-in replaces both.
class RunBrowser
{
public:
    RunBrowser(const AgentSession &session, Approver &approver, EffectLedger *ledger,
               std::function<void()> afterDispatch, bool ownerAnswers)
        : m_session(session), m_approver(approver), m_ledger(ledger),
          m_afterDispatch(std::move(afterDispatch)), m_ownerAnswers(ownerAnswers)
    {
    }
    ~RunBrowser() { release(); }

    // A new browser, under the session's authority as it is now.
    void bind(std::unique_ptr<ServiceProvider> provider)
    {
        release();
        m_provider = std::move(provider);
        ToolPipeline::Options options = m_session.pipelineOptions();
        options.afterDispatchHook = m_afterDispatch;
        if (m_ownerAnswers)
            options.approvalWaitMs = kApprovalWaitMs; // the owner's time
        m_pipeline =
            std::make_unique<ToolPipeline>(m_provider.get(), m_approver, m_ledger, options);
    }
    ToolPipeline &pipeline() { return *m_pipeline; }
    // Nothing may be in flight: the browser and its lease go now.
    void release()
    {
        m_pipeline.reset();
        if (m_provider)
            m_provider->close();
        m_provider.reset();
    }

private:
    const AgentSession &m_session;
    Approver &m_approver;
    EffectLedger *m_ledger;
    std::function<void()> m_afterDispatch;
    bool m_ownerAnswers;
    std::unique_ptr<ServiceProvider> m_provider;
    std::unique_ptr<ToolPipeline> m_pipeline;
};

// A sign-in wall: the run waits for the owner, its browser released, until the profile
// service verified a sign-in of this profile (the profile READY again at a newer generation,
// with a new verification time). Then, once, a fresh lease and pipeline.
class SignInWall
{
public:
    struct Run
    {
        SqlStores &metadata;
        ProfileScope owner;
        QUuid id;
        QString profileId; // as the owner gave it, bound again after the sign-in
        QUuid profile;
        TestOverrides overrides;
        QUrl homePage;
        int waitMinutes = 0;
    };

    SignInWall(RunDriver &runner, Run run, AgentSession &session, RunBrowser &browser,
               ProgressLine &progress)
        : m_runner(runner), m_run(std::move(run)), m_session(session), m_browser(browser),
          m_progress(progress)
    {
        m_poll.setInterval(500);
        QObject::connect(&runner, &RunDriver::signInNeeded, &runner, [this] { suspend(); });
        QObject::connect(&m_poll, &QTimer::timeout, &runner, [this] { poll(); });
    }

private:
    void suspend()
    {
        const Result<int> suspended = m_run.metadata.taskRuns().suspendTaskRun(
            m_run.owner, m_run.id, m_runner.usage(), m_runner.currentOutcome());
        const Result<BrowserProfile> current =
            m_run.metadata.profiles().get(m_run.owner, m_run.profile);
        if (!suspended || !current) {
            m_runner.stopWaitingForSignIn();
            return;
        }
        m_wallGeneration = current->generation;
        m_verifiedBefore = current->lastVerifiedAt;
        m_browser.release();
        m_progress.clear();
        QTextStream(stderr) << "veetbot run: " << m_run.homePage.toString(QUrl::RemovePath)
                            << " asks to sign in. Sign in again in the workbench (Website Access) "
                               "or with `veetbot profiles sign-in "
                            << m_run.profile.toString(QUuid::WithoutBraces)
                            << "`; the run goes on by itself (waiting up to " << m_run.waitMinutes
                            << " min, Ctrl-C stops it)\n";
        m_deadline.setRemainingTime(qint64(m_run.waitMinutes) * 60 * 1000);
        m_poll.start();
    }

    void poll()
    {
        if (!m_runner.waitingForSignIn()) {
            m_poll.stop();
            return;
        }
        const Result<BrowserProfile> current =
            m_run.metadata.profiles().get(m_run.owner, m_run.profile);
        if (!current || current->status == ProfileStatus::Revoked || m_deadline.hasExpired()) {
            m_poll.stop();
            m_runner.stopWaitingForSignIn();
            return;
        }
        const bool verified = current->status == ProfileStatus::Ready &&
                              current->generation > m_wallGeneration && current->lastVerifiedAt &&
                              current->lastVerifiedAt != m_verifiedBefore;
        if (!verified)
            return;
        m_poll.stop();
        // Exactly once, whatever else saw the same sign-in.
        if (!m_run.metadata.taskRuns().resumeTaskRun(m_run.owner, m_run.id)) {
            m_runner.stopWaitingForSignIn();
            return;
        }
        Result<BoundProfile> fresh = bindProfile(m_run.profileId, m_run.overrides, m_run.id);
        if (!fresh) {
            QTextStream(stderr) << "veetbot run: the profile could not be used after the sign-in ("
                                << fresh.error().code << ")\n";
            m_runner.stopWaitingForSignIn();
            return;
        }
        m_rebound = std::make_unique<BoundProfile>(std::move(fresh).value());
        // The new generation's pins: a task grant of the old one no longer applies.
        bindProfileSession(m_session, *m_rebound, m_run.id);
        m_browser.bind(std::move(m_rebound->provider));
        if (m_session.activity) {
            ActivityEvent resumed;
            resumed.kind = QStringLiteral("sign_in.resumed");
            resumed.at = QDateTime::currentDateTimeUtc();
            resumed.setPage(m_run.homePage);
            m_session.activity(resumed);
        }
        QTextStream(stderr) << "veetbot run: signed in again; the run goes on\n";
        m_runner.resumeAfterSignIn(m_browser.pipeline());
    }

    RunDriver &m_runner;
    Run m_run;
    AgentSession &m_session;
    RunBrowser &m_browser;
    ProgressLine &m_progress;
    QTimer m_poll;
    QDeadlineTimer m_deadline;
    qint64 m_wallGeneration = 0;
    std::optional<QDateTime> m_verifiedBefore;
    std::unique_ptr<BoundProfile> m_rebound;
};

// The run's records: a new run's task record and timeline run, or a resumed run's timeline
// again; then this attempt (its number).
Result<int> recordAttempt(AgentSession &session, SqlStores &metadata, const ProfileScope &owner,
                          const QUuid &runId, const BoundProfile &bound, const RunArguments &run,
                          const QString &driver, const QString &taskDigest,
                          const QUuid &ledgerInstance)
{
    if (!run.resuming) {
        TaskRunRecord record;
        record.id = runId;
        record.profileId = bound.profile.id;
        record.taskDigest = taskDigest;
        record.model = driver;
        if (const Result<Unit> created = metadata.taskRuns().createTaskRun(owner, record); !created)
            return created.error();
        ActivityRun activity;
        activity.id = runId;
        activity.kind = QStringLiteral("task");
        activity.profileId = bound.profile.id;
        activity.website = bound.policy.origins().isEmpty()
                               ? QString()
                               : bound.policy.origins().constFirst().toString();
        activity.startedAt = QDateTime::currentDateTimeUtc();
        (void)recordOnTimeline(session, metadata, activity, QStringLiteral("run"));
    } else {
        SqlStores *timeline = &metadata;
        session.activity = [timeline, owner, runId](const ActivityEvent &event) {
            (void)timeline->timeline().appendEvent(owner, runId, event);
        };
    }
    return metadata.taskRuns().beginTaskRunAttempt(owner, runId, ledgerInstance, ::getpid());
}

// The model loop's options from the run's arguments, the bound profile and what an earlier
// attempt left.
TaskRunner::Options taskOptions(const RunArguments &run, const BoundProfile &bound,
                                const Earlier &earlier, const EarlierActs &earlierActs)
{
    TaskRunner::Options options;
    options.task = run.task;
    options.model = run.model;
    options.tools = AgentTools::chatFunctions(bound.policy);
    options.projectionBudget = run.budget;
    options.price = run.prices;
    options.usage = earlier.usage;
    options.resumed = run.resuming;
    options.uncertainActs = earlierActs.uncertain;
    options.sentActs = earlierActs.sent;
    options.waitForSignIn = run.signInWaitMinutes > 0;
    options.signInSuspensions = earlier.signInSuspensions;
    if (!bound.policy.origins().isEmpty())
        options.homePage = QUrl(bound.policy.origins().constFirst().toString() + u'/');
    return options;
}

} // namespace

namespace {

// The recipe that carries the run, and the profile origin it serves: the one `veetbot recipes
// run` names, else (a new run with --recipes on) the one whose intent is the whole task. A
// resumed run always goes on with the model.
struct ChosenRecipe
{
    Recipe recipe;
    Origin origin;
};
Result<std::optional<ChosenRecipe>>
chooseRecipe(const RunArguments &run, const QList<Origin> &origins, const TestOverrides &overrides)
{
    if (run.resuming || (!run.recipes && run.recipeId.isEmpty()))
        return std::optional<ChosenRecipe>();
    Result<RecipeCatalog> catalog = RecipeCatalog::load(overrides);
    if (!catalog)
        return catalog.error();
    for (const RecipeCatalog::Refusal &refusal : catalog->refusals())
        QTextStream(stderr) << "veetbot run: the recipe file " << refusal.file << " is not used ("
                            << refusal.error.code << ")\n";
    if (!run.recipeId.isEmpty()) {
        const std::optional<Recipe> named = catalog->find(run.recipeId);
        if (!named)
            return recipeError(QStringLiteral("recipe.not_found"));
        for (const Origin &origin : origins) {
            if (named->serves(origin, overrides))
                return std::optional<ChosenRecipe>(ChosenRecipe{*named, origin});
        }
        return recipeError(QStringLiteral("recipe.wrong_website"));
    }
    for (const Origin &origin : origins) {
        if (std::optional<Recipe> chosen = catalog->select(run.task, origin, overrides))
            return std::optional<ChosenRecipe>(ChosenRecipe{std::move(*chosen), origin});
    }
    return std::optional<ChosenRecipe>();
}

// Runs a checked run to its end: what became of it.
RunReport executeRun(const RunArguments &run, const ModelKeyReader &readKey)
{
    RunReport report;
    const auto refused = [&report](const Error &error, int exitCode = RunExit::kRefused) {
        report.status = exitCode == RunExit::kNeedsUser ? runStatusString(RunStatus::NeedsUser)
                                                        : runStatusString(RunStatus::Refused);
        report.code = error.code;
        report.exitCode = refuse(error, exitCode);
        return report;
    };
    const bool resuming = run.resuming;
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides) {
        QTextStream(stderr) << "veetbot run: " << overrides.error().message << '\n';
        report.exitCode = RunExit::kUsage;
        return report;
    }
    SecretBytes apiKey = run.hasModel() ? modelApiKey(readKey) : SecretBytes();
    const QString taskDigest = Sha256::hex(run.task.toUtf8());

    // The run's record: a new one, or the interrupted one given.
    Result<MetadataStore> store = openMetadataStore(QString());
    if (!store)
        return refused(store.error());
    const ProfileScope owner = store->scope();
    Earlier earlier{run.profileId};
    if (resuming) {
        Result<Earlier> resumed = earlierRun(*store->repository, owner, run.resumeId, taskDigest);
        if (!resumed)
            return refused(resumed.error());
        earlier = std::move(resumed).value();
    }

    // The recipe that carries the run, from the profile's origins as the store has them: a task
    // that neither a recipe nor a model can carry is refused before the service is reached (it
    // would be started for nothing).
    const Result<BrowserProfile> stored =
        store->repository->profiles().get(owner, QUuid::fromString(earlier.profileId));
    if (!stored)
        return refused(Error::fromReason(ReasonCode::ProfileUnavailable)); // unknown or another's
    Result<std::optional<ChosenRecipe>> recipe =
        chooseRecipe(run, stored->allowedOrigins, *overrides);
    if (!recipe)
        return refused(recipe.error());
    if (!*recipe && !run.hasModel())
        return refused(Error{QStringLiteral("run.model_required"),
                             QStringLiteral("No reviewed recipe is this task: give --model-url "
                                            "and --model.")},
                       RunExit::kUsage);

    // The profile's browser, bound now: a profile that may not be used is refused before any
    // model work. One needing the owner's sign-in is the run's needs_user.
    // The run's id is its lease holder's and its timeline run's.
    const QUuid runId = resuming ? run.resumeId : BrowserProfile::newId();
    Result<BoundProfile> bound = bindProfile(earlier.profileId, *overrides, runId);
    if (!bound) {
        const bool needsOwner =
            bound.error().code == reasonCodeString(ReasonCode::AuthenticationRequired) ||
            bound.error().code == reasonCodeString(ReasonCode::NeedsUser);
        return refused(bound.error(), needsOwner ? RunExit::kNeedsUser : RunExit::kRefused);
    }
    if (run.schedule && bound->profile.generation != run.pinnedGeneration)
        return refused(scheduleError(ScheduleFailure::ProfileChanged));
    // The origins the recipe was chosen for are still the bound profile's.
    if (*recipe && !bound->policy.contains((*recipe)->origin))
        return refused(recipeError(QStringLiteral("recipe.wrong_website")));
    const QString driverName =
        *recipe ? QStringLiteral("recipe:") + (*recipe)->recipe.reference() : run.model;

    // Opening the ledger ends the acts a dead attempt left mid-way: one whose dispatch had
    // started is outcome_unknown, and never sent again.
    std::unique_ptr<EffectLedger> ledger = openAgentLedger(QStringLiteral("run"));
    if (!ledger)
        return refused(ledgerError(LedgerFailure::Unavailable));
    EarlierActs earlierActs;
    if (resuming) {
        Result<EarlierActs> read = actsOf(*ledger, earlier.ledgers);
        if (!read)
            return refused(read.error());
        earlierActs = std::move(read).value();
    }

    // `veetbot mcp --profile ID --trust-turns owner`'s session: the profile service's browser
    // is an isolated one (AgentSession's default) and every act it runs under ordinary
    // interaction, a task grant or a standing grant carries the same dispatch constraint.
    AgentSession session;
    session.overrides = *overrides;
    bindProfileSession(session, bound.value(), runId);
    // The owner's task is the only owner-authored message of the run; a schedule's occurrence
    // is opened by the scheduler (ordinary interaction and a pinned standing grant, never a
    // task grant).
    session.turns = run.schedule ? TurnSource::Schedule : TurnSource::Owner;
    session.ordinaryInteraction = run.ordinary;
    session.taskGrants = run.taskGrants;
    if (!run.grant.isEmpty()) {
        if (const Result<Unit> used =
                useStandingGrant(session, *bound->repository, run.grant, run.purpose);
            !used)
            return refused(used.error());
    }
    session.ledger = ledger.get();
    SqlStores &metadata = *bound->repository;
    // This process's presence on the run: held before any look at abandoned runs, so a resumed
    // run (whose earlier process died) is this process's again and not ended as interrupted.
    RunPresence presence;
    {
        const QString dataDirectory = store->config.dataDirectory();
        Result<RunPresence> held = RunPresence::hold(dataDirectory, runId);
        if (held)
            presence = std::move(held).value();
        RunPresence::endAbandonedRuns(metadata.timeline(), owner, dataDirectory);
    }
    const Result<int> attempt = recordAttempt(session, metadata, owner, runId, bound.value(), run,
                                              driverName, taskDigest, ledger->instanceId());
    if (!attempt)
        return refused(attempt.error());
    QTextStream(stderr) << "veetbot run: run " << runId.toString(QUuid::WithoutBraces)
                        << (resuming ? QStringLiteral(" resumed (attempt %1)").arg(*attempt)
                                     : QStringLiteral(" started"))
                        << (*recipe ? QStringLiteral(" with the recipe ") +
                                          (*recipe)->recipe.reference()
                                    : QString())
                        << '\n';

    RunApprover approval(run.approver);
    RunBrowser browser(session, *approval.approver, ledger.get(), killAfterActHook(*overrides),
                       run.approver != QLatin1String("deny"));
    browser.bind(std::move(bound.value().provider));
    ChatClient chat(run.endpoint, std::move(apiKey));

    ProgressLine progress;
    TaskRunner::Options runOptions = taskOptions(run, *bound, earlier, earlierActs);
    runOptions.ledger = ledger.get();
    runOptions.activity = session.activity;
    runOptions.progress = [&metadata, owner, runId](const RunUsage &usage, RunOutcome outcome) {
        (void)metadata.taskRuns().saveTaskRunProgress(owner, runId, usage, outcome);
    };
    const bool priced = run.prices.has_value();
    runOptions.status = [&progress, priced](const RunUsage &usage, const QString &phase) {
        progress.show(usage, phase, priced);
    };
    // The recipe, or the model loop: the same pipeline, records and wall either way.
    std::unique_ptr<RunDriver> driver;
    if (*recipe) {
        RecipeRunner::Options recipeOptions{(*recipe)->recipe, (*recipe)->origin};
        recipeOptions.ledger = ledger.get();
        recipeOptions.progress = runOptions.progress;
        recipeOptions.status = runOptions.status;
        driver = std::make_unique<RecipeRunner>(browser.pipeline(), std::move(recipeOptions));
    } else {
        driver = std::make_unique<TaskRunner>(browser.pipeline(), chat, runOptions);
    }
    RunDriver &runner = *driver;
    const SignInWall wall(runner,
                          {metadata, owner, runId, earlier.profileId, bound->profile.id, *overrides,
                           runOptions.homePage, run.signInWaitMinutes},
                          session, browser, progress);

    const std::unique_ptr<QSocketNotifier> signals = cancelOnSignals(runner);
    // A schedule's occurrence ends at its deadline, truthfully cancelled.
    QTimer deadline;
    if (run.deadlineMinutes > 0) {
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, &runner, [&runner] { runner.cancel(); });
        deadline.start(std::chrono::minutes(run.deadlineMinutes));
    }

    RunDriver::Result result;
    QObject::connect(&runner, &RunDriver::finished, &runner,
                     [&result](const RunDriver::Result &finished) {
                         result = finished;
                         QCoreApplication::exit(0);
                     });
    runner.start();
    QCoreApplication::exec();
    progress.clear();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    // Why it stopped, recorded before anything is printed.
    const Result<TaskRunRecord> ended = metadata.taskRuns().endTaskRun(
        owner, runId, result.status, result.outcome, result.stopCode, result.usage);
    if (!ended)
        QTextStream(stderr) << "veetbot run: the run's record could not be ended ("
                            << ended.error().code << ")\n";
    (void)metadata.timeline().endRun(owner, runId, runStatusString(result.status));
    presence.release();
    endSessionTaskGrant(metadata, owner, runId);
    browser.release();

    printOutcome(runId, result, *recipe ? (*recipe)->recipe.reference() : QString());
    report.exitCode = exitCodeFor(result.status);
    report.run = runId;
    report.status = runStatusString(result.status);
    report.code = result.stopCode;
    report.unansweredCards = approval.unanswered();
    return report;
}

} // namespace

int runRunCommand(const QStringList &arguments, const ModelKeyReader &readKey)
{
    std::variant<RunArguments, int> parsed = parseRunArguments(arguments);
    if (const int *exitCode = std::get_if<int>(&parsed))
        return *exitCode;
    return executeRun(std::get<RunArguments>(parsed), readKey).exitCode;
}

int runRecipe(const QString &recipeId, const QStringList &arguments, const ModelKeyReader &readKey)
{
    for (const QString &argument : arguments) {
        if (argument == QLatin1String("--task") || argument.startsWith(QLatin1String("--task=")) ||
            argument == QLatin1String("--resume") ||
            argument.startsWith(QLatin1String("--resume="))) {
            QTextStream(stderr) << "veetbot recipes: run takes neither --task nor --resume: the "
                                   "recipe is the task\n";
            return RunExit::kUsage;
        }
    }
    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return refuse(overrides.error(), RunExit::kUsage);
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(*overrides);
    if (!catalog)
        return refuse(catalog.error());
    const std::optional<Recipe> recipe = catalog->find(recipeId);
    if (!recipe)
        return refuse(recipeError(QStringLiteral("recipe.not_found")));
    // The run's task is the recipe's first intent, as if the owner had asked for it.
    std::variant<RunArguments, int> parsed = parseRunArguments(
        QStringList{arguments.value(0), QStringLiteral("--task"), recipe->intents.constFirst()} +
        arguments.mid(1));
    if (const int *exitCode = std::get_if<int>(&parsed))
        return *exitCode;
    RunArguments run = std::get<RunArguments>(std::move(parsed));
    run.recipeId = recipeId;
    return executeRun(run, readKey).exitCode;
}

RunReport runScheduledOccurrence(const ScheduledRun &occurrence, const ModelKeyReader &readKey)
{
    RunArguments run;
    run.task = occurrence.task;
    run.model = occurrence.model; // a schedule always names a model; its task may be a recipe's
    run.endpoint = occurrence.endpoint;
    // Anything that needs a card is asked at the workbench when it runs, else refused.
    run.approver = QStringLiteral("workbench");
    if (occurrence.grant)
        run.grant = occurrence.grant->toString(QUuid::WithoutBraces);
    run.budget = occurrence.budget;
    run.signInWaitMinutes = 0; // nobody is there to sign in: needs_user at once
    run.profileId = occurrence.profileId.toString(QUuid::WithoutBraces);
    run.schedule = occurrence.schedule;
    run.pinnedGeneration = occurrence.generation;
    run.deadlineMinutes = occurrence.deadlineMinutes;
    return executeRun(run, readKey);
}

} // namespace veetbot
