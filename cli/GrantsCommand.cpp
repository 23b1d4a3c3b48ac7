#include "GrantsCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/authority/StandingGrant.h"
#include "tools/ToolPolicy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace veetbot {

namespace {
using namespace CommandOutput;

QJsonValue optionalText(const std::optional<QString> &text)
{
    return text ? QJsonValue(*text) : QJsonValue(QJsonValue::Null);
}

QString timeText(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

// active, revoked, expired, or not_started, as of now.
QString statusOf(const StandingGrant &grant, const QDateTime &now)
{
    if (grant.isRevoked())
        return QStringLiteral("revoked");
    if (grant.expiresAt <= now)
        return QStringLiteral("expired");
    if (now < grant.startsAt)
        return QStringLiteral("not_started");
    return QStringLiteral("active");
}

QJsonObject view(const StandingGrant &grant)
{
    QJsonArray origins;
    for (const Origin &origin : grant.origins)
        origins.append(origin.toString());
    QJsonArray actions;
    for (const ActRequest::Kind kind : grant.actionKinds)
        actions.append(actKindString(kind));
    return QJsonObject{
        {QStringLiteral("id"), grant.id.toString(QUuid::WithoutBraces)},
        {QStringLiteral("profile_id"), grant.profileId.toString(QUuid::WithoutBraces)},
        {QStringLiteral("status"), statusOf(grant, QDateTime::currentDateTimeUtc())},
        {QStringLiteral("origins"), origins},
        {QStringLiteral("actions"), actions},
        {QStringLiteral("role"), optionalText(grant.role)},
        {QStringLiteral("name"), optionalText(grant.accessibleName)},
        {QStringLiteral("purpose"), optionalText(grant.purpose)},
        {QStringLiteral("agent_version"), grant.agentVersion},
        {QStringLiteral("policy_version"), grant.policyVersion},
        {QStringLiteral("starts_at"), timeText(grant.startsAt)},
        {QStringLiteral("expires_at"), timeText(grant.expiresAt)},
        {QStringLiteral("revoked_at"),
         grant.revokedAt ? QJsonValue(timeText(*grant.revokedAt)) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("approver"), grant.approver},
        {QStringLiteral("created_at"), timeText(grant.createdAt)},
    };
}

int printGrant(const Result<StandingGrant> &grant)
{
    if (!grant)
        return printError(grant.error());
    printJson(view(*grant));
    return kExitOk;
}

int printGrants(const Result<QList<StandingGrant>> &grants)
{
    if (!grants)
        return printError(grants.error());
    QJsonArray views;
    for (const StandingGrant &grant : *grants)
        views.append(view(grant));
    printJson(QJsonObject{{QStringLiteral("grants"), views}});
    return kExitOk;
}

} // namespace

std::optional<qint64> parseGrantLifetime(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^([0-9]{1,6})([mhd])$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const qint64 count = match.captured(1).toLongLong();
    if (count <= 0)
        return std::nullopt;
    const QChar unit = match.captured(2).front();
    const qint64 minute = 60 * 1000;
    const qint64 unitMs = unit == u'm' ? minute : unit == u'h' ? 60 * minute : 24 * 60 * minute;
    return count * unitMs;
}

namespace {

// What `create` was given for the grant, as text.
struct GrantFields
{
    QStringList origins;
    QStringList actions;
    std::optional<QString> role;
    std::optional<QString> name;
    std::optional<QString> purpose;
    QString expiresIn;
};

// The grant `create` asks for, for this agent and policy version; standing_grant.invalid for
// an origin, an action kind or a lifetime that does not read.
Result<StandingGrantRequest> grantRequest(const QUuid &profileId, const PolicySettings &policy,
                                          const TestOverrides &overrides, const GrantFields &fields)
{
    const Error invalid = standingGrantError(StandingGrantFailure::Invalid);
    StandingGrantRequest request{.profileId = profileId,
                                 .agentVersion =
                                     agentVersion(QCoreApplication::applicationVersion()),
                                 .policyVersion = policy.version(),
                                 .origins = {},
                                 .actionKinds = {},
                                 .role = fields.role,
                                 .accessibleName = fields.name,
                                 .purpose = fields.purpose,
                                 .lifetimeMs = 0};
    const Result<QList<Origin>> origins = Origin::parseAll(fields.origins, overrides);
    if (!origins)
        return invalid;
    request.origins = *origins;
    for (const QString &text : fields.actions) {
        const std::optional<ActRequest::Kind> kind = actKindFromString(text);
        if (!kind)
            return invalid;
        request.actionKinds << *kind;
    }
    const std::optional<qint64> lifetime = parseGrantLifetime(fields.expiresIn);
    if (!lifetime)
        return invalid;
    request.lifetimeMs = *lifetime;
    return request;
}

} // namespace

int runGrantsCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Manage standing grants: the owner's durable authority for unattended routine\n"
        "interaction on one READY browser profile.\n\n"
        "  create --profile ID --origin URL... --action KIND... --expires-in DURATION\n"
        "         [--role ROLE] [--name NAME] [--purpose TEXT] [policy options]\n"
        "                      make one (the profile's newest sign-in must have an outcome)\n"
        "  list [--profile ID] the grants, oldest first\n"
        "  revoke ID           revoke one; it applies to the next action\n\n"
        "A grant covers only routine controls whose every label reads as the same routine\n"
        "word, on its origins, for its action kinds, under the policy settings given here\n"
        "(the same options `veetbot mcp` takes): a session under other settings cannot use it."));
    parser.addHelpOption();
    const QCommandLineOption profileOption(QStringLiteral("profile"),
                                           QStringLiteral("The browser profile's id."),
                                           QStringLiteral("id"));
    const QCommandLineOption originOption(
        QStringLiteral("origin"),
        QStringLiteral("An exact origin (https://host[:port]) among the profile's allowed "
                       "origins; repeat for several (at most 16)."),
        QStringLiteral("origin"));
    const QCommandLineOption actionOption(
        QStringLiteral("action"),
        QStringLiteral("An action kind the grant covers: click, type, select, check, press or "
                       "scroll; repeat for several."),
        QStringLiteral("kind"));
    const QCommandLineOption roleOption(QStringLiteral("role"),
                                        QStringLiteral("Only elements of this role (") +
                                            standingGrantRoles().join(u", ") + QStringLiteral(")."),
                                        QStringLiteral("role"));
    const QCommandLineOption nameOption(
        QStringLiteral("name"),
        QStringLiteral("Only elements with exactly this accessible name (at most 128 "
                       "characters)."),
        QStringLiteral("name"));
    const QCommandLineOption purposeOption(
        QStringLiteral("purpose"),
        QStringLiteral("Only runs with exactly this purpose (at most 128 printable "
                       "characters)."),
        QStringLiteral("text"));
    const QCommandLineOption expiresOption(
        QStringLiteral("expires-in"),
        QStringLiteral("How long the grant lasts from now: minutes, hours or days, e.g. 30m, "
                       "12h, 7d; at most 30d."),
        QStringLiteral("duration"));
    const QCommandLineOption allowScroll(
        QStringLiteral("allow-scroll"),
        QStringLiteral("Policy: the sessions that use the grant run with --allow-scroll."));
    const QCommandLineOption ordinary(
        QStringLiteral("ordinary-interaction"),
        QStringLiteral("Policy: the sessions' --ordinary-interaction (default on)."),
        QStringLiteral("on|off"), QStringLiteral("on"));
    const QCommandLineOption taskGrants(
        QStringLiteral("task-grants"),
        QStringLiteral("Policy: the sessions' --task-grants (default on)."),
        QStringLiteral("on|off"), QStringLiteral("on"));
    const QCommandLineOption databaseOption = CommandOutput::databaseOption();
    parser.addOptions({profileOption, originOption, actionOption, roleOption, nameOption,
                       purposeOption, expiresOption, allowScroll, ordinary, taskGrants,
                       databaseOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("What to do."));
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("A grant id (revoke)."));
    const QString command = QStringLiteral("grants");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool create = action == QLatin1String("create");
    const bool list = action == QLatin1String("list");
    const bool revoke = action == QLatin1String("revoke");
    if (!create && !list && !revoke)
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (revoke ? 2 : 1))
        return usage(command, QStringLiteral("wrong number of arguments"), parser);
    const QList<QCommandLineOption> createOnly{originOption, actionOption,  roleOption,
                                               nameOption,   purposeOption, expiresOption,
                                               allowScroll,  ordinary,      taskGrants};
    if (!create) {
        for (const QCommandLineOption &option : createOnly) {
            if (parser.isSet(option))
                return usage(command,
                             QStringLiteral("--") + option.names().constFirst() +
                                 QStringLiteral(" is for create"),
                             parser);
        }
        if (revoke && parser.isSet(profileOption))
            return usage(command, QStringLiteral("--profile is for create and list"), parser);
    }
    if (create) {
        if (!parser.isSet(profileOption) || !parser.isSet(originOption) ||
            !parser.isSet(actionOption) || !parser.isSet(expiresOption))
            return usage(command,
                         QStringLiteral("create needs --profile, --origin, --action and "
                                        "--expires-in"),
                         parser);
    }
    PolicySettings policy;
    policy.allowScroll = parser.isSet(allowScroll);
    const std::variant<AuthoritySwitches, QString> switches =
        readAuthoritySwitches(parser, ordinary, taskGrants);
    if (const QString *problem = std::get_if<QString>(&switches))
        return usage(command, *problem, parser);
    policy.ordinaryInteraction = std::get<AuthoritySwitches>(switches).ordinaryInteraction;
    policy.taskGrants = std::get<AuthoritySwitches>(switches).taskGrants;

    std::optional<QUuid> profileId;
    if (parser.isSet(profileOption)) {
        profileId = CommandOutput::parseId(parser.value(profileOption));
        if (!profileId)
            return printError(profileError(ProfileFailure::NotFound));
    }

    const Result<MetadataStore> opened = openMetadataStore(parser.value(databaseOption));
    if (!opened)
        return printError(opened.error());
    StandingGrantStore &store = opened->repository->standingGrants();
    const ProfileScope owner = opened->scope();

    if (list)
        return printGrants(store.standingGrants(owner, profileId));
    if (revoke) {
        const std::optional<QUuid> id = CommandOutput::parseId(positional.at(1));
        if (!id)
            return printError(standingGrantError(StandingGrantFailure::NotFound));
        return printGrant(store.revokeStandingGrant(owner, *id));
    }

    const Result<StandingGrantRequest> request = grantRequest(
        *profileId, policy, opened->overrides,
        GrantFields{
            parser.values(originOption), parser.values(actionOption),
            parser.isSet(roleOption) ? std::optional(parser.value(roleOption)) : std::nullopt,
            parser.isSet(nameOption) ? std::optional(parser.value(nameOption)) : std::nullopt,
            parser.isSet(purposeOption) ? std::optional(parser.value(purposeOption)) : std::nullopt,
            parser.value(expiresOption)});
    if (!request)
        return printError(request.error());
    return printGrant(store.createStandingGrant(owner, *request));
}

} // namespace veetbot
