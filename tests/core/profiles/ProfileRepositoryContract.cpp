#include "ProfileRepositoryContract.h"

#include "domain/web/TestOverrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSemaphore>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <atomic>
#include <thread>

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

char *toString(const AuthenticationCeremony &ceremony)
{
    const auto time = [](const std::optional<QDateTime> &value) {
        return value ? QJsonValue(value->toUTC().toString(Qt::ISODateWithMs))
                     : QJsonValue(QJsonValue::Null);
    };
    const QJsonObject json{
        {QStringLiteral("id"), ceremony.id},
        {QStringLiteral("profile_id"), ceremony.profileId.toString(QUuid::WithoutBraces)},
        {QStringLiteral("tenant"), ceremony.tenant},
        {QStringLiteral("principal"), ceremony.principal},
        {QStringLiteral("mode"), ceremony.mode},
        {QStringLiteral("status"), ceremonyStatusString(ceremony.status)},
        {QStringLiteral("failure_code"),
         ceremony.failureCode ? QJsonValue(ceremonyFailureCodeString(*ceremony.failureCode))
                              : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("created_at"), time(ceremony.createdAt)},
        {QStringLiteral("expires_at"), time(ceremony.expiresAt)},
        {QStringLiteral("finished_at"), time(ceremony.finishedAt)},
    };
    return qstrdup(QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
}

char *toString(const CeremonyStatus &status)
{
    return qstrdup(ceremonyStatusString(status).toUtf8().constData());
}

char *toString(const TaskScopePolicy &policy)
{
    QStringList entries;
    for (const TaskScope &entry : policy.entries)
        entries << entry.toString();
    const QJsonObject json{{QStringLiteral("revision"), policy.revision},
                           {QStringLiteral("entries"), QJsonArray::fromStringList(entries)}};
    return qstrdup(QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
}

char *toString(const TaskScopeChange::Kind &kind)
{
    switch (kind) {
    case TaskScopeChange::Kind::Changed:
        return qstrdup("changed");
    case TaskScopeChange::Kind::Replayed:
        return qstrdup("replayed");
    case TaskScopeChange::Kind::Unchanged:
        return qstrdup("unchanged");
    }
    return qstrdup("?");
}

char *toString(const TaskScopeSource &source)
{
    return qstrdup(taskScopeSourceString(source).toUtf8().constData());
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

QString ProfileRepositoryContract::newCeremonyId()
{
    return BrowserProfile::newId().toString(QUuid::WithoutBraces);
}

BrowserProfileRepository::CeremonyLaunch ProfileRepositoryContract::launcher(int *calls,
                                                                             const QString &id)
{
    return [this, calls, id](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
        if (calls)
            ++*calls;
        return CeremonyLaunchRecord{id.isEmpty() ? newCeremonyId() : id, m_now.addSecs(300)};
    };
}

Result<CeremonyBegun> ProfileRepositoryContract::beginFor(const ProfileScope &scope,
                                                          const BrowserProfile &profile, int *calls)
{
    return m_repository->beginCeremony(scope, profile.id, profile.generation,
                                       QStringLiteral("device"), launcher(calls));
}

void ProfileRepositoryContract::verifyConcurrentBeginsAdmitOne(
    const std::function<MetadataPorts()> &open)
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);

    std::atomic<int> launches{0};
    QSemaphore firstLaunching;
    QSemaphore secondDone;
    std::atomic<bool> secondFinishedDuringLaunch{false};
    std::optional<Result<CeremonyBegun>> first;
    std::optional<Result<CeremonyBegun>> second;
    std::atomic<bool> opened[2] = {false, false};
    const auto begin = [&](int which, const BrowserProfileRepository::CeremonyLaunch &launch) {
        const MetadataPorts repository = open();
        opened[which] = bool(repository);
        if (which == 1)
            firstLaunching.acquire();
        std::optional<Result<CeremonyBegun>> result;
        if (repository) {
            result = repository->beginCeremony(scope, profile->id, profile->generation,
                                               QStringLiteral("device"), launch);
        }
        (which == 0 ? first : second) = std::move(result);
    };
    const QDateTime expiry = now().addSecs(300);
    const auto firstLaunch = [&](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
        ++launches;
        firstLaunching.release();
        // The second begin runs now; holding the lock, this launch gives a begin that failed to
        // wait for it a second to finish, which a correct store never lets it do.
        secondFinishedDuringLaunch = secondDone.tryAcquire(1, 1000);
        return CeremonyLaunchRecord{newCeremonyId(), expiry};
    };
    const auto secondLaunch = [&](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
        ++launches;
        return CeremonyLaunchRecord{newCeremonyId(), expiry};
    };
    std::thread firstThread([&] { begin(0, firstLaunch); });
    std::thread secondThread([&] {
        begin(1, secondLaunch);
        secondDone.release();
    });
    firstThread.join();
    // A first begin that never launched leaves the second one waiting for it.
    firstLaunching.release();
    secondThread.join();

    QVERIFY(opened[0] && opened[1]);
    QVERIFY(first && second);
    QVERIFY(!secondFinishedDuringLaunch);
    QCOMPARE(launches.load(), 1);
    VERIFY_OK(*first);
    VERIFY_PROFILE_FAILURE(*second, ProfileFailure::CeremonyConflict);
    const Result<BrowserProfile> after = repository().get(scope, profile->id);
    VERIFY_OK(after);
    QCOMPARE(after->generation, profile->generation + 1);
    const Result<std::optional<AuthenticationCeremony>> open_ =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(open_);
    QCOMPARE(*open_, std::optional<AuthenticationCeremony>((*first)->ceremony));
}

TaskScope ProfileRepositoryContract::taskScope(const QString &segment, const QString &origin)
{
    Result<TaskScope> parsed = TaskScope::parse(origin + u'/' + segment, TestOverrides());
    if (!parsed)
        qFatal("test task scope does not parse");
    return std::move(parsed).value();
}

void ProfileRepositoryContract::verifyConcurrentScopeEditsAdmitOne(
    const std::function<MetadataPorts()> &open, bool firstSave)
{
    const ProfileScope scope = newScope();
    qint64 revision = 0;
    if (!firstSave) {
        const Result<TaskScopeChange> saved =
            repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("base"))});
        VERIFY_OK(saved);
        revision = saved->policy.revision;
    }
    const QList<TaskScope> lists[2] = {{taskScope(QStringLiteral("first"))},
                                       {taskScope(QStringLiteral("second"))}};
    std::optional<Result<TaskScopeChange>> results[2];
    std::atomic<bool> opened[2] = {false, false};
    QSemaphore ready;
    QSemaphore go;
    const auto edit = [&](int which) {
        const MetadataPorts store = open();
        opened[which] = bool(store);
        ready.release();
        go.acquire();
        if (store)
            results[which] = store->replaceTaskScopes(scope, revision, lists[which]);
    };
    std::thread first([&] { edit(0); });
    std::thread second([&] { edit(1); });
    // Both connections are open before either edits, so the edits overlap as far as the
    // store lets them.
    ready.acquire(2);
    go.release(2);
    first.join();
    second.join();

    QVERIFY(opened[0] && opened[1]);
    QVERIFY(results[0] && results[1]);
    const int winners = int(results[0]->ok()) + int(results[1]->ok());
    QCOMPARE(winners, 1);
    const int winner = results[0]->ok() ? 0 : 1;
    VERIFY_SCOPE_FAILURE(*results[1 - winner], TaskScopeFailure::Conflict);
    QCOMPARE((*results[winner])->kind, TaskScopeChange::Kind::Changed);
    const Result<TaskScopePolicy> stored = repository().taskScopes(scope);
    VERIFY_OK(stored);
    QCOMPARE(stored->revision, revision + 1);
    QCOMPARE(stored->entries, lists[winner]);
    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), qsizetype(revision + 1));
}

