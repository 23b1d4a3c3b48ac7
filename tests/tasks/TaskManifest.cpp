#include "TaskManifest.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace veetbot::tasks {

namespace {

// Parse errors name the place in the manifest; the manifest is test input, not site content.
struct Invalid
{
    QString where;
};

Error manifestError(const QString &where)
{
    return Error{QStringLiteral("tasks.manifest_invalid"),
                 QStringLiteral("manifest: invalid at ") + where};
}

void onlyKeys(const QJsonObject &object, const QStringList &allowed, const QString &where)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!allowed.contains(it.key()))
            throw Invalid{where + QLatin1Char('.') + it.key()};
    }
}

QJsonValue member(const QJsonObject &object, const QString &key, const QString &where)
{
    if (!object.contains(key))
        throw Invalid{where + QLatin1Char('.') + key + QStringLiteral(" (missing)")};
    return object.value(key);
}

QString string(const QJsonValue &value, const QString &where, bool allowEmpty = false)
{
    if (!value.isString() || (!allowEmpty && value.toString().isEmpty()))
        throw Invalid{where};
    return value.toString();
}

int integer(const QJsonValue &value, int min, int max, const QString &where)
{
    if (!value.isDouble())
        throw Invalid{where};
    const double d = value.toDouble();
    if (d != double(qint64(d)) || d < min || d > max)
        throw Invalid{where};
    return int(d);
}

QJsonObject object(const QJsonValue &value, const QString &where)
{
    if (!value.isObject())
        throw Invalid{where};
    return value.toObject();
}

QJsonArray array(const QJsonValue &value, const QString &where)
{
    if (!value.isArray())
        throw Invalid{where};
    return value.toArray();
}

// A page or endpoint name under the task's path: no scheme, no query, no "..".
QString relativePath(const QJsonValue &value, const QString &where)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z0-9][a-z0-9_/-]{0,63}$"));
    const QString path = string(value, where);
    if (!pattern.match(path).hasMatch() || path.contains(QStringLiteral("..")))
        throw Invalid{where};
    return path;
}

RegionSpec regionSpec(const QJsonValue &value, const QString &where)
{
    const QJsonObject o = object(value, where);
    onlyKeys(o, {QStringLiteral("kind"), QStringLiteral("name")}, where);
    RegionSpec region;
    region.kind = string(member(o, QStringLiteral("kind"), where), where + QStringLiteral(".kind"));
    if (o.contains(QStringLiteral("name")))
        region.name = string(o.value(QStringLiteral("name")), where + QStringLiteral(".name"));
    return region;
}

ControlSpec controlSpec(const QJsonValue &value, const QString &where)
{
    const QJsonObject o = object(value, where);
    onlyKeys(o,
             {QStringLiteral("role"), QStringLiteral("name"), QStringLiteral("disabled"),
              QStringLiteral("checked"), QStringLiteral("in")},
             where);
    ControlSpec control;
    control.role =
        string(member(o, QStringLiteral("role"), where), where + QStringLiteral(".role"));
    control.name =
        string(member(o, QStringLiteral("name"), where), where + QStringLiteral(".name"));
    for (const auto &[key, target] : {std::pair{QStringLiteral("disabled"), &control.disabled},
                                      std::pair{QStringLiteral("checked"), &control.checked}}) {
        if (!o.contains(key))
            continue;
        if (!o.value(key).isBool())
            throw Invalid{where + QLatin1Char('.') + key};
        *target = o.value(key).toBool();
    }
    if (o.contains(QStringLiteral("in")))
        control.in = regionSpec(o.value(QStringLiteral("in")), where + QStringLiteral(".in"));
    return control;
}

const QList<std::pair<QString, TaskStep::Verb>> &verbs()
{
    static const QList<std::pair<QString, TaskStep::Verb>> list{
        {QStringLiteral("navigate"), TaskStep::Verb::Navigate},
        {QStringLiteral("click"), TaskStep::Verb::Click},
        {QStringLiteral("type"), TaskStep::Verb::Type},
        {QStringLiteral("select"), TaskStep::Verb::Select},
        {QStringLiteral("check"), TaskStep::Verb::Check},
        {QStringLiteral("press"), TaskStep::Verb::Press},
        {QStringLiteral("scroll"), TaskStep::Verb::Scroll},
        {QStringLiteral("wait_for"), TaskStep::Verb::WaitFor},
        {QStringLiteral("absent"), TaskStep::Verb::Absent},
        {QStringLiteral("see"), TaskStep::Verb::See},
        {QStringLiteral("extract"), TaskStep::Verb::Extract},
        {QStringLiteral("table"), TaskStep::Verb::Table},
        {QStringLiteral("read"), TaskStep::Verb::Read},
    };
    return list;
}

