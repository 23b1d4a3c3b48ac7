#include "StandingGrantContract.h"

#include <QSqlQuery>
#include <QVariant>

using namespace veetbot;

namespace {

QString decision(const StandingGrantDecision &d)
{
    return d.reason();
}

} // namespace

StandingGrantStore &StandingGrantContract::grantsOf(const MetadataPorts &ports)
{
    StandingGrantStore *store = ports.standingGrants;
    if (!store)
        qFatal("the adapter does not store standing grants");
    return *store;
}

StandingGrantStore &StandingGrantContract::grants()
{
    return grantsOf(ports());
}

MetadataPorts StandingGrantContract::secondRepository()
{
    return createRepository(clock());
}

Result<BrowserProfile> StandingGrantContract::signedInProfile(const ProfileScope &scope)
{
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    if (!profile)
        return profile;
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    if (!begun)
        return begun.error();
    tick();
    const Result<CeremonyFinished> finished = repository().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
    if (!finished)
        return finished.error();
    tick();
    return finished->profile;
}

StandingGrantRequest StandingGrantContract::requestFor(const BrowserProfile &profile)
{
    return StandingGrantRequest{.profileId = profile.id,
                                .agentVersion = QStringLiteral("veetbot 0.9.0"),
                                .policyVersion = QString(64, u'c'),
                                .origins = {profile.allowedOrigins.constLast()},
                                .actionKinds = {ActRequest::Kind::Click, ActRequest::Kind::Scroll},
                                .role = QStringLiteral("button"),
                                .accessibleName = std::nullopt,
                                .purpose = QStringLiteral("Morning digest"),
                                .lifetimeMs = qint64(12) * 3600 * 1000};
}

StandingGrantUse StandingGrantContract::useOf(const StandingGrant &grant,
                                              const BrowserProfile &profile) const
{
    ElementFacts facts;
    facts.role = QStringLiteral("button");
    facts.accessibleName = QStringLiteral("Next");
    facts.visibleText = QStringLiteral("Next");
    const Origin origin = grant.origins.constFirst();
    return StandingGrantUse{.scope = grant.scope(),
                            .profileId = profile.id,
                            .profileGeneration = profile.generation,
                            .agentVersion = grant.agentVersion,
                            .policyVersion = grant.policyVersion,
                            .pageOrigin = origin,
                            .pageUrl = QUrl(origin.toString() + QStringLiteral("/catalogue")),
                            .request =
                                *ActRequest::click(QStringLiteral("r1"), QStringLiteral("e1")),
                            .facts = facts,
                            .purpose = grant.purpose,
                            .actionDeadline = now().addSecs(60),
                            .now = now()};
}

