#include "ServiceAccess.h"

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
    options.programPath =
        QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-profile-service");
    options.notice = [](const QString &notice) {
        QTextStream(stderr) << "veetbot: " << notice << '\n';
    };
    return ServiceConnection::connect(options, start);
}

} // namespace veetbot
