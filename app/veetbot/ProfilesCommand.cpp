#include "ProfilesCommand.h"

#include "CommandOutput.h"
#include "ServiceAccess.h"
#include "domain/BrowserProfile.h"
#include "domain/TestOverrides.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/ProfileService.h"
#include "profiles/SqlProfileRepository.h"
#include "service/CeremonyApi.h"
#include "service/DeviceSignIn.h"
#include "service/KeysApi.h"
#include "service/SessionFile.h"
#include "json/StrictJson.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QUrl>

#include <sys/stat.h>

namespace veetbot {

namespace {
using namespace CommandOutput;

const Error kBadDatabase{QStringLiteral("config.invalid_database"),
                         QStringLiteral("The database must be given as "
                                        "postgresql://user@host[:port]/database; the password "
                                        "comes only from the libpq password file.")};

// postgresql://user@host[:port]/database; a password in the URL is refused (libpq reads
// it from the password file).
Result<PostgresProfileStoreSettings> postgresSettings(const QString &database)
{
    const QUrl url(database, QUrl::StrictMode);
    if (!url.isValid() ||
        (url.scheme() != QLatin1String("postgresql") &&
         url.scheme() != QLatin1String("postgres")) ||
        url.userName().isEmpty() || url.host().isEmpty() || !url.password().isEmpty() ||
        url.path().size() < 2 || url.hasQuery() || url.hasFragment())
        return kBadDatabase;
    PostgresProfileStoreSettings settings;
    settings.host = url.host();
    settings.port = url.port(5432);
    settings.user = url.userName();
    settings.database = url.path().mid(1);
    return settings;
}

Result<std::unique_ptr<SqlProfileRepository>> openRepository(const QString &database,
                                                             const LocalConfiguration &config,
                                                             const TestOverrides &overrides)
{
    if (database.isEmpty())
        return SqlProfileRepository::openSqlite(config.metadataPath(), {}, overrides);
    const Result<PostgresProfileStoreSettings> settings = postgresSettings(database);
    if (!settings)
        return settings.error();
    return SqlProfileRepository::openPostgres(*settings, {}, overrides);
}

// `profiles migrate --database URL [--grant ROLE]`, run as the owner role: applies the
// missing migrations and lets the application role use the tables (row-level security
// still applies to it).
int migratePostgres(const QString &database, const QString &grantRole)
{
    const Result<PostgresProfileStoreSettings> settings = postgresSettings(database);
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
        } else if (const Result<int> version = SqlProfileRepository::migrate(db); !version) {
            exitCode = printError(version.error());
        } else if (const Result<Unit> granted =
                       grantRole.isEmpty()
                           ? Result<Unit>(Unit{})
                           : SqlProfileRepository::grantApplicationRole(db, grantRole);
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

std::optional<QUuid> parseId(const QString &text)
{
    const QUuid id = QUuid::fromString(text);
    if (id.isNull() || text.size() != 36)
        return std::nullopt;
    return id;
}
} // namespace

namespace {

// The data directory's profiles (metadata, and the profile service's control plane started
// on demand) for one piece of work. Without a ready service `work` gets no control plane,
// or, when `required`, never runs.
template <typename T>
Result<T> withProfiles(
    bool required, const QString &database,
    const std::function<Result<T>(ProfileService &, SqlProfileRepository &, const ServiceClient *,
                                  const ProfileScope &, const TestOverrides &)> &work)
{
    const Result<MetadataStore> store = openMetadataStore(database);
    if (!store)
        return store.error();
    SqlProfileRepository &repository = *store->repository;
    const ProfileScope scope = store->scope();
    const Result<ServiceConnection> connection =
        connectToService(store->config, store->overrides, ServiceConnection::Start::OnDemand);
    if (!connection || !connection->isReady()) {
        if (required)
            return connection ? ServiceClient::notReady() : connection.error();
        ProfileService service(repository, nullptr, scope);
        return work(service, repository, nullptr, scope, store->overrides);
    }
    ServiceControlPlane plane(connection->client());
    ProfileService service(repository, &plane, scope);
    return work(service, repository, connection->client().get(), scope, store->overrides);
}

} // namespace

Result<MetadataStore> openMetadataStore(const QString &database)
{
    Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return overrides.error();
    Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return config.error();
    Result<std::unique_ptr<SqlProfileRepository>> repository =
        openRepository(database, *config, *overrides);
    if (!repository)
        return repository.error();
    return MetadataStore{std::move(overrides).value(), std::move(config).value(),
                         std::move(repository).value()};
}

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
    const QCommandLineOption databaseOption(
        QStringLiteral("database"),
        QStringLiteral("PostgreSQL metadata: postgresql://user@host[:port]/database (the "
                       "password comes from the libpq password file). Default: SQLite under "
                       "the data directory."),
        QStringLiteral("url"));
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
            (qEnvironmentVariableIsSet("DISPLAY") ||
             qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))) {
            QProcess workbench;
            workbench.setProcessChannelMode(QProcess::ForwardedChannels);
            workbench.start(QCoreApplication::applicationDirPath() +
                                QStringLiteral("/veetbot-workbench"),
                            {QStringLiteral("--sign-in"), positional.at(1)});
            if (!workbench.waitForStarted(10000))
                return usage(command, QStringLiteral("the workbench could not start"), parser);
            workbench.waitForFinished(-1);
            return workbench.exitStatus() == QProcess::NormalExit && workbench.exitCode() == 0
                       ? kExitOk
                       : kExitFailure;
        }
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
        id = parseId(positional.at(1));
        if (!id)
            return printError(profileError(ProfileFailure::NotFound));
    }

    Result<MetadataStore> store = openMetadataStore(parser.value(databaseOption));
    if (!store)
        return printError(store.error());
    const TestOverrides &overrides = store->overrides;
    SqlProfileRepository &repository = *store->repository;
    const ProfileScope scope = store->scope();
    auto view = [](const BrowserProfile &profile) {
        return BrowserProfileView::of(profile).toJson();
    };

    // Reading metadata needs no keys: the profile service is not even asked.
    if (action == QLatin1String("list") || action == QLatin1String("show")) {
        ProfileService service(repository, nullptr, scope);
        if (action == QLatin1String("show")) {
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

    // Revocation commits even without the service; the fence is retried by running it again.
    const QString database = parser.value(databaseOption);
    if (action == QLatin1String("create")) {
        QList<Origin> origins;
        for (const QString &text : parser.values(originOption)) {
            const Result<Origin> origin = Origin::parse(text, overrides);
            if (!origin)
                return printError(origin.error());
            origins.append(*origin);
        }
        const Result<BrowserProfile> created = createProfile(origins, database);
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
        const Result<BrowserProfile> profile = ProfileService(repository, nullptr, scope).get(*id);
        if (!profile)
            return printError(profile.error());
        const Result<SessionFile::Contents> file =
            SessionFile::read(parser.value(sessionFileOption), parser.value(confirmedUrlOption),
                              profile->allowedOrigins, overrides);
        if (!file)
            return printError(file.error());
        const Result<BrowserProfile> signedIn =
            signInProfile(*id, file->handoff.confirmedUrl, file->handoff.state, database);
        if (!signedIn)
            return printError(signedIn.error());
        printJson(QJsonObject{{QStringLiteral("status"), QStringLiteral("ready")},
                              {QStringLiteral("profile"), view(*signedIn)},
                              {QStringLiteral("dropped"), file->dropped.toJson()}});
        return kExitOk;
    }
    // rotate-keys: one record at a time, by the service; restartable; current records are
    // left alone.
    const Result<QJsonObject> rotated = withProfiles<QJsonObject>(
        true, database,
        [](ProfileService &, SqlProfileRepository &store, const ServiceClient *client,
           const ProfileScope &owner, const TestOverrides &) -> Result<QJsonObject> {
            const Result<QList<BrowserProfile>> profiles = store.list(owner);
            if (!profiles)
                return profiles.error();
            int resealed = 0;
            for (const BrowserProfile &profile : *profiles) {
                if (!profile.providerReference)
                    continue;
                const Result<std::optional<QString>> version =
                    KeysApi::rotate(*client, *profile.providerReference);
                if (!version)
                    return version.error();
                if (!*version)
                    continue; // deleted material of a revoked profile
                if (profile.keyVersion == **version)
                    continue;
                ++resealed;
                if (ProfileLifecycle::isLive(profile.status)) {
                    const Result<BrowserProfile> updated =
                        store.updateKeyVersion(owner, profile.id, profile.generation, **version);
                    if (!updated)
                        return updated.error();
                }
            }
            const Result<QStringList> inUse = KeysApi::keyVersionsInUse(*client);
            if (!inUse)
                return inUse.error();
            return QJsonObject{
                {QStringLiteral("resealed"), resealed},
                {QStringLiteral("key_versions_in_use"), QJsonArray::fromStringList(*inUse)}};
        });
    if (!rotated)
        return printError(rotated.error());
    printJson(*rotated);
    return kExitOk;
}

Result<BrowserProfile> createProfile(const QList<Origin> &origins, const QString &database)
{
    return withProfiles<BrowserProfile>(
        true, database,
        [&origins](ProfileService &service, SqlProfileRepository &, const ServiceClient *,
                   const ProfileScope &,
                   const TestOverrides &) { return service.create(origins); });
}

Result<BrowserProfile> revokeProfile(const QUuid &profileId, const QString &database)
{
    return withProfiles<BrowserProfile>(
        false, database,
        [&profileId](ProfileService &service, SqlProfileRepository &, const ServiceClient *,
                     const ProfileScope &,
                     const TestOverrides &) { return service.revoke(profileId); });
}

Result<Unit> deleteProfile(const QUuid &profileId, const QString &database)
{
    return withProfiles<Unit>(
        true, database,
        [&profileId](ProfileService &service, SqlProfileRepository &, const ServiceClient *,
                     const ProfileScope &,
                     const TestOverrides &) { return service.remove(profileId); });
}

Result<QList<BrowserProfile>> listProfiles()
{
    const Result<MetadataStore> store = openMetadataStore({});
    if (!store)
        return store.error();
    ProfileService service(*store->repository, nullptr, store->scope());
    return service.list();
}

Result<BrowserProfile> signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                     const SessionState &state, const QString &database)
{
    return withProfiles<BrowserProfile>(
        true, database,
        [&](ProfileService &, SqlProfileRepository &repository, const ServiceClient *client,
            const ProfileScope &scope, const TestOverrides &overrides) {
            DeviceSignIn signing(repository, *client, scope, overrides);
            return signing.signIn(profileId, confirmedUrl, state);
        });
}

} // namespace veetbot