void StandingGrantContract::grantCreateRoundTrips()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> created = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(created);
    QCOMPARE(created->scope(), scope);
    QCOMPARE(created->approver, scope.principal);
    QCOMPARE(created->profileId, profile->id);
    QCOMPARE(created->startsAt, now());
    QCOMPARE(created->createdAt, now());
    QCOMPARE(created->expiresAt, now().addSecs(12 * 3600));
    QCOMPARE(created->origins, QList<Origin>{profile->allowedOrigins.constLast()});
    QCOMPARE(created->role, std::optional(QStringLiteral("button")));
    QCOMPARE(created->purpose, std::optional(QStringLiteral("Morning digest")));
    QVERIFY(!created->accessibleName && !created->revokedAt);

    const Result<StandingGrant> read = grants().standingGrant(scope, created->id);
    VERIFY_OK(read);
    QVERIFY(*read == *created);

    tick();
    StandingGrantRequest everything = requestFor(*profile);
    everything.origins = profile->allowedOrigins;
    everything.actionKinds =
        QList<ActRequest::Kind>(std::begin(kAllActKinds), std::end(kAllActKinds));
    everything.role.reset();
    everything.purpose.reset();
    everything.accessibleName = QString::fromUtf8("N\u00e4chste Seite");
    everything.lifetimeMs = StandingGrant::kMaxLifetimeMs;
    const Result<StandingGrant> second = grants().createStandingGrant(scope, everything);
    VERIFY_OK(second);
    QCOMPARE(second->expiresAt, now().addDays(30));
    QVERIFY(*grants().standingGrant(scope, second->id) == *second);

    const Result<QList<StandingGrant>> all = grants().standingGrants(scope, std::nullopt);
    VERIFY_OK(all);
    QCOMPARE(all->size(), 2);
    QVERIFY(all->at(0) == *created); // oldest first
    QVERIFY(all->at(1) == *second);
    QCOMPARE(grants().standingGrants(scope, profile->id)->size(), 2);
    QVERIFY(grants().standingGrants(scope, BrowserProfile::newId())->isEmpty());

    const Result<QList<StandingGrantAuditRecord>> audit = grants().standingGrantAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), 2);
    QCOMPARE(audit->at(0).grantId, created->id);
    QCOMPARE(audit->at(0).kind, QString::fromUtf16(kGrantCreatedKind));
    QCOMPARE(audit->at(0).tenant, scope.tenant);
    QCOMPARE(audit->at(0).principal, scope.principal);
    QCOMPARE(audit->at(1).grantId, second->id);

    QCOMPARE(decision(grants().authorize(scope, created->id, useOf(*created, *profile))),
             QStringLiteral("allowed"));
}

void StandingGrantContract::grantCreationNeedsAFinishedSignIn()
{
    const ProfileScope scope = newScope();
    // READY without any sign-in record: no outcome to go by.
    const Result<BrowserProfile> unverified = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(unverified);
    const auto pending = standingGrantError(StandingGrantFailure::CeremonyPending);
    QCOMPARE(grants().createStandingGrant(scope, requestFor(*unverified)).error(), pending);

    // A sign-in is open: creation conflicts with it until it has an outcome.
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    tick();
    QCOMPARE(grants().createStandingGrant(scope, requestFor(*profile)).error(), pending);
    VERIFY_OK(repository().finishCeremony(scope, begun->ceremony.id, CeremonyStatus::Cancelled,
                                          QString(), {}));
    tick();
    VERIFY_OK(grants().createStandingGrant(scope, requestFor(*profile)));

    // An open record past its expiry reads expired: an outcome.
    const Result<BrowserProfile> current = repository().get(scope, profile->id);
    VERIFY_OK(current);
    VERIFY_OK(beginFor(scope, *current));
    tick();
    QCOMPARE(grants().createStandingGrant(scope, requestFor(*profile)).error(), pending);
    advance(301);
    VERIFY_OK(grants().createStandingGrant(scope, requestFor(*profile)));
    QCOMPARE(grants().standingGrants(scope, std::nullopt)->size(), 2);
}

void StandingGrantContract::grantCreationRefusalsStoreNothing()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);

    StandingGrantRequest elsewhere = requestFor(*profile);
    elsewhere.origins = {origin(QStringLiteral("https://www.elsewhere.com"))};
    QCOMPARE(grants().createStandingGrant(scope, elsewhere).error(),
             standingGrantError(StandingGrantFailure::OriginNotAllowed));
    StandingGrantRequest tooLong = requestFor(*profile);
    tooLong.lifetimeMs = StandingGrant::kMaxLifetimeMs + 1;
    QCOMPARE(grants().createStandingGrant(scope, tooLong).error(),
             standingGrantError(StandingGrantFailure::Invalid));
    StandingGrantRequest noKinds = requestFor(*profile);
    noKinds.actionKinds.clear();
    QCOMPARE(grants().createStandingGrant(scope, noKinds).error(),
             standingGrantError(StandingGrantFailure::Invalid));
    StandingGrantRequest unknown = requestFor(*profile);
    unknown.profileId = BrowserProfile::newId();
    VERIFY_PROFILE_FAILURE(grants().createStandingGrant(scope, unknown), ProfileFailure::NotFound);
    VERIFY_PROFILE_FAILURE(grants().createStandingGrant(ProfileScope(), requestFor(*profile)),
                           ProfileFailure::Invalid);

    const Result<BrowserProfile> notReady = createIn(scope, ProfileStatus::NeedsUser);
    VERIFY_OK(notReady);
    QCOMPARE(grants().createStandingGrant(scope, requestFor(*notReady)).error(),
             standingGrantError(StandingGrantFailure::ProfileNotReady));

    QVERIFY(grants().standingGrants(scope, std::nullopt)->isEmpty());
    QVERIFY(grants().standingGrantAudit(scope)->isEmpty());
}

