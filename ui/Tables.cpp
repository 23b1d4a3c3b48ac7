#include "Tables.h"

#include <QAbstractButton>
#include <QHeaderView>
#include <QTableWidget>

namespace veetbot {

QTableWidget *makeTable(const QStringList &headers, const QString &name, QWidget *parent)
{
    auto *widget = new QTableWidget(0, int(headers.size()), parent);
    widget->setHorizontalHeaderLabels(headers);
    widget->setAccessibleName(name);
    widget->setEditTriggers(QAbstractItemView::NoEditTriggers);
    widget->setSelectionBehavior(QAbstractItemView::SelectRows);
    widget->setSelectionMode(QAbstractItemView::SingleSelection);
    widget->verticalHeader()->setVisible(false);
    widget->horizontalHeader()->setStretchLastSection(true);
    // The corner button selects every row; say so to assistive technology too.
    for (QAbstractButton *corner : widget->findChildren<QAbstractButton *>())
        corner->setAccessibleName(QStringLiteral("Select all rows"));
    return widget;
}

void setRow(QTableWidget *table, int row, const QStringList &cells)
{
    for (int column = 0; column < cells.size(); ++column)
        table->setItem(row, column, new QTableWidgetItem(cells.at(column)));
}

} // namespace veetbot
