#pragma once

#include "storage/SqlDatabase.h"

#include <QList>

namespace veetbot {

// The versioned, additive schema of the profile metadata store, as embedded SQL for each
// dialect. A migration is never edited once released; changes append a new version.
// The tables have deliberately no material, cookie, token, storage-state, credential,
// capability, header or encrypted-blob column.
//  1: browser_profiles and browser_profile_origins.
//  2: browser_profiles.last_verified_at, and browser_authentication_ceremonies (the sign-in
//     records, deleted with their profile).
//  3: the owner's task scopes: browser_task_scope_policies (revision per tenant and
//     principal), browser_task_scopes (at most sixteen unique entries) and
//     browser_policy_audit (one browser.task_scopes.updated record per change).
//  4: task grants: browser_task_grants (fixed limits held by constraints, one unended grant
//     per session) and browser_task_grant_audit (created, authorized, ended).
//  5: standing grants: browser_standing_grants (bounded by CHECK constraints, deleted with
//     their profile) and browser_grant_audit (one created and one revoked record at most).
//  6: the activity timeline: activity_runs (kept) and activity_events (seven days).
//  7: task runs: task_runs (status, outcome, counters within the run ceilings, the task's
//     digest only) and task_run_attempts; the timeline's kind "task", its end reasons and
//     "model.call" events.
//  8: sign-in interruptions: task_runs.sign_in_suspensions (at most two) and the timeline's
//     "sign_in.required" and "sign_in.resumed" events.
//  9: schedules: their pins, task, calendar, state and last occurrence.
namespace ProfileSchema {

using Dialect = SqlDialect;
using Migration = SqlMigration;

// The component name recorded in schema_version.
inline constexpr char16_t kComponent[] = u"browser_profiles";
// The newest version this program knows.
inline constexpr int kLatestVersion = 11;

// Migrations 1..kLatestVersion in order.
QList<Migration> migrations(Dialect dialect);

} // namespace ProfileSchema

} // namespace veetbot
