#include "ObserveCommand.h"

#include "AgentComposition.h"
#include "CommandOutput.h"
#include "ProfileBinding.h"

#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "tools/ModelProjection.h"
#include "tools/ObserveTool.h"
#include "tools/ToolFailure.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>
#include <optional>

namespace veetbot {

using CommandOutput::printError;
using CommandOutput::printJson;
constexpr int kExitFailure = CommandOutput::kExitFailure;
constexpr int kExitUsage = CommandOutput::kExitUsage;

namespace {
int usage(const QString &problem, const QCommandLineParser &parser)
{
    return CommandOutput::usage(QStringLiteral("observe"), problem, parser);
}

// --extract: a browser.observe extract object without its revision (filled in from the
// navigation's observation), checked as one with a revision; else nothing.
std::optional<QJsonObject> extractArgumentsOf(const QString &text)
{
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8());
    QJsonObject arguments = document.object();
    if (!document.isObject() || arguments.contains(QStringLiteral("revision")))
        return std::nullopt;
    arguments.insert(QStringLiteral("revision"), QStringLiteral("r"));
    if (!ExtractRequest::fromJson(arguments))
        return std::nullopt;
    return arguments;
}

// --wait-for: a browser.observe wait_for object; else nothing.
std::optional<VisiblePredicate> waitPredicateOf(const QString &text)
{
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8());
    if (!document.isObject())
        return std::nullopt;
    const Result<VisiblePredicate> predicate = VisiblePredicate::fromJson(document.object());
    if (!predicate)
        return std::nullopt;
    return *predicate;
}
} // namespace

namespace {

// Navigates to `url`, then reads it as asked (a wait, an extraction, or the page as it is),
// prints the result, and ends the event loop with its exit code.
int observeOnce(BrowserProvider &provider, const QUrl &url, std::optional<int> budgetBytes,
                const std::function<void()> &signInWall,
                const std::optional<QJsonObject> &extractArguments,
                const std::optional<VisiblePredicate> &waitPredicate)
{
    int exitCode = kExitFailure;
    const auto print = [&exitCode, budgetBytes, &provider,
                        &signInWall](const Result<BrowserObservation> &result) {
        if (result && signInWall && observationShowsSignIn(provider, *result)) {
            signInWall();
            exitCode = printError(ToolFailure::signInRequired());
        } else if (result && budgetBytes) {
            // The exact bytes the model would receive, then a newline.
            const QByteArray bytes = ModelProjection::project(*result, *budgetBytes) + '\n';
            std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
            std::fflush(stdout);
            exitCode = 0;
        } else if (result) {
            printJson(result->toJson());
            exitCode = 0;
        } else {
            exitCode = printError(result.error());
        }
        QCoreApplication::exit(exitCode);
    };
    // Observing only reads: an address that would write is refused at the request stage
    // (tool.browser.write_requires_approval), nothing sent.
    NavigateRequest navigation{url};
    navigation.guarded = true;
    provider.navigate(navigation, [&provider, &print, &signInWall, extractArguments,
                                   waitPredicate](Result<BrowserObservation> result) {
        // The page the navigation landed on is screened before any further read of it.
        if (result && signInWall && observationShowsSignIn(provider, *result)) {
            print(result);
            return;
        }
        if (result && waitPredicate) {
            ObserveTool::run(provider, ObserveRequest::waitFor(*waitPredicate), print);
            return;
        }
        if (!result || !extractArguments) {
            print(result);
            return;
        }
        // Read the collection of exactly the revision just observed.
        QJsonObject arguments = *extractArguments;
        arguments.insert(QStringLiteral("revision"), result->revision);
        const Result<ExtractRequest> request = ExtractRequest::fromJson(arguments);
        if (!request) {
            print(request.error());
            return;
        }
        provider.observe(ObserveRequest::extract(*request), print);
    });
    QCoreApplication::exec();
    provider.close();
    return exitCode;
}

} // namespace

int runObserveCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Open one allowed public HTTPS page in an isolated browser and print "
                       "its observation as JSON. With --profile, the browser is the profile "
                       "service's, signed in as that profile, and its origins are the "
                       "profile's."));
    parser.addHelpOption();
    const QCommandLineOption allowOrigin(
        QStringLiteral("allow-origin"),
        QStringLiteral("An exact origin the page may navigate to (https://host[:port]). "
                       "Repeat for several; at least one is required."),
        QStringLiteral("origin"));
    parser.addOption(allowOrigin);
    const QCommandLineOption profileOption(
        QStringLiteral("profile"),
        QStringLiteral("Browse as this READY browser profile (its id); its allowed origins are "
                       "the policy, so --allow-origin is not given with it."),
        QStringLiteral("id"));
    parser.addOption(profileOption);
    const QCommandLineOption engine = CommandOutput::engineOption();
    parser.addOption(engine);
    const QCommandLineOption budget(
        QStringLiteral("budget"),
        QStringLiteral("Print the model projection within this many bytes (1024-1048576) "
                       "instead of the canonical observation."),
        QStringLiteral("bytes"));
    parser.addOption(budget);
    const QCommandLineOption extract(
        QStringLiteral("extract"),
        QStringLiteral("After the page settled, read one visible table, list or form into typed "
                       "rows: a browser.observe extract object without its revision, e.g. "
                       "{\"kind\":\"table\",\"index\":0,\"columns\":[{\"name\":\"price\","
                       "\"type\":\"number\"}],\"limit\":10}."),
        QStringLiteral("json"));
    parser.addOption(extract);
    const QCommandLineOption waitFor(
        QStringLiteral("wait-for"),
        QStringLiteral("After the page settled, poll the first window until exactly one visible "
                       "control has this role and name (and state): a browser.observe wait_for "
                       "object, e.g. {\"role\":\"button\",\"name\":\"Pay\","
                       "\"timeout_ms\":3000}. The observation carries the wait_for outcome."),
        QStringLiteral("json"));
    parser.addOption(waitFor);
    parser.addPositionalArgument(QStringLiteral("url"),
                                 QStringLiteral("The public HTTPS URL to observe."));
    if (!parser.parse(arguments))
        return usage(parser.errorText(), parser);
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return usage(QStringLiteral("exactly one URL is required"), parser);
    if (parser.isSet(profileOption) && parser.isSet(allowOrigin))
        return usage(QStringLiteral("--profile brings its own origins; --allow-origin is not "
                                    "given with it"),
                     parser);
    if (!parser.isSet(allowOrigin) && !parser.isSet(profileOption))
        return usage(QStringLiteral("at least one --allow-origin is required; a URL never "
                                    "authorizes its own origin"),
                     parser);
    if (parser.isSet(profileOption) && parser.isSet(engine))
        return usage(CommandOutput::engineWithProfileProblem(), parser);
    const CommandOutput::EngineChoice chosen =
        CommandOutput::chooseEngine(parser, engine, QStringLiteral("observe"));
    if (chosen.exitCode)
        return *chosen.exitCode;

    std::optional<int> budgetBytes;
    if (parser.isSet(budget)) {
        budgetBytes = CommandOutput::parseBudget(parser.value(budget));
        if (!budgetBytes)
            return usage(CommandOutput::kBudgetProblem, parser);
    }

    // The extract object is checked before anything starts; its revision is filled in from
    // the navigation's observation.
    std::optional<QJsonObject> extractArguments;
    if (parser.isSet(extract)) {
        extractArguments = extractArgumentsOf(parser.value(extract));
        if (!extractArguments)
            return usage(QStringLiteral("--extract must be a browser.observe extract object "
                                        "without a revision"),
                         parser);
    }

    std::optional<VisiblePredicate> waitPredicate;
    if (parser.isSet(waitFor)) {
        if (extractArguments)
            return usage(QStringLiteral("--wait-for and --extract are exclusive"), parser);
        waitPredicate = waitPredicateOf(parser.value(waitFor));
        if (!waitPredicate)
            return usage(QStringLiteral("--wait-for must be a browser.observe wait_for object"),
                         parser);
    }

    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides) {
        QTextStream(stderr) << "veetbot observe: " << overrides.error().message << '\n';
        return kExitUsage;
    }
    const Result<QUrl> url = PublicUrl::parse(positional.first(), *overrides);
    if (!url)
        return printError(url.error());
    std::unique_ptr<BrowserProvider> browser;
    // With --profile: a page that asks to sign in is the owner's to answer, as it is for the
    // agents (`veetbot mcp --profile`): nothing of it is printed, and the profile needs its owner.
    std::function<void()> signInWall;
    std::unique_ptr<SqlStores> metadata;
    if (parser.isSet(profileOption)) {
        Result<BoundProfile> bound = bindProfile(parser.value(profileOption), *overrides);
        if (!bound)
            return printError(bound.error());
        if (!bound->policy.allowsNavigation(*url, *overrides))
            return printError(Error::fromReason(ReasonCode::UrlDisallowed));
        browser = std::move(bound.value().provider);
        metadata = std::move(bound.value().repository);
        signInWall = [store = metadata.get(), owner = bound->owner, profile = bound->profile.id,
                      generation = bound->profile.generation] {
            profileNeedsOwner(*store, owner, profile, generation);
        };
    } else {
        const Result<QList<Origin>> origins =
            Origin::parseAll(parser.values(allowOrigin), *overrides);
        if (!origins)
            return printError(origins.error());
        const Result<OriginPolicy> policy = OriginPolicy::create(*origins);
        if (!policy)
            return printError(policy.error());
        if (!policy->allowsNavigation(*url, *overrides))
            return printError(Error::fromReason(ReasonCode::UrlDisallowed));
        IsolatedBrowserProvider::Options options;
        options.engine = chosen.engine;
        browser = std::make_unique<IsolatedBrowserProvider>(*policy, *overrides, options);
    }
    return observeOnce(*browser, *url, budgetBytes, signInWall, extractArguments, waitPredicate);
}

} // namespace veetbot
