#include "ScheduleControl.h"

#include "domain/schedule/ScheduleUnits.h"
#include "policy/OwnerPolicy.h"
#include "profiles/SqlStores.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSaveFile>
#include <QStandardPaths>

namespace veetbot::ScheduleControl {

namespace {

QString wantsLink(const Schedule &schedule)
{
    return unitDirectory() + QStringLiteral("/timers.target.wants/") + schedule.unitName() +
           QStringLiteral(".timer");
}

// Asks the user's service manager, when one answers, to read the units again and start or
// stop the timer. Without one (no login session), an enabled timer starts with the next.
void tellServiceManager(const QString &timerAction, const Schedule &schedule)
{
    const QString systemctl = QStandardPaths::findExecutable(QStringLiteral("systemctl"));
    if (systemctl.isEmpty() || qEnvironmentVariableIsSet("VEETBOT_NO_SERVICE_MANAGER"))
        return;
    const auto run = [&systemctl](const QStringList &arguments) {
        QProcess process;
        process.setStandardOutputFile(QProcess::nullDevice());
        process.setStandardErrorFile(QProcess::nullDevice());
        process.start(systemctl, QStringList{QStringLiteral("--user")} + arguments);
        return process.waitForFinished(10000) && process.exitStatus() == QProcess::NormalExit &&
               process.exitCode() == 0;
    };
    if (!run({QStringLiteral("daemon-reload")}) || timerAction.isEmpty())
        return;
    (void)run({timerAction, schedule.unitName() + QStringLiteral(".timer")});
}

Error unitsError()
{
    return Error{QStringLiteral("schedule.units_unwritable"),
                 QStringLiteral("The schedule's systemd user units could not be written.")};
}

bool writePrivate(const QString &path, const QString &text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(text.toUtf8());
    return file.commit() &&
           QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

// Writes the timer and its service, and enables the timer (the link `systemctl enable` makes)
// unless the schedule is paused.
Result<Unit> installUnits(const Schedule &schedule, const QString &program)
{
    const QString directory = unitDirectory();
    if (!QDir().mkpath(directory + QStringLiteral("/timers.target.wants")))
        return unitsError();
    const QString base = directory + u'/' + schedule.unitName();
    if (!writePrivate(base + QStringLiteral(".service"),
                      ScheduleUnits::service(schedule, program)) ||
        !writePrivate(base + QStringLiteral(".timer"), ScheduleUnits::timer(schedule)))
        return unitsError();
    const QString link = wantsLink(schedule);
    QFile::remove(link);
    if (schedule.state == ScheduleState::Active &&
        !QFile::link(QStringLiteral("../") + schedule.unitName() + QStringLiteral(".timer"), link))
        return unitsError();
    tellServiceManager(schedule.state == ScheduleState::Active ? QStringLiteral("start")
                                                               : QStringLiteral("stop"),
                       schedule);
    return Unit{};
}

void removeUnits(const Schedule &schedule)
{
    tellServiceManager(QStringLiteral("stop"), schedule);
    QFile::remove(wantsLink(schedule));
    const QString base = unitDirectory() + u'/' + schedule.unitName();
    QFile::remove(base + QStringLiteral(".timer"));
    QFile::remove(base + QStringLiteral(".service"));
    tellServiceManager(QString(), schedule);
}

} // namespace

QString unitDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/systemd/user");
}

QString occurrencePolicyVersion()
{
    return PolicySettings{}.version();
}

Result<BrowserProfile> readyProfile(SqlStores &store, const ProfileScope &owner, const QUuid &id)
{
    const Result<BrowserProfile> profile = store.profiles().get(owner, id);
    if (!profile)
        return profile.error();
    if (profile->status != ProfileStatus::Ready)
        return scheduleError(ScheduleFailure::ProfileNotReady);
    return profile;
}

Result<Unit> usableGrant(SqlStores &store, const ProfileScope &owner, const QUuid &grantId,
                         const QUuid &profileId)
{
    const Result<StandingGrant> grant = store.standingGrants().standingGrant(owner, grantId);
    if (!grant)
        return isStandingGrantFailure(grant.error(), StandingGrantFailure::NotFound)
                   ? scheduleError(ScheduleFailure::GrantUnusable)
                   : grant.error();
    if (grant->profileId != profileId || grant->isRevoked() ||
        QDateTime::currentDateTimeUtc() >= grant->expiresAt)
        return scheduleError(ScheduleFailure::GrantUnusable);
    return Unit{};
}

Result<Schedule> create(SqlStores &store, const ProfileScope &owner, Schedule schedule,
                        const QString &program)
{
    const Result<BrowserProfile> profile = readyProfile(store, owner, schedule.profileId);
    if (!profile)
        return profile.error();
    schedule.profileGeneration = profile->generation;
    if (schedule.standingGrant) {
        if (const Result<Unit> usable =
                usableGrant(store, owner, *schedule.standingGrant, profile->id);
            !usable)
            return usable.error();
    }
    schedule.policyVersion = occurrencePolicyVersion();
    const Result<Schedule> created = store.schedules().createSchedule(owner, schedule);
    if (!created)
        return created;
    if (const Result<Unit> installed = installUnits(*created, program); !installed) {
        (void)store.schedules().deleteSchedule(owner, created->id);
        removeUnits(*created);
        return installed.error();
    }
    return created;
}

Result<Schedule> setState(SqlStores &store, const ProfileScope &owner, const QUuid &id,
                          ScheduleState state, const QString &program)
{
    const Result<Schedule> schedule = store.schedules().schedule(owner, id);
    if (!schedule)
        return schedule;
    qint64 generation = schedule->profileGeneration;
    if (state == ScheduleState::Active) {
        const Result<BrowserProfile> profile = readyProfile(store, owner, schedule->profileId);
        if (!profile)
            return profile.error();
        generation = profile->generation;
        if (schedule->standingGrant) {
            if (const Result<Unit> usable =
                    usableGrant(store, owner, *schedule->standingGrant, schedule->profileId);
                !usable)
                return usable.error();
        }
    }
    const Result<Schedule> changed =
        store.schedules().setScheduleState(owner, id, state, generation, occurrencePolicyVersion());
    if (!changed)
        return changed;
    if (const Result<Unit> installed = installUnits(*changed, program); !installed)
        return installed.error();
    return changed;
}

Result<Unit> remove(SqlStores &store, const ProfileScope &owner, const QUuid &id)
{
    const Result<Schedule> schedule = store.schedules().schedule(owner, id);
    if (!schedule)
        return schedule.error();
    if (const Result<Unit> deleted = store.schedules().deleteSchedule(owner, id); !deleted)
        return deleted;
    removeUnits(*schedule);
    return Unit{};
}

} // namespace veetbot::ScheduleControl