void StandingGrantContract::grantRevocationIsOnceAndEffectiveAtTheNextUse()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);
    const StandingGrantUse use = useOf(*grant, *profile);
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)), QStringLiteral("allowed"));

    tick();
    const Result<StandingGrant> revoked = grants().revokeStandingGrant(scope, grant->id);
    VERIFY_OK(revoked);
    QCOMPARE(revoked->revokedAt, std::optional(now()));
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)), QStringLiteral("revoked"));

    tick();
    const Result<StandingGrant> again = grants().revokeStandingGrant(scope, grant->id);
    VERIFY_OK(again);
    QVERIFY(*again == *revoked);
    QVERIFY(*grants().standingGrant(scope, grant->id) == *revoked);

    const Result<QList<StandingGrantAuditRecord>> audit = grants().standingGrantAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), 2);
    QCOMPARE(audit->at(0).kind, QString::fromUtf16(kGrantCreatedKind));
    QCOMPARE(audit->at(1).kind, QString::fromUtf16(kGrantRevokedKind));
    QCOMPARE(audit->at(1).grantId, grant->id);
    QCOMPARE(audit->at(1).at, *revoked->revokedAt);

    QCOMPARE(grants().revokeStandingGrant(scope, BrowserProfile::newId()).error(),
             standingGrantError(StandingGrantFailure::NotFound));
}

void StandingGrantContract::grantAuthorizeReadsTheStoreEveryTime()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);
    const StandingGrantUse use = useOf(*grant, *profile);
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)), QStringLiteral("allowed"));

    // A second instance (another process) changes the profile: the next use sees it.
    const MetadataPorts other = secondRepository();
    QVERIFY(other);
    const Result<BrowserProfile> moved =
        other->transition(scope, profile->id, profile->generation, ProfileStatus::NeedsUser);
    VERIFY_OK(moved);
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)),
             QStringLiteral("profile_not_ready"));

    // Signed in again: READY at a later generation than the session pinned.
    const Result<CeremonyBegun> begun = beginFor(scope, *moved);
    VERIFY_OK(begun);
    tick();
    const Result<CeremonyFinished> finished = repository().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(finished);
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)),
             QStringLiteral("generation_changed"));
    const StandingGrantUse fresh = useOf(*grant, finished->profile);
    QCOMPARE(decision(grants().authorize(scope, grant->id, fresh)), QStringLiteral("allowed"));

    // Revoked through the other instance: denied at the very next use.
    VERIFY_OK(grantsOf(other).revokeStandingGrant(scope, grant->id));
    QCOMPARE(decision(grants().authorize(scope, grant->id, fresh)), QStringLiteral("revoked"));
}

void StandingGrantContract::grantAuthorizeDeniesTheUnknown()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);
    const StandingGrantUse use = useOf(*grant, *profile);
    QCOMPARE(decision(grants().authorize(scope, BrowserProfile::newId(), use)),
             QStringLiteral("not_found"));
    QCOMPARE(decision(grants().authorize(scope, QUuid(), use)), QStringLiteral("not_found"));
    QCOMPARE(decision(grants().authorize(ProfileScope(), grant->id, use)),
             QStringLiteral("unavailable"));
    // The act must still be routine on the store's copy of the grant.
    StandingGrantUse deleting = use;
    deleting.facts.accessibleName = deleting.facts.visibleText = QStringLiteral("Delete account");
    QCOMPARE(decision(grants().authorize(scope, grant->id, deleting)),
             QStringLiteral("not_routine"));
}