// ---- fixture -------------------------------------------------------------------------------

void ProfileRepositoryContract::initTestCase()
{
    initAdapter();
}

void ProfileRepositoryContract::cleanupTestCase()
{
    m_repository = {};
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
    m_repository = {};
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
    bound.lastVerifiedAt = m_now.addSecs(7);
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

// ---- sign-in records ----------------------------------------------------------------------

void ProfileRepositoryContract::ceremonyBeginAdvancesGenerationAndRecords()
{
    const ProfileScope scope = newScope();
    for (ProfileStatus status :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::Ready, ProfileStatus::NeedsUser}) {
        const Result<BrowserProfile> before = createIn(scope, status);
        VERIFY_OK(before);
        const QString id = newCeremonyId();
        int launches = 0;
        std::optional<BrowserProfile> seenByLaunch;
        const Result<CeremonyBegun> begun = repository().beginCeremony(
            scope, before->id, before->generation, QStringLiteral("device"),
            [&](const BrowserProfile &locked) -> Result<CeremonyLaunchRecord> {
                ++launches;
                seenByLaunch = locked;
                return CeremonyLaunchRecord{id, now().addSecs(300)};
            });
        VERIFY_OK(begun);
        QCOMPARE(launches, 1);
        QCOMPARE(seenByLaunch, std::optional<BrowserProfile>(*before));

        // The generation advances, the status stays.
        QCOMPARE(begun->profile.status, status);
        QCOMPARE(begun->profile.generation, before->generation + 1);
        QCOMPARE(begun->profile.updatedAt, now());
        QCOMPARE(*repository().get(scope, before->id), begun->profile);

        const AuthenticationCeremony &ceremony = begun->ceremony;
        QCOMPARE(ceremony.id, id);
        QCOMPARE(ceremony.profileId, before->id);
        QCOMPARE(ceremony.scope(), scope);
        QCOMPARE(ceremony.mode, QStringLiteral("device"));
        QCOMPARE(ceremony.status, CeremonyStatus::Open);
        QVERIFY(!ceremony.failureCode);
        QCOMPARE(ceremony.createdAt, now());
        QCOMPARE(ceremony.expiresAt, now().addSecs(300));
        QVERIFY(!ceremony.finishedAt);
        const Result<AuthenticationCeremony> read = repository().ceremony(scope, id);
        VERIFY_OK(read);
        QCOMPARE(*read, ceremony);
        QCOMPARE(read->createdAt.timeSpec(), Qt::UTC);
        const Result<std::optional<AuthenticationCeremony>> open =
            repository().newestOpenCeremony(scope, before->id);
        VERIFY_OK(open);
        QCOMPARE(*open, std::optional<AuthenticationCeremony>(ceremony));
        tick();
    }
}

void ProfileRepositoryContract::ceremonyWhileOneIsOpenConflictsWithoutLaunching()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> first = beginFor(scope, *profile);
    VERIFY_OK(first);

    advance(299);
    int launches = 0;
    // At the current generation or the one the first begin saw: the open ceremony is the
    // answer either way.
    for (qint64 generation : {first->profile.generation, profile->generation}) {
        VERIFY_PROFILE_FAILURE(repository().beginCeremony(scope, profile->id, generation,
                                                          QStringLiteral("device"),
                                                          launcher(&launches)),
                               ProfileFailure::CeremonyConflict);
    }
    QCOMPARE(launches, 0);
    QCOMPARE(*repository().get(scope, profile->id), first->profile);
    const Result<std::optional<AuthenticationCeremony>> open =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(open);
    QCOMPARE(*open, std::optional<AuthenticationCeremony>(first->ceremony));

    // A finished ceremony does not block.
    VERIFY_OK(repository().finishCeremony(scope, first->ceremony.id, CeremonyStatus::Cancelled,
                                          QString(), {}));
    VERIFY_OK(beginFor(scope, first->profile, &launches));
    QCOMPARE(launches, 1);
}

void ProfileRepositoryContract::ceremonyBeginAfterExpirySucceeds()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> first = beginFor(scope, *profile);
    VERIFY_OK(first);

    advance(300); // exactly at its expiry: no longer open
    const Result<std::optional<AuthenticationCeremony>> none =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(none);
    QVERIFY(!none->has_value());
    int launches = 0;
    const Result<CeremonyBegun> second = beginFor(scope, first->profile, &launches);
    VERIFY_OK(second);
    QCOMPARE(launches, 1);
    QCOMPARE(second->profile.generation, first->profile.generation + 1);
    QVERIFY(second->ceremony.id != first->ceremony.id);
    const Result<std::optional<AuthenticationCeremony>> open =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(open);
    QCOMPARE(*open, std::optional<AuthenticationCeremony>(second->ceremony));
    // The first one reads expired; it was never written as such.
    const Result<AuthenticationCeremony> old = repository().ceremony(scope, first->ceremony.id);
    VERIFY_OK(old);
    QCOMPARE(old->status, CeremonyStatus::Expired);
}

void ProfileRepositoryContract::ceremonyLaunchFailureStoresNothing()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const QString id = newCeremonyId();
    const Error unavailable = Error::fromReason(ReasonCode::ProviderUnavailable);
    int launches = 0;
    const Result<CeremonyBegun> refused = repository().beginCeremony(
        scope, profile->id, profile->generation, QStringLiteral("device"),
        [&](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
            ++launches;
            return unavailable;
        });
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error(), unavailable); // returned unchanged
    QCOMPARE(launches, 1);
    QCOMPARE(*repository().get(scope, profile->id), *profile);
    const Result<std::optional<AuthenticationCeremony>> none =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(none);
    QVERIFY(!none->has_value());

    // A launch answer the record cannot hold rolls back the same way.
    for (const CeremonyLaunchRecord &malformed :
         {CeremonyLaunchRecord{id.toUpper(), now().addSecs(300)},
          CeremonyLaunchRecord{QStringLiteral("launch"), now().addSecs(300)},
          CeremonyLaunchRecord{id, now()}}) {
        VERIFY_PROFILE_FAILURE(
            repository().beginCeremony(
                scope, profile->id, profile->generation, QStringLiteral("device"),
                [&](const BrowserProfile &) -> Result<CeremonyLaunchRecord> { return malformed; }),
            ProfileFailure::Invalid);
    }
    QCOMPARE(*repository().get(scope, profile->id), *profile);
    VERIFY_PROFILE_FAILURE(repository().ceremony(scope, id), ProfileFailure::CeremonyNotFound);

    // The service minted an id that is already recorded (for another profile, even in
    // another scope): a conflict, and nothing changes.
    const Result<BrowserProfile> elsewhere = createIn(otherTenant(scope), ProfileStatus::Ready);
    VERIFY_OK(elsewhere);
    VERIFY_OK(repository().beginCeremony(otherTenant(scope), elsewhere->id, elsewhere->generation,
                                         QStringLiteral("device"), launcher(nullptr, id)));
    VERIFY_PROFILE_FAILURE(repository().beginCeremony(scope, profile->id, profile->generation,
                                                      QStringLiteral("device"),
                                                      launcher(nullptr, id)),
                           ProfileFailure::Conflict);
    QCOMPARE(*repository().get(scope, profile->id), *profile);
    VERIFY_PROFILE_FAILURE(repository().ceremony(scope, id), ProfileFailure::CeremonyNotFound);

    // A launch cut to the five-minute bound is stored cut.
    const Result<CeremonyBegun> begun = repository().beginCeremony(
        scope, profile->id, profile->generation, QStringLiteral("device"),
        [&](const BrowserProfile &) -> Result<CeremonyLaunchRecord> {
            return CeremonyLaunchRecord{newCeremonyId(), now().addSecs(3600)};
        });
    VERIFY_OK(begun);
    QCOMPARE(begun->ceremony.expiresAt, now().addSecs(300));
    QCOMPARE(*repository().ceremony(scope, begun->ceremony.id), begun->ceremony);
}

