#include "ProfileRepositoryContract.h"

#include "domain/TestOverrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>

using namespace veetbot;

namespace veetbot {

char *toString(const BrowserProfile &profile)
{
    QJsonObject json = BrowserProfileView::of(profile).toJson();
    json.insert(QStringLiteral("tenant"), profile.tenant);
    json.insert(QStringLiteral("principal"), profile.principal);
    json.insert(QStringLiteral("reference"), profile.providerReference.value_or(QString()));
    json.insert(QStringLiteral("key_version"), profile.keyVersion.value_or(QString()));
    return qstrdup(QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
}

char *toString(const ProfileStatus &status)
{
    return qstrdup(profileStatusString(status).toUtf8().constData());
}

} // namespace veetbot

namespace {

QString randomSuffix()
{
    return BrowserProfile::newId().toString(QUuid::WithoutBraces).left(13);
}

} // namespace

// ---- helpers -------------------------------------------------------------------------------

Origin ProfileRepositoryContract::origin(const QString &text)
{
    Result<Origin> parsed = Origin::parse(text, TestOverrides());
    if (!parsed)
        qFatal("test origin does not parse");
    return std::move(parsed).value();
}

QList<Origin> ProfileRepositoryContract::twoOrigins()
{
    return {origin(QStringLiteral("https://www.shop.de")),
            origin(QStringLiteral("https://login.shop.de"))};
}

ProfileScope ProfileRepositoryContract::newScope()
{
    return ProfileScope{QStringLiteral("tenant-") + randomSuffix(),
                        QStringLiteral("principal-") + randomSuffix()};
}

ProfileScope ProfileRepositoryContract::otherPrincipal(const ProfileScope &scope)
{
    return ProfileScope{scope.tenant, scope.principal + QStringLiteral("-other")};
}

ProfileScope ProfileRepositoryContract::otherTenant(const ProfileScope &scope)
{
    return ProfileScope{scope.tenant + QStringLiteral("-other"), scope.principal};
}

BrowserProfile ProfileRepositoryContract::reservation(const ProfileScope &scope,
                                                      QList<Origin> origins) const
{
    Result<BrowserProfile> profile =
        BrowserProfile::reserve(scope, origins.isEmpty() ? twoOrigins() : origins, m_now);
    if (!profile)
        qFatal("test reservation is invalid");
    return std::move(profile).value();
}

Result<BrowserProfile> ProfileRepositoryContract::createIn(const ProfileScope &scope,
                                                           ProfileStatus status, bool bound)
{
    Result<BrowserProfile> profile = m_repository->create(scope, reservation(scope));
    const auto step = [&](auto &&operation) {
        if (profile) {
            tick();
            profile = operation(*profile);
        }
    };
    const bool needsBinding =
        status != ProfileStatus::Provisioning && (status != ProfileStatus::Revoked || bound);
    if (needsBinding) {
        step([&](const BrowserProfile &p) {
            return m_repository->bind(scope, p.id, p.generation, QStringLiteral("hosted"),
                                      BrowserProfile::newProviderReference(), QStringLiteral("k1"));
        });
    }
    const auto to = [&](ProfileStatus next) {
        step([&](const BrowserProfile &p) {
            return m_repository->transition(scope, p.id, p.generation, next);
        });
    };
    switch (status) {
    case ProfileStatus::Provisioning:
    case ProfileStatus::AuthenticationRequired:
        break;
    case ProfileStatus::Ready:
        to(ProfileStatus::Ready);
        break;
    case ProfileStatus::NeedsUser:
        to(ProfileStatus::Ready);
        to(ProfileStatus::NeedsUser);
        break;
    case ProfileStatus::Revoked:
        to(ProfileStatus::Revoked);
        break;
    }
    tick();
    return profile;
}

// ---- fixture -------------------------------------------------------------------------------

void ProfileRepositoryContract::initTestCase()
{
    initAdapter();
}

void ProfileRepositoryContract::cleanupTestCase()
{
    m_repository.reset();
    cleanupAdapter();
}

void ProfileRepositoryContract::init()
{
    m_now = QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC);
    m_repository = createRepository(clock());
    QVERIFY2(m_repository, "the adapter could not open a repository");
}

void ProfileRepositoryContract::cleanup()
{
    m_repository.reset();
}

// ---- contract ------------------------------------------------------------------------------

