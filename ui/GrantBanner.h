#pragma once

#include "domain/profile/BrowserProfile.h"
#include "ports/TaskGrantStore.h"

#include <QList>
#include <QTimer>
#include <QWidget>

class QVBoxLayout;

namespace veetbot {

// The owner's active task grants, one line each: the scope, the time and the actions left,
// counting down live, and Revoke. It reads the store every two seconds (so grants made by any
// agent appear, and ended ones go) and counts the time down every second in between. Revoke
// ends the grant at once; its session asks again at its next act.
class GrantBanner : public QWidget
{
    Q_OBJECT
public:
    GrantBanner(TaskGrantStore &store, ProfileScope owner, QWidget *parent = nullptr);

    int activeCount() const { return int(m_grants.size()); }
    // Reads the store now.
    void refresh();

Q_SIGNALS:
    void activeChanged(int count);

private:
    void rebuild();
    void tick();

    TaskGrantStore &m_store;
    ProfileScope m_owner;
    QList<TaskGrant> m_grants;
    QVBoxLayout *m_rows = nullptr;
    QTimer m_read;
    QTimer m_count;
};

} // namespace veetbot
