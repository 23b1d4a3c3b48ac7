#include "LocalConfiguration.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUuid>

namespace veetbot {

namespace {
const Error kUnavailable{QStringLiteral("config.unavailable"),
                         QStringLiteral("The local data directory cannot be used.")};
const Error kInvalid{QStringLiteral("config.invalid"),
                     QStringLiteral("The local configuration file is not valid; it was left "
                                    "unchanged.")};

bool makePrivateDirectory(const QString &path)
{
    if (!QDir().mkpath(path))
        return false;
    return QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                           QFileDevice::ExeOwner);
}

bool isIdentifier(const QJsonValue &value)
{
    return value.isString() && !QUuid::fromString(value.toString()).isNull() &&
           value.toString().size() == 36;
}
} // namespace

Result<LocalConfiguration> LocalConfiguration::load()
{
    LocalConfiguration configuration;
    const QString dataOverride = qEnvironmentVariable("VEETBOT_DATA_DIR");
    configuration.m_dataDirectory =
        dataOverride.isEmpty()
            ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                  QStringLiteral("/veetbot")
            : QDir::cleanPath(QDir(dataOverride).absolutePath());
    configuration.m_keyDirectory = qEnvironmentVariable("VEETBOT_KEY_DIR");
    if (!makePrivateDirectory(configuration.m_dataDirectory))
        return kUnavailable;

    const QString path = configuration.m_dataDirectory + QStringLiteral("/config.json");
    QFile file(path);
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly))
            return kUnavailable;
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(file.read(64 * 1024), &error);
        const QJsonObject object = document.object();
        if (error.error != QJsonParseError::NoError || !document.isObject() ||
            !isIdentifier(object.value(QStringLiteral("tenant"))) ||
            !isIdentifier(object.value(QStringLiteral("principal"))))
            return kInvalid;
        configuration.m_tenant = object.value(QStringLiteral("tenant")).toString();
        configuration.m_principal = object.value(QStringLiteral("principal")).toString();
        return configuration;
    }

    // First use: the desktop's tenant and principal, created once and kept.
    configuration.m_tenant = QUuid::createUuid().toString(QUuid::WithoutBraces);
    configuration.m_principal = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QSaveFile save(path);
    if (!save.open(QIODevice::WriteOnly))
        return kUnavailable;
    save.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    save.write(QJsonDocument(QJsonObject{{QStringLiteral("tenant"), configuration.m_tenant},
                                         {QStringLiteral("principal"), configuration.m_principal}})
                   .toJson());
    if (!save.commit())
        return kUnavailable;
    return configuration;
}

} // namespace veetbot
