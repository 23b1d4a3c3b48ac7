// The task-grant part of the repository contract, run against every adapter that is a
// TaskGrantStore (SQLite and PostgreSQL), and the raw-SQL proof that the store itself holds a
// grant's fixed limits whatever writes to it.

#include "ProfileRepositoryContract.h"

#include <QJsonObject>
#include <QSemaphore>
#include <QSqlQuery>

#include <atomic>
#include <thread>

using namespace veetbot;

#define VERIFY_GRANT_FAILURE(result, failure)                                                      \
    do {                                                                                           \
        const auto &verifyResult_ = (result);                                                      \
        QVERIFY2(!verifyResult_.ok(), "expected a failure, got success");                          \
        QCOMPARE(verifyResult_.error(), veetbot::taskGrantError(failure));                         \
    } while (false)

#define REQUIRE_GRANT_STORE(store)                                                                 \
    TaskGrantStore *store = taskGrants();                                                          \
    QVERIFY2(store, "the adapter is not a task-grant store")

namespace {

const QJsonObject kClickView{{QStringLiteral("kind"), QStringLiteral("click")}};
const QJsonObject kTypeView{{QStringLiteral("kind"), QStringLiteral("type")},
                            {QStringLiteral("text_code_points"), 5}};

int countKind(const QList<TaskGrantAuditRecord> &records, const char16_t *kind)
{
    return int(std::count_if(records.cbegin(), records.cend(),
                             [kind](const TaskGrantAuditRecord &r) { return r.kind == kind; }));
}

} // namespace

TaskGrantStore *ProfileRepositoryContract::taskGrants()
{
    return ports().taskGrants;
}

TaskGrantPins ProfileRepositoryContract::pinsFor(const BrowserProfile &profile,
                                                 const QUuid &session)
{
    return TaskGrantPins{session, profile.id, profile.generation, QStringLiteral("veetbot 1.0"),
                         QString(64, u'a')};
}

std::optional<ProfileRepositoryContract::GrantSetUp>
ProfileRepositoryContract::setUpGrant(const ProfileScope &scope)
{
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    if (!ready ||
        !repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("lesson"))}).ok())
        return std::nullopt;
    const TaskGrantPins pins = pinsFor(*ready);
    const Result<TaskGrant> grant = taskGrants()->createTaskGrant(
        scope, pins, taskScope(QStringLiteral("lesson")), QUuid::createUuid(), kClickView);
    if (!grant)
        return std::nullopt;
    return GrantSetUp{*ready, pins, grant->id};
}

void ProfileRepositoryContract::taskGrantCreateUseAndAudit()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);

    const Result<std::optional<TaskGrant>> active =
        store->activeTaskGrant(scope, set->pins.session);
    VERIFY_OK(active);
    QVERIFY(active->has_value());
    const TaskGrant &grant = **active;
    QCOMPARE(grant.id, set->grant);
    QCOMPARE(grant.pins, set->pins);
    QCOMPARE(grant.scope, taskScope(QStringLiteral("lesson")));
    QCOMPARE(grant.createdAt, now());
    QCOMPARE(grant.expiresAt, now().addSecs(30 * 60));
    QCOMPARE(grant.uses, 0);
    QCOMPARE(grant.actionsLeft(), 200);
    QVERIFY(!grant.isEnded());

    tick();
    const Result<TaskGrantUse> first =
        store->useTaskGrant(scope, set->pins, set->grant, 5, kTypeView);
    VERIFY_OK(first);
    QCOMPARE(first->ordinal, 1);
    QCOMPARE(first->grant.uses, 1);
    QCOMPARE(first->grant.typedCharacters, 5);
    const Result<TaskGrantUse> second =
        store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView);
    VERIFY_OK(second);
    QCOMPARE(second->ordinal, 2);
    QCOMPARE(second->grant.typedCharacters, 5);

    const Result<TaskGrant> ended = store->endTaskGrant(scope, set->grant, TaskGrantEnd::Revoked);
    VERIFY_OK(ended);
    QCOMPARE(ended->endReason, std::optional(TaskGrantEnd::Revoked));
    QCOMPARE(ended->endedAt, std::optional(now()));
    // Ending again answers the record as it is: still one ended record.
    tick();
    const Result<TaskGrant> again =
        store->endTaskGrant(scope, set->grant, TaskGrantEnd::SessionEnded);
    VERIFY_OK(again);
    QCOMPARE(again->endReason, std::optional(TaskGrantEnd::Revoked));

    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(audit->size(), 4);
    QCOMPARE(audit->at(0).kind, QString::fromUtf16(kTaskGrantCreatedKind));
    QCOMPARE(audit->at(0).approvalView, kClickView);
    QCOMPARE(audit->at(1).kind, QString::fromUtf16(kToolCallAuthorizedKind));
    QCOMPARE(audit->at(1).ordinal, std::optional(1));
    QCOMPARE(audit->at(1).approvalView, kTypeView);
    QCOMPARE(audit->at(2).ordinal, std::optional(2));
    QCOMPARE(audit->at(3).kind, QString::fromUtf16(kTaskGrantEndedKind));
    QCOMPARE(audit->at(3).endReason, std::optional(TaskGrantEnd::Revoked));
    QVERIFY(audit->at(3).approvalView.isEmpty());
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
    const Result<std::optional<TaskGrant>> none = store->activeTaskGrant(scope, set->pins.session);
    VERIFY_OK(none);
    QVERIFY(!none->has_value());
}

