#pragma once

#include "domain/web/TestOverrides.h"
#include "profiles/SqlStores.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSettings;
class QTableWidget;

namespace veetbot {

// The owner's settings: the task scopes (where an approval card may offer a task grant; add
// and remove, revisioned like `veetbot scopes`), the standing grants (listed, and revoked
// here; made with `veetbot grants create`), and the MCP client configuration to copy for a
// READY website (`veetbot mcp --profile ID --approver workbench --trust-turns owner`). It reads
// and writes the metadata store directly; every change is the same unit of work the commands
// use.
class SettingsWindow : public QWidget
{
    Q_OBJECT
public:
    SettingsWindow(SqlStores &store, ProfileScope owner, TestOverrides overrides,
                   QWidget *parent = nullptr);

    void refresh();
    // Adds "Model for new tasks" (ModelSettingsBox) over the workbench's settings file.
    void setWorkbenchSettings(QSettings *settings);
    // The text of the MCP client configuration shown now.
    QString clientSnippet() const;
    QString statusText() const;

private:
    void addScope();
    void removeScope();
    void revokeGrant();
    void showSnippet();

    SqlStores &m_store;
    ProfileScope m_owner;
    TestOverrides m_overrides;
    TaskScopePolicy m_scopes;
    QList<StandingGrant> m_grants;
    QList<BrowserProfile> m_ready;
    QListWidget *m_scopeList = nullptr;
    QLineEdit *m_scopeInput = nullptr;
    QPushButton *m_addScope = nullptr;
    QPushButton *m_removeScope = nullptr;
    QTableWidget *m_grantTable = nullptr;
    QPushButton *m_revokeGrant = nullptr;
    QComboBox *m_profile = nullptr;
    QPlainTextEdit *m_snippet = nullptr;
    QPushButton *m_copy = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace veetbot
