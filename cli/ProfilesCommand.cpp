#include "ProfilesCommand.h"

#include "CommandOutput.h"
#include "client/WebsiteAccess.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "profiles/ProfileService.h"
#include "profiles/SqlStores.h"
#include "service/client/SessionFile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>

namespace veetbot {

namespace {
using namespace CommandOutput;

// `profiles migrate --database URL [--grant ROLE]`, run as the owner role: applies the
// missing migrations and lets the application role use the tables (row-level security
// still applies to it).
int migratePostgres(const QString &database, const QString &grantRole)
{
    const Result<PostgresProfileStoreSettings> settings = postgresStoreSettings(database);
    if (!settings)
        return printError(settings.error());
    const QString name = QStringLiteral("veetbot-migrate");
    int exitCode = kExitFailure;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
        db.setHostName(settings->host);
        db.setPort(settings->port);
        db.setDatabaseName(settings->database);
        db.setUserName(settings->user);
        if (!db.open()) {
            exitCode = printError(profileError(ProfileFailure::RepositoryUnavailable));
        } else if (const Result<int> version = SqlStores::migrate(db); !version) {
            exitCode = printError(version.error());
        } else if (const Result<Unit> granted =
                       grantRole.isEmpty() ? Result<Unit>(Unit{})
                                           : SqlStores::grantApplicationRole(db, grantRole);
                   !granted) {
            exitCode = printError(granted.error());
        } else {
            printJson(QJsonObject{{QStringLiteral("schema_version"), *version}});
            exitCode = kExitOk;
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return exitCode;
}

QJsonObject view(const BrowserProfile &profile)
{
    return BrowserProfileView::of(profile).toJson();
}

// `show ID` (`id`) or `list`: metadata only, so no key and no service is needed.
int printProfiles(const ProfileService &service, const std::optional<QUuid> &id)
{
    if (id) {
        const Result<BrowserProfile> profile = service.get(*id);
        if (!profile)
            return printError(profile.error());
        printJson(view(*profile));
        return kExitOk;
    }
    const Result<QList<BrowserProfile>> profiles = service.list();
    if (!profiles)
        return printError(profiles.error());
    QJsonArray array;
    for (const BrowserProfile &profile : *profiles)
        array.append(view(profile));
    printJson(array);
    return kExitOk;
}

// `sign-in ID` with a display and no file: the workbench's own sign-in view does it.
int signInInWorkbench(const QString &id, const QCommandLineParser &parser)
{
    QProcess workbench;
    workbench.setProcessChannelMode(QProcess::ForwardedChannels);
    workbench.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot-workbench"),
                    {QStringLiteral("--sign-in"), id});
    if (!workbench.waitForStarted(10000))
        return usage(QStringLiteral("profiles"), QStringLiteral("the workbench could not start"),
                     parser);
    workbench.waitForFinished(-1);
    return workbench.exitStatus() == QProcess::NormalExit && workbench.exitCode() == 0
               ? kExitOk
               : kExitFailure;
}

// `sign-in ID --session-file FILE`: the file's part that is `profile`'s, verified by the
// service before it is kept.
int signInFromFile(const BrowserProfile &profile, const QString &path, const QString &confirmedUrl,
                   const TestOverrides &overrides, const QString &database)
{
    const Result<SessionFile::Contents> file =
        SessionFile::read(path, confirmedUrl, profile.allowedOrigins, overrides);
    if (!file)
        return printError(file.error());
    const Result<BrowserProfile> signedIn =
        signInProfile(profile.id, file->handoff.confirmedUrl, file->handoff.state, database);
    if (!signedIn)
        return printError(signedIn.error());
    printJson(QJsonObject{{QStringLiteral("status"), QStringLiteral("ready")},
                          {QStringLiteral("profile"), view(*signedIn)},
                          {QStringLiteral("dropped"), file->dropped.toJson()}});
    return kExitOk;
}

} // namespace

int runProfilesCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Manage browser profiles.\n\n"
        "  create --origin ORIGIN...  reserve, provision sealed material, bind\n"
        "  list                       this desktop's profiles\n"
        "  show ID                    one profile\n"
        "  revoke ID                  revoke first, then fence the material (repeat to retry)\n"
        "  delete ID                  only a revoked profile: material first, then metadata\n"
        "  sign-in ID --session-file FILE [--confirmed-url URL]\n"
        "                             sign in with a session exported from a browser you\n"
        "                             trust; the service verifies it before it is kept\n"
        "  rotate-keys                re-seal every record under the current key\n"
        "  migrate --database URL [--grant ROLE]\n"
        "                             PostgreSQL, as the owner role: apply migrations and\n"
        "                             let the application role use the tables"));
    parser.addHelpOption();
    const QCommandLineOption originOption(QStringLiteral("origin"),
                                          QStringLiteral("An exact allowed origin (create)."),
                                          QStringLiteral("origin"));
    const QCommandLineOption databaseOption = CommandOutput::databaseOption();
    const QCommandLineOption grantOption(QStringLiteral("grant"),
                                         QStringLiteral("The application role to grant (migrate)."),
                                         QStringLiteral("role"));
    const QCommandLineOption sessionFileOption(
        QStringLiteral("session-file"),
        QStringLiteral("A sign-in hand-off or Playwright storage-state file, readable only by "
                       "you (sign-in)."),
        QStringLiteral("file"));
    const QCommandLineOption confirmedUrlOption(
        QStringLiteral("confirmed-url"),
        QStringLiteral("With a Playwright storage state: a page only a signed-in account sees "
                       "(sign-in)."),
        QStringLiteral("url"));
    parser.addOptions(
        {originOption, databaseOption, grantOption, sessionFileOption, confirmedUrlOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("What to do."));
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("A profile id."));
    const QString command = QStringLiteral("profiles");
    if (const std::optional<int> exit = parseOrExit(parser, arguments, command))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool takesId = action == QLatin1String("show") || action == QLatin1String("revoke") ||
                         action == QLatin1String("delete") || action == QLatin1String("sign-in");
    const bool takesNothing =
        action == QLatin1String("create") || action == QLatin1String("list") ||
        action == QLatin1String("rotate-keys") || action == QLatin1String("migrate");
    if (!takesId && !takesNothing)
        return usage(command, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (takesId ? 2 : 1))
        return usage(command, QStringLiteral("wrong number of arguments"), parser);
    if (parser.isSet(originOption) != (action == QLatin1String("create")))
        return usage(command, QStringLiteral("--origin is for create, and create needs it"),
                     parser);
    const bool signIn = action == QLatin1String("sign-in");
    if (signIn && !parser.isSet(sessionFileOption)) {
        // With a display, the workbench's own sign-in view; without one, the session file.
        if (!parser.isSet(confirmedUrlOption) && positional.size() == 2 &&
            (qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY")))
            return signInInWorkbench(positional.at(1), parser);
        return usage(command,
                     QStringLiteral("with no display, sign-in needs --session-file FILE: a "
                                    "session exported from a browser you trust "
                                    "(docs/signin.md)"),
                     parser);
    }
    if (!signIn && (parser.isSet(sessionFileOption) || parser.isSet(confirmedUrlOption)))
        return usage(command, QStringLiteral("--session-file and --confirmed-url are for sign-in"),
                     parser);
    if (action == QLatin1String("migrate")) {
        if (!parser.isSet(databaseOption))
            return usage(command, QStringLiteral("migrate needs --database"), parser);
        return migratePostgres(parser.value(databaseOption), parser.value(grantOption));
    }
    if (parser.isSet(grantOption))
        return usage(command, QStringLiteral("--grant is for migrate"), parser);
    std::optional<QUuid> id;
    if (takesId) {
        id = CommandOutput::parseId(positional.at(1));
        if (!id)
            return printError(profileError(ProfileFailure::NotFound));
    }

    Result<MetadataStore> store = openMetadataStore(parser.value(databaseOption));
    if (!store)
        return printError(store.error());
    const TestOverrides &overrides = store->overrides;
    SqlStores &repository = *store->repository;
    const ProfileScope scope = store->scope();

    // Reading metadata needs no keys: the profile service is not even asked.
    if (action == QLatin1String("list") || action == QLatin1String("show"))
        return printProfiles(ProfileService(repository.profiles(), nullptr, scope), id);

    // Revocation commits even without the service; the fence is retried by running it again.
    const QString database = parser.value(databaseOption);
    if (action == QLatin1String("create")) {
        const Result<QList<Origin>> origins =
            Origin::parseAll(parser.values(originOption), overrides);
        if (!origins)
            return printError(origins.error());
        const Result<BrowserProfile> created = createProfile(*origins, database);
        if (!created)
            return printError(created.error());
        printJson(view(*created));
        return kExitOk;
    }
    if (action == QLatin1String("revoke")) {
        const Result<BrowserProfile> revoked = revokeProfile(*id, database);
        if (!revoked)
            return printError(revoked.error());
        printJson(view(*revoked));
        return kExitOk;
    }
    if (action == QLatin1String("delete")) {
        const Result<Unit> removed = deleteProfile(*id, database);
        if (!removed)
            return printError(removed.error());
        printJson(QJsonObject{{QStringLiteral("deleted"), positional.at(1)}});
        return kExitOk;
    }
    if (signIn) {
        // The profile's origins decide what of the file is the profile's (metadata only).
        const Result<BrowserProfile> profile =
            ProfileService(repository.profiles(), nullptr, scope).get(*id);
        if (!profile)
            return printError(profile.error());
        return signInFromFile(*profile, parser.value(sessionFileOption),
                              parser.value(confirmedUrlOption), overrides, database);
    }
    // rotate-keys: one record at a time, by the service; restartable; current records are
    // left alone.
    const Result<KeyRotation> rotated = rotateKeys(database);
    if (!rotated)
        return printError(rotated.error());
    printJson(QJsonObject{{QStringLiteral("resealed"), rotated->resealed},
                          {QStringLiteral("key_versions_in_use"),
                           QJsonArray::fromStringList(rotated->keyVersionsInUse)}});
    return kExitOk;
}

} // namespace veetbot