void ProfileRepositoryContract::taskGrantNeedsAConfiguredScope()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    // No list saved at all, then a list without the offered entry.
    VERIFY_GRANT_FAILURE(store->createTaskGrant(scope, pinsFor(*ready),
                                                taskScope(QStringLiteral("lesson")),
                                                QUuid::createUuid(), kClickView),
                         TaskGrantFailure::NotOffered);
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("other"))}));
    VERIFY_GRANT_FAILURE(store->createTaskGrant(scope, pinsFor(*ready),
                                                taskScope(QStringLiteral("lesson")),
                                                QUuid::createUuid(), kClickView),
                         TaskGrantFailure::NotOffered);
    const Result<QList<TaskGrant>> grants = store->taskGrants(scope);
    VERIFY_OK(grants);
    QVERIFY(grants->isEmpty());
}

void ProfileRepositoryContract::taskGrantUnavailableWhileSignInIsOpen()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("lesson"))}));
    const Result<CeremonyBegun> begun = beginFor(scope, *ready);
    VERIFY_OK(begun);
    // The profile is still READY, at the advanced generation, but its newest sign-in has no
    // outcome yet.
    QCOMPARE(begun->profile.status, ProfileStatus::Ready);
    VERIFY_GRANT_FAILURE(store->createTaskGrant(scope, pinsFor(begun->profile),
                                                taskScope(QStringLiteral("lesson")),
                                                QUuid::createUuid(), kClickView),
                         TaskGrantFailure::Unavailable);
    tick();
    VERIFY_OK(repository().finishCeremony(scope, begun->ceremony.id, CeremonyStatus::Ready,
                                          QString(), {}));
    const Result<BrowserProfile> after = repository().get(scope, ready->id);
    VERIFY_OK(after);
    VERIFY_OK(store->createTaskGrant(scope, pinsFor(*after), taskScope(QStringLiteral("lesson")),
                                     QUuid::createUuid(), kClickView));
}

void ProfileRepositoryContract::taskGrantUnavailableForAProfileNotReady()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    VERIFY_OK(repository().replaceTaskScopes(scope, 0, {taskScope(QStringLiteral("lesson"))}));
    for (const ProfileStatus status : {ProfileStatus::AuthenticationRequired,
                                       ProfileStatus::NeedsUser, ProfileStatus::Revoked}) {
        const Result<BrowserProfile> profile = createIn(scope, status);
        VERIFY_OK(profile);
        TaskGrantPins pins = pinsFor(*profile);
        pins.profileGeneration = std::max<qint64>(1, pins.profileGeneration);
        VERIFY_GRANT_FAILURE(store->createTaskGrant(scope, pins,
                                                    taskScope(QStringLiteral("lesson")),
                                                    QUuid::createUuid(), kClickView),
                             TaskGrantFailure::Unavailable);
    }
    // READY, but pinned to a generation that is no longer current.
    const Result<BrowserProfile> ready = createIn(scope, ProfileStatus::Ready);
    VERIFY_OK(ready);
    TaskGrantPins stale = pinsFor(*ready);
    stale.profileGeneration += 1;
    VERIFY_GRANT_FAILURE(store->createTaskGrant(scope, stale, taskScope(QStringLiteral("lesson")),
                                                QUuid::createUuid(), kClickView),
                         TaskGrantFailure::Unavailable);
}

