#include "ScheduleChecks.h"

#include <QTest>

#include <algorithm>

using namespace veetbot;

namespace ScheduleChecks {

namespace {
Schedule sample()
{
    Schedule schedule;
    schedule.id = QUuid::createUuid();
    schedule.profileId = QUuid::createUuid();
    schedule.profileGeneration = 3;
    schedule.task = QStringLiteral("Check my orders and tell me what shipped.");
    schedule.calendar = QStringLiteral("Mon..Fri *-*-* 08:00:00");
    schedule.modelUrl = QStringLiteral("https://models.example/v1/chat/completions");
    schedule.model = QStringLiteral("m");
    schedule.budget = 16384;
    schedule.deadlineMinutes = 30;
    schedule.agentVersion = QStringLiteral("veetbot 1.0.0");
    schedule.policyVersion = QString(64, u'a');
    return schedule;
}
} // namespace

void verifySchedules(ScheduleStore &store, const ProfileScope &scope, const ProfileScope &outsider)
{
    Schedule wanted = sample();
    wanted.standingGrant = QUuid::createUuid();
    const Result<Schedule> created = store.createSchedule(scope, wanted);
    QVERIFY2(created.ok(), created.ok() ? "" : qPrintable(created.error().code));
    QCOMPARE(created->id, wanted.id);
    QCOMPARE(created->profileId, wanted.profileId);
    QCOMPARE(created->profileGeneration, 3);
    QCOMPARE(created->task, wanted.task);
    QCOMPARE(created->calendar, wanted.calendar);
    QCOMPARE(created->standingGrant, wanted.standingGrant);
    QCOMPARE(created->modelUrl, wanted.modelUrl);
    QCOMPARE(created->budget, 16384);
    QCOMPARE(created->deadlineMinutes, 30);
    QCOMPARE(created->state, ScheduleState::Active);
    QVERIFY(!created->lastOccurrenceAt && !created->lastRun && created->lastStatus.isEmpty());
    QVERIFY(created->createdAt.isValid());

    // Not storable: refused, nothing kept.
    Schedule unnormalized = sample();
    unnormalized.calendar = QStringLiteral("mon..fri 8:00");
    QCOMPARE(store.createSchedule(scope, unnormalized).error().code,
             QStringLiteral("schedule.invalid"));
    Schedule tooLong = sample();
    tooLong.task = QString(Schedule::kMaxTaskCharacters + 1, u'x');
    QCOMPARE(store.createSchedule(scope, tooLong).error().code, QStringLiteral("schedule.invalid"));
    Schedule keyInQuery = sample();
    keyInQuery.modelUrl = QStringLiteral("https://models.example/v1/chat/completions?key=k");
    QCOMPARE(store.createSchedule(scope, keyInQuery).error().code,
             QStringLiteral("schedule.invalid"));
    Schedule badPolicy = sample();
    badPolicy.policyVersion = QString(64, u'G');
    QCOMPARE(store.createSchedule(scope, badPolicy).error().code,
             QStringLiteral("schedule.invalid"));

    // Owner-scoped: another principal sees nothing and changes nothing.
    QCOMPARE(store.schedule(outsider, wanted.id).error().code,
             QStringLiteral("schedule.not_found"));
    QVERIFY(store.schedules(outsider)->isEmpty());
    QCOMPARE(store.deleteSchedule(outsider, wanted.id).error().code,
             QStringLiteral("schedule.not_found"));
    QCOMPARE(
        store.setScheduleState(outsider, wanted.id, ScheduleState::Paused, 3, QString(64, u'a'))
            .error()
            .code,
        QStringLiteral("schedule.not_found"));

    // Paused, then resumed at a newer generation and policy.
    const Result<Schedule> paused =
        store.setScheduleState(scope, wanted.id, ScheduleState::Paused, 3, QString(64, u'a'));
    QVERIFY(paused.ok());
    QCOMPARE(paused->state, ScheduleState::Paused);
    const Result<Schedule> resumed =
        store.setScheduleState(scope, wanted.id, ScheduleState::Active, 5, QString(64, u'b'));
    QVERIFY(resumed.ok());
    QCOMPARE(resumed->state, ScheduleState::Active);
    QCOMPARE(resumed->profileGeneration, 5);
    QCOMPARE(resumed->policyVersion, QString(64, u'b'));

    // Occurrences: the last one is kept, with its run and code.
    const QDateTime at = QDateTime::currentDateTimeUtc().addSecs(-60);
    const QUuid run = QUuid::createUuid();
    Result<Schedule> occurred =
        store.recordOccurrence(scope, wanted.id, at, run, QStringLiteral("completed"), QString());
    QVERIFY(occurred.ok());
    QCOMPARE(occurred->lastRun, std::optional<QUuid>(run));
    QCOMPARE(occurred->lastStatus, QStringLiteral("completed"));
    QVERIFY(occurred->lastCode.isEmpty());
    QCOMPARE(occurred->lastOccurrenceAt->toMSecsSinceEpoch(), at.toMSecsSinceEpoch());
    occurred = store.recordOccurrence(scope, wanted.id, at.addSecs(30), std::nullopt,
                                      QStringLiteral("needs_user"),
                                      QStringLiteral("schedule.profile_not_ready"));
    QVERIFY(occurred.ok());
    QVERIFY(!occurred->lastRun);
    QCOMPARE(occurred->lastCode, QStringLiteral("schedule.profile_not_ready"));
    QCOMPARE(store
                 .recordOccurrence(outsider, wanted.id, at, std::nullopt, QStringLiteral("refused"),
                                   QString())
                 .error()
                 .code,
             QStringLiteral("schedule.not_found"));

    // Listed (oldest first); at most 64 kept.
    const Result<QList<Schedule>> listed = store.schedules(scope);
    QVERIFY(listed.ok());
    QCOMPARE(listed->size(), 1);
    for (int i = 1; i < Schedule::kMaxSchedules; ++i)
        QVERIFY(store.createSchedule(scope, sample()).ok());
    QCOMPARE(store.createSchedule(scope, sample()).error().code,
             QStringLiteral("schedule.too_many"));
    QCOMPARE(store.schedules(scope)->size(), Schedule::kMaxSchedules);
    const Result<QList<Schedule>> all = store.schedules(scope);
    QVERIFY(std::any_of(all->cbegin(), all->cend(),
                        [&wanted](const Schedule &kept) { return kept.id == wanted.id; }));

    // Deleted: gone.
    QVERIFY(store.deleteSchedule(scope, wanted.id).ok());
    QCOMPARE(store.schedule(scope, wanted.id).error().code, QStringLiteral("schedule.not_found"));
    QCOMPARE(store.deleteSchedule(scope, wanted.id).error().code,
             QStringLiteral("schedule.not_found"));
}

} // namespace ScheduleChecks