// The refusal codes a step may expect: stable wire codes only.
QString expectedCode(const QJsonValue &value, const QString &where)
{
    static const QRegularExpression pattern(QStringLiteral("^tool\\.[a-z_.]{1,64}$"));
    const QString code = string(value, where);
    if (!pattern.match(code).hasMatch())
        throw Invalid{where};
    return code;
}

TaskStep step(const QJsonValue &value, const QString &where)
{
    const QJsonObject o = object(value, where);
    std::optional<std::pair<QString, TaskStep::Verb>> verb;
    for (const auto &candidate : verbs()) {
        if (!o.contains(candidate.first))
            continue;
        if (verb)
            throw Invalid{where + QStringLiteral(" (two verbs)")};
        verb = candidate;
    }
    if (!verb)
        throw Invalid{where + QStringLiteral(" (no verb)")};
    const QString at = where + QLatin1Char('.') + verb->first;
    const QJsonValue subject = o.value(verb->first);
    TaskStep s;
    s.verb = verb->second;
    const auto allow = [&](QStringList keys) {
        keys.prepend(verb->first);
        onlyKeys(o, keys, where);
    };
    const QStringList actKeys{QStringLiteral("expect"), QStringLiteral("during_approval")};
    switch (s.verb) {
    case TaskStep::Verb::Navigate:
        allow({QStringLiteral("expect")});
        s.page = relativePath(subject, at);
        break;
    case TaskStep::Verb::Click:
        allow(actKeys);
        s.control = controlSpec(subject, at);
        break;
    case TaskStep::Verb::Type:
        allow(actKeys + QStringList{QStringLiteral("text")});
        s.control = controlSpec(subject, at);
        s.text =
            string(member(o, QStringLiteral("text"), where), where + QStringLiteral(".text"), true);
        break;
    case TaskStep::Verb::Select:
        allow(actKeys + QStringList{QStringLiteral("option")});
        s.control = controlSpec(subject, at);
        s.text = string(member(o, QStringLiteral("option"), where),
                        where + QStringLiteral(".option"), true);
        break;
    case TaskStep::Verb::Check:
        allow(actKeys + QStringList{QStringLiteral("checked")});
        s.control = controlSpec(subject, at);
        if (!member(o, QStringLiteral("checked"), where).isBool())
            throw Invalid{where + QStringLiteral(".checked")};
        s.checked = o.value(QStringLiteral("checked")).toBool();
        break;
    case TaskStep::Verb::Press:
        allow(actKeys + QStringList{QStringLiteral("key")});
        s.control = controlSpec(subject, at);
        s.text = string(member(o, QStringLiteral("key"), where), where + QStringLiteral(".key"));
        break;
    case TaskStep::Verb::Scroll:
        allow(actKeys + QStringList{QStringLiteral("delta")});
        s.control = controlSpec(subject, at);
        s.delta = integer(member(o, QStringLiteral("delta"), where), -2000, 2000,
                          where + QStringLiteral(".delta"));
        break;
    case TaskStep::Verb::WaitFor:
        allow({QStringLiteral("timeout_ms")});
        s.control = controlSpec(subject, at);
        if (o.contains(QStringLiteral("timeout_ms")))
            s.timeoutMs = integer(o.value(QStringLiteral("timeout_ms")), 0, 5000,
                                  where + QStringLiteral(".timeout_ms"));
        break;
    case TaskStep::Verb::Absent:
    case TaskStep::Verb::See:
        allow({});
        s.control = controlSpec(subject, at);
        break;
    case TaskStep::Verb::Extract: {
        allow({QStringLiteral("where"), QStringLiteral("take"), QStringLiteral("as")});
        s.extract = object(subject, at);
        onlyKeys(s.extract,
                 {QStringLiteral("kind"), QStringLiteral("index"), QStringLiteral("columns"),
                  QStringLiteral("limit")},
                 at);
        s.where =
            object(member(o, QStringLiteral("where"), where), where + QStringLiteral(".where"));
        s.take = string(member(o, QStringLiteral("take"), where), where + QStringLiteral(".take"));
        s.as = string(member(o, QStringLiteral("as"), where), where + QStringLiteral(".as"));
        break;
    }
    case TaskStep::Verb::Table:
        allow({QStringLiteral("where"), QStringLiteral("take"), QStringLiteral("as")});
        s.region = regionSpec(subject, at);
        s.where =
            object(member(o, QStringLiteral("where"), where), where + QStringLiteral(".where"));
        for (auto it = s.where.begin(); it != s.where.end(); ++it)
            string(it.value(), where + QStringLiteral(".where.") + it.key(), true);
        s.take = string(member(o, QStringLiteral("take"), where), where + QStringLiteral(".take"));
        s.as = string(member(o, QStringLiteral("as"), where), where + QStringLiteral(".as"));
        break;
    case TaskStep::Verb::Read:
        allow({QStringLiteral("after"), QStringLiteral("as")});
        s.region = regionSpec(subject, at);
        s.after =
            string(member(o, QStringLiteral("after"), where), where + QStringLiteral(".after"));
        s.as = string(member(o, QStringLiteral("as"), where), where + QStringLiteral(".as"));
        break;
    }
    if (o.contains(QStringLiteral("expect")))
        s.expect =
            expectedCode(o.value(QStringLiteral("expect")), where + QStringLiteral(".expect"));
    if (o.contains(QStringLiteral("during_approval"))) {
        static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,63}$"));
        s.duringApproval = string(o.value(QStringLiteral("during_approval")),
                                  where + QStringLiteral(".during_approval"));
        if (!name.match(s.duringApproval).hasMatch())
            throw Invalid{where + QStringLiteral(".during_approval")};
    }
    return s;
}

