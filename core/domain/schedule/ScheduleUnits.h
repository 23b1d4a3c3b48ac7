#pragma once

#include "Schedule.h"

#include <QString>

namespace veetbot::ScheduleUnits {

// The systemd user units that start a schedule's occurrences (docs/schedules.md): a timer on
// the schedule's calendar (Persistent=true: an occurrence missed while the machine slept or
// was off runs once when it is back) and a oneshot service that runs
// `<program> schedules occur <id>`, so that one occurrence runs at a time (a timer does not
// start a service that is still active). `program` is an absolute path.
QString timer(const Schedule &schedule);
QString service(const Schedule &schedule, const QString &program);

// One word of an ExecStart= line, quoted as systemd.service(5) reads it: in double quotes,
// with backslashes and double quotes escaped, "%" written "%%" (a specifier otherwise) and
// "$" written "$$" (a variable otherwise).
QString execWord(const QString &word);

} // namespace veetbot::ScheduleUnits
