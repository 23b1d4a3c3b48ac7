#pragma once

#include "domain/Result.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace veetbot::tasks {

// A region a step reads or acts in: its kind (dialog, main, form, ...) and, optionally, its
// exact name, as the projection's `regions` show them.
struct RegionSpec
{
    QString kind;
    QString name; // empty: any name
};

// A control as the projection shows it: exact role and exact name, optionally a state it must
// be in, optionally inside a region (read through a focused observation).
struct ControlSpec
{
    QString role;
    QString name; // may hold ${variable}
    std::optional<bool> disabled;
    std::optional<bool> checked;
    std::optional<RegionSpec> in;
};

// One step of a task's script. Every step is phrased against what the model projection shows:
// controls by role and name, regions by kind, text by what it says.
struct TaskStep
{
    enum class Verb
    {
        Navigate, // browser.navigate to one of the task's pages
        Click,    // find the control (following continuation), then browser.act
        Type,
        Select,
        Check,
        Press,
        Scroll,
        WaitFor, // browser.observe {wait_for}; must be satisfied
        Absent,  // walk every window from the first: the control is never shown
        See,     // find the control without acting
        Extract, // browser.observe {extract}; pick exactly one row and keep one cell
        Table,   // focus a region, read all its text through next_text, pick one table row
        Read     // focus a region and follow next_text until a marker and the word after it
    };
    // The verb as a manifest writes it ("wait_for").
    static QString verbName(Verb verb);

    Verb verb = Verb::Navigate;
    QString page;        // Navigate: the page name under the task's path
    ControlSpec control; // Click .. Scroll, WaitFor, Absent, See
    QString text;        // Type: text; Select: option; Press: key (may hold ${variable})
    bool checked = false;
    int delta = 0;
    int timeoutMs = 2000;   // WaitFor
    QJsonObject extract;    // Extract: {kind, index, columns, limit?} without the revision
    QJsonObject where;      // Extract: column name -> exact typed value; Table: header -> text
    QString take;           // Extract, Table: the column to keep
    RegionSpec region;      // Table, Read
    QString after;          // Read: the marker the kept word follows
    QString as;             // Extract, Table, Read: the variable the value is kept in
    QString expect;         // Navigate and acts: the refusal code expected; empty = success
    QString duringApproval; // acts: a page function the site runs while the owner decides
};

// What the fixture server must have received during one run of a task: every request with
// this method on this path of the task, in order, with exactly these payloads (the body, or
// for GET the query as sent). An empty list means none.
struct ExpectedEffect
{
    QString method;
    QString path; // relative to the task's path, without query
    QList<QByteArray> payloads;
};

// A fixed answer on the task's path (fetch targets that are not pages).
struct TaskEndpoint
{
    QString path;
    QByteArray body;
    QByteArray contentType = "application/json";
    int delayMs = 0;
};

struct Task
{
    QString id; // [a-z0-9-], 1-64 characters; also the directory of its pages
    QString covers;
    QString summary;
    int actTrialMs = 0; // 0: the provider's default actionability bound
    QList<TaskEndpoint> endpoints;
    QList<TaskStep> steps;
    QList<ExpectedEffect> effects;

    // "/tasks/<id>/": every page and endpoint of the task lives below it.
    QString pathPrefix() const { return QStringLiteral("/tasks/") + id + QLatin1Char('/'); }
};

// The controlled task manifest (tests/tasks/manifest.json, docs/tasks.md). Parsed strictly:
// an unknown key, a missing or mistyped member, a duplicate id or an unknown verb is an error
// naming where it is, so the manifest cannot silently say less than it seems to.
struct TaskManifest
{
    int version = 0;
    QList<int> budgets;
    int repetitions = 0;
    QList<Task> tasks;

    static Result<TaskManifest> fromJson(const QByteArray &json);
    QStringList taskIds() const;
};

} // namespace veetbot::tasks
