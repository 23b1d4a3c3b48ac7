#include "ActivityTimelineChecks.h"

#include "domain/profile/BrowserProfile.h"

#include <QTest>

using namespace veetbot;

namespace ActivityTimelineChecks {

namespace {

ActivityRun newRun(const QDateTime &at)
{
    ActivityRun run;
    run.id = BrowserProfile::newId();
    run.kind = QStringLiteral("mcp");
    run.profileId = BrowserProfile::newId();
    run.website = QStringLiteral("https://www.acme-shop.com");
    run.startedAt = at;
    return run;
}

ActivityEvent act(const QString &source, const QString &outcome)
{
    ActivityEvent event;
    event.kind = QStringLiteral("tool.call");
    event.tool = QStringLiteral("browser.act");
    event.actionKind = QStringLiteral("click");
    event.targetRole = QStringLiteral("radio button");
    event.approvalSource = source;
    event.outcome = outcome;
    event.elapsedMs = 42;
    event.setPage(QUrl(QStringLiteral("https://www.acme-shop.com/cart/3?q=secret#frag")));
    return event;
}

} // namespace

void verifyTimeline(ActivityTimeline &timeline, const ProfileScope &scope,
                    const ProfileScope &outsider, const std::function<void(qint64)> &advanceSeconds)
{
    const ActivityRun first = newRun(QDateTime::currentDateTimeUtc());
    QVERIFY(timeline.startRun(scope, first).ok());
    QVERIFY(timeline
                .appendEvent(scope, first.id,
                             act(QStringLiteral("owner_approval"), QStringLiteral("succeeded")))
                .ok());
    QVERIFY(
        timeline
            .appendEvent(scope, first.id, act(QStringLiteral("none"), QStringLiteral("refused")))
            .ok());
    ActivityEvent observed;
    observed.kind = QStringLiteral("observation");
    observed.elements = 12;
    observed.regions = 2;
    observed.setPage(QUrl(QStringLiteral("https://www.acme-shop.com/")));
    QVERIFY(timeline.appendEvent(scope, first.id, observed).ok());

    // Not content-free: refused, and nothing of it stored.
    ActivityEvent leaky = act(QStringLiteral("task_grant"), QStringLiteral("succeeded"));
    leaky.code = QStringLiteral("Delete my account");
    QVERIFY(!timeline.appendEvent(scope, first.id, leaky).ok());
    leaky = act(QStringLiteral("task_grant"), QStringLiteral("succeeded"));
    leaky.origin = QStringLiteral("https://www.acme-shop.com/cart?q=secret");
    QVERIFY(!timeline.appendEvent(scope, first.id, leaky).ok());
    // An unknown run, or another owner's, is run.not_found.
    QCOMPARE(timeline.appendEvent(scope, BrowserProfile::newId(), observed).error(),
             activityRunNotFound());
    QCOMPARE(timeline.appendEvent(outsider, first.id, observed).error(), activityRunNotFound());

    auto shown = timeline.runWithEvents(scope, first.id);
    QVERIFY(shown.ok());
    QCOMPARE(shown->first.toolCalls, 2);
    QCOMPARE(shown->first.acts, 2);
    // The last act that ran: a refused one changes nothing.
    QCOMPARE(shown->first.lastApprovalSource, QStringLiteral("owner_approval"));
    QVERIFY(shown->first.isRunning());
    QCOMPARE(shown->second.size(), 3);
    const ActivityEvent &stored = shown->second.first();
    QCOMPARE(stored.origin, QStringLiteral("https://www.acme-shop.com"));
    QCOMPARE(stored.pathSegment, QStringLiteral("cart"));
    QCOMPARE(stored.targetRole, QStringLiteral("radio button"));
    QCOMPARE(stored.elapsedMs, qint64(42));
    QCOMPARE(shown->second.at(2).elements, 12);
    QCOMPARE(shown->second.at(2).pathSegment, QString());

    // Ends once; a second end answers it unchanged; an ended run takes no event.
    advanceSeconds(5);
    const Result<ActivityRun> ended =
        timeline.endRun(scope, first.id, QStringLiteral("input_ended"));
    QVERIFY(ended.ok());
    QVERIFY(!ended->isRunning());
    const Result<ActivityRun> again =
        timeline.endRun(scope, first.id, QStringLiteral("interrupted"));
    QVERIFY(again.ok());
    QCOMPARE(again->endReason, QStringLiteral("input_ended"));
    QCOMPARE(timeline.appendEvent(scope, first.id, observed).error(), activityRunNotFound());
    QVERIFY(!timeline.endRun(scope, first.id, QStringLiteral("because I said so")).ok());

    // Newest first; another owner sees none of them.
    advanceSeconds(60);
    const ActivityRun second = newRun(QDateTime::currentDateTimeUtc().addSecs(60));
    QVERIFY(timeline.startRun(scope, second).ok());
    const Result<QList<ActivityRun>> listed = timeline.runs(scope, 10);
    QVERIFY(listed.ok());
    QCOMPARE(listed->size(), 2);
    QCOMPARE(listed->first().id, second.id);
    QVERIFY(timeline.runs(outsider, 10)->isEmpty());
    QCOMPARE(timeline.runWithEvents(outsider, first.id).error(), activityRunNotFound());

    // Seven days on, a new run removes the old events; the summaries stay.
    advanceSeconds(8 * 24 * 3600);
    QVERIFY(timeline.startRun(scope, newRun(QDateTime::currentDateTimeUtc().addDays(8))).ok());
    shown = timeline.runWithEvents(scope, first.id);
    QVERIFY(shown.ok());
    QVERIFY(shown->second.isEmpty());
    QCOMPARE(shown->first.acts, 2);
}

} // namespace ActivityTimelineChecks
