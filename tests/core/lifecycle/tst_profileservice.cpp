// The profile lifecycle over the ports: ordering of reservation, provisioning and binding,
// revocation before fencing, deletion material-first, and failure paths.

#include "domain/web/TestOverrides.h"
#include "profiles/InMemoryProfileRepository.h"
#include "profiles/ProfileService.h"

#include <QTest>

using namespace veetbot;

namespace {

// A control plane that records what it was asked and fails on request.
class FakeControlPlane : public BrowserProfileControlPlane
{
public:
    Result<ProvisionedMaterial> provision(const MaterialScope &scope) override
    {
        calls << QStringLiteral("provision");
        if (failProvision)
            return Error{QStringLiteral("vault.key_unavailable"), QStringLiteral("no key")};
        const QString reference =
            fixedReference.isEmpty() ? BrowserProfile::newProviderReference() : fixedReference;
        material.insert(reference, scope.profileId);
        return ProvisionedMaterial{QStringLiteral("webengine"), reference, QStringLiteral("k1")};
    }
    Result<Unit> revoke(const MaterialScope &, const std::optional<QString> &reference) override
    {
        calls << QStringLiteral("revoke");
        if (failRevoke)
            return Error{QStringLiteral("vault.key_unavailable"), QStringLiteral("no key")};
        if (reference)
            fenced.insert(*reference);
        return Unit{};
    }
    Result<Unit> remove(const MaterialScope &, const std::optional<QString> &reference) override
    {
        calls << QStringLiteral("remove");
        if (reference)
            material.remove(*reference);
        return Unit{};
    }

    QStringList calls;
    QHash<QString, QUuid> material;
    QSet<QString> fenced;
    QString fixedReference;
    bool failProvision = false;
    bool failRevoke = false;
};

} // namespace

class TestProfileService : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createReservesProvisionsAndBinds();
    void provisionFailureRevokesTheReservation();
    void bindFailureRemovesMaterialThenRevokes();
    void revokeCommitsBeforeFencing();
    void revokeWithoutVaultStillRevokes();
    void revokeIsRepeatable();
    void removeOnlyFromRevokedMaterialFirst();
    void anotherPrincipalSeesNothing();

private:
    static QList<Origin> origins()
    {
        return {
            Origin::parse(QStringLiteral("https://shop.acme-store.com"), TestOverrides()).value()};
    }
    const ProfileScope m_scope{QStringLiteral("tenant-a"), QStringLiteral("principal-a")};
};

void TestProfileService::createReservesProvisionsAndBinds()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileService service(repository, &vault, m_scope);
    const auto created = service.create(origins());
    QVERIFY(created.ok());
    QCOMPARE(created->status, ProfileStatus::AuthenticationRequired);
    QCOMPARE(created->generation, qint64(1));
    QVERIFY(created->providerReference.has_value());
    QCOMPARE(vault.material.value(*created->providerReference), created->id);
    QCOMPARE(vault.calls, QStringList{QStringLiteral("provision")});
}

void TestProfileService::provisionFailureRevokesTheReservation()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    vault.failProvision = true;
    ProfileService service(repository, &vault, m_scope);
    const auto created = service.create(origins());
    QVERIFY(!created.ok());
    QCOMPARE(created.error().code, QStringLiteral("vault.key_unavailable"));
    const auto all = service.list();
    QCOMPARE(all->size(), 1);
    QCOMPARE(all->first().status, ProfileStatus::Revoked);
    QVERIFY(!all->first().providerReference.has_value());
}

void TestProfileService::bindFailureRemovesMaterialThenRevokes()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileService service(repository, &vault, m_scope);
    const auto first = service.create(origins());
    QVERIFY(first.ok());
    // The next provisioning returns a reference that is already bound: bind must fail.
    vault.fixedReference = *first->providerReference;
    vault.calls.clear();
    const auto second = service.create(origins());
    QVERIFY(!second.ok());
    QCOMPARE(second.error().code, QStringLiteral("profile.conflict"));
    QCOMPARE(vault.calls, (QStringList{QStringLiteral("provision"), QStringLiteral("remove")}));
    const auto all = service.list();
    QCOMPARE(all->size(), 2);
    for (const BrowserProfile &profile : *all)
        QCOMPARE(profile.status, profile.id == first->id ? ProfileStatus::AuthenticationRequired
                                                         : ProfileStatus::Revoked);
}