void StandingGrantContract::grantsAreScoped()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);

    for (const ProfileScope &outsider : {otherPrincipal(scope), otherTenant(scope)}) {
        QCOMPARE(grants().standingGrant(outsider, grant->id).error(),
                 standingGrantError(StandingGrantFailure::NotFound));
        QVERIFY(grants().standingGrants(outsider, std::nullopt)->isEmpty());
        QVERIFY(grants().standingGrants(outsider, profile->id)->isEmpty());
        QVERIFY(grants().standingGrantAudit(outsider)->isEmpty());
        QCOMPARE(grants().revokeStandingGrant(outsider, grant->id).error(),
                 standingGrantError(StandingGrantFailure::NotFound));
        StandingGrantUse use = useOf(*grant, *profile);
        use.scope = outsider;
        QCOMPARE(decision(grants().authorize(outsider, grant->id, use)),
                 QStringLiteral("not_found"));
        // Nor can an outsider make a grant on the owner's profile.
        VERIFY_PROFILE_FAILURE(grants().createStandingGrant(outsider, requestFor(*profile)),
                               ProfileFailure::NotFound);
    }
    QVERIFY(!grants().standingGrant(scope, grant->id)->isRevoked());
}

void StandingGrantContract::grantsGoWithTheirProfile()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = signedInProfile(scope);
    VERIFY_OK(profile);
    const Result<StandingGrant> grant = grants().createStandingGrant(scope, requestFor(*profile));
    VERIFY_OK(grant);
    const StandingGrantUse use = useOf(*grant, *profile);
    const Result<BrowserProfile> revoked =
        repository().transition(scope, profile->id, profile->generation, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)),
             QStringLiteral("profile_not_ready"));
    VERIFY_OK(repository().remove(scope, profile->id, revoked->generation));
    QCOMPARE(grants().standingGrant(scope, grant->id).error(),
             standingGrantError(StandingGrantFailure::NotFound));
    QCOMPARE(decision(grants().authorize(scope, grant->id, use)), QStringLiteral("not_found"));
    // The audit is history and stays.
    QCOMPARE(grants().standingGrantAudit(scope)->size(), 1);
}

