#pragma once

#include "EventWait.h"

#include "TaskManifest.h"
#include "TaskReport.h"
#include "tools/ToolPipeline.h"

#include <QHash>
#include <QJsonObject>
#include <QUrl>

#include <functional>
#include <optional>

namespace veetbot {
class ScriptedApprover;
}

namespace veetbot::tasks {

using testing::runEventsUntil;

// The scripted driver of a controlled task (no model): it calls browser.navigate,
// browser.observe and browser.act through a ToolPipeline, and chooses every reference,
// revision and continuation from the model projection at its budget alone: the bytes a model
// would receive, parsed as JSON. It never reads a canonical observation. Controls are found
// by exact role and name, following `next_observe` window by window; regions by kind from
// `regions`; prose from `text` and `next_text`. Every act is approved by the scripted owner.
class TaskDriver
{
public:
    struct Environment
    {
        ToolPipeline *pipeline = nullptr;
        ScriptedApprover *approver = nullptr;
        // The absolute URL of a task page ("/tasks/<id>/<page>").
        std::function<QUrl(const QString &path)> url;
        // The site runs one of its page functions (steps with during_approval); true once
        // it ran.
        std::function<bool(const QString &function)> siteChange;
        int callTimeoutMs = 40000;
    };

    TaskDriver(Environment environment, int budgetBytes);

    // Runs the task's steps in order and stops at the first that fails. Fills the outcome,
    // the failure, the operation counts and the duration; effects are the caller's to check.
    TaskRun run(const Task &task, int repetition);

private:
    struct Found
    {
        QString ref;
        QString revision;
    };
    // A tool call's answer as the model sees it: the projection's `observation` member, or
    // the failure code.
    struct Answer
    {
        bool ok = false;
        QString code;
        QJsonObject view;
    };

    bool runStep(const Task &task, const TaskStep &step);
    bool navigate(const Task &task, const TaskStep &step);
    bool act(const TaskStep &step);
    bool waitFor(const TaskStep &step);
    bool absent(const TaskStep &step);
    bool extract(const TaskStep &step);
    bool table(const TaskStep &step);
    bool read(const TaskStep &step);
    // The focused region's whole text, following next_text to its end.
    std::optional<QString> readAll(const RegionSpec &region);

    // The control, from the current view on, following continuation; from the first window
    // again when the walk did not start there. Fails the run when it is not found.
    std::optional<Found> find(const ControlSpec &spec);
    // Makes a focused read of the region the current view (or a fresh first window) names.
    bool focus(const RegionSpec &spec);
    // browser.observe with these arguments; the answer becomes the current view.
    bool observe(const QJsonObject &arguments);
    std::optional<Answer> call(const QString &tool, const QJsonObject &arguments,
                               const QString &duringApproval = {});
    bool accept(const std::optional<Answer> &answer);
    bool fail(TaskRun::Failure failure, const QString &code = {});

    QString substitute(const QString &text) const;
    static bool isFirstWindow(const QJsonObject &view);

    Environment m_env;
    int m_budget;
    TaskRun m_run;
    int m_stepIndex = 0;
    QJsonObject m_view;  // the projection of the last successful call
    bool m_stale = true; // a refusal or navigation left m_view behind the page
    QHash<QString, QString> m_variables;
};

} // namespace veetbot::tasks
