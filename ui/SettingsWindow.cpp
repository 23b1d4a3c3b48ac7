#include "SettingsWindow.h"

#include "AgentConfiguration.h"
#include "NewTask.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace veetbot {

namespace {

QPushButton *button(const QString &text, const QString &name, QWidget *parent)
{
    auto *widget = new QPushButton(text, parent);
    widget->setAccessibleName(name);
    return widget;
}

QString kindsText(const QList<ActRequest::Kind> &kinds)
{
    QStringList words;
    for (const ActRequest::Kind kind : kinds)
        words << actKindString(kind);
    return words.join(QStringLiteral(", "));
}

} // namespace

SettingsWindow::SettingsWindow(SqlStores &store, ProfileScope owner, TestOverrides overrides,
                               QWidget *parent)
    : QWidget(parent), m_store(store), m_owner(std::move(owner)), m_overrides(std::move(overrides))
{
    setWindowTitle(QStringLiteral("Settings — Veetbot Workbench"));
    setAccessibleName(QStringLiteral("Settings"));
    auto *layout = new QVBoxLayout(this);

    auto *scopes = new QGroupBox(QStringLiteral("Task scopes"), this);
    scopes->setAccessibleName(QStringLiteral("Task scopes"));
    auto *scopeLayout = new QVBoxLayout(scopes);
    auto *scopeIntro = new QLabel(
        QStringLiteral("Where an approval card may offer \"Approve for this task\": an exact "
                       "https origin and one path segment, at most sixteen."),
        scopes);
    scopeIntro->setWordWrap(true);
    scopeIntro->setAccessibleName(QStringLiteral("About task scopes"));
    scopeLayout->addWidget(scopeIntro);
    m_scopeList = new QListWidget(scopes);
    m_scopeList->setAccessibleName(QStringLiteral("Configured task scopes"));
    m_scopeList->setMaximumHeight(140);
    scopeLayout->addWidget(m_scopeList);
    auto *scopeRow = new QHBoxLayout;
    m_scopeInput = new QLineEdit(scopes);
    m_scopeInput->setAccessibleName(QStringLiteral("New task scope"));
    m_scopeInput->setPlaceholderText(QStringLiteral("https://www.example.com/lesson"));
    m_addScope = button(QStringLiteral("&Add scope"), QStringLiteral("Add scope"), scopes);
    m_removeScope = button(QStringLiteral("&Remove scope"), QStringLiteral("Remove scope"), scopes);
    scopeRow->addWidget(m_scopeInput, 1);
    scopeRow->addWidget(m_addScope);
    scopeRow->addWidget(m_removeScope);
    scopeLayout->addLayout(scopeRow);
    layout->addWidget(scopes);

    auto *grants = new QGroupBox(QStringLiteral("Standing grants"), this);
    grants->setAccessibleName(QStringLiteral("Standing grants"));
    auto *grantLayout = new QVBoxLayout(grants);
    m_grantTable = new QTableWidget(0, 5, grants);
    m_grantTable->setAccessibleName(QStringLiteral("Standing grants list"));
    m_grantTable->setHorizontalHeaderLabels({QStringLiteral("Origins"), QStringLiteral("Actions"),
                                             QStringLiteral("Only"), QStringLiteral("Expires"),
                                             QStringLiteral("Status")});
    m_grantTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grantTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_grantTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_grantTable->verticalHeader()->setVisible(false);
    m_grantTable->horizontalHeader()->setStretchLastSection(true);
    for (QAbstractButton *corner : m_grantTable->findChildren<QAbstractButton *>())
        corner->setAccessibleName(QStringLiteral("Select all rows"));
    grantLayout->addWidget(m_grantTable);
    m_revokeGrant =
        button(QStringLiteral("Re&voke grant"), QStringLiteral("Revoke standing grant"), grants);
    auto *grantRow = new QHBoxLayout;
    auto *grantHint = new QLabel(QStringLiteral("Make one with: veetbot grants create"), grants);
    grantHint->setAccessibleName(QStringLiteral("How to make a standing grant"));
    grantRow->addWidget(grantHint, 1);
    grantRow->addWidget(m_revokeGrant);
    grantLayout->addLayout(grantRow);
    layout->addWidget(grants);

    auto *client = new QGroupBox(QStringLiteral("Connect an agent (MCP)"), this);
    client->setAccessibleName(QStringLiteral("Connect an agent"));
    auto *clientLayout = new QVBoxLayout(client);
    m_profile = new QComboBox(client);
    m_profile->setAccessibleName(QStringLiteral("Website for the agent"));
    clientLayout->addWidget(m_profile);
    m_snippet = new QPlainTextEdit(client);
    m_snippet->setReadOnly(true);
    m_snippet->setAccessibleName(QStringLiteral("MCP client configuration"));
    m_snippet->setMinimumHeight(80);
    m_snippet->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    clientLayout->addWidget(m_snippet);
    m_copy = button(QStringLiteral("&Copy"), QStringLiteral("Copy configuration"), client);
    clientLayout->addWidget(m_copy, 0, Qt::AlignRight);
    layout->addWidget(client);

    m_status = new QLabel(this);
    m_status->setAccessibleName(QStringLiteral("Status"));
    m_status->setTextFormat(Qt::PlainText);
    layout->addWidget(m_status);
    resize(720, 640);

    connect(m_addScope, &QPushButton::clicked, this, &SettingsWindow::addScope);
    connect(m_scopeInput, &QLineEdit::returnPressed, this, &SettingsWindow::addScope);
    connect(m_removeScope, &QPushButton::clicked, this, &SettingsWindow::removeScope);
    connect(m_revokeGrant, &QPushButton::clicked, this, &SettingsWindow::revokeGrant);
    connect(m_profile, &QComboBox::currentIndexChanged, this, &SettingsWindow::showSnippet);
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(clientSnippet()); });
    refresh();
}

