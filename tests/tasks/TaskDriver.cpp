#include "TaskDriver.h"

#include "tools/Approvers.h"
#include "tools/ModelProjection.h"
#include "tools/ToolRegistry.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

namespace veetbot::tasks {

namespace {

// Bounds on one step's walk; far above what any task needs, low enough to end a runaway.
constexpr int kMaxWindows = 400;
constexpr int kMaxTextReads = 64;

const QString kNavigate = BrowserTools::kNavigate;
const QString kObserve = BrowserTools::kObserve;
const QString kAct = BrowserTools::kAct;

QString actKind(TaskStep::Verb verb)
{
    switch (verb) {
    case TaskStep::Verb::Click:
        return QStringLiteral("click");
    case TaskStep::Verb::Type:
        return QStringLiteral("type");
    case TaskStep::Verb::Select:
        return QStringLiteral("select");
    case TaskStep::Verb::Check:
        return QStringLiteral("check");
    case TaskStep::Verb::Press:
        return QStringLiteral("press");
    case TaskStep::Verb::Scroll:
        return QStringLiteral("scroll");
    default:
        return {};
    }
}

// A word of prose: letters, digits, hyphens and apostrophes.
bool isWordCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('\'');
}

} // namespace

TaskDriver::TaskDriver(Environment environment, int budgetBytes)
    : m_env(std::move(environment)), m_budget(budgetBytes)
{
}

TaskRun TaskDriver::run(const Task &task, int repetition)
{
    m_run = TaskRun{};
    m_run.taskId = task.id;
    m_run.budget = m_budget;
    m_run.repetition = repetition;
    m_view = {};
    m_stale = true;
    m_variables.clear();
    QElapsedTimer clock;
    clock.start();
    for (m_stepIndex = 0; m_stepIndex < task.steps.size(); ++m_stepIndex) {
        if (!runStep(task, task.steps.at(m_stepIndex)))
            break;
    }
    m_run.passed = m_run.failure == TaskRun::Failure::None;
    m_run.durationMs = clock.elapsed();
    return m_run;
}

bool TaskDriver::runStep(const Task &task, const TaskStep &step)
{
    switch (step.verb) {
    case TaskStep::Verb::Navigate:
        return navigate(task, step);
    case TaskStep::Verb::Click:
    case TaskStep::Verb::Type:
    case TaskStep::Verb::Select:
    case TaskStep::Verb::Check:
    case TaskStep::Verb::Press:
    case TaskStep::Verb::Scroll:
        return act(step);
    case TaskStep::Verb::WaitFor:
        return waitFor(step);
    case TaskStep::Verb::Absent:
        return absent(step);
    case TaskStep::Verb::See:
        return find(step.control).has_value();
    case TaskStep::Verb::Extract:
        return extract(step);
    case TaskStep::Verb::Table:
        return table(step);
    case TaskStep::Verb::Read:
        return read(step);
    }
    return fail(TaskRun::Failure::UnexpectedResult);
}

bool TaskDriver::navigate(const Task &task, const TaskStep &step)
{
    const QUrl url = m_env.url(task.pathPrefix() + step.page);
    const std::optional<Answer> answer =
        call(kNavigate, QJsonObject{{QStringLiteral("url"), url.toString(QUrl::FullyEncoded)}});
    if (!answer)
        return false;
    if (!step.expect.isEmpty()) {
        if (answer->ok || answer->code != step.expect)
            return fail(TaskRun::Failure::UnexpectedResult, answer->code);
        m_stale = true; // the page stayed: look again before acting
        return true;
    }
    return accept(answer);
}

bool TaskDriver::act(const TaskStep &step)
{
    const std::optional<Found> target = find(step.control);
    if (!target)
        return false;
    QJsonObject arguments{{QStringLiteral("kind"), actKind(step.verb)},
                          {QStringLiteral("expected_revision"), target->revision},
                          {QStringLiteral("ref"), target->ref}};
    switch (step.verb) {
    case TaskStep::Verb::Type:
        arguments.insert(QStringLiteral("text"), substitute(step.text));
        break;
    case TaskStep::Verb::Select:
        arguments.insert(QStringLiteral("option"), substitute(step.text));
        break;
    case TaskStep::Verb::Check:
        arguments.insert(QStringLiteral("checked"), step.checked);
        break;
    case TaskStep::Verb::Press:
        arguments.insert(QStringLiteral("key"), step.text);
        break;
    case TaskStep::Verb::Scroll:
        arguments.insert(QStringLiteral("delta"), step.delta);
        break;
    default:
        break;
    }
    const std::optional<Answer> answer = call(kAct, arguments, step.duringApproval);
    if (!answer)
        return false;
    if (!step.expect.isEmpty()) {
        if (answer->ok || answer->code != step.expect)
            return fail(TaskRun::Failure::UnexpectedResult, answer->code);
        m_stale = true; // refused: the page may have moved on; observe before the next act
        return true;
    }
    return accept(answer);
}