void ProfileRepositoryContract::ceremonyBeginChecksGenerationAndState()
{
    const ProfileScope scope = newScope();
    int launches = 0;
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    for (const qint64 delta : {qint64(-1), qint64(1), qint64(100)}) {
        VERIFY_PROFILE_FAILURE(
            repository().beginCeremony(scope, ready->id, ready->generation + delta,
                                       QStringLiteral("device"), launcher(&launches)),
            ProfileFailure::StaleGeneration);
    }
    QCOMPARE(*repository().get(scope, ready->id), *ready);

    for (const auto &[status, bound] :
         {std::pair{ProfileStatus::Provisioning, false}, std::pair{ProfileStatus::Revoked, true},
          std::pair{ProfileStatus::Revoked, false}}) {
        const Result<BrowserProfile> refused = createIn(scope, status, bound);
        VERIFY_OK(refused);
        VERIFY_PROFILE_FAILURE(beginFor(scope, *refused, &launches),
                               ProfileFailure::InvalidTransition);
        QCOMPARE(*repository().get(scope, refused->id), *refused);
        const Result<std::optional<AuthenticationCeremony>> none =
            repository().newestOpenCeremony(scope, refused->id);
        VERIFY_OK(none);
        QVERIFY(!none->has_value());
    }
    QCOMPARE(launches, 0);

    VERIFY_PROFILE_FAILURE(repository().beginCeremony(scope, BrowserProfile::newId(), 0,
                                                      QStringLiteral("device"),
                                                      launcher(&launches)),
                           ProfileFailure::NotFound);
    QCOMPARE(launches, 0);
}

void ProfileRepositoryContract::ceremonyBeginRefusesMalformedInput()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    int launches = 0;
    for (const QString &mode : {QStringLiteral("hosted"), QStringLiteral("DEVICE"), QString()}) {
        VERIFY_PROFILE_FAILURE(repository().beginCeremony(scope, ready->id, ready->generation, mode,
                                                          launcher(&launches)),
                               ProfileFailure::Invalid);
    }
    VERIFY_PROFILE_FAILURE(repository().beginCeremony(
                               scope, ready->id, -1, QStringLiteral("device"), launcher(&launches)),
                           ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().beginCeremony(scope, ready->id, ready->generation,
                                                      QStringLiteral("device"), {}),
                           ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().beginCeremony(ProfileScope{}, ready->id, ready->generation,
                                                      QStringLiteral("device"),
                                                      launcher(&launches)),
                           ProfileFailure::Invalid);
    QCOMPARE(launches, 0);
    QCOMPARE(*repository().get(scope, ready->id), *ready);
    // Positive control: the remote mode begins (and launches once).
    const Result<CeremonyBegun> remote = repository().beginCeremony(
        scope, ready->id, ready->generation, QStringLiteral("remote"), launcher(&launches));
    VERIFY_OK(remote);
    QCOMPARE(remote->ceremony.mode, QStringLiteral("remote"));
    QCOMPARE(launches, 1);
}

void ProfileRepositoryContract::ceremonyOfAnotherScopeIsNotFound()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    const QString id = begun->ceremony.id;

    for (const ProfileScope &outsider : {otherPrincipal(scope), otherTenant(scope)}) {
        int launches = 0;
        VERIFY_PROFILE_FAILURE(repository().ceremony(outsider, id),
                               ProfileFailure::CeremonyNotFound);
        for (CeremonyStatus outcome :
             {CeremonyStatus::Ready, CeremonyStatus::Cancelled, CeremonyStatus::Expired}) {
            VERIFY_PROFILE_FAILURE(
                repository().finishCeremony(outsider, id, outcome, QString(), {}),
                ProfileFailure::CeremonyNotFound);
        }
        VERIFY_PROFILE_FAILURE(repository().finishCeremony(outsider, id, CeremonyStatus::Failed,
                                                           QStringLiteral("session_empty"), {}),
                               ProfileFailure::CeremonyNotFound);
        VERIFY_PROFILE_FAILURE(repository().newestOpenCeremony(outsider, profile->id),
                               ProfileFailure::NotFound);
        // Beginning another is refused like for an unknown profile, without launching.
        VERIFY_PROFILE_FAILURE(
            repository().beginCeremony(outsider, profile->id, begun->profile.generation,
                                       QStringLiteral("device"), launcher(&launches)),
            ProfileFailure::NotFound);
        QCOMPARE(launches, 0);
    }
    // Unknown and malformed ids read the same.
    for (const QString &unknown :
         {newCeremonyId(), id.toUpper(), QStringLiteral("not-an-id"), QString()}) {
        VERIFY_PROFILE_FAILURE(repository().ceremony(scope, unknown),
                               ProfileFailure::CeremonyNotFound);
        VERIFY_PROFILE_FAILURE(
            repository().finishCeremony(scope, unknown, CeremonyStatus::Cancelled, QString(), {}),
            ProfileFailure::CeremonyNotFound);
    }
    VERIFY_PROFILE_FAILURE(repository().newestOpenCeremony(scope, BrowserProfile::newId()),
                           ProfileFailure::NotFound);

    // Nothing changed for the owner.
    QCOMPARE(*repository().ceremony(scope, id), begun->ceremony);
    QCOMPARE(*repository().get(scope, profile->id), begun->profile);
}

void ProfileRepositoryContract::ceremonyReadyMakesProfileReady()
{
    const ProfileScope scope = newScope();
    for (ProfileStatus status :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::NeedsUser, ProfileStatus::Ready}) {
        const Result<BrowserProfile> profile = createIn(scope, status);
        VERIFY_OK(profile);
        const Result<CeremonyBegun> begun = beginFor(scope, *profile);
        VERIFY_OK(begun);
        QVERIFY(!begun->profile.lastVerifiedAt);

        advance(42);
        const Result<CeremonyFinished> finished = repository().finishCeremony(
            scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), {});
        VERIFY_OK(finished);
        QCOMPARE(finished->ceremony.status, CeremonyStatus::Ready);
        QVERIFY(!finished->ceremony.failureCode);
        QCOMPARE(finished->ceremony.finishedAt, std::optional<QDateTime>(now()));
        QCOMPARE(finished->profile.status, ProfileStatus::Ready);
        // A ready outcome advances the generation again, even for a profile that was READY.
        QCOMPARE(finished->profile.generation, begun->profile.generation + 1);
        QCOMPARE(finished->profile.lastVerifiedAt, std::optional<QDateTime>(now()));
        QCOMPARE(finished->profile.updatedAt, now());
        QCOMPARE(*repository().get(scope, profile->id), finished->profile);
        QCOMPARE(*repository().ceremony(scope, begun->ceremony.id), finished->ceremony);
        const Result<std::optional<AuthenticationCeremony>> none =
            repository().newestOpenCeremony(scope, profile->id);
        VERIFY_OK(none);
        QVERIFY(!none->has_value());
        tick();
    }
}

