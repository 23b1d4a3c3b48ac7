#include "ProfileBinding.h"

#include "client/ServiceAccess.h"
#include "profiles/LocalConfiguration.h"
#include "profiles/ProfileService.h"
#include "profiles/SqlStores.h"

namespace veetbot {

Result<BoundProfile> bindProfile(const QString &idText, const TestOverrides &overrides,
                                 const QUuid &run)
{
    const QUuid id = QUuid::fromString(idText);
    if (id.isNull() || idText.size() != 36)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    const Result<LocalConfiguration> config = LocalConfiguration::load();
    if (!config)
        return config.error();
    Result<std::unique_ptr<SqlStores>> repository =
        SqlStores::openSqlite(config->metadataPath(), {}, overrides);
    if (!repository)
        return repository.error();
    const ProfileScope scope{config->tenant(), config->principal()};
    const Result<BrowserProfile> profile =
        ProfileService((*repository)->profiles(), nullptr, scope).get(id);
    if (!profile)
        return Error::fromReason(ReasonCode::ProfileUnavailable); // unknown or another's
    switch (profile->status) {
    case ProfileStatus::Ready:
        break;
    case ProfileStatus::AuthenticationRequired:
        return Error::fromReason(ReasonCode::AuthenticationRequired);
    case ProfileStatus::NeedsUser:
        return Error::fromReason(ReasonCode::NeedsUser);
    case ProfileStatus::Provisioning:
    case ProfileStatus::Revoked:
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    }
    if (!profile->providerReference)
        return Error::fromReason(ReasonCode::ProfileUnavailable);
    const Result<OriginPolicy> policy = OriginPolicy::create(profile->allowedOrigins);
    if (!policy)
        return policy.error();
    const Result<ServiceConnection> service =
        connectToService(*config, overrides, ServiceConnection::Start::OnDemand);
    if (!service)
        return service.error();
    if (!service->isReady())
        return ServiceClient::notReady();
    ServiceProvider::Options options;
    options.holder = {profile->id,
                      profile->tenant,
                      profile->principal,
                      *profile->providerReference,
                      (run.isNull() ? QUuid::createUuid() : run).toString(QUuid::WithoutBraces),
                      1};
    options.keeperPath = service->location().runtimeDirectory() + QStringLiteral("/lease.sock");
    options.overrides = overrides;
    if (const std::optional<int> renewMs = overrides.leaseRenewalMs())
        options.renewIntervalMs = *renewMs;
    return BoundProfile{*policy,
                        std::make_unique<ServiceProvider>(service->client(), std::move(options)),
                        *profile, scope, std::move(repository).value()};
}

} // namespace veetbot
