#include "ServiceIdentity.h"

#include "domain/Sha256.h"

#include <QDir>

namespace veetbot {

QString testSettingsDigest(const TestOverrides &overrides)
{
    if (overrides.isEmpty())
        return {};
    return Sha256::hex((overrides.resolveSpec() + QLatin1Char('\n') + overrides.caPath() +
                        QLatin1Char('\n') + overrides.clockFile() + QLatin1Char('\n') +
                        QString::number(overrides.verificationDeadlineMs().value_or(0)))
                           .toUtf8());
}

QString dataDirectoryDigest(const QString &dataDirectory)
{
    return Sha256::hex(QDir::cleanPath(dataDirectory).toUtf8());
}

} // namespace veetbot
