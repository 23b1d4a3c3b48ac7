#pragma once

#include "approval/WorkbenchChannel.h"

#include <QList>
#include <QWidget>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace veetbot {

// One approval question as the owner sees it: what the agent will do, on which page and
// element (website text quoted as the agent's process quoted it), the classifier's named
// consequence as a warning, and three answers: Approve once (Alt+A), Approve for this task
// (Alt+T, only with an offer, which states its scope, 30 minutes and 200 actions) and Deny
// (Esc). Deny has the focus, so Enter never approves by accident. Every control has an
// accessible name.
class ApprovalCard : public QWidget
{
    Q_OBJECT
public:
    explicit ApprovalCard(const ApprovalBroker::Question &question, QWidget *parent = nullptr);

    quint64 key() const { return m_key; }

Q_SIGNALS:
    void answered(quint64 key, veetbot::ApprovalAnswer answer);

private:
    void answer(ApprovalAnswer answer);

    quint64 m_key = 0;
    bool m_answered = false;
};

// The workbench's approvals: cards from every local agent, one at a time, oldest first, with
// how many more wait (one card at a time, so Alt+A, Alt+T and Esc always have one target). A
// card withdrawn by its agent goes. As a window of its own it shows itself with each card, and
// closing it denies every card still open; as the main window's Approvals section it leaves
// showing to that window.
class ApprovalsWindow : public QWidget
{
    Q_OBJECT
public:
    explicit ApprovalsWindow(ApprovalBroker &broker, QWidget *parent = nullptr);

    // Puts the grant banner above the cards; the window shows itself while a grant is
    // active.
    void setBanner(QWidget *banner);
    int waiting() const { return int(m_cards.size()); }
    ApprovalCard *currentCard() const { return m_cards.isEmpty() ? nullptr : m_cards.first(); }
    // Brings a waiting card to the front (the owner opened its notification); false when it
    // is no longer waiting.
    bool showCard(quint64 key);

Q_SIGNALS:
    void waitingChanged(int waiting);
    // A card went: answered here, or withdrawn by its agent.
    void cardGone(quint64 key);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void add(const ApprovalBroker::Question &question);
    void remove(quint64 key);
    void showCurrent();

    ApprovalBroker &m_broker;
    QList<ApprovalCard *> m_cards;
    QVBoxLayout *m_layout = nullptr;
    QVBoxLayout *m_stack = nullptr;
    QLabel *m_more = nullptr;
};

} // namespace veetbot
