#include "CommandOutput.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>

namespace veetbot::CommandOutput {

void printJson(const QJsonValue &value)
{
    const QJsonDocument document =
        value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    const QByteArray bytes = document.toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

int printError(const Error &error)
{
    printJson(QJsonObject{
        {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), error.code},
                                              {QStringLiteral("message"), error.message}}}});
    return kExitFailure;
}

int usage(const QString &command, const QString &problem, const QCommandLineParser &parser)
{
    QTextStream err(stderr);
    // "veetbot profiles: ...", "veetbot-profile-service keys: ..."
    const QString program = QCoreApplication::applicationName().startsWith(QLatin1String("veetbot"))
                                ? QCoreApplication::applicationName()
                                : QStringLiteral("veetbot");
    err << program << ' ' << command << ": " << problem << "\n\n" << parser.helpText();
    return kExitUsage;
}

std::optional<int> parseOrExit(QCommandLineParser &parser, const QStringList &arguments,
                               const QString &command)
{
    if (!parser.parse(arguments))
        return usage(command, parser.errorText(), parser);
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return kExitOk;
    }
    return std::nullopt;
}

QCommandLineOption databaseOption()
{
    return QCommandLineOption(
        QStringLiteral("database"),
        QStringLiteral("PostgreSQL metadata: postgresql://user@host[:port]/database (the "
                       "password comes from the libpq password file). Default: SQLite under "
                       "the data directory."),
        QStringLiteral("url"));
}

std::optional<int> parseBudget(const QString &text)
{
    bool isNumber = false;
    const int value = text.toInt(&isNumber);
    if (!isNumber || value < 1024 || value > 1024 * 1024)
        return std::nullopt;
    return value;
}

std::variant<AuthoritySwitches, QString> readAuthoritySwitches(const QCommandLineParser &parser,
                                                               const QCommandLineOption &ordinary,
                                                               const QCommandLineOption &taskGrants)
{
    const auto isSwitch = [](const QString &value) {
        return value == QLatin1String("on") || value == QLatin1String("off");
    };
    const QString ordinaryValue = parser.value(ordinary);
    if (!isSwitch(ordinaryValue))
        return QStringLiteral("--ordinary-interaction must be on or off");
    const QString taskGrantsValue = parser.value(taskGrants);
    if (!isSwitch(taskGrantsValue))
        return QStringLiteral("--task-grants must be on or off");
    return AuthoritySwitches{ordinaryValue == QLatin1String("on"),
                             taskGrantsValue == QLatin1String("on")};
}

std::optional<QUuid> parseId(const QString &text)
{
    const QUuid id = QUuid::fromString(text);
    if (id.isNull() || text.size() != 36)
        return std::nullopt;
    return id;
}

QCommandLineOption engineOption()
{
    return QCommandLineOption(
        QStringLiteral("engine"),
        QStringLiteral("The isolated browser's engine: chromium (Debian's current Chromium) or "
                       "qtwebengine. Default: VEETBOT_ENGINE when set, else %1.")
            .arg(browserEngineName(defaultBrowserEngine())),
        QStringLiteral("name"));
}

EngineChoice chooseEngine(const QCommandLineParser &parser, const QCommandLineOption &option,
                          const QString &command)
{
    const QString given = parser.value(option);
    if (const std::optional<BrowserEngine> engine = chooseBrowserEngine(given))
        return {*engine, std::nullopt};
    return {defaultBrowserEngine(),
            usage(command,
                  given.isEmpty() ? QStringLiteral("VEETBOT_ENGINE must be chromium or qtwebengine")
                                  : QStringLiteral("--engine must be chromium or qtwebengine"),
                  parser)};
}

QString engineWithProfileProblem()
{
    return QStringLiteral("--profile uses the profile service's browser, whose engine is the "
                          "service's; --engine is not given with it");
}

} // namespace veetbot::CommandOutput
