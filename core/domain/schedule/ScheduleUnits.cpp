#include "ScheduleUnits.h"

namespace veetbot::ScheduleUnits {

QString execWord(const QString &word)
{
    QString quoted = QStringLiteral("\"");
    for (const QChar c : word) {
        if (c == u'\\' || c == u'"')
            quoted += u'\\';
        else if (c == u'%' || c == u'$')
            quoted += c;
        quoted += c;
    }
    return quoted + u'"';
}

QString timer(const Schedule &schedule)
{
    const QString id = schedule.id.toString(QUuid::WithoutBraces);
    return QStringLiteral("# Written by veetbot schedules; changed only through it.\n"
                          "[Unit]\n"
                          "Description=Veetbot Workbench schedule %1\n"
                          "Documentation=man:veetbot(1)\n"
                          "\n"
                          "[Timer]\n"
                          "OnCalendar=%2\n"
                          "Persistent=true\n"
                          "Unit=%3.service\n"
                          "\n"
                          "[Install]\n"
                          "WantedBy=timers.target\n")
        .arg(id, schedule.calendar, schedule.unitName());
}

QString service(const Schedule &schedule, const QString &program)
{
    const QString id = schedule.id.toString(QUuid::WithoutBraces);
    // The occurrence ends itself at its deadline; systemd's own limit is a little later.
    return QStringLiteral("# Written by veetbot schedules; changed only through it.\n"
                          "[Unit]\n"
                          "Description=Veetbot Workbench schedule %1 (one occurrence)\n"
                          "Documentation=man:veetbot(1)\n"
                          "\n"
                          "[Service]\n"
                          "Type=oneshot\n"
                          "ExecStart=%2 schedules occur %1\n"
                          "TimeoutStartSec=%3min\n")
        .arg(id, execWord(program), QString::number(schedule.deadlineMinutes + 5));
}

} // namespace veetbot::ScheduleUnits
