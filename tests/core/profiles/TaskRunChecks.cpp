#include "TaskRunChecks.h"

#include "domain/Sha256.h"

#include <QTest>

using namespace veetbot;

namespace TaskRunChecks {

void verifyTaskRuns(TaskRunStore &store, ActivityTimeline &timeline, const ProfileScope &scope,
                    const ProfileScope &outsider)
{
    TaskRunRecord run;
    run.id = QUuid::createUuid();
    run.profileId = QUuid::createUuid();
    run.taskDigest = Sha256::hex("Buy the kettle.");
    run.model = QStringLiteral("qwen2.5:7b");
    QVERIFY(store.createTaskRun(scope, run).ok());

    // Nothing that is not storable: a task instead of its digest, a count past a ceiling.
    TaskRunRecord bad = run;
    bad.id = QUuid::createUuid();
    bad.taskDigest = QStringLiteral("Buy the kettle.");
    QCOMPARE(store.createTaskRun(scope, bad).error().code, QStringLiteral("profile.invalid"));
    bad.taskDigest = run.taskDigest;
    bad.usage.modelCalls = RunCeilings::kModelCalls + 1;
    QCOMPARE(store.createTaskRun(scope, bad).error().code, QStringLiteral("profile.invalid"));

    const Result<TaskRunRecord> read = store.taskRun(scope, run.id);
    QVERIFY(read.ok());
    QCOMPARE(read->status, RunStatus::Running);
    QCOMPARE(read->outcome, RunOutcome::None);
    QCOMPARE(read->taskDigest, run.taskDigest);
    QVERIFY(!read->endedAt);
    QCOMPARE(store.taskRun(outsider, run.id).error().code, QStringLiteral("run.not_found"));

    const Result<int> first = store.beginTaskRunAttempt(scope, run.id, QUuid::createUuid(), 4242);
    QVERIFY(first.ok());
    QCOMPARE(*first, 1);
    RunUsage usage;
    usage.steps = 5;
    usage.modelCalls = 3;
    usage.toolCalls = 4;
    usage.staleRecoveries = 1;
    usage.acts = 2;
    usage.promptTokens = 9000;
    usage.completionTokens = 300;
    usage.costMicroUsd = 12345;
    QVERIFY(store.saveTaskRunProgress(scope, run.id, usage, RunOutcome::Verified).ok());
    QCOMPARE(store.saveTaskRunProgress(outsider, run.id, usage, RunOutcome::Verified).error().code,
             QStringLiteral("run.not_found"));
    QCOMPARE(store.taskRun(scope, run.id)->usage, usage);

    // A second attempt (the first process died): the first ends interrupted.
    const Result<int> second = store.beginTaskRunAttempt(scope, run.id, QUuid::createUuid(), 4343);
    QVERIFY(second.ok());
    QCOMPARE(*second, 2);
    Result<QList<TaskRunAttempt>> attempts = store.taskRunAttempts(scope, run.id);
    QVERIFY(attempts.ok());
    QCOMPARE(attempts->size(), 2);
    QCOMPARE(attempts->at(0).endStatus, QStringLiteral("interrupted"));
    QVERIFY(!attempts->at(1).endedAt);

    usage.modelCalls = 4;
    const Result<TaskRunRecord> ended =
        store.endTaskRun(scope, run.id, RunStatus::BudgetExhausted, RunOutcome::OutcomeUnknown,
                         QStringLiteral("run.cost_limit"), usage);
    QVERIFY(ended.ok());
    QCOMPARE(ended->status, RunStatus::BudgetExhausted);
    QCOMPARE(ended->outcome, RunOutcome::OutcomeUnknown);
    QCOMPARE(ended->stopCode, QStringLiteral("run.cost_limit"));
    QVERIFY(ended->endedAt);
    attempts = store.taskRunAttempts(scope, run.id);
    QCOMPARE(attempts->at(1).endStatus, QStringLiteral("budget_exhausted"));
    // Ended: not resumable, not ended twice.
    QCOMPARE(store.beginTaskRunAttempt(scope, run.id, QUuid::createUuid(), 1).error().code,
             QStringLiteral("run.not_resumable"));
    QCOMPARE(store.endTaskRun(scope, run.id, RunStatus::Completed, RunOutcome::Verified, {}, usage)
                 .error()
                 .code,
             QStringLiteral("run.not_resumable"));

    // needs_user is resumable: the run is running again.
    TaskRunRecord waiting = run;
    waiting.id = QUuid::createUuid();
    QVERIFY(store.createTaskRun(scope, waiting).ok());
    QVERIFY(store.beginTaskRunAttempt(scope, waiting.id, QUuid::createUuid(), 7).ok());
    QVERIFY(store
                .endTaskRun(scope, waiting.id, RunStatus::NeedsUser, RunOutcome::None,
                            QStringLiteral("tool.browser.authentication_required"), RunUsage{})
                .ok());
    QCOMPARE(*store.beginTaskRunAttempt(scope, waiting.id, QUuid::createUuid(), 8), 2);
    QCOMPARE(store.taskRun(scope, waiting.id)->status, RunStatus::Running);

    // A sign-in wall: the run waits (needs_user, its attempt still open), goes on exactly once
    // per verified sign-in, and waits at most twice.
    TaskRunRecord walled = run;
    walled.id = QUuid::createUuid();
    QVERIFY(store.createTaskRun(scope, walled).ok());
    QVERIFY(store.beginTaskRunAttempt(scope, walled.id, QUuid::createUuid(), 9).ok());
    RunUsage before;
    before.toolCalls = 2;
    before.steps = 3;
    QCOMPARE(*store.suspendTaskRun(scope, walled.id, before, RunOutcome::ReadOnly), 1);
    Result<TaskRunRecord> shownWalled = store.taskRun(scope, walled.id);
    QCOMPARE(shownWalled->status, RunStatus::NeedsUser);
    QCOMPARE(shownWalled->signInSuspensions, 1);
    QCOMPARE(shownWalled->usage, before);
    QCOMPARE(shownWalled->outcome, RunOutcome::ReadOnly);
    QVERIFY(!store.taskRunAttempts(scope, walled.id)->constLast().endedAt);
    QCOMPARE(store.suspendTaskRun(scope, walled.id, before, RunOutcome::ReadOnly).error().code,
             QStringLiteral("run.not_resumable")); // waiting already
    QVERIFY(store.resumeTaskRun(scope, walled.id).ok());
    QCOMPARE(store.resumeTaskRun(scope, walled.id).error().code,
             QStringLiteral("run.not_resumable")); // once
    QCOMPARE(store.taskRun(scope, walled.id)->status, RunStatus::Running);
    QCOMPARE(*store.suspendTaskRun(scope, walled.id, before, RunOutcome::ReadOnly), 2);
    QVERIFY(store.resumeTaskRun(scope, walled.id).ok());
    QCOMPARE(store.suspendTaskRun(scope, walled.id, before, RunOutcome::ReadOnly).error().code,
             QStringLiteral("run.not_resumable")); // a third wall is not waited for
    QCOMPARE(store.taskRun(scope, walled.id)->status, RunStatus::Running);
    QCOMPARE(store.taskRun(scope, walled.id)->signInSuspensions, 2);
    // A waiting run can be ended (the owner stopped it), and is then not resumed.
    QCOMPARE(*store.suspendTaskRun(scope, waiting.id, RunUsage{}, RunOutcome::None), 1);
    QCOMPARE(store
                 .endTaskRun(scope, waiting.id, RunStatus::Cancelled, RunOutcome::None,
                             QStringLiteral("run.cancelled"), RunUsage{})
                 ->status,
             RunStatus::Cancelled);
    QCOMPARE(store.resumeTaskRun(scope, waiting.id).error().code,
             QStringLiteral("run.not_resumable"));

    // The timeline knows task runs, their model calls and why they stopped.
    ActivityRun activity;
    activity.id = run.id;
    activity.kind = QStringLiteral("task");
    activity.startedAt = QDateTime::currentDateTimeUtc();
    QVERIFY(timeline.startRun(scope, activity).ok());
    ActivityEvent modelCall;
    modelCall.kind = QStringLiteral("model.call");
    modelCall.outcome = QStringLiteral("failed");
    modelCall.code = QStringLiteral("model.unavailable");
    modelCall.elapsedMs = 12;
    QVERIFY(timeline.appendEvent(scope, run.id, modelCall).ok());
    QCOMPARE(timeline.endRun(scope, run.id, QStringLiteral("budget_exhausted"))->endReason,
             QStringLiteral("budget_exhausted"));
    const auto shown = timeline.runWithEvents(scope, run.id);
    QVERIFY(shown.ok());
    QCOMPARE(shown->first.kind, QStringLiteral("task"));
    QCOMPARE(shown->second.size(), 1);
    QCOMPARE(shown->second.first().kind, QStringLiteral("model.call"));
    QCOMPARE(shown->second.first().code, QStringLiteral("model.unavailable"));
    // ... and the sign-in interruptions.
    ActivityRun walledActivity = activity;
    walledActivity.id = walled.id;
    QVERIFY(timeline.startRun(scope, walledActivity).ok());
    for (const QString &kind :
         {QStringLiteral("sign_in.required"), QStringLiteral("sign_in.resumed")}) {
        ActivityEvent signIn;
        signIn.kind = kind;
        signIn.tool = QStringLiteral("browser.navigate");
        signIn.code = QStringLiteral("tool.browser.needs_user");
        signIn.origin = QStringLiteral("https://shop.test");
        QVERIFY2(timeline.appendEvent(scope, walled.id, signIn).ok(), qPrintable(kind));
    }
}

} // namespace TaskRunChecks
