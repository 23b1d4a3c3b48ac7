#pragma once

#include <QStringList>

class QTableWidget;
class QWidget;

namespace veetbot {

// A read-only table of whole rows, one selected at a time, its header and corner button named
// for assistive technology: the workbench's lists (runs, schedules).
QTableWidget *makeTable(const QStringList &headers, const QString &name, QWidget *parent);
// Fills row `row` (which must exist) with `cells`.
void setRow(QTableWidget *table, int row, const QStringList &cells);

} // namespace veetbot
