#include "TaskReport.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

namespace veetbot::tasks {

EffectCheck checkEffects(const Task &task, const QList<ObservedRequest> &requests)
{
    const QString prefix = task.pathPrefix();
    EffectCheck check;
    QHash<QString, QList<QByteArray>> seen; // "METHOD path" -> payloads in arrival order
    QSet<QString> listed;
    for (const ExpectedEffect &effect : task.effects) {
        listed.insert(effect.method + QLatin1Char(' ') + prefix + effect.path);
        check.expected += int(effect.payloads.size());
    }
    int unlistedWrites = 0;
    for (const ObservedRequest &request : requests) {
        const QString key = request.method + QLatin1Char(' ') + request.path;
        if (listed.contains(key)) {
            seen[key].append(request.method == QLatin1String("GET") ? request.query.toUtf8()
                                                                    : request.body);
        } else if (request.method != QLatin1String("GET") &&
                   request.method != QLatin1String("HEAD")) {
            ++unlistedWrites;
        }
    }
    bool matched = unlistedWrites == 0;
    int observed = unlistedWrites;
    for (const ExpectedEffect &effect : task.effects) {
        const QList<QByteArray> payloads =
            seen.value(effect.method + QLatin1Char(' ') + prefix + effect.path);
        observed += int(payloads.size());
        if (payloads != effect.payloads)
            matched = false;
    }
    check.observed = observed;
    check.matched = matched;
    return check;
}

QString failureName(TaskRun::Failure failure)
{
    switch (failure) {
    case TaskRun::Failure::None:
        return QStringLiteral("none");
    case TaskRun::Failure::ControlNotFound:
        return QStringLiteral("control_not_found");
    case TaskRun::Failure::ControlPresent:
        return QStringLiteral("control_present");
    case TaskRun::Failure::StateMismatch:
        return QStringLiteral("state_mismatch");
    case TaskRun::Failure::RegionNotFound:
        return QStringLiteral("region_not_found");
    case TaskRun::Failure::UnexpectedResult:
        return QStringLiteral("unexpected_result");
    case TaskRun::Failure::WaitNotSatisfied:
        return QStringLiteral("wait_not_satisfied");
    case TaskRun::Failure::PickFailed:
        return QStringLiteral("pick_failed");
    case TaskRun::Failure::ReadFailed:
        return QStringLiteral("read_failed");
    case TaskRun::Failure::ProjectionInvalid:
        return QStringLiteral("projection_invalid");
    case TaskRun::Failure::UnexpectedApproval:
        return QStringLiteral("unexpected_approval");
    case TaskRun::Failure::SiteChangeFailed:
        return QStringLiteral("site_change_failed");
    case TaskRun::Failure::Timeout:
        return QStringLiteral("timeout");
    case TaskRun::Failure::EffectMismatch:
        return QStringLiteral("effect_mismatch");
    }
    return QStringLiteral("none");
}

bool TaskReport::verified(const TaskManifest &manifest, const QList<TaskRun> &runs)
{
    if (manifest.tasks.isEmpty() || manifest.budgets.isEmpty() || manifest.repetitions < 1)
        return false;
    QHash<QString, int> count; // "id budget repetition" -> runs
    QSet<QString> wanted;
    for (const Task &task : manifest.tasks) {
        for (int budget : manifest.budgets) {
            for (int repetition = 1; repetition <= manifest.repetitions; ++repetition)
                wanted.insert(task.id + QLatin1Char(' ') + QString::number(budget) +
                              QLatin1Char(' ') + QString::number(repetition));
        }
    }
    for (const TaskRun &run : runs) {
        const QString key = run.taskId + QLatin1Char(' ') + QString::number(run.budget) +
                            QLatin1Char(' ') + QString::number(run.repetition);
        if (!wanted.contains(key) || !run.passed || run.failure != TaskRun::Failure::None ||
            !run.effects.matched)
            return false;
        count[key] += 1;
    }
    for (const QString &key : wanted) {
        if (count.value(key) != 1)
            return false;
    }
    return true;
}

QJsonObject TaskReport::toJson(const TaskManifest &manifest, const QList<TaskRun> &runs,
                               qint64 totalDurationMs)
{
    // Only stable wire codes ("tool.browser.page_changed") may name a failure's cause.
    static const QRegularExpression codePattern(
        QStringLiteral("^[a-z_]{1,32}(\\.[a-z_]{1,64}){1,3}$"));
    QJsonArray ids;
    for (const Task &task : manifest.tasks)
        ids.append(task.id);
    QJsonArray budgets;
    for (int budget : manifest.budgets)
        budgets.append(budget);
    QJsonArray records;
    int passed = 0;
    for (const TaskRun &run : runs) {
        QJsonObject record{
            {QStringLiteral("task"), run.taskId},
            {QStringLiteral("budget"), run.budget},
            {QStringLiteral("repetition"), run.repetition},
            {QStringLiteral("outcome"),
             run.passed ? QStringLiteral("passed") : QStringLiteral("failed")},
            {QStringLiteral("operations"),
             QJsonObject{{QStringLiteral("navigate"), run.navigateCalls},
                         {QStringLiteral("observe"), run.observeCalls},
                         {QStringLiteral("act"), run.actCalls}}},
            {QStringLiteral("duration_ms"), double(run.durationMs)},
            {QStringLiteral("effects"),
             QJsonObject{{QStringLiteral("expected"), run.effects.expected},
                         {QStringLiteral("observed"), run.effects.observed},
                         {QStringLiteral("matched"), run.effects.matched}}},
            {QStringLiteral("model_calls"), 0},
        };
        if (!run.passed) {
            record.insert(QStringLiteral("failure"), failureName(run.failure));
            if (run.failedStep >= 0)
                record.insert(QStringLiteral("failed_step"), run.failedStep);
            if (codePattern.match(run.code).hasMatch())
                record.insert(QStringLiteral("code"), run.code);
        }
        if (run.passed)
            ++passed;
        records.append(record);
    }
    return QJsonObject{
        {QStringLiteral("version"), kVersion},
        {QStringLiteral("manifest_version"), manifest.version},
        {QStringLiteral("tasks"), ids},
        {QStringLiteral("budgets"), budgets},
        {QStringLiteral("repetitions"), manifest.repetitions},
        {QStringLiteral("model_calls"), 0},
        {QStringLiteral("runs"), records},
        {QStringLiteral("summary"),
         QJsonObject{{QStringLiteral("runs"), int(runs.size())},
                     {QStringLiteral("passed"), passed},
                     {QStringLiteral("expected_runs"),
                      int(manifest.tasks.size() * manifest.budgets.size()) * manifest.repetitions},
                     {QStringLiteral("duration_ms"), double(totalDurationMs)}}},
        {QStringLiteral("verified"), verified(manifest, runs)},
    };
}

} // namespace veetbot::tasks