void ProfileRepositoryContract::taskGrantEnds_data()
{
    QTest::addColumn<int>("end");
    for (const TaskGrantEnd end :
         {TaskGrantEnd::Expired, TaskGrantEnd::SignedInAgain, TaskGrantEnd::ProfileRevoked,
          TaskGrantEnd::AgentVersion, TaskGrantEnd::PolicyVersion, TaskGrantEnd::ScopeRemoved,
          TaskGrantEnd::SessionEnded})
        QTest::newRow(qPrintable(taskGrantEndString(end))) << int(end);
}

void ProfileRepositoryContract::taskGrantEnds()
{
    QFETCH(int, end);
    const auto reason = TaskGrantEnd(end);
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    TaskGrantPins pins = set->pins;
    switch (reason) {
    case TaskGrantEnd::Expired:
        // Usable up to its last millisecond, not at thirty minutes.
        advance(30 * 60 - 1);
        VERIFY_OK(store->useTaskGrant(scope, pins, set->grant, 0, kClickView));
        advance(1);
        break;
    case TaskGrantEnd::SignedInAgain:
        VERIFY_OK(beginFor(scope, set->profile));
        break;
    case TaskGrantEnd::ProfileRevoked:
        VERIFY_OK(repository().transition(scope, set->profile.id, set->profile.generation,
                                          ProfileStatus::Revoked));
        break;
    case TaskGrantEnd::AgentVersion:
        pins.agentVersion = QStringLiteral("veetbot 1.1");
        break;
    case TaskGrantEnd::PolicyVersion:
        pins.policyVersion = QString(64, u'b');
        break;
    case TaskGrantEnd::ScopeRemoved: {
        const Result<TaskScopePolicy> list = repository().taskScopes(scope);
        VERIFY_OK(list);
        VERIFY_OK(repository().replaceTaskScopes(scope, list->revision,
                                                 {taskScope(QStringLiteral("other"))}));
        // Re-adding the entry does not revive the grant.
        VERIFY_OK(repository().replaceTaskScopes(scope, list->revision + 1,
                                                 {taskScope(QStringLiteral("lesson"))}));
        break;
    }
    case TaskGrantEnd::SessionEnded:
        VERIFY_OK(store->endTaskGrant(scope, set->grant, TaskGrantEnd::SessionEnded));
        break;
    default:
        QFAIL("unexpected row");
    }
    tick();
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
    const Result<QList<TaskGrant>> grants = store->taskGrants(scope);
    VERIFY_OK(grants);
    QCOMPARE(grants->size(), 1);
    QCOMPARE(grants->first().endReason, std::optional(reason));
    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(countKind(*audit, kTaskGrantEndedKind), 1);
    QCOMPARE(audit->last().endReason, std::optional(reason));
}

void ProfileRepositoryContract::taskGrantSupersededBySecondInSession()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    tick();
    const Result<TaskGrant> second = store->createTaskGrant(
        scope, set->pins, taskScope(QStringLiteral("lesson")), QUuid::createUuid(), kClickView);
    VERIFY_OK(second);
    const Result<std::optional<TaskGrant>> active =
        store->activeTaskGrant(scope, set->pins.session);
    VERIFY_OK(active);
    QCOMPARE((*active)->id, second->id);
    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(audit->last().endReason, std::optional(TaskGrantEnd::Superseded));
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
    VERIFY_OK(store->useTaskGrant(scope, set->pins, second->id, 0, kClickView));
}

void ProfileRepositoryContract::taskGrantRevokedAtNextUse()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    VERIFY_OK(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView));
    // The owner revokes through another instance (another process, for a shared store).
    MetadataPorts other = isSharedStore() ? createRepository(clock()) : MetadataPorts{};
    TaskGrantStore *revoker = other ? other.taskGrants : store;
    QVERIFY(revoker);
    VERIFY_OK(revoker->endTaskGrant(scope, set->grant, TaskGrantEnd::Revoked));
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
}