namespace StandingGrantStoreChecks {

namespace {

// Runs one statement inside a savepoint, so a refused one leaves the transaction usable.
bool probe(QSqlDatabase &db, const QString &sql, const QList<std::pair<QString, QVariant>> &values)
{
    QSqlQuery savepoint(db);
    if (!savepoint.exec(QStringLiteral("SAVEPOINT grant_probe")))
        qFatal("SAVEPOINT failed");
    QSqlQuery query(db);
    query.prepare(sql);
    for (const auto &[name, value] : values)
        query.bindValue(name, value);
    const bool ok = query.exec();
    query.finish();
    if (!savepoint.exec(ok ? QStringLiteral("RELEASE SAVEPOINT grant_probe")
                           : QStringLiteral("ROLLBACK TO SAVEPOINT grant_probe")))
        qFatal("savepoint release/rollback failed");
    return ok;
}

struct GrantRow
{
    QString principal = QStringLiteral("probe");
    QString profileId;
    QVariant policyVersion = QString(64, u'0');
    QVariant origins = QStringLiteral("[\"https://www.acme-shop.com\"]");
    QVariant actionKinds = 1;
    QVariant role = QVariant(QMetaType::fromType<QString>());
    QVariant name = QVariant(QMetaType::fromType<QString>());
    QVariant purpose = QVariant(QMetaType::fromType<QString>());
    QString startsAt = QStringLiteral("2030-01-02T03:04:05.678Z");
    QString expiresAt = QStringLiteral("2030-01-03T03:04:05.678Z");
    QVariant revokedAt = QVariant(QMetaType::fromType<QString>());
};

bool insertGrant(QSqlDatabase &db, const QString &tenant, const GrantRow &row,
                 const QString &id = BrowserProfile::newId().toString(QUuid::WithoutBraces))
{
    return probe(
        db,
        QStringLiteral("INSERT INTO browser_standing_grants (id, tenant, principal, profile_id,"
                       " agent_version, policy_version, origins, action_kinds, element_role,"
                       " accessible_name, purpose, starts_at, expires_at, revoked_at, approver,"
                       " created_at) VALUES (:id, :tenant, :principal, :profile_id,"
                       " 'veetbot 0.9.0', :policy_version, :origins, :action_kinds, :role, :name,"
                       " :purpose, :starts_at, :expires_at, :revoked_at, :principal,"
                       " '2030-01-02T03:04:05.678Z')"),
        {{QStringLiteral(":id"), id},
         {QStringLiteral(":tenant"), tenant},
         {QStringLiteral(":principal"), row.principal},
         {QStringLiteral(":profile_id"), row.profileId},
         {QStringLiteral(":policy_version"), row.policyVersion},
         {QStringLiteral(":origins"), row.origins},
         {QStringLiteral(":action_kinds"), row.actionKinds},
         {QStringLiteral(":role"), row.role},
         {QStringLiteral(":name"), row.name},
         {QStringLiteral(":purpose"), row.purpose},
         {QStringLiteral(":starts_at"), row.startsAt},
         {QStringLiteral(":expires_at"), row.expiresAt},
         {QStringLiteral(":revoked_at"), row.revokedAt}});
}

bool insertAudit(QSqlDatabase &db, const QString &tenant, const QString &grantId,
                 const QString &kind)
{
    return probe(db,
                 QStringLiteral("INSERT INTO browser_grant_audit (id, tenant, principal, grant_id,"
                                " kind, recorded_at) VALUES (:id, :tenant, 'probe', :grant_id,"
                                " :kind, '2030-01-02T03:04:05.678Z')"),
                 {{QStringLiteral(":id"), BrowserProfile::newId().toString(QUuid::WithoutBraces)},
                  {QStringLiteral(":tenant"), tenant},
                  {QStringLiteral(":grant_id"), grantId},
                  {QStringLiteral(":kind"), kind}});
}

} // namespace

void verifyConstraints(QSqlDatabase &db, const QString &tenant)
{
    const QString profileId = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    QVERIFY(probe(db,
                  QStringLiteral("INSERT INTO browser_profiles (id, tenant, principal,"
                                 " provider_name, provider_reference, status, generation,"
                                 " key_version, created_at, updated_at) VALUES (:id, :tenant,"
                                 " 'probe', 'hosted', :reference, 'ready', 1, 'k1',"
                                 " '2030-01-02T03:04:05.678Z', '2030-01-02T03:04:05.678Z')"),
                  {{QStringLiteral(":id"), profileId},
                   {QStringLiteral(":tenant"), tenant},
                   {QStringLiteral(":reference"), BrowserProfile::newProviderReference()}}));
    const auto with = [&](const std::function<void(GrantRow &)> &change) {
        GrantRow row;
        row.profileId = profileId;
        change(row);
        return insertGrant(db, tenant, row);
    };
    const auto nothing = [](GrantRow &) {};
    QVERIFY(with(nothing));

    // Time: an expiry after the start, and at most thirty days after it.
    QVERIFY(!with([](GrantRow &r) { r.expiresAt = r.startsAt; }));
    QVERIFY(!with([](GrantRow &r) { r.expiresAt = QStringLiteral("2030-01-01T03:04:05.678Z"); }));
    QVERIFY(with([](GrantRow &r) { r.expiresAt = QStringLiteral("2030-02-01T03:04:05.678Z"); }));
    QVERIFY(!with([](GrantRow &r) { r.expiresAt = QStringLiteral("2030-02-01T03:04:05.679Z"); }));
    QVERIFY(!with([](GrantRow &r) { r.expiresAt = QStringLiteral("2030-03-01T03:04:05.678Z"); }));
    QVERIFY(!with([](GrantRow &r) { r.revokedAt = QStringLiteral("2030-01-02T03:04:05.677Z"); }));
    QVERIFY(with([](GrantRow &r) { r.revokedAt = QStringLiteral("2030-01-02T05:00:00.000Z"); }));

    // Kinds: a non-empty subset of the six.
    QVERIFY(!with([](GrantRow &r) { r.actionKinds = 0; }));
    QVERIFY(!with([](GrantRow &r) { r.actionKinds = 64; }));
    QVERIFY(!with([](GrantRow &r) { r.actionKinds = -1; }));
    QVERIFY(with([](GrantRow &r) { r.actionKinds = 63; }));

    // Origins: a JSON array of one to sixteen.
    QVERIFY(!with([](GrantRow &r) { r.origins = QStringLiteral("[]"); }));
    QVERIFY(
        !with([](GrantRow &r) { r.origins = QStringLiteral("\"https://www.acme-shop.com\""); }));
    QStringList sixteen;
    for (int i = 0; i < 16; ++i)
        sixteen << QStringLiteral("\"https://www.shop%1.com\"").arg(i);
    QVERIFY(with([&](GrantRow &r) { r.origins = QString(u'[' + sixteen.join(u',') + u']'); }));
    sixteen << QStringLiteral("\"https://www.shop16.com\"");
    QVERIFY(!with([&](GrantRow &r) { r.origins = QString(u'[' + sixteen.join(u',') + u']'); }));

    // Role, name, purpose and the policy version.
    QVERIFY(with([](GrantRow &r) { r.role = QStringLiteral("button"); }));
    QVERIFY(!with([](GrantRow &r) { r.role = QStringLiteral("dialog"); }));
    QVERIFY(with([](GrantRow &r) { r.name = QString(128, u'n'); }));
    QVERIFY(!with([](GrantRow &r) { r.name = QString(129, u'n'); }));
    QVERIFY(!with([](GrantRow &r) { r.name = QStringLiteral(""); }));
    QVERIFY(!with([](GrantRow &r) { r.purpose = QString(129, u'p'); }));
    QVERIFY(!with([](GrantRow &r) { r.policyVersion = QString(64, u'A'); }));
    QVERIFY(!with([](GrantRow &r) { r.policyVersion = QString(63, u'0'); }));
    QVERIFY(!with([](GrantRow &r) { r.policyVersion = QString(QString(63, u'0') + u'g'); }));

    // Only on a profile of the same principal.
    QVERIFY(!with(
        [](GrantRow &r) { r.profileId = BrowserProfile::newId().toString(QUuid::WithoutBraces); }));
    QVERIFY(!with([](GrantRow &r) { r.principal = QStringLiteral("someone-else"); }));

    // The audit: a closed kind, one record of each kind per grant.
    const QString grantId = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    QVERIFY(!insertAudit(db, tenant, grantId, QStringLiteral("browser.grant.widened")));
    QVERIFY(insertAudit(db, tenant, grantId, QStringLiteral("browser.grant.created")));
    QVERIFY(!insertAudit(db, tenant, grantId, QStringLiteral("browser.grant.created")));
    QVERIFY(insertAudit(db, tenant, grantId, QStringLiteral("browser.grant.revoked")));
    QVERIFY(!insertAudit(db, tenant, grantId, QStringLiteral("browser.grant.revoked")));
}

} // namespace StandingGrantStoreChecks
