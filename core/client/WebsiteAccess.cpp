#include "WebsiteAccess.h"

#include "ServiceAccess.h"
#include "profiles/ProfileService.h"
#include "service/client/DeviceSignIn.h"
#include "service/client/ServiceCalls.h"

#include <functional>

namespace veetbot {

namespace {

const Error kBadDatabase{QStringLiteral("config.invalid_database"),
                         QStringLiteral("The database must be given as "
                                        "postgresql://user@host[:port]/database; the password "
                                        "comes only from the libpq password file.")};

Result<std::unique_ptr<SqlStores>> openRepository(const QString &database,
                                                  const LocalConfiguration &config,
                                                  const TestOverrides &overrides)
{
    if (database.isEmpty())
        return SqlStores::openSqlite(config.metadataPath(), {}, overrides);
    const Result<PostgresProfileStoreSettings> settings = postgresStoreSettings(database);
    if (!settings)
        return settings.error();
    return SqlStores::openPostgres(*settings, {}, overrides);
}

// The data directory's profiles (metadata, and the profile service's control plane started
// on demand) for one piece of work. Without a ready service `work` gets no control plane,
// or, when `required`, never runs.
template <typename T>
Result<T>
withProfiles(bool required, const QString &database,
             const std::function<Result<T>(ProfileService &, SqlStores &, const ServiceClient *,
                                           const ProfileScope &, const TestOverrides &)> &work)
{
    const Result<MetadataStore> store = openMetadataStore(database);
    if (!store)
        return store.error();
    SqlStores &repository = *store->repository;
    const ProfileScope scope = store->scope();
    const Result<ServiceConnection> connection =
        connectToService(store->config, store->overrides, ServiceConnection::Start::OnDemand);
    if (!connection || !connection->isReady()) {
        if (required)
            return connection ? ServiceClient::notReady() : connection.error();
        ProfileService service(repository.profiles(), nullptr, scope);
        return work(service, repository, nullptr, scope, store->overrides);
    }
    ServiceControlPlane plane(connection->client());
    ProfileService service(repository.profiles(), &plane, scope);
    return work(service, repository, connection->client().get(), scope, store->overrides);
}

} // namespace

Result<PostgresProfileStoreSettings> postgresStoreSettings(const QString &database)
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

Result<MetadataStore> openMetadataStore(const QString &database)
{
    Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return overrides.error();
    Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return config.error();
    Result<std::unique_ptr<SqlStores>> repository = openRepository(database, *config, *overrides);
    if (!repository)
        return repository.error();
    return MetadataStore{std::move(overrides).value(), std::move(config).value(),
                         std::move(repository).value()};
}

Result<BrowserProfile> createProfile(const QList<Origin> &origins, const QString &database)
{
    return withProfiles<BrowserProfile>(
        true, database,
        [&origins](ProfileService &service, SqlStores &, const ServiceClient *,
                   const ProfileScope &,
                   const TestOverrides &) { return service.create(origins); });
}

Result<BrowserProfile> revokeProfile(const QUuid &profileId, const QString &database)
{
    return withProfiles<BrowserProfile>(
        false, database,
        [&profileId](ProfileService &service, SqlStores &, const ServiceClient *,
                     const ProfileScope &,
                     const TestOverrides &) { return service.revoke(profileId); });
}

Result<Unit> deleteProfile(const QUuid &profileId, const QString &database)
{
    return withProfiles<Unit>(
        true, database,
        [&profileId](ProfileService &service, SqlStores &, const ServiceClient *,
                     const ProfileScope &,
                     const TestOverrides &) { return service.remove(profileId); });
}

Result<Unit> discardProfile(const QUuid &profileId)
{
    if (const Result<BrowserProfile> revoked = revokeProfile(profileId); !revoked)
        return revoked.error();
    return deleteProfile(profileId);
}

Result<BrowserProfile> replaceProfile(const QUuid &profileId, const Origin &origin)
{
    if (const Result<Unit> discarded = discardProfile(profileId); !discarded)
        return discarded.error();
    return createProfile({origin});
}

Result<QList<BrowserProfile>> listProfiles()
{
    const Result<MetadataStore> store = openMetadataStore({});
    if (!store)
        return store.error();
    ProfileService service(store->repository->profiles(), nullptr, store->scope());
    return service.list();
}

Result<BrowserProfile> signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                     const SessionState &state, const QString &database)
{
    return withProfiles<BrowserProfile>(
        true, database,
        [&](ProfileService &, SqlStores &repository, const ServiceClient *client,
            const ProfileScope &scope, const TestOverrides &overrides) {
            DeviceSignIn signing(repository.profiles(), *client, scope, overrides);
            return signing.signIn(profileId, confirmedUrl, state);
        });
}