QString SettingsWindow::statusText() const
{
    return m_status->text();
}

void SettingsWindow::setWorkbenchSettings(QSettings *settings)
{
    if (!settings || findChild<ModelSettingsBox *>())
        return;
    auto *box = new ModelSettingsBox(*settings, this);
    // Above the window's status line, the last item.
    if (auto *column = qobject_cast<QBoxLayout *>(layout()))
        column->insertWidget(column->count() - 1, box);
    else
        layout()->addWidget(box);
    box->show(); // also when the window shows already
}

QString SettingsWindow::clientSnippet() const
{
    return m_snippet->toPlainText();
}

void SettingsWindow::refresh()
{
    if (const Result<TaskScopePolicy> scopes = m_store.profiles().taskScopes(m_owner)) {
        m_scopes = *scopes;
        m_scopeList->clear();
        for (const TaskScope &scope : m_scopes.entries)
            m_scopeList->addItem(scope.toString());
    }
    if (const Result<QList<StandingGrant>> grants =
            m_store.standingGrants().standingGrants(m_owner, std::nullopt)) {
        m_grants = *grants;
        m_grantTable->setRowCount(int(m_grants.size()));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (int row = 0; row < m_grants.size(); ++row) {
            const StandingGrant &grant = m_grants.at(row);
            QStringList origins;
            for (const Origin &origin : grant.origins)
                origins << origin.toString();
            QStringList only;
            if (grant.role)
                only << *grant.role;
            if (grant.accessibleName)
                only << u'"' + *grant.accessibleName + u'"';
            const QString status = grant.revokedAt          ? QStringLiteral("revoked")
                                   : grant.expiresAt <= now ? QStringLiteral("expired")
                                                            : QStringLiteral("active");
            const QStringList cells{
                origins.join(QStringLiteral(", ")), kindsText(grant.actionKinds), only.join(u' '),
                grant.expiresAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")), status};
            for (int column = 0; column < cells.size(); ++column)
                m_grantTable->setItem(row, column, new QTableWidgetItem(cells.at(column)));
        }
        m_grantTable->resizeColumnsToContents();
    }
    if (const Result<QList<BrowserProfile>> profiles = m_store.profiles().list(m_owner)) {
        const QString current = m_profile->currentData().toString();
        m_ready.clear();
        m_profile->blockSignals(true);
        m_profile->clear();
        for (const BrowserProfile &profile : *profiles) {
            if (profile.status != ProfileStatus::Ready || profile.allowedOrigins.isEmpty())
                continue;
            m_ready << profile;
            m_profile->addItem(profile.allowedOrigins.constFirst().toString(),
                               profile.id.toString(QUuid::WithoutBraces));
        }
        const int keep = m_profile->findData(current);
        m_profile->setCurrentIndex(keep >= 0 ? keep : 0);
        m_profile->blockSignals(false);
    }
    showSnippet();
}

void SettingsWindow::showSnippet()
{
    const QString id = m_profile->currentData().toString();
    if (id.isEmpty()) {
        m_snippet->setPlainText(QStringLiteral("Sign in to a website first (Website Access)."));
        m_copy->setEnabled(false);
        return;
    }
    m_snippet->setPlainText(AgentConfiguration::mcpServersJson(AgentConfiguration::program(), id));
    m_copy->setEnabled(true);
}

void SettingsWindow::addScope()
{
    const Result<TaskScope> scope = TaskScope::parse(m_scopeInput->text().trimmed(), m_overrides);
    if (!scope) {
        m_status->setText(scope.error().message);
        return;
    }
    QList<TaskScope> entries = m_scopes.entries;
    entries << *scope;
    const Result<TaskScopeChange> changed =
        m_store.profiles().replaceTaskScopes(m_owner, m_scopes.revision, entries);
    if (!changed) {
        m_status->setText(changed.error().message);
        refresh(); // a concurrent edit: show the list as it is now
        return;
    }
    m_scopeInput->clear();
    m_status->setText(QStringLiteral("Added."));
    refresh();
}

void SettingsWindow::removeScope()
{
    const int row = m_scopeList->currentRow();
    if (row < 0 || row >= m_scopes.entries.size())
        return;
    QList<TaskScope> entries = m_scopes.entries;
    entries.removeAt(row);
    const Result<TaskScopeChange> changed =
        m_store.profiles().replaceTaskScopes(m_owner, m_scopes.revision, entries);
    m_status->setText(changed ? QStringLiteral("Removed; task grants made in it have ended.")
                              : changed.error().message);
    refresh();
}

void SettingsWindow::revokeGrant()
{
    const int row = m_grantTable->currentRow();
    if (row < 0 || row >= m_grants.size())
        return;
    const Result<StandingGrant> revoked =
        m_store.standingGrants().revokeStandingGrant(m_owner, m_grants.at(row).id);
    m_status->setText(revoked ? QStringLiteral("Revoked; it no longer holds from the next action.")
                              : revoked.error().message);
    refresh();
}

} // namespace veetbot