void ProfileRepositoryContract::createAndGetRoundTrip()
{
    const ProfileScope scope = newScope();
    const BrowserProfile reserved = reservation(scope);
    const Result<BrowserProfile> created = repository().create(scope, reserved);
    VERIFY_OK(created);
    QCOMPARE(*created, reserved);
    QCOMPARE(created->status, ProfileStatus::Provisioning);
    QCOMPARE(created->generation, qint64(0));
    QVERIFY(!created->providerReference && !created->providerName && !created->keyVersion);

    const Result<BrowserProfile> read = repository().get(scope, reserved.id);
    VERIFY_OK(read);
    QCOMPARE(*read, reserved);

    // A profile created already bound and used round-trips every field.
    BrowserProfile bound = reservation(scope);
    bound.status = ProfileStatus::Ready;
    bound.generation = 7;
    bound.providerName = QStringLiteral("device");
    bound.providerReference = BrowserProfile::newProviderReference();
    bound.keyVersion = QStringLiteral("2030-01.v2");
    bound.updatedAt = m_now.addSecs(5);
    bound.lastUsedAt = m_now.addSecs(9);
    VERIFY_OK(repository().create(scope, bound));
    const Result<BrowserProfile> boundRead = repository().get(scope, bound.id);
    VERIFY_OK(boundRead);
    QCOMPARE(*boundRead, bound);
    QCOMPARE(boundRead->updatedAt.timeSpec(), Qt::UTC);
}

void ProfileRepositoryContract::createRejectsInvalidProfiles()
{
    const ProfileScope scope = newScope();
    const BrowserProfile valid = reservation(scope);
    QList<BrowserProfile> invalid;

    BrowserProfile p = valid;
    p.tenant = otherTenant(scope).tenant; // names another scope
    invalid << p;
    p = valid;
    p.principal = otherPrincipal(scope).principal;
    invalid << p;
    p = valid;
    p.id = QUuid();
    invalid << p;
    p = valid;
    p.id = QUuid::createUuidV5(QUuid(), QStringLiteral("name")); // not a random v4 id
    invalid << p;
    p = valid;
    p.allowedOrigins.clear();
    invalid << p;
    p = valid;
    p.allowedOrigins.append(p.allowedOrigins.first()); // repeated origin
    invalid << p;
    p = valid;
    p.allowedOrigins.clear();
    for (int i = 0; i < 65; ++i)
        p.allowedOrigins.append(origin(QStringLiteral("https://s%1.shop.de").arg(i)));
    invalid << p;
    p = valid;
    p.generation = -1;
    invalid << p;
    p = valid; // PROVISIONING with a binding
    p.providerName = QStringLiteral("hosted");
    p.providerReference = BrowserProfile::newProviderReference();
    p.keyVersion = QStringLiteral("k1");
    invalid << p;
    p = valid; // READY without a binding
    p.status = ProfileStatus::Ready;
    invalid << p;
    p = valid; // partial binding
    p.status = ProfileStatus::AuthenticationRequired;
    p.providerName = QStringLiteral("hosted");
    p.providerReference = BrowserProfile::newProviderReference();
    invalid << p;
    p = valid;
    p.updatedAt = p.createdAt.addSecs(-1);
    invalid << p;
    p = valid;
    p.createdAt = QDateTime();
    invalid << p;

    for (const BrowserProfile &profile : std::as_const(invalid))
        VERIFY_PROFILE_FAILURE(repository().create(scope, profile), ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().create(ProfileScope{}, valid), ProfileFailure::Invalid);
    const Result<QList<BrowserProfile>> listed = repository().list(scope);
    VERIFY_OK(listed);
    QVERIFY(listed->isEmpty());
}

void ProfileRepositoryContract::createDetectsConflicts()
{
    const ProfileScope scope = newScope();
    const BrowserProfile first = reservation(scope);
    VERIFY_OK(repository().create(scope, first));

    // The same id again, in this scope or any other.
    VERIFY_PROFILE_FAILURE(repository().create(scope, first), ProfileFailure::Conflict);
    for (const ProfileScope &other : {otherTenant(scope), otherPrincipal(scope)}) {
        BrowserProfile sameId = reservation(other);
        sameId.id = first.id;
        VERIFY_PROFILE_FAILURE(repository().create(other, sameId), ProfileFailure::Conflict);
        VERIFY_PROFILE_FAILURE(repository().get(other, first.id), ProfileFailure::NotFound);
    }
    QCOMPARE(*repository().get(scope, first.id), first);

    // Unbound reservations have no reference and never conflict with one another.
    VERIFY_OK(repository().create(scope, reservation(scope)));
    VERIFY_OK(repository().create(scope, reservation(scope)));

    // A used reference conflicts, in this scope or any other.
    const Result<BrowserProfile> bound = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(bound);
    for (const ProfileScope &other : {scope, otherTenant(scope), otherPrincipal(scope)}) {
        BrowserProfile sameReference = reservation(other);
        sameReference.status = ProfileStatus::AuthenticationRequired;
        sameReference.providerName = QStringLiteral("hosted");
        sameReference.providerReference = bound->providerReference;
        sameReference.keyVersion = QStringLiteral("k1");
        VERIFY_PROFILE_FAILURE(repository().create(other, sameReference), ProfileFailure::Conflict);
        VERIFY_PROFILE_FAILURE(repository().get(other, sameReference.id), ProfileFailure::NotFound);
    }
    const Result<QList<BrowserProfile>> listed = repository().list(scope);
    VERIFY_OK(listed);
    QCOMPARE(int(listed->size()), 4);
}