void ProfileRepositoryContract::taskGrantTwoHundredUsesThenExhausted()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    for (int i = 1; i <= 200; ++i) {
        const Result<TaskGrantUse> use =
            store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView);
        VERIFY_OK(use);
        QCOMPARE(use->ordinal, i);
        QCOMPARE(use->grant.isEnded(), i == 200);
    }
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView),
                         TaskGrantFailure::Ended);
    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(countKind(*audit, kToolCallAuthorizedKind), 200);
    QCOMPARE(countKind(*audit, kTaskGrantEndedKind), 1);
    QCOMPARE(audit->last().endReason, std::optional(TaskGrantEnd::Exhausted));
}

void ProfileRepositoryContract::taskGrantTypedCharacterCap()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    VERIFY_OK(store->useTaskGrant(scope, set->pins, set->grant, 4000, kTypeView));
    // 4,097 would pass the cap: refused, nothing consumed, the grant goes on.
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 97, kTypeView),
                         TaskGrantFailure::TextLimit);
    const Result<TaskGrantUse> full =
        store->useTaskGrant(scope, set->pins, set->grant, 96, kTypeView);
    VERIFY_OK(full);
    QCOMPARE(full->ordinal, 2);
    QCOMPARE(full->grant.typedCharacters, 4096);
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, set->pins, set->grant, 1, kTypeView),
                         TaskGrantFailure::TextLimit);
    const Result<TaskGrantUse> click =
        store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView);
    VERIFY_OK(click);
    QCOMPARE(click->ordinal, 3);
}

void ProfileRepositoryContract::taskGrantsAreScopedAndPerSession()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    // Another session of the same owner finds nothing to use.
    TaskGrantPins otherSession = set->pins;
    otherSession.session = QUuid::createUuid();
    VERIFY_GRANT_FAILURE(store->useTaskGrant(scope, otherSession, set->grant, 0, kClickView),
                         TaskGrantFailure::NotFound);
    const Result<std::optional<TaskGrant>> none =
        store->activeTaskGrant(scope, otherSession.session);
    VERIFY_OK(none);
    QVERIFY(!none->has_value());
    // Another principal or tenant sees no grant at all.
    for (const ProfileScope &outsider : {otherPrincipal(scope), otherTenant(scope)}) {
        VERIFY_GRANT_FAILURE(store->useTaskGrant(outsider, set->pins, set->grant, 0, kClickView),
                             TaskGrantFailure::NotFound);
        VERIFY_GRANT_FAILURE(store->endTaskGrant(outsider, set->grant, TaskGrantEnd::Revoked),
                             TaskGrantFailure::NotFound);
        VERIFY_GRANT_FAILURE(store->taskGrantAudit(outsider, set->grant),
                             TaskGrantFailure::NotFound);
        const Result<QList<TaskGrant>> listed = store->taskGrants(outsider);
        VERIFY_OK(listed);
        QVERIFY(listed->isEmpty());
    }
    VERIFY_OK(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView));
}