ExpectedEffect effect(const QJsonValue &value, const QString &where)
{
    const QJsonObject o = object(value, where);
    onlyKeys(o, {QStringLiteral("method"), QStringLiteral("path"), QStringLiteral("payloads")},
             where);
    static const QStringList methods{QStringLiteral("GET"), QStringLiteral("POST"),
                                     QStringLiteral("PUT"), QStringLiteral("PATCH"),
                                     QStringLiteral("DELETE")};
    ExpectedEffect e;
    e.method =
        string(member(o, QStringLiteral("method"), where), where + QStringLiteral(".method"));
    if (!methods.contains(e.method))
        throw Invalid{where + QStringLiteral(".method")};
    e.path =
        relativePath(member(o, QStringLiteral("path"), where), where + QStringLiteral(".path"));
    const QJsonArray payloads =
        array(member(o, QStringLiteral("payloads"), where), where + QStringLiteral(".payloads"));
    for (qsizetype i = 0; i < payloads.size(); ++i)
        e.payloads.append(
            string(payloads.at(i), where + QStringLiteral(".payloads[%1]").arg(i), true).toUtf8());
    return e;
}

TaskEndpoint endpoint(const QJsonValue &value, const QString &where)
{
    const QJsonObject o = object(value, where);
    onlyKeys(o,
             {QStringLiteral("path"), QStringLiteral("body"), QStringLiteral("content_type"),
              QStringLiteral("delay_ms")},
             where);
    TaskEndpoint e;
    e.path =
        relativePath(member(o, QStringLiteral("path"), where), where + QStringLiteral(".path"));
    e.body = string(member(o, QStringLiteral("body"), where), where + QStringLiteral(".body"), true)
                 .toUtf8();
    if (o.contains(QStringLiteral("content_type")))
        e.contentType =
            string(o.value(QStringLiteral("content_type")), where + QStringLiteral(".content_type"))
                .toUtf8();
    if (o.contains(QStringLiteral("delay_ms")))
        e.delayMs = integer(o.value(QStringLiteral("delay_ms")), 0, 2000,
                            where + QStringLiteral(".delay_ms"));
    return e;
}