void ProfileRepositoryContract::listIsScopedAndOrdered()
{
    const ProfileScope scope = newScope();
    QList<BrowserProfile> mine;
    for (int i = 0; i < 3; ++i) {
        const BrowserProfile profile = reservation(scope);
        VERIFY_OK(repository().create(scope, profile));
        mine.append(profile);
        tick();
    }
    const BrowserProfile colleague = reservation(otherPrincipal(scope));
    VERIFY_OK(repository().create(otherPrincipal(scope), colleague));
    const BrowserProfile foreign = reservation(otherTenant(scope));
    VERIFY_OK(repository().create(otherTenant(scope), foreign));

    const Result<QList<BrowserProfile>> listed = repository().list(scope);
    VERIFY_OK(listed);
    QCOMPARE(*listed, mine); // oldest first

    const Result<QList<BrowserProfile>> colleagues = repository().list(otherPrincipal(scope));
    VERIFY_OK(colleagues);
    QCOMPARE(*colleagues, QList<BrowserProfile>{colleague});
    const Result<QList<BrowserProfile>> foreigners = repository().list(otherTenant(scope));
    VERIFY_OK(foreigners);
    QCOMPARE(*foreigners, QList<BrowserProfile>{foreign});

    const Result<QList<BrowserProfile>> nobody = repository().list(newScope());
    VERIFY_OK(nobody);
    QVERIFY(nobody->isEmpty());
    VERIFY_PROFILE_FAILURE(repository().list(ProfileScope{}), ProfileFailure::Invalid);
}

void ProfileRepositoryContract::legalTransitions_data()
{
    QTest::addColumn<ProfileStatus>("from");
    QTest::addColumn<bool>("bound");
    QTest::addColumn<ProfileStatus>("to");
    using S = ProfileStatus;
    QTest::newRow("provisioning->revoked") << S::Provisioning << false << S::Revoked;
    QTest::newRow("authentication_required->ready")
        << S::AuthenticationRequired << true << S::Ready;
    QTest::newRow("authentication_required->revoked")
        << S::AuthenticationRequired << true << S::Revoked;
    QTest::newRow("ready->needs_user") << S::Ready << true << S::NeedsUser;
    QTest::newRow("ready->revoked") << S::Ready << true << S::Revoked;
    QTest::newRow("needs_user->ready") << S::NeedsUser << true << S::Ready;
    QTest::newRow("needs_user->revoked") << S::NeedsUser << true << S::Revoked;
}

void ProfileRepositoryContract::legalTransitions()
{
    QFETCH(ProfileStatus, from);
    QFETCH(bool, bound);
    QFETCH(ProfileStatus, to);
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> before = createIn(scope, from, bound);
    VERIFY_OK(before);
    QCOMPARE(before->status, from);

    const Result<BrowserProfile> after =
        repository().transition(scope, before->id, before->generation, to);
    VERIFY_OK(after);
    QCOMPARE(after->status, to);
    QCOMPARE(after->generation, before->generation + 1);
    QCOMPARE(after->updatedAt, now());
    QCOMPARE(after->createdAt, before->createdAt);
    QCOMPARE(after->providerReference, before->providerReference); // revocation keeps it
    QCOMPARE(after->allowedOrigins, before->allowedOrigins);
    QCOMPARE(*repository().get(scope, before->id), *after);
}

void ProfileRepositoryContract::illegalTransitions_data()
{
    QTest::addColumn<ProfileStatus>("from");
    QTest::addColumn<bool>("bound");
    QTest::addColumn<ProfileStatus>("to");
    const QList<std::pair<ProfileStatus, bool>> starts = {
        {ProfileStatus::Provisioning, false}, {ProfileStatus::AuthenticationRequired, true},
        {ProfileStatus::Ready, true},         {ProfileStatus::NeedsUser, true},
        {ProfileStatus::Revoked, true},       {ProfileStatus::Revoked, false},
    };
    for (const auto &[from, bound] : starts) {
        for (ProfileStatus to : kAllProfileStatuses) {
            if (ProfileLifecycle::allowsTransition(from, to))
                continue;
            const QString name = profileStatusString(from) +
                                 (bound ? QString() : QStringLiteral("(unbound)")) +
                                 QStringLiteral("->") + profileStatusString(to);
            QTest::newRow(qPrintable(name)) << from << bound << to;
        }
    }
}

void ProfileRepositoryContract::illegalTransitions()
{
    QFETCH(ProfileStatus, from);
    QFETCH(bool, bound);
    QFETCH(ProfileStatus, to);
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> before = createIn(scope, from, bound);
    VERIFY_OK(before);
    VERIFY_PROFILE_FAILURE(repository().transition(scope, before->id, before->generation, to),
                           ProfileFailure::InvalidTransition);
    QCOMPARE(*repository().get(scope, before->id), *before);
}