void ProfileRepositoryContract::taskGrantListingEndsDeadGrants()
{
    REQUIRE_GRANT_STORE(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    const Result<QList<TaskGrant>> live = store->taskGrants(scope);
    VERIFY_OK(live);
    QVERIFY(!live->first().isEnded());
    advance(30 * 60);
    for (int i = 0; i < 2; ++i) {
        const Result<QList<TaskGrant>> listed = store->taskGrants(scope);
        VERIFY_OK(listed);
        QCOMPARE(listed->first().endReason, std::optional(TaskGrantEnd::Expired));
    }
    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(countKind(*audit, kTaskGrantEndedKind), 1);
}

void ProfileRepositoryContract::verifyConcurrentGrantUsesAdmitOne(
    const std::function<MetadataPorts()> &open)
{
    TaskGrantStore *store = taskGrants();
    QVERIFY(store);
    const ProfileScope scope = newScope();
    const std::optional<GrantSetUp> set = setUpGrant(scope);
    QVERIFY(set);
    for (int i = 0; i < 199; ++i)
        VERIFY_OK(store->useTaskGrant(scope, set->pins, set->grant, 0, kClickView));

    std::optional<Result<TaskGrantUse>> results[2];
    std::atomic<bool> opened[2] = {false, false};
    QSemaphore ready;
    QSemaphore go;
    const auto use = [&](int which) {
        const MetadataPorts repository = open();
        TaskGrantStore *grants = repository.taskGrants;
        opened[which] = grants != nullptr;
        ready.release();
        go.acquire();
        if (grants)
            results[which] = grants->useTaskGrant(scope, set->pins, set->grant, 0, kClickView);
    };
    std::thread first([&] { use(0); });
    std::thread second([&] { use(1); });
    ready.acquire(2);
    go.release(2);
    first.join();
    second.join();

    QVERIFY(opened[0] && opened[1]);
    QVERIFY(results[0] && results[1]);
    QCOMPARE(int(results[0]->ok()) + int(results[1]->ok()), 1);
    const int winner = results[0]->ok() ? 0 : 1;
    QCOMPARE((*results[winner])->ordinal, 200);
    VERIFY_GRANT_FAILURE(*results[1 - winner], TaskGrantFailure::Ended);
    const Result<QList<TaskGrantAuditRecord>> audit = store->taskGrantAudit(scope, set->grant);
    VERIFY_OK(audit);
    QCOMPARE(countKind(*audit, kToolCallAuthorizedKind), 200);
    QCOMPARE(countKind(*audit, kTaskGrantEndedKind), 1);
}

namespace ProfileStoreChecks {

namespace {

struct GrantRow
{
    QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QString session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QString createdAt = QStringLiteral("2030-01-02T03:04:05.678Z");
    QString expiresAt = QStringLiteral("2030-01-02T03:34:05.678Z");
    int actionCap = 200;
    int uses = 0;
    int typed = 0;
    QVariant endedAt = QVariant(QMetaType::fromType<QString>());
    QVariant endReason = QVariant(QMetaType::fromType<QString>());
};

bool insertGrant(QSqlDatabase &db, const QString &tenant, const GrantRow &row)
{
    return probe(
        db,
        QStringLiteral("INSERT INTO browser_task_grants (id, tenant, principal, session_id,"
                       " profile_id, profile_generation, agent_version, policy_version, origin,"
                       " prefix, approval_id, created_at, expires_at, action_cap, uses,"
                       " typed_characters, ended_at, end_reason) VALUES (:id, :tenant, 'probe',"
                       " :session, :profile, 1, 'veetbot 1.0', :policy,"
                       " 'https://www.acme-school.com', 'lesson', :approval, :created_at,"
                       " :expires_at, :cap, :uses, :typed, :ended_at, :end_reason)"),
        {{QStringLiteral(":id"), row.id},
         {QStringLiteral(":tenant"), tenant},
         {QStringLiteral(":session"), row.session},
         {QStringLiteral(":profile"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
         {QStringLiteral(":policy"), QString(64, u'a')},
         {QStringLiteral(":approval"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
         {QStringLiteral(":created_at"), row.createdAt},
         {QStringLiteral(":expires_at"), row.expiresAt},
         {QStringLiteral(":cap"), row.actionCap},
         {QStringLiteral(":uses"), row.uses},
         {QStringLiteral(":typed"), row.typed},
         {QStringLiteral(":ended_at"), row.endedAt},
         {QStringLiteral(":end_reason"), row.endReason}});
}

bool insertGrantAudit(QSqlDatabase &db, const QString &tenant, const QString &grant,
                      const QString &kind, const QVariant &ordinal, const QVariant &endReason,
                      const QVariant &view)
{
    return probe(db,
                 QStringLiteral("INSERT INTO browser_task_grant_audit (id, tenant, principal,"
                                " grant_id, kind, recorded_at, ordinal, end_reason, approval_view)"
                                " VALUES (:id, :tenant, 'probe', :grant, :kind,"
                                " '2030-01-02T03:04:05.678Z', :ordinal, :end_reason, :view)"),
                 {{QStringLiteral(":id"), QUuid::createUuid().toString(QUuid::WithoutBraces)},
                  {QStringLiteral(":tenant"), tenant},
                  {QStringLiteral(":grant"), grant},
                  {QStringLiteral(":kind"), kind},
                  {QStringLiteral(":ordinal"), ordinal},
                  {QStringLiteral(":end_reason"), endReason},
                  {QStringLiteral(":view"), view}});
}

} // namespace

void verifyTaskGrantConstraints(QSqlDatabase &db, const QString &tenant)
{
    const GrantRow base;
    QVERIFY(insertGrant(db, tenant, base));

    // Thirty minutes exactly: not 29, not 31.
    GrantRow shorter;
    shorter.expiresAt = QStringLiteral("2030-01-02T03:33:05.678Z");
    QVERIFY(!insertGrant(db, tenant, shorter));
    GrantRow longer;
    longer.expiresAt = QStringLiteral("2030-01-02T03:35:05.678Z");
    QVERIFY(!insertGrant(db, tenant, longer));
    // Two hundred actions, fixed.
    GrantRow biggerCap;
    biggerCap.actionCap = 201;
    QVERIFY(!insertGrant(db, tenant, biggerCap));
    GrantRow overUsed;
    overUsed.uses = 201;
    QVERIFY(!insertGrant(db, tenant, overUsed));
    GrantRow fullyUsed;
    fullyUsed.uses = 200;
    QVERIFY(insertGrant(db, tenant, fullyUsed));
    QVERIFY(!probe(db,
                   QStringLiteral("UPDATE browser_task_grants SET uses = uses + 1 WHERE id = :id"),
                   {{QStringLiteral(":id"), fullyUsed.id}}));
    QVERIFY(!probe(db, QStringLiteral("UPDATE browser_task_grants SET uses = 201 WHERE id = :id"),
                   {{QStringLiteral(":id"), base.id}}));
    // 4,096 typed characters.
    GrantRow overTyped;
    overTyped.typed = 4097;
    QVERIFY(!insertGrant(db, tenant, overTyped));
    GrantRow fullyTyped;
    fullyTyped.typed = 4096;
    QVERIFY(insertGrant(db, tenant, fullyTyped));
    // A closed end reason, and an end time only with one.
    GrantRow unknownEnd;
    unknownEnd.endedAt = QStringLiteral("2030-01-02T03:10:05.678Z");
    unknownEnd.endReason = QStringLiteral("bored");
    QVERIFY(!insertGrant(db, tenant, unknownEnd));
    GrantRow endWithoutReason;
    endWithoutReason.endedAt = QStringLiteral("2030-01-02T03:10:05.678Z");
    QVERIFY(!insertGrant(db, tenant, endWithoutReason));
    // One unended grant per session; ended ones beside it are history.
    GrantRow sameSession;
    sameSession.session = base.session;
    QVERIFY(!insertGrant(db, tenant, sameSession));
    sameSession.endedAt = QStringLiteral("2030-01-02T03:10:05.678Z");
    sameSession.endReason = QStringLiteral("superseded");
    QVERIFY(insertGrant(db, tenant, sameSession));

    // The audit: a closed kind, one created and one ended record, ordinals once each.
    const QVariant noInt(QMetaType::fromType<int>());
    const QVariant noText(QMetaType::fromType<QString>());
    const QString view = QStringLiteral("{\"kind\":\"click\"}");
    const QString created = QStringLiteral("browser.task_grant.created");
    const QString authorized = QStringLiteral("tool.call.authorized");
    const QString ended = QStringLiteral("browser.task_grant.ended");
    QVERIFY(!insertGrantAudit(db, tenant, base.id, QStringLiteral("browser.other"), noInt, noText,
                              view));
    QVERIFY(insertGrantAudit(db, tenant, base.id, created, noInt, noText, view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, created, noInt, noText, view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, authorized, noInt, noText, view));
    QVERIFY(insertGrantAudit(db, tenant, base.id, authorized, 1, noText, view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, authorized, 1, noText, view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, authorized, 201, noText, view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, ended, noInt, QStringLiteral("revoked"), view));
    QVERIFY(!insertGrantAudit(db, tenant, base.id, ended, noInt, QStringLiteral("bored"), noText));
    QVERIFY(insertGrantAudit(db, tenant, base.id, ended, noInt, QStringLiteral("revoked"), noText));
    QVERIFY(
        !insertGrantAudit(db, tenant, base.id, ended, noInt, QStringLiteral("expired"), noText));
    QVERIFY(!insertGrantAudit(db, tenant, QUuid::createUuid().toString(QUuid::WithoutBraces),
                              created, noInt, noText, view));
}

} // namespace ProfileStoreChecks