bool TaskDriver::waitFor(const TaskStep &step)
{
    QJsonObject predicate{{QStringLiteral("role"), step.control.role},
                          {QStringLiteral("name"), substitute(step.control.name)},
                          {QStringLiteral("timeout_ms"), step.timeoutMs}};
    if (step.control.disabled)
        predicate.insert(QStringLiteral("disabled"), *step.control.disabled);
    if (step.control.checked)
        predicate.insert(QStringLiteral("checked"), *step.control.checked);
    if (!observe(QJsonObject{{QStringLiteral("wait_for"), predicate}}))
        return false;
    const QString status = m_view.value(QStringLiteral("wait_for"))
                               .toObject()
                               .value(QStringLiteral("status"))
                               .toString();
    if (status != QLatin1String("satisfied"))
        return fail(TaskRun::Failure::WaitNotSatisfied);
    return true;
}

bool TaskDriver::absent(const TaskStep &step)
{
    const QString name = substitute(step.control.name);
    if (!observe(QJsonObject{}))
        return false;
    for (int windows = 0; windows < kMaxWindows; ++windows) {
        for (const QJsonValue &value : m_view.value(QStringLiteral("elements")).toArray()) {
            const QJsonObject element = value.toObject();
            if (element.value(QStringLiteral("role")).toString() == step.control.role &&
                element.value(QStringLiteral("name")).toString() == name)
                return fail(TaskRun::Failure::ControlPresent);
        }
        const QJsonValue next = m_view.value(QStringLiteral("next_observe"));
        if (!next.isObject())
            return true; // every window from the first was read
        if (!observe(next.toObject()))
            return false;
    }
    return fail(TaskRun::Failure::ControlPresent); // never reached the end: not proven absent
}

bool TaskDriver::extract(const TaskStep &step)
{
    if (m_stale && !observe(QJsonObject{}))
        return false;
    QJsonObject request = step.extract;
    request.insert(QStringLiteral("revision"), m_view.value(QStringLiteral("revision")));
    if (!request.contains(QStringLiteral("limit")))
        request.insert(QStringLiteral("limit"), 50);
    if (!observe(QJsonObject{{QStringLiteral("extract"), request}}))
        return false;
    const QJsonObject extraction = m_view.value(QStringLiteral("extraction")).toObject();
    if (!extraction.value(QStringLiteral("found")).toBool())
        return fail(TaskRun::Failure::PickFailed);
    QHash<QString, qsizetype> columns;
    const QJsonArray columnList = extraction.value(QStringLiteral("columns")).toArray();
    for (qsizetype i = 0; i < columnList.size(); ++i)
        columns.insert(columnList.at(i).toObject().value(QStringLiteral("name")).toString(), i);
    if (!columns.contains(step.take))
        return fail(TaskRun::Failure::PickFailed);
    int matches = 0;
    QJsonValue kept;
    for (const QJsonValue &row : extraction.value(QStringLiteral("rows")).toArray()) {
        const QJsonArray cells = row.toObject().value(QStringLiteral("cells")).toArray();
        bool all = true;
        for (auto it = step.where.begin(); it != step.where.end() && all; ++it) {
            if (!columns.contains(it.key()))
                return fail(TaskRun::Failure::PickFailed);
            const QJsonObject cell = cells.at(columns.value(it.key())).toObject();
            all = cell.value(QStringLiteral("status")) == QLatin1String("ok") &&
                  cell.value(QStringLiteral("value")) == it.value();
        }
        if (!all)
            continue;
        ++matches;
        kept = cells.at(columns.value(step.take)).toObject().value(QStringLiteral("value"));
    }
    // Exactly one row of the rows shown; one hidden by the budget could have matched too.
    if (matches != 1 || extraction.contains(QStringLiteral("omitted_rows")))
        return fail(TaskRun::Failure::PickFailed);
    if (kept.isString())
        m_variables.insert(step.as, kept.toString());
    else if (kept.isDouble())
        m_variables.insert(step.as, QString::number(kept.toDouble(), 'g', 17));
    else
        return fail(TaskRun::Failure::PickFailed);
    return true;
}

std::optional<QString> TaskDriver::readAll(const RegionSpec &region)
{
    if (!focus(region))
        return std::nullopt;
    QString text;
    for (int reads = 0; reads < kMaxTextReads; ++reads) {
        text += m_view.value(QStringLiteral("text")).toString();
        const QJsonValue next = m_view.value(QStringLiteral("next_text"));
        if (!next.isObject())
            return text;
        if (!observe(next.toObject()))
            return std::nullopt;
    }
    fail(TaskRun::Failure::ReadFailed);
    return std::nullopt;
}