// The masked account a site verification definition confirmed goes with a ready outcome and
// stays with that session: a new sign-in and a change of status drop it.
void ProfileRepositoryContract::ceremonyReadyRecordsTheConfirmedAccount()
{
    const ProfileScope scope = newScope();
    const QString account = QStringLiteral("d\u2022\u2022\u2022@shop.de");
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    // Not a label, or not with ready: refused, and nothing is recorded.
    for (const QString &bad : {QString(), QStringLiteral("a\nb"), QString(65, QLatin1Char('a'))})
        VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, begun->ceremony.id,
                                                           CeremonyStatus::Ready, QString(), bad),
                               ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, begun->ceremony.id,
                                                       CeremonyStatus::Failed,
                                                       QStringLiteral("session_empty"), account),
                           ProfileFailure::Invalid);
    QCOMPARE(repository().ceremony(scope, begun->ceremony.id)->status, CeremonyStatus::Open);

    const Result<CeremonyFinished> finished = repository().finishCeremony(
        scope, begun->ceremony.id, CeremonyStatus::Ready, QString(), account);
    VERIFY_OK(finished);
    QCOMPARE(finished->profile.verifiedAccount, std::optional<QString>(account));
    QCOMPARE(*repository().get(scope, profile->id), finished->profile);
    QCOMPARE(BrowserProfileView::of(finished->profile).toJson().value(QLatin1String("account")),
             QJsonValue(account));

    // Use keeps it; a sign-in beginning drops it, and one without a definition records none.
    VERIFY_OK(repository().touchLastUsed(scope, profile->id));
    QCOMPARE(repository().get(scope, profile->id)->verifiedAccount,
             std::optional<QString>(account));
    const Result<CeremonyBegun> again = beginFor(scope, *repository().get(scope, profile->id));
    VERIFY_OK(again);
    QVERIFY(!again->profile.verifiedAccount);
    QVERIFY(!repository().get(scope, profile->id)->verifiedAccount);
    const Result<CeremonyFinished> unconfirmed = repository().finishCeremony(
        scope, again->ceremony.id, CeremonyStatus::Ready, QString(), std::nullopt);
    VERIFY_OK(unconfirmed);
    QVERIFY(!unconfirmed->profile.verifiedAccount);
    QVERIFY(BrowserProfileView::of(unconfirmed->profile)
                .toJson()
                .value(QLatin1String("account"))
                .isNull());

    // Confirmed once more, then the website needs the owner: the status change drops it.
    const Result<CeremonyBegun> third = beginFor(scope, unconfirmed->profile);
    VERIFY_OK(third);
    const Result<CeremonyFinished> confirmed = repository().finishCeremony(
        scope, third->ceremony.id, CeremonyStatus::Ready, QString(), account);
    VERIFY_OK(confirmed);
    const Result<BrowserProfile> needsUser = repository().transition(
        scope, profile->id, confirmed->profile.generation, ProfileStatus::NeedsUser);
    VERIFY_OK(needsUser);
    QVERIFY(!needsUser->verifiedAccount);
    QCOMPARE(*repository().get(scope, profile->id), *needsUser);
}

void ProfileRepositoryContract::ceremonyOtherOutcomesLeaveStatus()
{
    const ProfileScope scope = newScope();
    const QList<std::pair<CeremonyStatus, QString>> outcomes = {
        {CeremonyStatus::Cancelled, QString()},
        {CeremonyStatus::Expired, QString()},
        {CeremonyStatus::Failed, QStringLiteral("session_empty")},
        {CeremonyStatus::Failed, QStringLiteral("session_signed_out")},
        {CeremonyStatus::Failed, QStringLiteral("session_unconfirmed")},
        {CeremonyStatus::Failed, QStringLiteral("tool.browser.provider_unavailable")},
        {CeremonyStatus::Failed, QStringLiteral("tool.browser.profile_unavailable")},
        {CeremonyStatus::Failed, QStringLiteral("invalid_request")},
        // Schema version 10's, of site verification definitions.
        {CeremonyStatus::Failed, QStringLiteral("session_wrong_account")},
        {CeremonyStatus::Failed, QStringLiteral("session_public_page")},
    };
    for (const auto &[outcome, code] : outcomes) {
        const Result<BrowserProfile> profile =
            createIn(scope, ProfileStatus::AuthenticationRequired);
        VERIFY_OK(profile);
        const Result<CeremonyBegun> begun = beginFor(scope, *profile);
        VERIFY_OK(begun);
        advance(10);
        const Result<CeremonyFinished> finished =
            repository().finishCeremony(scope, begun->ceremony.id, outcome, code, {});
        VERIFY_OK(finished);
        QCOMPARE(finished->ceremony.status, outcome);
        QCOMPARE(finished->ceremony.failureCode, ceremonyFailureCodeFromString(code));
        QCOMPARE(finished->ceremony.finishedAt, std::optional<QDateTime>(now()));
        QCOMPARE(finished->profile, begun->profile); // status and generation stay
        QCOMPARE(*repository().get(scope, profile->id), begun->profile);
        QCOMPARE(*repository().ceremony(scope, begun->ceremony.id), finished->ceremony);
    }

    // Malformed outcomes change nothing.
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    const QList<std::pair<CeremonyStatus, QString>> malformed = {
        {CeremonyStatus::Open, QString()},
        {CeremonyStatus::Failed, QString()},
        {CeremonyStatus::Failed, QStringLiteral("needs_user")},
        {CeremonyStatus::Ready, QStringLiteral("session_empty")},
    };
    for (const auto &[outcome, code] : malformed) {
        VERIFY_PROFILE_FAILURE(
            repository().finishCeremony(scope, begun->ceremony.id, outcome, code, {}),
            ProfileFailure::Invalid);
    }
    QCOMPARE(*repository().ceremony(scope, begun->ceremony.id), begun->ceremony);
    QCOMPARE(*repository().get(scope, profile->id), begun->profile);
}

void ProfileRepositoryContract::ceremonyTerminalIsTerminal()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    const QString id = begun->ceremony.id;
    const Result<CeremonyFinished> ready =
        repository().finishCeremony(scope, id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(ready);

    // The same outcome again: the record, unchanged, and no second generation advance.
    advance(5);
    const Result<CeremonyFinished> again =
        repository().finishCeremony(scope, id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(again);
    QCOMPARE(again->ceremony, ready->ceremony);
    QCOMPARE(again->profile, ready->profile);
    QCOMPARE(*repository().get(scope, profile->id), ready->profile);

    // Any other outcome conflicts and changes nothing.
    VERIFY_PROFILE_FAILURE(
        repository().finishCeremony(scope, id, CeremonyStatus::Cancelled, QString(), {}),
        ProfileFailure::CeremonyOutcomeConflict);
    VERIFY_PROFILE_FAILURE(
        repository().finishCeremony(scope, id, CeremonyStatus::Expired, QString(), {}),
        ProfileFailure::CeremonyOutcomeConflict);
    VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, id, CeremonyStatus::Failed,
                                                       QStringLiteral("session_empty"), {}),
                           ProfileFailure::CeremonyOutcomeConflict);
    QCOMPARE(*repository().ceremony(scope, id), ready->ceremony);
    QCOMPARE(*repository().get(scope, profile->id), ready->profile);

    // A failure is terminal too, with its code.
    const Result<CeremonyBegun> second = beginFor(scope, ready->profile);
    VERIFY_OK(second);
    VERIFY_OK(repository().finishCeremony(scope, second->ceremony.id, CeremonyStatus::Failed,
                                          QStringLiteral("session_signed_out"), {}));
    VERIFY_OK(repository().finishCeremony(scope, second->ceremony.id, CeremonyStatus::Failed,
                                          QStringLiteral("session_signed_out"), {}));
    VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, second->ceremony.id,
                                                       CeremonyStatus::Failed,
                                                       QStringLiteral("session_empty"), {}),
                           ProfileFailure::CeremonyOutcomeConflict);
    VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, second->ceremony.id,
                                                       CeremonyStatus::Ready, QString(), {}),
                           ProfileFailure::CeremonyOutcomeConflict);
    QCOMPARE(*repository().get(scope, profile->id), second->profile);
}