void ProfileRepositoryContract::bindOnlyFromProvisioning()
{
    const ProfileScope scope = newScope();
    const QList<std::pair<ProfileStatus, bool>> starts = {
        {ProfileStatus::AuthenticationRequired, true},
        {ProfileStatus::Ready, true},
        {ProfileStatus::NeedsUser, true},
        {ProfileStatus::Revoked, true},
        {ProfileStatus::Revoked, false},
    };
    for (const auto &[status, bound] : starts) {
        const Result<BrowserProfile> before = createIn(scope, status, bound);
        VERIFY_OK(before);
        VERIFY_PROFILE_FAILURE(
            repository().bind(scope, before->id, before->generation, QStringLiteral("hosted"),
                              BrowserProfile::newProviderReference(), QStringLiteral("k1")),
            ProfileFailure::InvalidTransition);
        QCOMPARE(*repository().get(scope, before->id), *before);
    }
}

void ProfileRepositoryContract::bindConsistency()
{
    const ProfileScope scope = newScope();
    const BrowserProfile reserved = reservation(scope);
    VERIFY_OK(repository().create(scope, reserved));
    const QString reference = BrowserProfile::newProviderReference();

    // Name, reference and key version are bound together or not at all.
    VERIFY_PROFILE_FAILURE(
        repository().bind(scope, reserved.id, 0, QString(), reference, QStringLiteral("k1")),
        ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().bind(scope, reserved.id, 0, QStringLiteral("hosted"),
                                             QString(), QStringLiteral("k1")),
                           ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(
        repository().bind(scope, reserved.id, 0, QStringLiteral("hosted"), reference, QString()),
        ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().bind(scope, reserved.id, 0, QStringLiteral("hosted"),
                                             QStringLiteral("with space"), QStringLiteral("k1")),
                           ProfileFailure::Invalid);
    QCOMPARE(*repository().get(scope, reserved.id), reserved);

    tick();
    const Result<BrowserProfile> bound = repository().bind(
        scope, reserved.id, 0, QStringLiteral("hosted"), reference, QStringLiteral("k1"));
    VERIFY_OK(bound);
    QCOMPARE(bound->status, ProfileStatus::AuthenticationRequired);
    QCOMPARE(bound->generation, qint64(1));
    QCOMPARE(bound->providerName, std::optional<QString>(QStringLiteral("hosted")));
    QCOMPARE(bound->providerReference, std::optional<QString>(reference));
    QCOMPARE(bound->keyVersion, std::optional<QString>(QStringLiteral("k1")));
    QCOMPARE(bound->updatedAt, now());
    QCOMPARE(*repository().get(scope, reserved.id), *bound);

    // Revocation keeps a binding (material still has to be deleted) and keeps an unbound
    // reservation unbound.
    const Result<BrowserProfile> revoked =
        repository().transition(scope, reserved.id, 1, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    QCOMPARE(revoked->providerReference, std::optional<QString>(reference));
    const Result<BrowserProfile> neverBound = createIn(scope, ProfileStatus::Revoked, false);
    VERIFY_OK(neverBound);
    QVERIFY(!neverBound->providerName && !neverBound->providerReference && !neverBound->keyVersion);
}

void ProfileRepositoryContract::bindConflictLeavesProfileUnchanged()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> taken = createIn(otherTenant(scope), ProfileStatus::Ready);
    VERIFY_OK(taken);
    const BrowserProfile reserved = reservation(scope);
    VERIFY_OK(repository().create(scope, reserved));
    VERIFY_PROFILE_FAILURE(repository().bind(scope, reserved.id, 0, QStringLiteral("hosted"),
                                             *taken->providerReference, QStringLiteral("k1")),
                           ProfileFailure::Conflict);
    QCOMPARE(*repository().get(scope, reserved.id), reserved);
    QCOMPARE(*repository().get(otherTenant(scope), taken->id), *taken);
    // A fresh reference still binds.
    VERIFY_OK(repository().bind(scope, reserved.id, 0, QStringLiteral("hosted"),
                                BrowserProfile::newProviderReference(), QStringLiteral("k1")));
}

void ProfileRepositoryContract::staleGenerationVersusMissing()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> reserved = createIn(scope, ProfileStatus::Provisioning);
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked);
    VERIFY_OK(reserved);
    VERIFY_OK(ready);
    VERIFY_OK(revoked);
    const QUuid unknown = BrowserProfile::newId();
    const QString reference = BrowserProfile::newProviderReference();

    for (const qint64 delta : {qint64(-1), qint64(1), qint64(100)}) {
        const qint64 r = reserved->generation + delta;
        const qint64 g = ready->generation + delta;
        const qint64 v = revoked->generation + delta;
        if (r >= 0) {
            VERIFY_PROFILE_FAILURE(repository().bind(scope, reserved->id, r,
                                                     QStringLiteral("hosted"), reference,
                                                     QStringLiteral("k1")),
                                   ProfileFailure::StaleGeneration);
        }
        VERIFY_PROFILE_FAILURE(
            repository().transition(scope, ready->id, g, ProfileStatus::NeedsUser),
            ProfileFailure::StaleGeneration);
        // A stale generation is reported before the lifecycle rule.
        VERIFY_PROFILE_FAILURE(
            repository().transition(scope, ready->id, g, ProfileStatus::Provisioning),
            ProfileFailure::StaleGeneration);
        VERIFY_PROFILE_FAILURE(repository().advanceGeneration(scope, ready->id, g),
                               ProfileFailure::StaleGeneration);
        VERIFY_PROFILE_FAILURE(
            repository().updateKeyVersion(scope, ready->id, g, QStringLiteral("k2")),
            ProfileFailure::StaleGeneration);
        VERIFY_PROFILE_FAILURE(repository().remove(scope, revoked->id, v),
                               ProfileFailure::StaleGeneration);
    }

    VERIFY_PROFILE_FAILURE(repository().get(scope, unknown), ProfileFailure::NotFound);
    VERIFY_PROFILE_FAILURE(repository().get(scope, QUuid()), ProfileFailure::NotFound);
    verifyInvisible(scope, unknown, 0);

    QCOMPARE(*repository().get(scope, reserved->id), *reserved);
    QCOMPARE(*repository().get(scope, ready->id), *ready);
    QCOMPARE(*repository().get(scope, revoked->id), *revoked);
}

