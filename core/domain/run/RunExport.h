#pragma once

#include "domain/run/Activity.h"
#include "domain/run/TaskRun.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace veetbot::RunExport {

// A run and its timeline as `veetbot runs show` prints them and the workbench exports them:
// the timeline's closed fields only (no page text, typed text, query or URL beyond the origin
// and a plain first path segment).
QJsonObject runJson(const ActivityRun &run);
QJsonObject eventJson(const ActivityEvent &event);
// The run, its "events" and, for a task run with its record, "task_run".
QJsonObject document(const ActivityRun &run, const QList<ActivityEvent> &events,
                     const std::optional<TaskRunRecord> &task);
// The events as CSV (RFC 4180, CRLF line ends, a header row): one row per event, the columns
// of eventJson in a fixed order, an absent field empty.
QByteArray eventsCsv(const QList<ActivityEvent> &events);
// The CSV's columns, in order.
QStringList csvColumns();

} // namespace veetbot::RunExport