void ProfileRepositoryContract::ceremonyReadyForRevokedProfileFails()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::NeedsUser);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    tick();
    const Result<BrowserProfile> revoked = repository().transition(
        scope, profile->id, begun->profile.generation, ProfileStatus::Revoked);
    VERIFY_OK(revoked);

    advance(20);
    VERIFY_PROFILE_FAILURE(repository().finishCeremony(scope, begun->ceremony.id,
                                                       CeremonyStatus::Ready, QString(), {}),
                           ProfileFailure::InvalidTransition);
    // The profile stays revoked; the sign-in is recorded as failed all the same.
    QCOMPARE(*repository().get(scope, profile->id), *revoked);
    const Result<AuthenticationCeremony> failed = repository().ceremony(scope, begun->ceremony.id);
    VERIFY_OK(failed);
    QCOMPARE(failed->status, CeremonyStatus::Failed);
    QCOMPARE(failed->failureCode,
             std::optional<CeremonyFailureCode>(CeremonyFailureCode::ProfileUnavailable));
    QCOMPARE(failed->finishedAt, std::optional<QDateTime>(now()));
    // Reporting the service's own answer for it is the same outcome again.
    const Result<CeremonyFinished> again =
        repository().finishCeremony(scope, begun->ceremony.id, CeremonyStatus::Failed,
                                    QStringLiteral("tool.browser.profile_unavailable"), {});
    VERIFY_OK(again);
    QCOMPARE(again->ceremony, *failed);
    QCOMPARE(again->profile, *revoked);
}

void ProfileRepositoryContract::ceremonyReadPastExpiryReportsExpired()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> begun = beginFor(scope, *profile);
    VERIFY_OK(begun);
    const QString id = begun->ceremony.id;

    advance(299);
    QCOMPARE(*repository().ceremony(scope, id), begun->ceremony);
    advance(2);
    const Result<AuthenticationCeremony> expired = repository().ceremony(scope, id);
    VERIFY_OK(expired);
    QCOMPARE(expired->status, CeremonyStatus::Expired);
    QCOMPARE(expired->finishedAt, std::optional<QDateTime>(begun->ceremony.expiresAt));
    const Result<std::optional<AuthenticationCeremony>> none =
        repository().newestOpenCeremony(scope, profile->id);
    VERIFY_OK(none);
    QVERIFY(!none->has_value());

    // Recording the expiry stores what was read.
    const Result<CeremonyFinished> recorded =
        repository().finishCeremony(scope, id, CeremonyStatus::Expired, QString(), {});
    VERIFY_OK(recorded);
    QCOMPARE(recorded->ceremony, *expired);
    QCOMPARE(recorded->profile, begun->profile);

    // An outcome the service reached before the expiry can still be learned afterwards.
    const Result<CeremonyBegun> late = beginFor(scope, begun->profile);
    VERIFY_OK(late);
    advance(3600);
    const Result<CeremonyFinished> ready =
        repository().finishCeremony(scope, late->ceremony.id, CeremonyStatus::Ready, QString(), {});
    VERIFY_OK(ready);
    QCOMPARE(ready->profile.status, ProfileStatus::Ready);
    QCOMPARE(ready->profile.lastVerifiedAt, std::optional<QDateTime>(now()));
}

void ProfileRepositoryContract::ceremonyRecordsGoWithTheProfile()
{
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> profile = createIn(scope, ProfileStatus::AuthenticationRequired);
    VERIFY_OK(profile);
    const Result<CeremonyBegun> finished = beginFor(scope, *profile);
    VERIFY_OK(finished);
    VERIFY_OK(repository().finishCeremony(scope, finished->ceremony.id, CeremonyStatus::Cancelled,
                                          QString(), {}));
    const Result<CeremonyBegun> open = beginFor(scope, finished->profile);
    VERIFY_OK(open);
    // A neighbour's records stay.
    const Result<BrowserProfile> neighbour = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(neighbour);
    const Result<CeremonyBegun> kept = beginFor(scope, *neighbour);
    VERIFY_OK(kept);

    const Result<BrowserProfile> revoked = repository().transition(
        scope, profile->id, open->profile.generation, ProfileStatus::Revoked);
    VERIFY_OK(revoked);
    // Revocation alone keeps the records.
    VERIFY_OK(repository().ceremony(scope, open->ceremony.id));
    VERIFY_OK(repository().remove(scope, profile->id, revoked->generation));
    for (const QString &id : {finished->ceremony.id, open->ceremony.id}) {
        VERIFY_PROFILE_FAILURE(repository().ceremony(scope, id), ProfileFailure::CeremonyNotFound);
        VERIFY_PROFILE_FAILURE(
            repository().finishCeremony(scope, id, CeremonyStatus::Ready, QString(), {}),
            ProfileFailure::CeremonyNotFound);
    }
    QCOMPARE(*repository().ceremony(scope, kept->ceremony.id), kept->ceremony);
}

// ---- task scopes ----------------------------------------------------------------------------

void ProfileRepositoryContract::taskScopesNeverSavedReadEmpty()
{
    const ProfileScope scope = newScope();
    const Result<TaskScopePolicy> policy = repository().taskScopes(scope);
    VERIFY_OK(policy);
    QCOMPARE(*policy, TaskScopePolicy{});
    QVERIFY(!policy->isSaved());
    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QVERIFY(audit->isEmpty());
}

void ProfileRepositoryContract::taskScopesReplaceRoundTripsCanonically()
{
    const ProfileScope scope = newScope();
    const TaskScope lesson = taskScope(QStringLiteral("lesson"));
    const TaskScope cafe = taskScope(QStringLiteral("caf%C3%A9"));
    const TaskScope course =
        taskScope(QStringLiteral("course"), QStringLiteral("https://learn.acme-school.org"));
    const Result<TaskScopeChange> change =
        repository().replaceTaskScopes(scope, 0, {lesson, course, cafe});
    VERIFY_OK(change);
    QCOMPARE(change->kind, TaskScopeChange::Kind::Changed);
    const TaskScopePolicy expected{.entries = {course, cafe, lesson}, .revision = 1};
    QCOMPARE(change->policy, expected);
    QCOMPARE(*repository().taskScopes(scope), expected);
    // A second instance reads it too: the list lives in the store.
    const MetadataPorts second = createRepository(clock());
    QVERIFY(second);
    if (isSharedStore())
        QCOMPARE(*second->taskScopes(scope), expected);

    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), qsizetype(1));
    const TaskScopeAuditRecord &record = audit->constFirst();
    QVERIFY(!record.id.isNull());
    QCOMPARE(record.tenant, scope.tenant);
    QCOMPARE(record.principal, scope.principal);
    QCOMPARE(record.kind, QStringLiteral("browser.task_scopes.updated"));
    QCOMPARE(record.at, now());
    QCOMPARE(record.revision, qint64(1));
    QCOMPARE(record.source, TaskScopeSource::Owner);
    QCOMPARE(record.entries, (QStringList{QStringLiteral("https://learn.acme-school.org/course"),
                                          QStringLiteral("https://www.acme-school.com/caf%C3%A9"),
                                          QStringLiteral("https://www.acme-school.com/lesson")}));
}

