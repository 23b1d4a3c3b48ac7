#pragma once

#include "domain/profile/BrowserProfile.h"

#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace veetbot {

// "Start here": the three ways to begin, each with a button to its section.
//  1. Add a website and sign in (Websites).
//  2. Connect an agent: the MCP configuration for the chosen website (AgentConfiguration), as
//     a JSON `mcpServers` block (desktop and editor clients) and as the one-line command that
//     command-line agents take, each with Copy. Approvals go to this workbench's cards.
//  3. Start a task with a local model endpoint (Tasks' New task).
// It shows the websites' origins and ids, nothing else of a profile.
class GettingStarted : public QWidget
{
    Q_OBJECT
public:
    explicit GettingStarted(QWidget *parent = nullptr);

    // The websites the agent step offers (READY ones first); keeps the choice when it stays.
    void setProfiles(const QList<BrowserProfile> &profiles);

    QString shownJson() const;
    QString shownCommand() const;

Q_SIGNALS:
    void websitesRequested();
    void tasksRequested();

private:
    void updateConfiguration();

    QComboBox *m_profile = nullptr;
    QLabel *m_noWebsite = nullptr;
    QPlainTextEdit *m_json = nullptr;
    QPlainTextEdit *m_command = nullptr;
};

} // namespace veetbot
