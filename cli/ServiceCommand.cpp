#include "ServiceCommand.h"

#include "CommandOutput.h"
#include "client/ServiceAccess.h"

#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QJsonObject>
#include <QThread>

namespace veetbot {

namespace {
using namespace CommandOutput;

QJsonObject statusOf(const ServiceConnection &connection)
{
    const QJsonObject description = connection.description();
    QJsonObject status{{QStringLiteral("running"), true},
                       {QStringLiteral("ready"), connection.isReady()},
                       {QStringLiteral("socket"), connection.location().socketPath()},
                       {QStringLiteral("pid"), description.value(QStringLiteral("pid"))},
                       {QStringLiteral("version"), description.value(QStringLiteral("version"))},
                       {QStringLiteral("browsers"), description.value(QStringLiteral("browsers"))}};
    if (description.contains(QStringLiteral("reason")))
        status.insert(QStringLiteral("reason"), description.value(QStringLiteral("reason")));
    const QString resolve = description.value(QStringLiteral("test_resolve")).toString();
    if (!resolve.isEmpty())
        status.insert(QStringLiteral("test_resolve"), resolve);
    return status;
}

} // namespace

int runServiceCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("The profile service of this data directory.\n\n"
                       "  start   start it unless it runs; wait until it is ready\n"
                       "  stop    stop it (requests in progress end first)\n"
                       "  status  whether it runs and is ready (exit 0 ready, 3 not)"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("action"),
                                 QStringLiteral("start, stop or status."));
    const QString command = QStringLiteral("service");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 1 ||
        (action != QLatin1String("start") && action != QLatin1String("stop") &&
         action != QLatin1String("status")))
        return usage(command, QStringLiteral("unknown or missing action"), parser);

    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return printError(overrides.error());
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return printError(config.error());
    const Result<ServiceLocation> location =
        ServiceLocation::resolve(config->dataDirectory(), QProcessEnvironment::systemEnvironment());
    if (!location)
        return printError(location.error());

    if (action == QLatin1String("start")) {
        const Result<ServiceConnection> connection =
            connectToService(*config, *overrides, ServiceConnection::Start::OnDemand);
        if (!connection)
            return printError(connection.error());
        printJson(statusOf(*connection));
        return connection->isReady() ? kExitOk : kExitFailure;
    }

    const Result<ServiceConnection> connection =
        connectToService(*config, *overrides, ServiceConnection::Start::Never);
    if (!connection) {
        if (connection.error().code != ServiceClient::unavailable().code)
            return printError(connection.error());
        printJson(QJsonObject{{QStringLiteral("running"), false},
                              {QStringLiteral("ready"), false},
                              {QStringLiteral("socket"), location->socketPath()}});
        return action == QLatin1String("stop") ? kExitOk : kExitFailure;
    }
    if (action == QLatin1String("status")) {
        printJson(statusOf(*connection));
        return connection->isReady() ? kExitOk : kExitFailure;
    }
    // stop: asked, then waited for until the socket no longer answers.
    const Result<HttpResponse> stopping =
        connection->client()->post("/v1/service:stop", QByteArray(), QByteArray());
    if (!stopping || stopping->status != 202)
        return printError(ServiceClient::failed());
    // Stopped once its socket is silent and its lock free: the process has ended.
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        if (!connection->client()->get("/health/live") && !location->isLockHeld())
            break;
        QThread::msleep(50);
    }
    if (connection->client()->get("/health/live") || location->isLockHeld())
        return printError(ServiceClient::failed());
    printJson(QJsonObject{{QStringLiteral("running"), false},
                          {QStringLiteral("ready"), false},
                          {QStringLiteral("socket"), location->socketPath()}});
    return kExitOk;
}

} // namespace veetbot
