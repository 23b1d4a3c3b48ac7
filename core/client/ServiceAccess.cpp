#include "ServiceAccess.h"

#include "approval/WorkbenchChannel.h"
#include "service/api/ServiceLocation.h"
#include "service/client/ServiceCalls.h"

#include <QCoreApplication>
#include <QTextStream>

namespace veetbot {

Result<ServiceConnection> connectToService(const LocalConfiguration &configuration,
                                           const TestOverrides &overrides,
                                           ServiceConnection::Start start)
{
    ServiceConnection::Options options;
    options.dataDirectory = configuration.dataDirectory();
    options.overrides = overrides;
    // A running service of another version is restarted when idle (an upgraded package).
    options.version = QCoreApplication::applicationVersion();
    options.programPath =
        QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-profile-service");
    options.notice = [](const QString &notice) {
        QTextStream(stderr) << "veetbot: " << notice << '\n';
    };
    return ServiceConnection::connect(options, start);
}

Result<QString> workbenchSocketPath()
{
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return config.error();
    const Result<ServiceLocation> location =
        ServiceLocation::resolve(config->dataDirectory(), QProcessEnvironment::systemEnvironment());
    if (!location)
        return location.error();
    if (const Result<Unit> made = location->ensureRuntimeDirectory(); !made)
        return made.error();
    return WorkbenchChannel::socketPath(location->runtimeDirectory());
}

Result<LiveFrame> liveFrame(const TestOverrides &overrides, const ProfileScope &owner,
                            const QUuid &run)
{
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return config.error();
    const Result<ServiceConnection> service =
        connectToService(*config, overrides, ServiceConnection::Start::Never);
    if (!service)
        return service.error();
    return ServiceCalls::liveFrame(*service->client(), owner, run.toString(QUuid::WithoutBraces));
}

} // namespace veetbot