void TestProfileService::revokeCommitsBeforeFencing()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileService service(repository, &vault, m_scope);
    const auto created = service.create(origins());
    const auto revoked = service.revoke(created->id);
    QVERIFY(revoked.ok());
    QCOMPARE(revoked->status, ProfileStatus::Revoked);
    QVERIFY(revoked->generation > created->generation);
    QVERIFY(vault.fenced.contains(*created->providerReference));
}

void TestProfileService::revokeWithoutVaultStillRevokes()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileScope scope = m_scope;
    const auto created = ProfileService(repository, &vault, scope).create(origins());
    ProfileService withoutKeys(repository, nullptr, scope);
    const auto revoked = withoutKeys.revoke(created->id);
    QVERIFY(!revoked.ok());
    QCOMPARE(revoked.error().code, QStringLiteral("vault.fence_pending"));
    QCOMPARE(withoutKeys.get(created->id)->status, ProfileStatus::Revoked);
    // Create and delete need the vault and change nothing without it.
    QCOMPARE(withoutKeys.create(origins()).error().code, QStringLiteral("vault.unavailable"));
    QCOMPARE(withoutKeys.remove(created->id).error().code, QStringLiteral("vault.unavailable"));
    QCOMPARE(withoutKeys.list()->size(), 1);
}

void TestProfileService::revokeIsRepeatable()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileService service(repository, &vault, m_scope);
    const auto created = service.create(origins());
    vault.failRevoke = true;
    QCOMPARE(service.revoke(created->id).error().code, QStringLiteral("vault.fence_pending"));
    vault.failRevoke = false;
    const auto again = service.revoke(created->id);
    QVERIFY(again.ok());
    QVERIFY(vault.fenced.contains(*created->providerReference));
}

void TestProfileService::removeOnlyFromRevokedMaterialFirst()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    ProfileService service(repository, &vault, m_scope);
    const auto created = service.create(origins());
    QCOMPARE(service.remove(created->id).error().code,
             QStringLiteral("profile.invalid_transition"));
    QVERIFY(vault.material.contains(*created->providerReference));
    QVERIFY(service.revoke(created->id).ok());
    vault.calls.clear();
    QVERIFY(service.remove(created->id).ok());
    QCOMPARE(vault.calls, QStringList{QStringLiteral("remove")});
    QVERIFY(!vault.material.contains(*created->providerReference));
    QCOMPARE(service.get(created->id).error().code, QStringLiteral("profile.not_found"));
    // Again: still absent, a success, and the vault is not asked.
    vault.calls.clear();
    QVERIFY(service.remove(created->id).ok());
    QVERIFY(vault.calls.isEmpty());
}

void TestProfileService::anotherPrincipalSeesNothing()
{
    InMemoryProfileRepository repository;
    FakeControlPlane vault;
    const auto created = ProfileService(repository, &vault, m_scope).create(origins());
    ProfileService other(repository, &vault,
                         ProfileScope{QStringLiteral("tenant-a"), QStringLiteral("principal-b")});
    QCOMPARE(other.get(created->id).error().code, QStringLiteral("profile.not_found"));
    QCOMPARE(other.revoke(created->id).error().code, QStringLiteral("profile.not_found"));
    // Deleting is idempotent, so another principal's delete "succeeds" as for an absent
    // profile, and changes nothing.
    QVERIFY(other.remove(created->id).ok());
    QVERIFY(other.list()->isEmpty());
    QVERIFY(vault.fenced.isEmpty());
    QVERIFY(vault.material.contains(*created->providerReference));
    QVERIFY(ProfileService(repository, &vault, m_scope).get(created->id).ok());
}

QTEST_GUILESS_MAIN(TestProfileService)
#include "tst_profileservice.moc"