// A table as readable text: rows on lines, cells separated by tabs, the header row first.
bool TaskDriver::table(const TaskStep &step)
{
    const std::optional<QString> text = readAll(step.region);
    if (!text)
        return false;
    const QStringList lines = text->split(QLatin1Char('\n'));
    QHash<QString, qsizetype> columns;
    qsizetype line = 0;
    for (; line < lines.size() && columns.isEmpty(); ++line) {
        const QStringList cells = lines.at(line).split(QLatin1Char('\t'));
        bool header = cells.contains(step.take);
        for (auto it = step.where.begin(); it != step.where.end() && header; ++it)
            header = cells.contains(it.key());
        if (!header)
            continue;
        for (qsizetype i = 0; i < cells.size(); ++i)
            columns.insert(cells.at(i), i);
    }
    if (columns.isEmpty())
        return fail(TaskRun::Failure::PickFailed);
    int matches = 0;
    QString kept;
    for (; line < lines.size(); ++line) {
        const QStringList cells = lines.at(line).split(QLatin1Char('\t'));
        bool all = true;
        for (auto it = step.where.begin(); it != step.where.end() && all; ++it)
            all = cells.value(columns.value(it.key())) == it.value().toString();
        if (!all)
            continue;
        ++matches;
        kept = cells.value(columns.value(step.take));
    }
    if (matches != 1 || kept.isEmpty())
        return fail(TaskRun::Failure::PickFailed);
    m_variables.insert(step.as, kept);
    return true;
}

bool TaskDriver::read(const TaskStep &step)
{
    if (!focus(step.region))
        return false;
    QString text;
    for (int reads = 0; reads < kMaxTextReads; ++reads) {
        text += m_view.value(QStringLiteral("text")).toString();
        const QJsonValue next = m_view.value(QStringLiteral("next_text"));
        const qsizetype marker = text.indexOf(step.after);
        if (marker >= 0) {
            qsizetype end = marker + step.after.size();
            while (end < text.size() && isWordCharacter(text.at(end)))
                ++end;
            const QString word =
                text.mid(marker + step.after.size(), end - marker - step.after.size());
            // The word is whole once something follows it, or nothing more can be read.
            if (!word.isEmpty() && (end < text.size() || !next.isObject())) {
                m_variables.insert(step.as, word);
                return true;
            }
        }
        if (!next.isObject())
            break;
        if (!observe(next.toObject()))
            return false;
    }
    return fail(TaskRun::Failure::ReadFailed);
}

std::optional<TaskDriver::Found> TaskDriver::find(const ControlSpec &spec)
{
    if (spec.in) {
        if (!focus(*spec.in))
            return std::nullopt;
    } else if (m_stale && !observe(QJsonObject{})) {
        return std::nullopt;
    }
    const QString name = substitute(spec.name);
    bool fromFirst = isFirstWindow(m_view);
    for (int windows = 0; windows < kMaxWindows; ++windows) {
        for (const QJsonValue &value : m_view.value(QStringLiteral("elements")).toArray()) {
            const QJsonObject element = value.toObject();
            if (element.value(QStringLiteral("role")).toString() != spec.role ||
                element.value(QStringLiteral("name")).toString() != name ||
                element.value(QStringLiteral("name_truncated")).toBool())
                continue;
            // Compact state: members at their defaults are left out.
            const QJsonObject state = element.value(QStringLiteral("state")).toObject();
            if (spec.disabled &&
                state.value(QStringLiteral("disabled")).toBool() != *spec.disabled) {
                fail(TaskRun::Failure::StateMismatch);
                return std::nullopt;
            }
            if (spec.checked &&
                (!state.value(QStringLiteral("checked")).isBool() ||
                 state.value(QStringLiteral("checked")).toBool() != *spec.checked)) {
                fail(TaskRun::Failure::StateMismatch);
                return std::nullopt;
            }
            return Found{element.value(QStringLiteral("ref")).toString(),
                         m_view.value(QStringLiteral("revision")).toString()};
        }
        const QJsonValue next = m_view.value(QStringLiteral("next_observe"));
        if (next.isObject()) {
            if (!observe(next.toObject()))
                return std::nullopt;
            continue;
        }
        if (fromFirst)
            break;
        // The walk began part-way (a focused read, a later window): start again at the top.
        if (spec.in ? !focus(*spec.in) : !observe(QJsonObject{}))
            return std::nullopt;
        fromFirst = true;
    }
    fail(TaskRun::Failure::ControlNotFound);
    return std::nullopt;
}

