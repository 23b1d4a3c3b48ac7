#include "LocalConfiguration.h"

#include "domain/web/BrowserEngine.h"

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

const QLatin1String kFileName("/config.json");

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

QString absoluteOf(const QString &path)
{
    return QDir::cleanPath(QDir(path).absolutePath());
}

struct Identity
{
    QString tenant;
    QString principal;
    std::optional<BrowserEngine> engine; // "engine": the browsers the profile service starts
};

// The tenant and principal of an existing file; config.invalid when it does not parse.
Result<Identity> readIdentity(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return kUnavailable;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.read(64 * 1024), &error);
    const QJsonObject object = document.object();
    if (error.error != QJsonParseError::NoError || !document.isObject() ||
        !isIdentifier(object.value(QStringLiteral("tenant"))) ||
        !isIdentifier(object.value(QStringLiteral("principal"))))
        return kInvalid;
    Identity identity{object.value(QStringLiteral("tenant")).toString(),
                      object.value(QStringLiteral("principal")).toString(), std::nullopt};
    if (object.contains(QLatin1String("engine"))) {
        identity.engine = browserEngineFromName(object.value(QLatin1String("engine")).toString());
        if (!identity.engine)
            return kInvalid; // a name no engine has
    }
    return identity;
}

// Writes the file whole or not at all (0600).
Result<Unit> writeIdentity(const QString &path, const Identity &identity)
{
    QSaveFile save(path);
    if (!save.open(QIODevice::WriteOnly))
        return kUnavailable;
    save.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QJsonObject object{{QStringLiteral("tenant"), identity.tenant},
                       {QStringLiteral("principal"), identity.principal}};
    if (identity.engine)
        object.insert(QStringLiteral("engine"), browserEngineName(*identity.engine));
    save.write(QJsonDocument(object).toJson());
    if (!save.commit())
        return kUnavailable;
    return Unit{};
}
} // namespace

LocalConfiguration::Locations
LocalConfiguration::Locations::fromEnvironment(const QProcessEnvironment &environment)
{
    Locations locations;
    const QString dataOverride = environment.value(QStringLiteral("VEETBOT_DATA_DIR"));
    const QString configOverride = environment.value(QStringLiteral("VEETBOT_CONFIG_DIR"));
    locations.dataDirectory =
        dataOverride.isEmpty()
            ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                  QStringLiteral("/veetbot")
            : absoluteOf(dataOverride);
    if (!configOverride.isEmpty())
        locations.configDirectory = absoluteOf(configOverride);
    else if (!dataOverride.isEmpty())
        locations.configDirectory = locations.dataDirectory;
    else
        locations.configDirectory =
            QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
            QStringLiteral("/veetbot");
    locations.keyDirectory = environment.value(QStringLiteral("VEETBOT_KEY_DIR"));
    return locations;
}

Result<LocalConfiguration> LocalConfiguration::load()
{
    return load(Locations::fromEnvironment(QProcessEnvironment::systemEnvironment()));
}

Result<LocalConfiguration> LocalConfiguration::load(const Locations &locations)
{
    LocalConfiguration configuration;
    configuration.m_dataDirectory = locations.dataDirectory;
    configuration.m_configDirectory = locations.configDirectory;
    configuration.m_keyDirectory = locations.keyDirectory;
    if (!makePrivateDirectory(configuration.m_dataDirectory) ||
        !makePrivateDirectory(configuration.m_configDirectory))
        return kUnavailable;

    const QString path = configuration.configPath();
    const QString previous = configuration.m_dataDirectory + kFileName;
    const bool moving =
        QDir(configuration.m_configDirectory) != QDir(configuration.m_dataDirectory);
    std::optional<Identity> identity;
    bool write = false;
    if (QFile::exists(path)) {
        // The configuration directory's file wins; an old one in the data directory stays.
        Result<Identity> read = readIdentity(path);
        if (!read)
            return read.error();
        identity = *read;
    } else if (moving && QFile::exists(previous)) {
        // Written in its new place first, removed from the old one only then.
        Result<Identity> read = readIdentity(previous);
        if (!read)
            return read.error();
        identity = *read;
        write = true;
    } else {
        // First use: the desktop's tenant and principal, created once and kept.
        identity = Identity{QUuid::createUuid().toString(QUuid::WithoutBraces),
                            QUuid::createUuid().toString(QUuid::WithoutBraces), std::nullopt};
        write = true;
    }
    if (write) {
        if (const Result<Unit> written = writeIdentity(path, *identity); !written)
            return written.error();
        // An old file that cannot be removed is harmless: the new one wins from now on.
        if (moving && QFile::exists(previous))
            QFile::remove(previous);
    }
    configuration.m_tenant = identity->tenant;
    configuration.m_principal = identity->principal;
    configuration.m_engine = identity->engine;
    return configuration;
}

} // namespace veetbot