void ProfileRepositoryContract::secondWriterWithSameGenerationIsStale()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const qint64 seen = ready->generation;
    // Two callers read the same generation; the first write wins and the second is stale,
    // whichever operation each one attempts.
    VERIFY_OK(repository().transition(scope, ready->id, seen, ProfileStatus::Revoked));
    VERIFY_PROFILE_FAILURE(repository().advanceGeneration(scope, ready->id, seen),
                           ProfileFailure::StaleGeneration);
    VERIFY_PROFILE_FAILURE(
        repository().transition(scope, ready->id, seen, ProfileStatus::NeedsUser),
        ProfileFailure::StaleGeneration);
    const Result<BrowserProfile> after = repository().get(scope, ready->id);
    VERIFY_OK(after);
    QCOMPARE(after->status, ProfileStatus::Revoked);
    QCOMPARE(after->generation, seen + 1);
}

void ProfileRepositoryContract::verifyInvisible(const ProfileScope &outsider, const QUuid &id,
                                                qint64 generation)
{
    const ProfileFailure missing = ProfileFailure::NotFound;
    VERIFY_PROFILE_FAILURE(repository().get(outsider, id), missing);
    VERIFY_PROFILE_FAILURE(repository().bind(outsider, id, generation, QStringLiteral("hosted"),
                                             BrowserProfile::newProviderReference(),
                                             QStringLiteral("k1")),
                           missing);
    for (ProfileStatus to : kAllProfileStatuses)
        VERIFY_PROFILE_FAILURE(repository().transition(outsider, id, generation, to), missing);
    VERIFY_PROFILE_FAILURE(repository().advanceGeneration(outsider, id, generation), missing);
    VERIFY_PROFILE_FAILURE(repository().touchLastUsed(outsider, id), missing);
    VERIFY_PROFILE_FAILURE(repository().remove(outsider, id, generation), missing);
    VERIFY_PROFILE_FAILURE(
        repository().updateKeyVersion(outsider, id, generation, QStringLiteral("k2")), missing);
    // A wrong generation changes nothing: the outsider learns nothing from guessing.
    VERIFY_PROFILE_FAILURE(repository().remove(outsider, id, generation + 1), missing);
    const Result<QList<BrowserProfile>> listed = repository().list(outsider);
    VERIFY_OK(listed);
    QVERIFY(std::none_of(listed->cbegin(), listed->cend(),
                         [&](const BrowserProfile &p) { return p.id == id; }));
}

void ProfileRepositoryContract::otherPrincipalSeesNotFound()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked);
    const Result<BrowserProfile> reserved = createIn(scope, ProfileStatus::Provisioning);
    VERIFY_OK(ready);
    VERIFY_OK(revoked);
    VERIFY_OK(reserved);
    // The colleague has profiles of their own in the same tenant.
    VERIFY_OK(createIn(otherPrincipal(scope), ProfileStatus::Ready));

    for (const BrowserProfile &mine : {*ready, *revoked, *reserved}) {
        verifyInvisible(otherPrincipal(scope), mine.id, mine.generation);
        QCOMPARE(*repository().get(scope, mine.id), mine);
    }
}

void ProfileRepositoryContract::otherTenantSeesNotFound()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked);
    const Result<BrowserProfile> reserved = createIn(scope, ProfileStatus::Provisioning);
    VERIFY_OK(ready);
    VERIFY_OK(revoked);
    VERIFY_OK(reserved);
    VERIFY_OK(createIn(otherTenant(scope), ProfileStatus::Ready));

    // Same principal name in another tenant: still somebody else.
    for (const BrowserProfile &mine : {*ready, *revoked, *reserved}) {
        verifyInvisible(otherTenant(scope), mine.id, mine.generation);
        QCOMPARE(*repository().get(scope, mine.id), mine);
    }
}

