#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/profile/SessionState.h"
#include "domain/web/Origin.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QUuid>

#include <functional>
#include <memory>

class QThreadPool;

namespace veetbot {

// Website Access's use cases (WebsiteAccess.h) for a window: asynchronous, one call at a time.
// Each call runs on the client's one worker thread, in the order asked (one metadata store, one
// service start on demand, never two at once), and its answer comes back on the thread that
// owns `context` (the GUI thread), to a continuation that runs only while `context` lives. A
// window never blocks and never starts a thread per call. When the client goes it waits for
// the call in progress; the calls queued behind it are dropped.
class WebsiteAccessClient : public QObject
{
    Q_OBJECT
public:
    template <typename T> using Done = std::function<void(const Result<T> &)>;

    explicit WebsiteAccessClient(QObject *parent = nullptr);
    ~WebsiteAccessClient() override;

    void listProfiles(QObject *context, Done<QList<BrowserProfile>> done);
    void createProfile(const QList<Origin> &origins, QObject *context, Done<BrowserProfile> done);
    void revokeProfile(const QUuid &profileId, QObject *context, Done<BrowserProfile> done);
    void deleteProfile(const QUuid &profileId, QObject *context, Done<Unit> done);
    void discardProfile(const QUuid &profileId, QObject *context, Done<Unit> done);
    void replaceProfile(const QUuid &profileId, const Origin &origin, QObject *context,
                        Done<BrowserProfile> done);
    // The owner's session from the workbench's own sign-in view: a recorded device sign-in.
    void signInProfile(const QUuid &profileId, const QUrl &confirmedUrl, const SessionState &state,
                       QObject *context, Done<BrowserProfile> done);
    // Any other blocking work of the kind (the live view's frame from the running service, a
    // test's stand-in source), queued like the rest.
    template <typename T> void call(std::function<Result<T>()> work, QObject *context, Done<T> done)
    {
        QPointer<QObject> guard(context);
        enqueue([this, work = std::move(work), guard, done = std::move(done)] {
            Result<T> answer = work();
            deliver([guard, done, answer = std::move(answer)] {
                if (guard)
                    done(answer);
            });
        });
    }

    // Calls asked and not yet answered.
    int pending() const { return m_pending; }

private:
    // Runs `job` on the worker after the jobs queued before it.
    void enqueue(std::function<void()> job);
    // From the worker: hands `answer` to this client's thread, where it runs and the call ends.
    void deliver(std::function<void()> answer);

    std::unique_ptr<QThreadPool> m_worker;
    int m_pending = 0;
};

} // namespace veetbot