Result<RemoteSignIn> beginRemoteSignIn(const QUuid &profileId, const QUrl &loginUrl)
{
    return withProfiles<RemoteSignIn>(
        true, {},
        [&](ProfileService &, SqlStores &repository, const ServiceClient *client,
            const ProfileScope &scope, const TestOverrides &overrides) -> Result<RemoteSignIn> {
            DeviceSignIn signing(repository.profiles(), *client, scope, overrides);
            const Result<DeviceSignIn::Begun> begun =
                signing.begin(profileId, loginUrl, ServiceCeremony::Mode::Remote);
            if (!begun)
                return begun.error();
            return RemoteSignIn{begun->ceremony, client->socketPath(), begun->launchPath};
        });
}

namespace {

// One recorded ceremony's work with the running service.
Result<CeremonyFinished>
withCeremony(const std::function<Result<CeremonyFinished>(DeviceSignIn &)> &work)
{
    return withProfiles<CeremonyFinished>(
        true, {},
        [&](ProfileService &, SqlStores &repository, const ServiceClient *client,
            const ProfileScope &scope, const TestOverrides &overrides) {
            DeviceSignIn signing(repository.profiles(), *client, scope, overrides);
            return work(signing);
        });
}

} // namespace

Result<CeremonyFinished> refreshSignIn(const QString &ceremonyId)
{
    return withCeremony(
        [&ceremonyId](DeviceSignIn &signing) { return signing.refresh(ceremonyId); });
}

Result<CeremonyFinished> cancelSignIn(const QString &ceremonyId)
{
    return withCeremony(
        [&ceremonyId](DeviceSignIn &signing) { return signing.cancel(ceremonyId); });
}

Result<KeyRotation> rotateKeys(const QString &database)
{
    return withProfiles<KeyRotation>(
        true, database,
        [](ProfileService &, SqlStores &store, const ServiceClient *client,
           const ProfileScope &owner, const TestOverrides &) -> Result<KeyRotation> {
            const Result<QList<BrowserProfile>> profiles = store.profiles().list(owner);
            if (!profiles)
                return profiles.error();
            KeyRotation rotation;
            for (const BrowserProfile &profile : *profiles) {
                if (!profile.providerReference)
                    continue;
                const Result<std::optional<QString>> version =
                    ServiceCalls::rotateKey(*client, *profile.providerReference);
                if (!version)
                    return version.error();
                if (!*version)
                    continue; // deleted material of a revoked profile
                if (profile.keyVersion == **version)
                    continue;
                ++rotation.resealed;
                if (ProfileLifecycle::isLive(profile.status)) {
                    const Result<BrowserProfile> updated = store.profiles().updateKeyVersion(
                        owner, profile.id, profile.generation, **version);
                    if (!updated)
                        return updated.error();
                }
            }
            const Result<QStringList> inUse = ServiceCalls::keyVersionsInUse(*client);
            if (!inUse)
                return inUse.error();
            rotation.keyVersionsInUse = *inUse;
            return rotation;
        });
}

} // namespace veetbot