void ProfileRepositoryContract::removeOnlyFromRevoked()
{
    const ProfileScope scope = newScope();
    for (ProfileStatus status : {ProfileStatus::Provisioning, ProfileStatus::AuthenticationRequired,
                                 ProfileStatus::Ready, ProfileStatus::NeedsUser}) {
        const Result<BrowserProfile> live = createIn(scope, status);
        VERIFY_OK(live);
        VERIFY_PROFILE_FAILURE(repository().remove(scope, live->id, live->generation),
                               ProfileFailure::InvalidTransition);
        QCOMPARE(*repository().get(scope, live->id), *live);
    }

    for (const bool bound : {true, false}) {
        const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked, bound);
        VERIFY_OK(revoked);
        VERIFY_PROFILE_FAILURE(repository().remove(scope, revoked->id, revoked->generation + 1),
                               ProfileFailure::StaleGeneration);
        VERIFY_OK(repository().remove(scope, revoked->id, revoked->generation));
        VERIFY_PROFILE_FAILURE(repository().get(scope, revoked->id), ProfileFailure::NotFound);
        // Deleted profiles are absent, not a reusable state; deleting again finds nothing.
        VERIFY_PROFILE_FAILURE(repository().remove(scope, revoked->id, revoked->generation),
                               ProfileFailure::NotFound);
        const Result<QList<BrowserProfile>> listed = repository().list(scope);
        VERIFY_OK(listed);
        QVERIFY(std::none_of(listed->cbegin(), listed->cend(),
                             [&](const BrowserProfile &p) { return p.id == revoked->id; }));
    }
    const Result<QList<BrowserProfile>> listed = repository().list(scope);
    VERIFY_OK(listed);
    QCOMPARE(int(listed->size()), 4);
}

void ProfileRepositoryContract::lastUsedDoesNotBumpGeneration()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    QVERIFY(!ready->lastUsedAt);

    const Result<BrowserProfile> used = repository().touchLastUsed(scope, ready->id);
    VERIFY_OK(used);
    QCOMPARE(used->lastUsedAt, std::optional<QDateTime>(now()));
    QCOMPARE(used->generation, ready->generation);
    QCOMPARE(used->updatedAt, ready->updatedAt);
    QCOMPARE(used->status, ready->status);
    QCOMPARE(*repository().get(scope, ready->id), *used);

    tick();
    const Result<BrowserProfile> again = repository().touchLastUsed(scope, ready->id);
    VERIFY_OK(again);
    QCOMPARE(again->lastUsedAt, std::optional<QDateTime>(now()));
    QCOMPARE(again->generation, ready->generation);
    // A lease issued at the old generation is still current.
    VERIFY_OK(repository().advanceGeneration(scope, ready->id, ready->generation));

    // Every non-revoked state can be touched; a revoked one cannot.
    for (ProfileStatus status : {ProfileStatus::Provisioning, ProfileStatus::AuthenticationRequired,
                                 ProfileStatus::NeedsUser}) {
        const Result<BrowserProfile> profile = createIn(scope, status);
        VERIFY_OK(profile);
        const Result<BrowserProfile> touched = repository().touchLastUsed(scope, profile->id);
        VERIFY_OK(touched);
        QCOMPARE(touched->generation, profile->generation);
    }
    const Result<BrowserProfile> revoked = createIn(scope, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    VERIFY_PROFILE_FAILURE(repository().touchLastUsed(scope, revoked->id),
                           ProfileFailure::InvalidTransition);
    QCOMPARE(*repository().get(scope, revoked->id), *revoked);
}

void ProfileRepositoryContract::advanceGenerationKeepsStatus()
{
    const ProfileScope scope = newScope();
    for (ProfileStatus status :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::Ready, ProfileStatus::NeedsUser}) {
        const Result<BrowserProfile> before = createIn(scope, status);
        VERIFY_OK(before);
        const Result<BrowserProfile> after =
            repository().advanceGeneration(scope, before->id, before->generation);
        VERIFY_OK(after);
        QCOMPARE(after->status, status);
        QCOMPARE(after->generation, before->generation + 1);
        QCOMPARE(after->updatedAt, now());
        QCOMPARE(*repository().get(scope, before->id), *after);
        // A ready outcome recorded for an already READY profile advances it again.
        VERIFY_OK(repository().advanceGeneration(scope, before->id, after->generation));
    }
    for (const auto &[status, bound] :
         {std::pair{ProfileStatus::Provisioning, false}, std::pair{ProfileStatus::Revoked, true},
          std::pair{ProfileStatus::Revoked, false}}) {
        const Result<BrowserProfile> before = createIn(scope, status, bound);
        VERIFY_OK(before);
        VERIFY_PROFILE_FAILURE(
            repository().advanceGeneration(scope, before->id, before->generation),
            ProfileFailure::InvalidTransition);
        QCOMPARE(*repository().get(scope, before->id), *before);
    }
}

