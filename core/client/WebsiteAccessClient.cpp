#include "WebsiteAccessClient.h"

#include "WebsiteAccess.h"

#include <QThreadPool>

namespace veetbot {

WebsiteAccessClient::WebsiteAccessClient(QObject *parent)
    : QObject(parent), m_worker(std::make_unique<QThreadPool>())
{
    // One worker: the calls run one at a time, in the order asked.
    m_worker->setMaxThreadCount(1);
    m_worker->setExpiryTimeout(-1);
}

WebsiteAccessClient::~WebsiteAccessClient()
{
    // What has not started is dropped; the call in progress finishes (a metadata write, a
    // service call) and its answer, posted to this object, goes with it.
    m_worker->clear();
    m_worker->waitForDone();
}

void WebsiteAccessClient::enqueue(std::function<void()> job)
{
    ++m_pending;
    m_worker->start(std::move(job));
}

void WebsiteAccessClient::deliver(std::function<void()> answer)
{
    QMetaObject::invokeMethod(
        this,
        [this, answer = std::move(answer)] {
            // The call ends before its continuation runs: the continuation may ask again.
            --m_pending;
            answer();
        },
        Qt::QueuedConnection);
}

void WebsiteAccessClient::listProfiles(QObject *context, Done<QList<BrowserProfile>> done)
{
    call<QList<BrowserProfile>>([] { return veetbot::listProfiles(); }, context, std::move(done));
}

void WebsiteAccessClient::createProfile(const QList<Origin> &origins, QObject *context,
                                        Done<BrowserProfile> done)
{
    call<BrowserProfile>([origins] { return veetbot::createProfile(origins); }, context,
                         std::move(done));
}

void WebsiteAccessClient::revokeProfile(const QUuid &profileId, QObject *context,
                                        Done<BrowserProfile> done)
{
    call<BrowserProfile>([profileId] { return veetbot::revokeProfile(profileId); }, context,
                         std::move(done));
}

void WebsiteAccessClient::deleteProfile(const QUuid &profileId, QObject *context, Done<Unit> done)
{
    call<Unit>([profileId] { return veetbot::deleteProfile(profileId); }, context, std::move(done));
}

void WebsiteAccessClient::discardProfile(const QUuid &profileId, QObject *context, Done<Unit> done)
{
    call<Unit>([profileId] { return veetbot::discardProfile(profileId); }, context,
               std::move(done));
}

void WebsiteAccessClient::replaceProfile(const QUuid &profileId, const Origin &origin,
                                         QObject *context, Done<BrowserProfile> done)
{
    call<BrowserProfile>([profileId, origin] { return veetbot::replaceProfile(profileId, origin); },
                         context, std::move(done));
}

void WebsiteAccessClient::signInProfile(const QUuid &profileId, const QUrl &confirmedUrl,
                                        const SessionState &state, QObject *context,
                                        Done<BrowserProfile> done)
{
    call<BrowserProfile>([profileId, confirmedUrl,
                          state] { return veetbot::signInProfile(profileId, confirmedUrl, state); },
                         context, std::move(done));
}

} // namespace veetbot