bool TaskDriver::focus(const RegionSpec &spec)
{
    const auto regionRef = [this, &spec]() -> QString {
        for (const QJsonValue &value : m_view.value(QStringLiteral("regions")).toArray()) {
            const QJsonObject region = value.toObject();
            if (region.value(QStringLiteral("kind")).toString() == spec.kind &&
                (spec.name.isEmpty() ||
                 region.value(QStringLiteral("name")).toString() == spec.name))
                return region.value(QStringLiteral("ref")).toString();
        }
        return {};
    };
    QString ref = m_stale ? QString() : regionRef();
    if (ref.isEmpty()) {
        if (!observe(QJsonObject{}))
            return false;
        ref = regionRef();
    }
    if (ref.isEmpty())
        return fail(TaskRun::Failure::RegionNotFound);
    return observe(QJsonObject{
        {QStringLiteral("region_ref"), ref},
        {QStringLiteral("expected_revision"), m_view.value(QStringLiteral("revision"))}});
}

bool TaskDriver::observe(const QJsonObject &arguments)
{
    return accept(call(kObserve, arguments));
}

std::optional<TaskDriver::Answer>
TaskDriver::call(const QString &tool, const QJsonObject &arguments, const QString &duringApproval)
{
    if (tool == kNavigate)
        ++m_run.navigateCalls;
    else if (tool == kObserve)
        ++m_run.observeCalls;
    else
        ++m_run.actCalls;
    // Shared: a late answer after a timeout must not touch a dead stack frame.
    auto outcome = std::make_shared<std::optional<ToolPipeline::Outcome>>();
    m_env.pipeline->call(tool, arguments,
                         [outcome](ToolPipeline::Outcome o) { *outcome = std::move(o); });
    QElapsedTimer clock;
    clock.start();
    bool asked = false;
    std::optional<TaskRun::Failure> approvalFailure;
    for (;;) {
        const qint64 left = m_env.callTimeoutMs - clock.elapsed();
        const bool ready =
            left > 0 &&
            runEventsUntil(
                [&] { return outcome->has_value() || m_env.approver->pendingCount() > 0; },
                int(left));
        if (!ready) {
            fail(TaskRun::Failure::Timeout);
            return std::nullopt;
        }
        if (outcome->has_value())
            break;
        // The owner is asked. Only an act asks, and only once.
        if (tool != kAct || asked) {
            approvalFailure = TaskRun::Failure::UnexpectedApproval;
            m_env.approver->answerPending(ApprovalAnswer::Declined);
            continue;
        }
        asked = true;
        if (!duringApproval.isEmpty() && !(m_env.siteChange && m_env.siteChange(duringApproval))) {
            approvalFailure = TaskRun::Failure::SiteChangeFailed;
            m_env.approver->answerPending(ApprovalAnswer::Declined);
            continue;
        }
        m_env.approver->answerPending(ApprovalAnswer::Approved);
    }
    if (approvalFailure) {
        fail(*approvalFailure);
        return std::nullopt;
    }
    const Result<BrowserObservation> &result = (*outcome)->result;
    if (!result)
        return Answer{false, result.error().code, {}};
    // From here on only the bytes a model would receive.
    const QByteArray bytes = ModelProjection::project(*result, m_budget);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    const QJsonObject view = document.object().value(QStringLiteral("observation")).toObject();
    if (bytes.size() > m_budget || error.error != QJsonParseError::NoError ||
        view.contains(QStringLiteral("omitted")) ||
        !view.value(QStringLiteral("revision")).isString()) {
        fail(TaskRun::Failure::ProjectionInvalid);
        return std::nullopt;
    }
    return Answer{true, {}, view};
}

bool TaskDriver::accept(const std::optional<Answer> &answer)
{
    if (!answer)
        return false;
    if (!answer->ok)
        return fail(TaskRun::Failure::UnexpectedResult, answer->code);
    m_view = answer->view;
    m_stale = false;
    return true;
}

bool TaskDriver::fail(TaskRun::Failure failure, const QString &code)
{
    if (m_run.failure == TaskRun::Failure::None) {
        m_run.failure = failure;
        m_run.failedStep = m_stepIndex;
        m_run.code = code;
    }
    return false;
}

QString TaskDriver::substitute(const QString &text) const
{
    QString out = text;
    for (auto it = m_variables.begin(); it != m_variables.end(); ++it)
        out.replace(QStringLiteral("${") + it.key() + QLatin1Char('}'), it.value());
    return out;
}

bool TaskDriver::isFirstWindow(const QJsonObject &view)
{
    return !view.contains(QStringLiteral("focus")) &&
           view.value(QStringLiteral("coverage"))
                   .toObject()
                   .value(QStringLiteral("candidate_offset"))
                   .toInt(-1) == 0;
}

} // namespace veetbot::tasks