void ProfileRepositoryContract::updateKeyVersion()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    VERIFY_PROFILE_FAILURE(
        repository().updateKeyVersion(scope, ready->id, ready->generation, QString()),
        ProfileFailure::Invalid);
    const Result<BrowserProfile> rekeyed =
        repository().updateKeyVersion(scope, ready->id, ready->generation, QStringLiteral("k2"));
    VERIFY_OK(rekeyed);
    QCOMPARE(rekeyed->keyVersion, std::optional<QString>(QStringLiteral("k2")));
    QCOMPARE(rekeyed->generation, ready->generation + 1);
    QCOMPARE(rekeyed->status, ProfileStatus::Ready);
    QCOMPARE(rekeyed->providerReference, ready->providerReference);
    QCOMPARE(*repository().get(scope, ready->id), *rekeyed);

    for (const auto &[status, bound] :
         {std::pair{ProfileStatus::Provisioning, false}, std::pair{ProfileStatus::Revoked, true},
          std::pair{ProfileStatus::Revoked, false}}) {
        const Result<BrowserProfile> before = createIn(scope, status, bound);
        VERIFY_OK(before);
        VERIFY_PROFILE_FAILURE(repository().updateKeyVersion(scope, before->id, before->generation,
                                                             QStringLiteral("k2")),
                               ProfileFailure::InvalidTransition);
        QCOMPARE(*repository().get(scope, before->id), *before);
    }
}

void ProfileRepositoryContract::originsRoundTripSorted()
{
    const ProfileScope scope = newScope();
    // Given unsorted; stored and returned sorted, compared as sorted sets.
    const QList<Origin> given = {
        origin(QStringLiteral("https://zeta.shop.de")),
        origin(QStringLiteral("https://shop.de:8443")),
        origin(QStringLiteral("https://xn--bcher-kva.de")),
        origin(QStringLiteral("https://Shop.DE/")),
        origin(QStringLiteral("https://a.shop.de")),
    };
    BrowserProfile profile = reservation(scope);
    profile.allowedOrigins = given;
    const Result<BrowserProfile> created = repository().create(scope, profile);
    VERIFY_OK(created);
    QList<Origin> sorted = given;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(created->allowedOrigins, sorted);
    QVERIFY(created->allowedOrigins != given);
    const Result<BrowserProfile> read = repository().get(scope, profile.id);
    VERIFY_OK(read);
    QCOMPARE(read->allowedOrigins, sorted);
    QCOMPARE(read->allowedOrigins.at(1).toString(), QStringLiteral("https://shop.de"));

    // The bound: exactly 64.
    BrowserProfile wide = reservation(scope);
    wide.allowedOrigins.clear();
    for (int i = 63; i >= 0; --i)
        wide.allowedOrigins.append(origin(QStringLiteral("https://s%1.shop.de").arg(i)));
    VERIFY_OK(repository().create(scope, wide));
    const Result<QList<BrowserProfile>> listed = repository().list(scope);
    VERIFY_OK(listed);
    QCOMPARE(int(listed->size()), 2);
    for (const BrowserProfile &p : *listed) {
        QVERIFY(std::is_sorted(p.allowedOrigins.cbegin(), p.allowedOrigins.cend()));
        QCOMPARE(int(p.allowedOrigins.size()), p.id == wide.id ? 64 : 5);
    }
}

void ProfileRepositoryContract::errorsAreContentFree()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    const QStringList secrets = {scope.tenant, scope.principal, *ready->providerReference,
                                 ready->id.toString(QUuid::WithoutBraces)};
    const QList<Error> errors = {
        repository().get(otherTenant(scope), ready->id).error(),
        repository().transition(scope, ready->id, 99, ProfileStatus::Revoked).error(),
        repository()
            .transition(scope, ready->id, ready->generation, ProfileStatus::Provisioning)
            .error(),
        repository().create(scope, *ready).error(),
    };
    for (const Error &error : errors) {
        for (const QString &secret : secrets) {
            QVERIFY(!error.code.contains(secret));
            QVERIFY(!error.message.contains(secret));
        }
    }
}

// ---- shared SQL store checks -----------------------------------------------------------------

ScopedConnection::ScopedConnection(const QString &driver)
{
    static int counter = 0;
    m_name = QStringLiteral("tst.raw.%1").arg(++counter);
    m_db = QSqlDatabase::addDatabase(driver, m_name);
}

ScopedConnection::~ScopedConnection()
{
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_name);
}