void ProfileRepositoryContract::taskScopesStaleEditConflicts()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    const TaskScope b = taskScope(QStringLiteral("b"));
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {a}));
    tick();
    VERIFY_OK(repository().replaceTaskScopes(scope, 1, {a, b}));
    // Read at revision 1 (or never), written after revision 2: stale.
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 1, {b}), TaskScopeFailure::Conflict);
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 0, {b}), TaskScopeFailure::Conflict);
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 3, {b}), TaskScopeFailure::Conflict);
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {a, b}, .revision = 2}));
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(2));
}

void ProfileRepositoryContract::taskScopesReplayAnswersWithoutSecondAudit()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    const TaskScope b = taskScope(QStringLiteral("b"));
    const Result<TaskScopeChange> first = repository().replaceTaskScopes(scope, 0, {a, b});
    VERIFY_OK(first);
    tick();
    // The answer was lost; the same request again gets the saved result.
    const Result<TaskScopeChange> replay = repository().replaceTaskScopes(scope, 0, {b, a});
    VERIFY_OK(replay);
    QCOMPARE(replay->kind, TaskScopeChange::Kind::Replayed);
    QCOMPARE(replay->policy, first->policy);
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(1));
    // Once another change followed, it is no longer immediate: a stale edit.
    VERIFY_OK(repository().replaceTaskScopes(scope, 1, {a}));
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 0, {a, b}),
                         TaskScopeFailure::Conflict);
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(2));
}

void ProfileRepositoryContract::taskScopesSameListStoresNothing()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {a}));
    const Result<TaskScopeChange> same = repository().replaceTaskScopes(scope, 1, {a});
    VERIFY_OK(same);
    QCOMPARE(same->kind, TaskScopeChange::Kind::Unchanged);
    QCOMPARE(same->policy.revision, qint64(1));
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(1));
}

void ProfileRepositoryContract::taskScopesRemovalReportsRemovedEntries()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    const TaskScope b = taskScope(QStringLiteral("b"));
    const TaskScope c = taskScope(QStringLiteral("c"));
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {a, b, c}));
    const Result<TaskScopeChange> removed = repository().replaceTaskScopes(scope, 1, {b});
    VERIFY_OK(removed);
    QCOMPARE(removed->removed, (QList<TaskScope>{a, c}));
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {b}, .revision = 2}));
    // Adding one back is a change of its own.
    const Result<TaskScopeChange> readded = repository().replaceTaskScopes(scope, 2, {a, b});
    VERIFY_OK(readded);
    QVERIFY(readded->removed.isEmpty());
    QCOMPARE(readded->policy.revision, qint64(3));
    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), qsizetype(3));
    QCOMPARE(audit->at(1).entries, QStringList{b.toString()});
    QCOMPARE(audit->at(2).revision, qint64(3));
}

void ProfileRepositoryContract::taskScopesBoundsAndDuplicatesStoreNothing()
{
    const ProfileScope scope = newScope();
    QList<TaskScope> sixteen;
    for (int i = 0; i < TaskScopePolicy::kMaxEntries; ++i)
        sixteen << taskScope(QStringLiteral("part%1").arg(i));
    QList<TaskScope> seventeen = sixteen;
    seventeen << taskScope(QStringLiteral("part99"));
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 0, seventeen),
                         TaskScopeFailure::Limit);
    const TaskScope a = taskScope(QStringLiteral("a"));
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 0, {a, a}),
                         TaskScopeFailure::Duplicate);
    VERIFY_SCOPE_FAILURE(repository().seedTaskScopes(scope, seventeen), TaskScopeFailure::Limit);
    QCOMPARE(*repository().taskScopes(scope), TaskScopePolicy{});
    QVERIFY(repository().taskScopeAudit(scope)->isEmpty());

    const Result<TaskScopeChange> full = repository().replaceTaskScopes(scope, 0, sixteen);
    VERIFY_OK(full);
    QCOMPARE(repository().taskScopes(scope)->entries.size(), qsizetype(16));
}

void ProfileRepositoryContract::taskScopesSavedEmptyListStopsTheSeed()
{
    const ProfileScope scope = newScope();
    const Result<TaskScopeChange> empty = repository().replaceTaskScopes(scope, 0, {});
    VERIFY_OK(empty);
    QCOMPARE(empty->kind, TaskScopeChange::Kind::Changed);
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {}, .revision = 1}));
    const Result<TaskScopeChange> seeded =
        repository().seedTaskScopes(scope, {taskScope(QStringLiteral("a"))});
    VERIFY_OK(seeded);
    QCOMPARE(seeded->kind, TaskScopeChange::Kind::Unchanged);
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {}, .revision = 1}));
    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), qsizetype(1));
    QVERIFY(audit->constFirst().entries.isEmpty());
}

void ProfileRepositoryContract::taskScopesSeedAppliesOnce()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    const TaskScope b = taskScope(QStringLiteral("b"));
    const Result<TaskScopeChange> seeded = repository().seedTaskScopes(scope, {a});
    VERIFY_OK(seeded);
    QCOMPARE(seeded->kind, TaskScopeChange::Kind::Changed);
    QCOMPARE(seeded->source, TaskScopeSource::Seed);
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {a}, .revision = 1}));
    // Never again, whatever it holds.
    const Result<TaskScopeChange> again = repository().seedTaskScopes(scope, {b});
    VERIFY_OK(again);
    QCOMPARE(again->kind, TaskScopeChange::Kind::Unchanged);
    // The owner's edit of the seeded list; the seed's own change is not the owner's to replay.
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, 0, {a}), TaskScopeFailure::Conflict);
    VERIFY_OK(repository().replaceTaskScopes(scope, 1, {a, b}));
    const Result<TaskScopeChange> afterEdit = repository().seedTaskScopes(scope, {a});
    VERIFY_OK(afterEdit);
    QCOMPARE(afterEdit->kind, TaskScopeChange::Kind::Unchanged);
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {a, b}, .revision = 2}));
    const Result<QList<TaskScopeAuditRecord>> audit = repository().taskScopeAudit(scope);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), qsizetype(2));
    QCOMPARE(audit->at(0).source, TaskScopeSource::Seed);
    QCOMPARE(audit->at(1).source, TaskScopeSource::Owner);
}

