#include "AgentConfiguration.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace veetbot::AgentConfiguration {

namespace {

QStringList arguments(const QString &profileId)
{
    return {QStringLiteral("mcp"),
            QStringLiteral("--profile"),
            profileId.isEmpty() ? QStringLiteral("PROFILE-ID") : profileId,
            QStringLiteral("--approver"),
            QStringLiteral("workbench"),
            QStringLiteral("--trust-turns"),
            QStringLiteral("owner")};
}

} // namespace

QString program()
{
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot");
    return QFileInfo(beside).isExecutable() ? beside : QStringLiteral("veetbot");
}

QString mcpServersJson(const QString &program, const QString &profileId)
{
    const QJsonObject server{
        {QStringLiteral("command"), program},
        {QStringLiteral("args"), QJsonArray::fromStringList(arguments(profileId))}};
    const QJsonObject root{
        {QStringLiteral("mcpServers"), QJsonObject{{QStringLiteral("veetbot"), server}}}};
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented)).trimmed();
}

QString commandLine(const QString &program, const QString &profileId)
{
    return QStringLiteral("mcp add veetbot -- %1 %2").arg(program, arguments(profileId).join(u' '));
}

} // namespace veetbot::AgentConfiguration
