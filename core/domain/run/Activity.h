#pragma once

#include "domain/Result.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QUrl>
#include <QUuid>

#include <optional>

namespace veetbot {

// The owner's activity timeline (docs/timeline.md): what agents did, as durable, content-free
// records. A record never holds page text, typed text, a value, a query or a full URL: only
// closed words, counts, stable codes, an origin and at most a first path segment that is
// plain (letters, digits and "-._~", at most 64 characters).

// One agent session: a `veetbot mcp` process, or a task run (`veetbot run`, its id the task
// run's).
struct ActivityRun
{
    QUuid id;
    QString kind;    // "mcp", "task"
    QUuid profileId; // null: no profile (an anonymous browser)
    QString website; // the profile's first origin, or empty
    QDateTime startedAt;
    std::optional<QDateTime> endedAt;
    // closed: "input_ended", "interrupted" (ended without saying); a task run's final status:
    // "completed", "failed", "refused", "budget_exhausted", "cancelled", "needs_user".
    QString endReason;
    int toolCalls = 0;
    int acts = 0;
    QString lastApprovalSource; // of the last act that ran: see ActivityEvent::approvalSource

    bool isRunning() const { return !endedAt.has_value(); }
};

// One event of a run.
struct ActivityEvent
{
    // "tool.call", "observation", "task_grant.created", "task_grant.used", "model.call" (a
    // task run's chat completion: its outcome, code and time), "sign_in.required" (a page asked
    // to sign in: the tool and origin, its code tool.browser.needs_user) and "sign_in.resumed"
    // (a verified sign-in let the waiting run go on).
    QString kind;
    QDateTime at;
    QString tool;       // "browser.navigate", "browser.observe", "browser.act"
    QString actionKind; // act: "click", "type", ...
    QString targetRole; // act: the closed role word ("button", "radio button", ...)
    // act: "owner_approval", "task_grant", "standing_grant", "ordinary_interaction",
    // "scroll_permission", or "none" when nothing authorized it.
    QString approvalSource;
    QString outcome; // "succeeded", "refused", "failed", "uncertain", "cancelled"
    QString code;    // the stable error code of a call that did not succeed
    qint64 elapsedMs = -1;
    QString origin;      // "https://host[:port]"
    QString pathSegment; // the first path segment, only when plain
    int elements = -1;   // observation: counts
    int regions = -1;
    QUuid grant;      // task_grant.*
    int ordinal = -1; // task_grant.used

    // The origin and plain first segment of a page URL (nothing else of it is kept).
    void setPage(const QUrl &url);
};

// run.not_found: no such run of this owner.
Error activityRunNotFound();

// Detailed events are kept this long; run summaries are kept.
inline constexpr int kActivityEventDays = 7;

// Whether every text field holds only what the timeline may keep (closed words, a stable
// code, an origin, a plain segment). Stores refuse anything else.
bool isContentFree(const ActivityEvent &event);
bool isContentFree(const ActivityRun &run);

} // namespace veetbot
