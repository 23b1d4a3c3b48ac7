#include "GrantBanner.h"

#include "Palette.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace veetbot {

namespace {

QString left(const TaskGrant &grant, const QDateTime &now)
{
    const qint64 seconds = std::max<qint64>(0, now.secsTo(grant.expiresAt));
    return QStringLiteral("Task grant for %1: %2:%3 and %4 actions left")
        .arg(grant.scope.toString())
        .arg(seconds / 60)
        .arg(seconds % 60, 2, 10, QLatin1Char('0'))
        .arg(grant.actionsLeft());
}

} // namespace

GrantBanner::GrantBanner(TaskGrantStore &store, ProfileScope owner, QWidget *parent)
    : QWidget(parent), m_store(store), m_owner(std::move(owner))
{
    setAccessibleName(QStringLiteral("Active task grants"));
    m_rows = new QVBoxLayout(this);
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_read.setInterval(2000);
    connect(&m_read, &QTimer::timeout, this, &GrantBanner::refresh);
    m_read.start();
    m_count.setInterval(1000);
    connect(&m_count, &QTimer::timeout, this, &GrantBanner::tick);
    m_count.start();
    refresh();
}

void GrantBanner::refresh()
{
    const Result<QList<TaskGrant>> grants = m_store.taskGrants(m_owner);
    if (!grants)
        return; // the store is busy or gone: keep what is shown, try again shortly
    QList<TaskGrant> active;
    for (const TaskGrant &grant : *grants) {
        if (!grant.isEnded())
            active << grant;
    }
    const bool same = active.size() == m_grants.size() &&
                      std::equal(active.cbegin(), active.cend(), m_grants.cbegin(),
                                 [](const TaskGrant &a, const TaskGrant &b) {
                                     return a.id == b.id && a.uses == b.uses;
                                 });
    m_grants = active;
    if (!same) {
        rebuild();
        Q_EMIT activeChanged(int(m_grants.size()));
    }
}

void GrantBanner::rebuild()
{
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *widget = item->widget())
            widget->deleteLater();
        delete item;
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const TaskGrant &grant : m_grants) {
        auto *row = new QWidget(this);
        row->setAccessibleName(QStringLiteral("Task grant"));
        row->setStyleSheet(Palette::highlightStyle());
        auto *line = new QHBoxLayout(row);
        auto *text = new QLabel(left(grant, now), row);
        text->setTextFormat(Qt::PlainText);
        text->setAccessibleName(QStringLiteral("Task grant time and actions left"));
        text->setProperty("grant", grant.id.toString(QUuid::WithoutBraces));
        line->addWidget(text, 1);
        auto *revoke = new QPushButton(QStringLiteral("Revoke"), row);
        revoke->setAccessibleName(QStringLiteral("Revoke task grant"));
        line->addWidget(revoke);
        const QUuid id = grant.id;
        connect(revoke, &QPushButton::clicked, this, [this, id] {
            (void)m_store.endTaskGrant(m_owner, id, TaskGrantEnd::Revoked);
            refresh();
        });
        m_rows->addWidget(row);
    }
    setVisible(!m_grants.isEmpty());
}

void GrantBanner::tick()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (QLabel *label : findChildren<QLabel *>()) {
        const QUuid id = QUuid::fromString(label->property("grant").toString());
        for (const TaskGrant &grant : m_grants) {
            if (grant.id == id)
                label->setText(left(grant, now));
        }
    }
}

} // namespace veetbot
