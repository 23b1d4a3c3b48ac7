#include "SchedulesCommand.h"

#include "CommandOutput.h"
#include "client/ScheduleControl.h"
#include "client/WebsiteAccess.h"
#include "domain/schedule/CalendarSpec.h"
#include "domain/web/Origin.h"
#include "policy/OwnerPolicy.h"
#include "runs/ModelEndpoint.h"
#include "tools/ModelProjection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTextStream>

namespace veetbot {

namespace {
using namespace CommandOutput;

const QString kCommand = QStringLiteral("schedules");

QString timeText(const std::optional<QDateTime> &time)
{
    return time ? time->toUTC().toString(Qt::ISODate) : QString();
}

QJsonObject scheduleJson(const Schedule &schedule, bool whole)
{
    QJsonObject json{{QStringLiteral("id"), schedule.id.toString(QUuid::WithoutBraces)},
                     {QStringLiteral("profile"), schedule.profileId.toString(QUuid::WithoutBraces)},
                     {QStringLiteral("calendar"), schedule.calendar},
                     {QStringLiteral("state"), scheduleStateString(schedule.state)}};
    if (const auto next = schedule.nextOccurrence(QDateTime::currentDateTime()))
        json.insert(QStringLiteral("next"), timeText(*next));
    if (schedule.lastOccurrenceAt) {
        QJsonObject last{{QStringLiteral("at"), timeText(schedule.lastOccurrenceAt)},
                         {QStringLiteral("status"), schedule.lastStatus}};
        if (schedule.lastRun)
            last.insert(QStringLiteral("run"), schedule.lastRun->toString(QUuid::WithoutBraces));
        if (!schedule.lastCode.isEmpty())
            last.insert(QStringLiteral("code"), schedule.lastCode);
        json.insert(QStringLiteral("last"), last);
    }
    if (!whole)
        return json;
    json.insert(QStringLiteral("task"), schedule.task);
    json.insert(QStringLiteral("profile_generation"), schedule.profileGeneration);
    if (schedule.standingGrant)
        json.insert(QStringLiteral("grant"),
                    schedule.standingGrant->toString(QUuid::WithoutBraces));
    json.insert(QStringLiteral("model_url"), schedule.modelUrl);
    json.insert(QStringLiteral("model"), schedule.model);
    json.insert(QStringLiteral("budget"), schedule.budget);
    json.insert(QStringLiteral("deadline_minutes"), schedule.deadlineMinutes);
    json.insert(QStringLiteral("agent_version"), schedule.agentVersion);
    json.insert(QStringLiteral("policy_version"), schedule.policyVersion);
    json.insert(QStringLiteral("created_at"), timeText(schedule.createdAt));
    json.insert(QStringLiteral("units"),
                QJsonArray{QString(schedule.unitName() + QStringLiteral(".timer")),
                           QString(schedule.unitName() + QStringLiteral(".service"))});
    return json;
}

// --- checks ----------------------------------------------------------------------------------

// A calendar systemd takes too, where systemd-analyze is present.
bool systemdAccepts(const QString &calendar)
{
    const QString analyze = QStandardPaths::findExecutable(QStringLiteral("systemd-analyze"));
    if (analyze.isEmpty())
        return true;
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    process.start(analyze, {QStringLiteral("calendar"), calendar});
    return process.waitForFinished(10000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

// --- the desktop notification of an occurrence ---------------------------------------------

// One notification through the freedesktop notification server, waited for (a short while):
// the process ends right after. Its words are the workbench's own and the website's host.
void notifyOwner(const QString &summary, const QString &body)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return;
    QDBusMessage notify = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.Notifications"),
        QStringLiteral("/org/freedesktop/Notifications"),
        QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("Notify"));
    notify << QStringLiteral("Veetbot Workbench") << uint(0) << QStringLiteral("veetbot-workbench")
           << summary << body << QStringList() << QVariantMap() << int(-1);
    (void)bus.call(notify, QDBus::Block, 5000);
}

QString outcomeSentence(const QString &status, const QString &code)
{
    if (status == QLatin1String("needs_user") ||
        code == QLatin1String("schedule.profile_not_ready"))
        return QStringLiteral("The website needs you to sign in again; the schedule started "
                              "nothing there.");
    if (code == QLatin1String("schedule.profile_gone"))
        return QStringLiteral("The website was revoked or deleted in Website Access; the "
                              "schedule started nothing. Delete the schedule.");
    if (code == QLatin1String("schedule.profile_changed"))
        return QStringLiteral("The website was signed in again since the schedule was made: "
                              "resume the schedule to use the new sign-in.");
    if (code == QLatin1String("schedule.grant_unusable"))
        return QStringLiteral("The schedule's standing grant no longer holds; nothing was "
                              "started.");
    if (code == QLatin1String("schedule.policy_changed"))
        return QStringLiteral("The rules changed since the schedule was made: resume the "
                              "schedule to run under them.");
    if (status == QLatin1String("refused"))
        return QStringLiteral("The occurrence was refused.");
    if (status == QLatin1String("cancelled"))
        return QStringLiteral("The occurrence reached its deadline and stopped.");
    if (status == QLatin1String("budget_exhausted"))
        return QStringLiteral("The occurrence used its whole budget before it finished.");
    return QStringLiteral("The occurrence did not finish; its run says why.");
}

// A completed occurrence some of whose cards nobody could answer.
QString unansweredSentence(int cards)
{
    return cards == 1 ? QStringLiteral("The occurrence finished, but one action needed your "
                                       "approval and no workbench was open to ask you: it was "
                                       "not done.")
                      : QStringLiteral("The occurrence finished, but %1 actions needed your "
                                       "approval and no workbench was open to ask you: they were "
                                       "not done.")
                            .arg(cards);
}

// --- actions ---------------------------------------------------------------------------------

struct CreateOptions
{
    QCommandLineOption profile{QStringLiteral("profile"),
                               QStringLiteral("create: the READY browser profile (its id)."),
                               QStringLiteral("id")};
    QCommandLineOption task{QStringLiteral("task"),
                            QStringLiteral("create: the task, in your words (1-16384 "
                                           "characters)."),
                            QStringLiteral("text")};
    QCommandLineOption calendar{
        QStringLiteral("calendar"),
        QStringLiteral("create: when, in systemd's OnCalendar syntax, such as \"Mon..Fri 08:00\" "
                       "or \"daily\" (see docs/schedules.md)."),
        QStringLiteral("spec")};
    QCommandLineOption modelUrl{QStringLiteral("model-url"),
                                QStringLiteral("create: the OpenAI-compatible endpoint, as "
                                               "`veetbot run` takes it."),
                                QStringLiteral("url")};
    QCommandLineOption model{QStringLiteral("model"), QStringLiteral("create: the model's name."),
                             QStringLiteral("name")};
    QCommandLineOption grant{QStringLiteral("grant"),
                             QStringLiteral("create: a standing grant of the profile for routine "
                                            "writes (veetbot grants create)."),
                             QStringLiteral("id")};
    QCommandLineOption budget{QStringLiteral("budget"),
                              QStringLiteral("create: each tool result's byte budget "
                                             "(1024-1048576, default 16384)."),
                              QStringLiteral("bytes")};
    QCommandLineOption deadline{QStringLiteral("deadline"),
                                QStringLiteral("create: minutes an occurrence may run (1-1440, "
                                               "default 30)."),
                                QStringLiteral("minutes")};
};

int create(const QCommandLineParser &parser, const CreateOptions &options, SqlStores &store,
           const ProfileScope &owner)
{
    for (const QCommandLineOption *required :
         {&options.profile, &options.task, &options.calendar, &options.modelUrl, &options.model}) {
        if (!parser.isSet(*required))
            return usage(kCommand,
                         QStringLiteral("create needs --profile, --task, --calendar, "
                                        "--model-url and --model"),
                         parser);
    }
    Schedule schedule;
    schedule.id = QUuid::createUuid();
    schedule.task = parser.value(options.task);
    if (schedule.task.trimmed().isEmpty() || schedule.task.size() > Schedule::kMaxTaskCharacters)
        return usage(kCommand, QStringLiteral("--task must hold 1-16384 characters"), parser);
    schedule.model = parser.value(options.model);
    if (schedule.model.isEmpty() || schedule.model.size() > 128)
        return usage(kCommand, QStringLiteral("--model must hold 1-128 characters"), parser);
    schedule.budget = ModelProjection::kDefaultBudgetBytes;
    if (parser.isSet(options.budget)) {
        const std::optional<int> bytes = parseBudget(parser.value(options.budget));
        if (!bytes)
            return usage(kCommand, kBudgetProblem, parser);
        schedule.budget = *bytes;
    }
    if (parser.isSet(options.deadline)) {
        bool ok = false;
        schedule.deadlineMinutes = parser.value(options.deadline).toInt(&ok);
        if (!ok || schedule.deadlineMinutes < 1 ||
            schedule.deadlineMinutes > Schedule::kMaxDeadlineMinutes)
            return usage(kCommand, QStringLiteral("--deadline must be an integer from 1 to 1440"),
                         parser);
    }
    const Result<CalendarSpec> calendar = CalendarSpec::parse(parser.value(options.calendar));
    if (!calendar || !systemdAccepts(calendar->normalized()))
        return printError(CalendarSpec::invalid());
    schedule.calendar = calendar->normalized();
    const Result<QUrl> endpoint = ModelEndpoint::parse(parser.value(options.modelUrl));
    if (!endpoint)
        return printError(endpoint.error());
    // A schedule keeps its endpoint: one with a query (where a key could hide) is refused.
    if (endpoint->hasQuery())
        return printError(Error{QStringLiteral("schedule.invalid"),
                                QStringLiteral("A schedule's model URL takes no query; keep the "
                                               "key in your keyring (veetbot model set-key).")});
    schedule.modelUrl = endpoint->toString();
    const std::optional<QUuid> profileId = parseId(parser.value(options.profile));
    if (!profileId)
        return printError(profileError(ProfileFailure::NotFound));
    schedule.profileId = *profileId;
    if (parser.isSet(options.grant)) {
        const std::optional<QUuid> grant = parseId(parser.value(options.grant));
        if (!grant)
            return printError(scheduleError(ScheduleFailure::GrantUnusable));
        schedule.standingGrant = *grant;
    }
    schedule.agentVersion = agentVersion(QCoreApplication::applicationVersion());
    const Result<Schedule> created = ScheduleControl::create(
        store, owner, std::move(schedule), QCoreApplication::applicationFilePath());
    if (!created)
        return printError(created.error());
    printJson(scheduleJson(*created, true));
    return kExitOk;
}

int setState(SqlStores &store, const ProfileScope &owner, const QUuid &id, ScheduleState state)
{
    const Result<Schedule> changed =
        ScheduleControl::setState(store, owner, id, state, QCoreApplication::applicationFilePath());
    if (!changed)
        return printError(changed.error());
    printJson(scheduleJson(*changed, false));
    return kExitOk;
}

// What the timer starts. A paused or deleted schedule starts nothing (exit 0: the timer did its
// part). Otherwise the pins are checked before any model work, and a failed check is the
// occurrence's visible outcome, recorded and notified, never a wider permission.
int occur(SqlStores &store, const ProfileScope &owner, const QUuid &id,
          const ModelKeyReader &readKey)
{
    const Result<Schedule> schedule = store.schedules().schedule(owner, id);
    if (!schedule) {
        QTextStream(stderr) << "veetbot schedules: no such schedule; nothing started\n";
        return schedule.error().code == QLatin1String("schedule.not_found") ? kExitOk
                                                                            : kExitFailure;
    }
    if (schedule->state == ScheduleState::Paused) {
        QTextStream(stderr) << "veetbot schedules: the schedule is paused; nothing started\n";
        return kExitOk;
    }
    const QDateTime began = QDateTime::currentDateTimeUtc();
    QString website;
    RunReport report;
    const Result<BrowserProfile> profile = store.profiles().get(owner, schedule->profileId);
    if (profile && !profile->allowedOrigins.isEmpty())
        website = profile->allowedOrigins.constFirst().host();
    const auto refusedWith = [&report](const Error &error) {
        QTextStream(stderr) << "veetbot schedules: " << error.code << ": " << error.message << '\n';
        report.exitCode = RunExit::kRefused;
        report.status = runStatusString(RunStatus::Refused);
        report.code = error.code;
    };
    if (!profile) {
        // Deleted: nothing to sign in to. Any other failure to read it is its own.
        refusedWith(isProfileFailure(profile.error(), ProfileFailure::NotFound)
                        ? scheduleError(ScheduleFailure::ProfileGone)
                        : profile.error());
    } else if (profile->status == ProfileStatus::Revoked) {
        refusedWith(scheduleError(ScheduleFailure::ProfileGone));
    } else if (profile->status != ProfileStatus::Ready) {
        refusedWith(scheduleError(ScheduleFailure::ProfileNotReady));
        report.exitCode = RunExit::kNeedsUser;
        report.status = runStatusString(RunStatus::NeedsUser);
    } else if (profile->generation != schedule->profileGeneration) {
        refusedWith(scheduleError(ScheduleFailure::ProfileChanged));
    } else if (schedule->policyVersion != ScheduleControl::occurrencePolicyVersion()) {
        refusedWith(Error{QStringLiteral("schedule.policy_changed"),
                          QStringLiteral("The rules changed since the schedule was made; resume "
                                         "it to run under them.")});
    } else if (const Result<Unit> usable =
                   schedule->standingGrant
                       ? ScheduleControl::usableGrant(store, owner, *schedule->standingGrant,
                                                      schedule->profileId)
                       : Result<Unit>(Unit{});
               !usable) {
        refusedWith(usable.error());
    } else {
        QTextStream(stderr) << "veetbot schedules: occurrence of "
                            << id.toString(QUuid::WithoutBraces) << '\n';
        report = runScheduledOccurrence({.schedule = schedule->id,
                                         .profileId = schedule->profileId,
                                         .generation = schedule->profileGeneration,
                                         .task = schedule->task,
                                         .endpoint = QUrl(schedule->modelUrl),
                                         .model = schedule->model,
                                         .grant = schedule->standingGrant,
                                         .budget = schedule->budget,
                                         .deadlineMinutes = schedule->deadlineMinutes},
                                        readKey);
    }
    if (report.status.isEmpty())
        report.status = runStatusString(RunStatus::Failed);
    // A card no owner could answer was refused: the occurrence may still end completed, and the
    // owner hears of it all the same, in its record and in a notification.
    const bool completed = report.status == runStatusString(RunStatus::Completed);
    if (completed && report.unansweredCards > 0)
        report.code = QStringLiteral("schedule.cards_unanswered");
    (void)store.schedules().recordOccurrence(owner, id, began, report.run, report.status.left(32),
                                             report.code.left(64));
    if (!completed || report.unansweredCards > 0)
        notifyOwner(website.isEmpty() ? QStringLiteral("A schedule needs you")
                                      : QStringLiteral("A schedule on %1 needs you").arg(website),
                    completed ? unansweredSentence(report.unansweredCards)
                              : outcomeSentence(report.status, report.code));
    return report.exitCode;
}

} // namespace

int runSchedulesCommand(const QStringList &arguments, const ModelKeyReader &readKey)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Recurring work on a signed-in website, started by your systemd user timers: each "
        "occurrence is a `veetbot run` of its own (docs/schedules.md).\n\n"
        "  create --profile ID --task TEXT --calendar SPEC --model-url URL --model NAME\n"
        "         [--grant ID] [--budget BYTES] [--deadline MINUTES]\n"
        "                make one, and its veetbot-schedule-ID.timer and .service\n"
        "  list          every schedule: its calendar, state, next and last occurrence\n"
        "  show ID       one schedule whole\n"
        "  pause ID      its timer starts nothing until it is resumed\n"
        "  resume ID     again, pinning the profile's current sign-in\n"
        "  delete ID     the schedule and its units\n"
        "  occur ID      one occurrence now: what the timer starts"));
    parser.addHelpOption();
    const CreateOptions options;
    parser.addOptions({options.profile, options.task, options.calendar, options.modelUrl,
                       options.model, options.grant, options.budget, options.deadline});
    if (const std::optional<int> exit = parseOrExit(parser, arguments, kCommand))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool noId = action == QLatin1String("create") || action == QLatin1String("list");
    const QStringList actions{QStringLiteral("create"), QStringLiteral("list"),
                              QStringLiteral("show"),   QStringLiteral("pause"),
                              QStringLiteral("resume"), QStringLiteral("delete"),
                              QStringLiteral("occur")};
    if (!actions.contains(action))
        return usage(kCommand, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (noId ? 1 : 2))
        return usage(kCommand, QStringLiteral("wrong number of arguments"), parser);
    if (action != QLatin1String("create")) {
        for (const QCommandLineOption *option :
             {&options.profile, &options.task, &options.calendar, &options.modelUrl, &options.model,
              &options.grant, &options.budget, &options.deadline}) {
            if (parser.isSet(*option))
                return usage(kCommand, QStringLiteral("only create takes options"), parser);
        }
    }

    Result<MetadataStore> opened = openMetadataStore(QString());
    if (!opened)
        return printError(opened.error());
    SqlStores &store = *opened->repository;
    const ProfileScope owner = opened->scope();
    if (action == QLatin1String("create"))
        return create(parser, options, store, owner);
    if (action == QLatin1String("list")) {
        const Result<QList<Schedule>> schedules = store.schedules().schedules(owner);
        if (!schedules)
            return printError(schedules.error());
        QJsonArray views;
        for (const Schedule &schedule : *schedules)
            views.append(scheduleJson(schedule, false));
        printJson(QJsonObject{{QStringLiteral("schedules"), views}});
        return kExitOk;
    }
    const std::optional<QUuid> id = parseId(positional.at(1));
    if (!id)
        return printError(scheduleError(ScheduleFailure::NotFound));
    if (action == QLatin1String("occur"))
        return occur(store, owner, *id, readKey);
    if (action == QLatin1String("pause"))
        return setState(store, owner, *id, ScheduleState::Paused);
    if (action == QLatin1String("resume"))
        return setState(store, owner, *id, ScheduleState::Active);
    if (action == QLatin1String("delete")) {
        if (const Result<Unit> removed = ScheduleControl::remove(store, owner, *id); !removed)
            return printError(removed.error());
        printJson(QJsonObject{{QStringLiteral("deleted"), id->toString(QUuid::WithoutBraces)}});
        return kExitOk;
    }
    const Result<Schedule> schedule = store.schedules().schedule(owner, *id);
    if (!schedule)
        return printError(schedule.error());
    printJson(scheduleJson(*schedule, true));
    return kExitOk;
}

} // namespace veetbot