void ProfileRepositoryContract::taskScopesAreScoped()
{
    const ProfileScope scope = newScope();
    const TaskScope a = taskScope(QStringLiteral("a"));
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {a}));
    for (const ProfileScope &other : {otherPrincipal(scope), otherTenant(scope)}) {
        QCOMPARE(*repository().taskScopes(other), TaskScopePolicy{});
        QVERIFY(repository().taskScopeAudit(other)->isEmpty());
        // Their own list starts empty and is theirs alone; the seed still applies to it.
        const Result<TaskScopeChange> seeded =
            repository().seedTaskScopes(other, {taskScope(QStringLiteral("b"))});
        VERIFY_OK(seeded);
        QCOMPARE(seeded->kind, TaskScopeChange::Kind::Changed);
    }
    QCOMPARE(*repository().taskScopes(scope), (TaskScopePolicy{.entries = {a}, .revision = 1}));
    QCOMPARE(repository().taskScopeAudit(scope)->size(), qsizetype(1));
}

void ProfileRepositoryContract::taskScopesRefuseMalformedScope()
{
    VERIFY_PROFILE_FAILURE(repository().taskScopes(ProfileScope{}), ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().replaceTaskScopes(ProfileScope{}, 0, {}),
                           ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().seedTaskScopes(ProfileScope{}, {}),
                           ProfileFailure::Invalid);
    VERIFY_PROFILE_FAILURE(repository().taskScopeAudit(ProfileScope{}), ProfileFailure::Invalid);
    const ProfileScope scope = newScope();
    VERIFY_SCOPE_FAILURE(repository().replaceTaskScopes(scope, -1, {}), TaskScopeFailure::Invalid);
    QCOMPARE(*repository().taskScopes(scope), TaskScopePolicy{});
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
                       "plaintext|cipher|capability|url"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression binary(QStringLiteral("blob|bytea|binary"),
                                           QRegularExpression::CaseInsensitiveOption);
    QVERIFY(columnsAndTypes.size() >= 26); // the check looked at the real tables
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
    QVariant verifiedAccount = QVariant(QMetaType::fromType<QString>());
};