namespace ProfileStoreChecks {

void verifyNoSecretColumns(const QList<std::pair<QString, QString>> &columnsAndTypes)
{
    static const QRegularExpression forbidden(
        QStringLiteral("material|cookie|token|blob|secret|credential|password|storage|header|"
                       "plaintext|cipher"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression binary(QStringLiteral("blob|bytea|binary"),
                                           QRegularExpression::CaseInsensitiveOption);
    QVERIFY(columnsAndTypes.size() >= 15); // the check looked at the real tables
    for (const auto &[column, type] : columnsAndTypes) {
        QVERIFY2(!forbidden.match(column).hasMatch(), qPrintable(column));
        QVERIFY2(!binary.match(type).hasMatch(), qPrintable(column + u' ' + type));
    }
}

namespace {

struct Row
{
    QString status = QStringLiteral("provisioning");
    qint64 generation = 0;
    QVariant providerName = QVariant(QMetaType::fromType<QString>());
    QVariant providerReference = QVariant(QMetaType::fromType<QString>());
    QVariant keyVersion = QVariant(QMetaType::fromType<QString>());
};

bool insertRow(QSqlDatabase &db, const QString &tenant, const Row &row)
{
    QSqlQuery savepoint(db);
    if (!savepoint.exec(QStringLiteral("SAVEPOINT probe")))
        qFatal("SAVEPOINT failed");
    QSqlQuery query(db);
    query.prepare(QStringLiteral(
        "INSERT INTO browser_profiles (id, tenant, principal, provider_name,"
        " provider_reference, status, generation, key_version, created_at, updated_at)"
        " VALUES (:id, :tenant, :principal, :provider_name, :provider_reference, :status,"
        " :generation, :key_version, :created_at, :updated_at)"));
    query.bindValue(QStringLiteral(":id"), BrowserProfile::newId().toString(QUuid::WithoutBraces));
    query.bindValue(QStringLiteral(":tenant"), tenant);
    query.bindValue(QStringLiteral(":principal"), QStringLiteral("probe"));
    query.bindValue(QStringLiteral(":provider_name"), row.providerName);
    query.bindValue(QStringLiteral(":provider_reference"), row.providerReference);
    query.bindValue(QStringLiteral(":status"), row.status);
    query.bindValue(QStringLiteral(":generation"), row.generation);
    query.bindValue(QStringLiteral(":key_version"), row.keyVersion);
    query.bindValue(QStringLiteral(":created_at"), QStringLiteral("2030-01-02T03:04:05.678Z"));
    query.bindValue(QStringLiteral(":updated_at"), QStringLiteral("2030-01-02T03:04:05.678Z"));
    const bool ok = query.exec();
    query.finish();
    if (!savepoint.exec(ok ? QStringLiteral("RELEASE SAVEPOINT probe")
                           : QStringLiteral("ROLLBACK TO SAVEPOINT probe")))
        qFatal("savepoint release/rollback failed");
    return ok;
}

Row bound(const QString &status, const QString &reference)
{
    Row row;
    row.status = status;
    row.providerName = QStringLiteral("hosted");
    row.providerReference = reference;
    row.keyVersion = QStringLiteral("k1");
    return row;
}

} // namespace

void verifyConstraints(QSqlDatabase &db, const QString &tenant)
{
    const QString reference = BrowserProfile::newProviderReference();
    // Accepted shapes.
    QVERIFY(insertRow(db, tenant, Row{}));
    QVERIFY(insertRow(db, tenant, Row{})); // two unbound reservations: null references
    Row revokedReservation;
    revokedReservation.status = QStringLiteral("revoked");
    QVERIFY(insertRow(db, tenant, revokedReservation));
    QVERIFY(insertRow(db, tenant, bound(QStringLiteral("ready"), reference)));

    // Closed status set.
    Row unknownStatus;
    unknownStatus.status = QStringLiteral("active");
    QVERIFY(!insertRow(db, tenant, unknownStatus));
    // Non-negative generation.
    Row negative;
    negative.generation = -1;
    QVERIFY(!insertRow(db, tenant, negative));
    // Binding consistency.
    QVERIFY(!insertRow(
        db, tenant, bound(QStringLiteral("provisioning"), BrowserProfile::newProviderReference())));
    Row unboundReady;
    unboundReady.status = QStringLiteral("ready");
    QVERIFY(!insertRow(db, tenant, unboundReady));
    Row partial = bound(QStringLiteral("ready"), BrowserProfile::newProviderReference());
    partial.keyVersion = QVariant(QMetaType::fromType<QString>());
    QVERIFY(!insertRow(db, tenant, partial));
    Row noName = bound(QStringLiteral("needs_user"), BrowserProfile::newProviderReference());
    noName.providerName = QVariant(QMetaType::fromType<QString>());
    QVERIFY(!insertRow(db, tenant, noName));
    // One live row per non-null reference.
    QVERIFY(!insertRow(db, tenant, bound(QStringLiteral("revoked"), reference)));

    // Origins belong to an existing profile of the same scope.
    QSqlQuery orphan(db);
    QVERIFY(orphan.exec(QStringLiteral("SAVEPOINT orphan")));
    orphan.prepare(QStringLiteral("INSERT INTO browser_profile_origins"
                                  " (profile_id, tenant, principal, origin)"
                                  " VALUES (:id, :tenant, :principal, :origin)"));
    orphan.bindValue(QStringLiteral(":id"), BrowserProfile::newId().toString(QUuid::WithoutBraces));
    orphan.bindValue(QStringLiteral(":tenant"), tenant);
    orphan.bindValue(QStringLiteral(":principal"), QStringLiteral("probe"));
    orphan.bindValue(QStringLiteral(":origin"), QStringLiteral("https://shop.de"));
    QVERIFY(!orphan.exec());
    QSqlQuery rollback(db);
    QVERIFY(rollback.exec(QStringLiteral("ROLLBACK TO SAVEPOINT orphan")));
}

} // namespace ProfileStoreChecks