Task task(const QJsonValue &value, const QString &where)
{
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]{0,63}$"));
    const QJsonObject o = object(value, where);
    onlyKeys(o,
             {QStringLiteral("id"), QStringLiteral("covers"), QStringLiteral("summary"),
              QStringLiteral("act_trial_ms"), QStringLiteral("endpoints"), QStringLiteral("steps"),
              QStringLiteral("effects")},
             where);
    Task t;
    t.id = string(member(o, QStringLiteral("id"), where), where + QStringLiteral(".id"));
    if (!idPattern.match(t.id).hasMatch())
        throw Invalid{where + QStringLiteral(".id")};
    const QString at = QStringLiteral("task ") + t.id;
    t.covers = string(member(o, QStringLiteral("covers"), where), at + QStringLiteral(".covers"));
    t.summary =
        string(member(o, QStringLiteral("summary"), where), at + QStringLiteral(".summary"));
    if (o.contains(QStringLiteral("act_trial_ms")))
        t.actTrialMs = integer(o.value(QStringLiteral("act_trial_ms")), 500, 5000,
                               at + QStringLiteral(".act_trial_ms"));
    if (o.contains(QStringLiteral("endpoints"))) {
        const QJsonArray endpoints =
            array(o.value(QStringLiteral("endpoints")), at + QStringLiteral(".endpoints"));
        for (qsizetype i = 0; i < endpoints.size(); ++i)
            t.endpoints.append(
                endpoint(endpoints.at(i), at + QStringLiteral(".endpoints[%1]").arg(i)));
    }
    const QJsonArray steps =
        array(member(o, QStringLiteral("steps"), where), at + QStringLiteral(".steps"));
    for (qsizetype i = 0; i < steps.size(); ++i)
        t.steps.append(step(steps.at(i), at + QStringLiteral(".steps[%1]").arg(i)));
    if (t.steps.isEmpty() || t.steps.first().verb != TaskStep::Verb::Navigate)
        throw Invalid{at + QStringLiteral(".steps (must start with navigate)")};
    const QJsonArray effects =
        array(member(o, QStringLiteral("effects"), where), at + QStringLiteral(".effects"));
    QSet<QString> seen;
    for (qsizetype i = 0; i < effects.size(); ++i) {
        t.effects.append(effect(effects.at(i), at + QStringLiteral(".effects[%1]").arg(i)));
        const QString key = t.effects.last().method + QLatin1Char(' ') + t.effects.last().path;
        if (seen.contains(key))
            throw Invalid{at + QStringLiteral(".effects[%1] (duplicate)").arg(i)};
        seen.insert(key);
    }
    if (t.effects.isEmpty())
        throw Invalid{at + QStringLiteral(".effects (empty)")};
    return t;
}

} // namespace

QString TaskStep::verbName(Verb verb)
{
    for (const auto &[name, known] : verbs()) {
        if (known == verb)
            return name;
    }
    return QString();
}

Result<TaskManifest> TaskManifest::fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return manifestError(QStringLiteral("top level (not a JSON object)"));
    try {
        const QJsonObject o = document.object();
        const QString top = QStringLiteral("manifest");
        onlyKeys(o,
                 {QStringLiteral("version"), QStringLiteral("budgets"),
                  QStringLiteral("repetitions"), QStringLiteral("tasks")},
                 top);
        TaskManifest manifest;
        manifest.version =
            integer(member(o, QStringLiteral("version"), top), 1, 1, QStringLiteral("version"));
        const QJsonArray budgets =
            array(member(o, QStringLiteral("budgets"), top), QStringLiteral("budgets"));
        for (qsizetype i = 0; i < budgets.size(); ++i) {
            const int budget =
                integer(budgets.at(i), 256, 1 << 20, QStringLiteral("budgets[%1]").arg(i));
            if (manifest.budgets.contains(budget))
                throw Invalid{QStringLiteral("budgets[%1] (duplicate)").arg(i)};
            manifest.budgets.append(budget);
        }
        if (manifest.budgets.isEmpty())
            throw Invalid{QStringLiteral("budgets (empty)")};
        manifest.repetitions = integer(member(o, QStringLiteral("repetitions"), top), 1, 100,
                                       QStringLiteral("repetitions"));
        const QJsonArray tasks =
            array(member(o, QStringLiteral("tasks"), top), QStringLiteral("tasks"));
        QSet<QString> ids;
        for (qsizetype i = 0; i < tasks.size(); ++i) {
            manifest.tasks.append(task(tasks.at(i), QStringLiteral("tasks[%1]").arg(i)));
            if (ids.contains(manifest.tasks.last().id))
                throw Invalid{QStringLiteral("tasks[%1].id (duplicate)").arg(i)};
            ids.insert(manifest.tasks.last().id);
        }
        if (manifest.tasks.isEmpty())
            throw Invalid{QStringLiteral("tasks (empty)")};
        return manifest;
    } catch (const Invalid &invalid) {
        return manifestError(invalid.where);
    }
}

QStringList TaskManifest::taskIds() const
{
    QStringList ids;
    for (const Task &t : tasks)
        ids.append(t.id);
    return ids;
}

} // namespace veetbot::tasks