bool insertRow(QSqlDatabase &db, const QString &tenant, const Row &row)
{
    QSqlQuery savepoint(db);
    if (!savepoint.exec(QStringLiteral("SAVEPOINT probe")))
        qFatal("SAVEPOINT failed");
    QSqlQuery query(db);
    query.prepare(QStringLiteral(
        "INSERT INTO browser_profiles (id, tenant, principal, provider_name,"
        " provider_reference, status, generation, key_version, created_at, updated_at,"
        " verified_account)"
        " VALUES (:id, :tenant, :principal, :provider_name, :provider_reference, :status,"
        " :generation, :key_version, :created_at, :updated_at, :verified_account)"));
    query.bindValue(QStringLiteral(":id"), BrowserProfile::newId().toString(QUuid::WithoutBraces));
    query.bindValue(QStringLiteral(":tenant"), tenant);
    query.bindValue(QStringLiteral(":principal"), QStringLiteral("probe"));
    query.bindValue(QStringLiteral(":provider_name"), row.providerName);
    query.bindValue(QStringLiteral(":provider_reference"), row.providerReference);
    query.bindValue(QStringLiteral(":status"), row.status);
    query.bindValue(QStringLiteral(":generation"), row.generation);
    query.bindValue(QStringLiteral(":key_version"), row.keyVersion);
    query.bindValue(QStringLiteral(":verified_account"), row.verifiedAccount);
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

bool probe(QSqlDatabase &db, const QString &sql, const QList<std::pair<QString, QVariant>> &values)
{
    QSqlQuery savepoint(db);
    if (!savepoint.exec(QStringLiteral("SAVEPOINT probe")))
        qFatal("SAVEPOINT failed");
    QSqlQuery query(db);
    if (!query.prepare(sql))
        qFatal("probe statement does not prepare");
    for (const auto &[name, value] : values)
        query.bindValue(name, value);
    const bool ok = query.exec();
    query.finish();
    if (!savepoint.exec(ok ? QStringLiteral("RELEASE SAVEPOINT probe")
                           : QStringLiteral("ROLLBACK TO SAVEPOINT probe")))
        qFatal("savepoint release/rollback failed");
    return ok;
}

namespace {

bool insertScopePolicy(QSqlDatabase &db, const QString &tenant, const QString &principal,
                       const QVariant &revision, const QString &source)
{
    return probe(db,
                 QStringLiteral("INSERT INTO browser_task_scope_policies (tenant, principal,"
                                " revision, last_source, updated_at) VALUES (:tenant, :principal,"
                                " :revision, :source, '2030-01-02T03:04:05.678Z')"),
                 {{QStringLiteral(":tenant"), tenant},
                  {QStringLiteral(":principal"), principal},
                  {QStringLiteral(":revision"), revision},
                  {QStringLiteral(":source"), source}});
}

bool insertScopeEntry(QSqlDatabase &db, const QString &tenant, const QString &principal,
                      int ordinal, const QString &segment)
{
    return probe(db,
                 QStringLiteral("INSERT INTO browser_task_scopes (tenant, principal, ordinal,"
                                " origin, segment) VALUES (:tenant, :principal, :ordinal,"
                                " 'https://www.acme-school.com', :segment)"),
                 {{QStringLiteral(":tenant"), tenant},
                  {QStringLiteral(":principal"), principal},
                  {QStringLiteral(":ordinal"), ordinal},
                  {QStringLiteral(":segment"), segment}});
}

bool insertAudit(QSqlDatabase &db, const QString &tenant, const QString &kind, qint64 revision,
                 const QString &source)
{
    return probe(db,
                 QStringLiteral("INSERT INTO browser_policy_audit (id, tenant, principal, kind,"
                                " recorded_at, revision, source, entries) VALUES (:id, :tenant,"
                                " 'probe', :kind, '2030-01-02T03:04:05.678Z', :revision, :source,"
                                " '[]')"),
                 {{QStringLiteral(":id"), BrowserProfile::newId().toString(QUuid::WithoutBraces)},
                  {QStringLiteral(":tenant"), tenant},
                  {QStringLiteral(":kind"), kind},
                  {QStringLiteral(":revision"), revision},
                  {QStringLiteral(":source"), source}});
}

} // namespace

void verifyTaskScopeConstraints(QSqlDatabase &db, const QString &tenant)
{
    const QString owner = QStringLiteral("owner");
    const QString principal = QStringLiteral("probe");
    // The policy row: a positive revision and a closed source.
    QVERIFY(!insertScopePolicy(db, tenant, principal, 0, owner));
    QVERIFY(!insertScopePolicy(db, tenant, principal, 1, QStringLiteral("model")));
    QVERIFY(insertScopePolicy(db, tenant, principal, 1, owner));
    QVERIFY(!insertScopePolicy(db, tenant, principal, 2, owner)); // one per principal
    QVERIFY(
        insertScopePolicy(db, tenant, principal + QStringLiteral("-2"), 1, QStringLiteral("seed")));

    // Entries: only under a policy row, ordinals 0-15, unique, a bounded segment.
    QVERIFY(!insertScopeEntry(db, tenant, QStringLiteral("nobody"), 0, QStringLiteral("a")));
    QVERIFY(insertScopeEntry(db, tenant, principal, 0, QStringLiteral("a")));
    QVERIFY(!insertScopeEntry(db, tenant, principal, 0, QStringLiteral("b")));
    QVERIFY(!insertScopeEntry(db, tenant, principal, 1, QStringLiteral("a")));
    QVERIFY(insertScopeEntry(db, tenant, principal, 15, QStringLiteral("b")));
    QVERIFY(!insertScopeEntry(db, tenant, principal, 16, QStringLiteral("c")));
    QVERIFY(!insertScopeEntry(db, tenant, principal, -1, QStringLiteral("c")));
    QVERIFY(!insertScopeEntry(db, tenant, principal, 2, QString()));
    QVERIFY(!insertScopeEntry(db, tenant, principal, 2, QString(65, u'c')));
    QVERIFY(insertScopeEntry(db, tenant, principal, 2, QString(64, u'c')));

    // The audit: a closed kind and source, a positive revision, one record per revision.
    const QString kind = QStringLiteral("browser.task_scopes.updated");
    QVERIFY(!insertAudit(db, tenant, QStringLiteral("browser.other"), 1, owner));
    QVERIFY(!insertAudit(db, tenant, kind, 1, QStringLiteral("model")));
    QVERIFY(!insertAudit(db, tenant, kind, 0, owner));
    QVERIFY(insertAudit(db, tenant, kind, 1, owner));
    QVERIFY(!insertAudit(db, tenant, kind, 1, owner));
    QVERIFY(insertAudit(db, tenant, kind, 2, QStringLiteral("seed")));
}

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
    // A confirmed account (version 11): 1-64 characters, on a READY row only.
    Row confirmed = bound(QStringLiteral("ready"), BrowserProfile::newProviderReference());
    confirmed.verifiedAccount = QStringLiteral("d\u2022\u2022\u2022@shop.de");
    QVERIFY(insertRow(db, tenant, confirmed));
    Row confirmedNeedsUser =
        bound(QStringLiteral("needs_user"), BrowserProfile::newProviderReference());
    confirmedNeedsUser.verifiedAccount = confirmed.verifiedAccount;
    QVERIFY(!insertRow(db, tenant, confirmedNeedsUser));
    for (const QString &label : {QString(QLatin1String("")), QString(65, QLatin1Char('a'))}) {
        Row badLabel = bound(QStringLiteral("ready"), BrowserProfile::newProviderReference());
        badLabel.verifiedAccount = label;
        QVERIFY(!insertRow(db, tenant, badLabel));
    }

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

namespace {

struct CeremonyRow
{
    QString id = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    QString principal = QStringLiteral("probe");
    QString mode = QStringLiteral("device");
    QString status = QStringLiteral("open");
    QVariant failureCode = QVariant(QMetaType::fromType<QString>());
    QString createdAt = QStringLiteral("2030-01-02T03:04:05.678Z");
    QString expiresAt = QStringLiteral("2030-01-02T03:09:05.678Z");
    QVariant finishedAt = QVariant(QMetaType::fromType<QString>());
};

bool insertCeremony(QSqlDatabase &db, const QString &tenant, const QString &profileId,
                    const CeremonyRow &row)
{
    QSqlQuery savepoint(db);
    if (!savepoint.exec(QStringLiteral("SAVEPOINT probe")))
        qFatal("SAVEPOINT failed");
    QSqlQuery query(db);
    query.prepare(QStringLiteral(
        "INSERT INTO browser_authentication_ceremonies (id, profile_id, tenant, principal, mode,"
        " status, failure_code, created_at, expires_at, finished_at)"
        " VALUES (:id, :profile_id, :tenant, :principal, :mode, :status, :failure_code,"
        " :created_at, :expires_at, :finished_at)"));
    query.bindValue(QStringLiteral(":id"), row.id);
    query.bindValue(QStringLiteral(":profile_id"), profileId);
    query.bindValue(QStringLiteral(":tenant"), tenant);
    query.bindValue(QStringLiteral(":principal"), row.principal);
    query.bindValue(QStringLiteral(":mode"), row.mode);
    query.bindValue(QStringLiteral(":status"), row.status);
    query.bindValue(QStringLiteral(":failure_code"), row.failureCode);
    query.bindValue(QStringLiteral(":created_at"), row.createdAt);
    query.bindValue(QStringLiteral(":expires_at"), row.expiresAt);
    query.bindValue(QStringLiteral(":finished_at"), row.finishedAt);
    const bool ok = query.exec();
    query.finish();
    if (!savepoint.exec(ok ? QStringLiteral("RELEASE SAVEPOINT probe")
                           : QStringLiteral("ROLLBACK TO SAVEPOINT probe")))
        qFatal("savepoint release/rollback failed");
    return ok;
}

} // namespace

void verifyCeremonyConstraints(QSqlDatabase &db, const QString &tenant)
{
    const QString profileId = BrowserProfile::newId().toString(QUuid::WithoutBraces);
    {
        QSqlQuery profile(db);
        profile.prepare(QStringLiteral(
            "INSERT INTO browser_profiles (id, tenant, principal, provider_name,"
            " provider_reference, status, generation, key_version, created_at, updated_at)"
            " VALUES (:id, :tenant, 'probe', 'hosted', :reference, 'ready', 1, 'k1',"
            " '2030-01-02T03:04:05.678Z', '2030-01-02T03:04:05.678Z')"));
        profile.bindValue(QStringLiteral(":id"), profileId);
        profile.bindValue(QStringLiteral(":tenant"), tenant);
        profile.bindValue(QStringLiteral(":reference"), BrowserProfile::newProviderReference());
        QVERIFY2(profile.exec(), qPrintable(profile.lastError().text()));
    }
    const QString finished = QStringLiteral("2030-01-02T03:05:05.678Z");

    // Accepted shapes.
    QVERIFY(insertCeremony(db, tenant, profileId, CeremonyRow{}));
    CeremonyRow failed;
    failed.status = QStringLiteral("failed");
    failed.failureCode = QStringLiteral("tool.browser.profile_unavailable");
    failed.finishedAt = finished;
    QVERIFY(insertCeremony(db, tenant, profileId, failed));
    CeremonyRow ready;
    ready.status = QStringLiteral("ready");
    ready.finishedAt = finished;
    QVERIFY(insertCeremony(db, tenant, profileId, ready));

    // Closed sets.
    CeremonyRow row;
    row.mode = QStringLiteral("automated");
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    row = CeremonyRow{};
    row.status = QStringLiteral("needs_user");
    row.finishedAt = finished;
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    row = failed;
    row.id = CeremonyRow{}.id;
    row.failureCode = QStringLiteral("signed_in");
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    // A failure code exactly when failed.
    row = failed;
    row.id = CeremonyRow{}.id;
    row.failureCode = QVariant(QMetaType::fromType<QString>());
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    row = ready;
    row.id = CeremonyRow{}.id;
    row.failureCode = QStringLiteral("session_empty");
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    // A finish time exactly when terminal.
    row = CeremonyRow{};
    row.finishedAt = finished;
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    row = ready;
    row.id = CeremonyRow{}.id;
    row.finishedAt = QVariant(QMetaType::fromType<QString>());
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    // Expiry after creation.
    row = CeremonyRow{};
    row.expiresAt = row.createdAt;
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    // The id is unique and, in SQLite where it is text, lowercase.
    row = CeremonyRow{};
    row.id = CeremonyRow{}.id;
    QVERIFY(insertCeremony(db, tenant, profileId, row));
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
    if (db.driverName() == QLatin1String("QSQLITE")) {
        row = CeremonyRow{};
        row.id = row.id.toUpper();
        QVERIFY(!insertCeremony(db, tenant, profileId, row));
    }
    // The record belongs to an existing profile of the same scope.
    QVERIFY(!insertCeremony(db, tenant, BrowserProfile::newId().toString(QUuid::WithoutBraces),
                            CeremonyRow{}));
    row = CeremonyRow{};
    row.principal = QStringLiteral("somebody-else");
    QVERIFY(!insertCeremony(db, tenant, profileId, row));
}

} // namespace ProfileStoreChecks
