#include "RemoteViewChannel.h"

#include "service/api/CeremonyApi.h"
#include "service/client/ServiceClient.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QMetaObject>
#include <QPointer>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace veetbot {

namespace {

// How long a frame request may take: the service's own wait and a margin.
constexpr int kFrameReadMs = CeremonyApi::kFrameWaitMs + 5000;
// The finish waits for the service's verification (up to 30 s) and a margin.
constexpr int kFinishReadMs = 60000;
constexpr int kInputReadMs = 10000;
// After a failed frame request, before the next.
constexpr int kFrameRetryMs = 500;

} // namespace

// What the workers share with the channel: the channel itself only while it lives (cleared,
// under the lock, as it goes), so an answer is posted to a live object or dropped.
struct RemoteViewChannel::Shared
{
    QString socketPath;
    QString ceremonyId;
    QByteArray capability;

    std::mutex mutex;
    std::condition_variable wake;
    RemoteViewChannel *owner = nullptr;
    bool stopped = false;
    bool showing = false;
    QSize max;
    std::deque<std::function<void()>> outgoing; // input, then the finish

    // Runs `deliver` on the channel's thread if the channel still lives.
    void post(std::function<void(RemoteViewChannel *)> deliver)
    {
        std::lock_guard lock(mutex);
        if (!owner)
            return;
        RemoteViewChannel *channel = owner;
        QMetaObject::invokeMethod(
            channel, [channel, deliver = std::move(deliver)] { deliver(channel); },
            Qt::QueuedConnection);
    }
    bool isStopped()
    {
        std::lock_guard lock(mutex);
        return stopped;
    }
    Result<HttpResponse> ask(CeremonyApi::ViewOperation operation, const QByteArray &body,
                             int readMs) const
    {
        return ServiceClient::withCapability(
            socketPath, CeremonyApi::viewPath(ceremonyId, operation), capability, body, readMs);
    }
};

RemoteViewChannel::RemoteViewChannel(const QString &socketPath, const QString &ceremonyId,
                                     const QString &launchPath, QObject *parent)
    : QObject(parent), m_shared(std::make_shared<Shared>())
{
    m_shared->socketPath = socketPath;
    m_shared->ceremonyId = ceremonyId;
    m_shared->capability = CeremonyApi::Launch{ceremonyId, {}, launchPath}.capability();
    m_shared->owner = this;

    // The frame worker: one request at a time while showing, asleep otherwise.
    std::thread([shared = m_shared] {
        quint64 after = 0;
        while (true) {
            QSize max;
            {
                std::unique_lock lock(shared->mutex);
                shared->wake.wait(lock, [&shared] { return shared->stopped || shared->showing; });
                if (shared->stopped)
                    return;
                max = shared->max;
            }
            const Result<HttpResponse> answer =
                shared->ask(CeremonyApi::ViewOperation::Frame,
                            CeremonyApi::frameRequestBody({after, max}), kFrameReadMs);
            if (answer && answer->status == 200) {
                if (std::optional<CeremonyApi::ViewFrame> frame =
                        CeremonyApi::parseViewFrame(answer->body)) {
                    after = frame->seq;
                    shared->post([frame = std::move(frame->frame)](RemoteViewChannel *channel) {
                        Q_EMIT channel->frameArrived(frame);
                    });
                }
                continue;
            }
            if (answer && answer->status == 204)
                continue;
            if (answer && answer->status == 401) {
                shared->post([](RemoteViewChannel *channel) { Q_EMIT channel->closed(); });
                return;
            }
            std::unique_lock lock(shared->mutex);
            shared->wake.wait_for(lock, std::chrono::milliseconds(kFrameRetryMs),
                                  [&shared] { return shared->stopped; });
        }
    }).detach();

    // The outgoing worker: the owner's input in order, then the finish.
    std::thread([shared = m_shared] {
        while (true) {
            std::function<void()> job;
            {
                std::unique_lock lock(shared->mutex);
                shared->wake.wait(
                    lock, [&shared] { return shared->stopped || !shared->outgoing.empty(); });
                if (shared->stopped)
                    return;
                job = std::move(shared->outgoing.front());
                shared->outgoing.pop_front();
            }
            job();
        }
    }).detach();
}

RemoteViewChannel::~RemoteViewChannel()
{
    std::lock_guard lock(m_shared->mutex);
    m_shared->owner = nullptr;
    m_shared->stopped = true;
    m_shared->outgoing.clear();
    m_shared->wake.notify_all();
}

void RemoteViewChannel::setShowing(bool showing, const QSize &max)
{
    std::lock_guard lock(m_shared->mutex);
    m_shared->showing = showing;
    m_shared->max = max.boundedTo(QSize(OwnerViewFrame::kMaxSide, OwnerViewFrame::kMaxSide))
                        .expandedTo(QSize(64, 64));
    m_shared->wake.notify_all();
}

void RemoteViewChannel::send(const OwnerInput &input)
{
    if (!input.isValid())
        return;
    const QByteArray body = QJsonDocument(input.toJson()).toJson(QJsonDocument::Compact);
    std::lock_guard lock(m_shared->mutex);
    m_shared->outgoing.push_back([shared = std::weak_ptr<Shared>(m_shared), body] {
        const std::shared_ptr<Shared> alive = shared.lock();
        if (!alive || alive->isStopped())
            return;
        const Result<HttpResponse> answer =
            alive->ask(CeremonyApi::ViewOperation::Input, body, kInputReadMs);
        if (answer && answer->status == 204)
            return;
        {
            // The rest of the owner's typing is dropped: never a password with a gap.
            std::lock_guard lock(alive->mutex);
            alive->outgoing.clear();
        }
        const bool closed = answer && answer->status == 401;
        alive->post([closed](RemoteViewChannel *channel) {
            if (closed)
                Q_EMIT channel->closed();
            else
                Q_EMIT channel->inputFailed();
        });
    });
    m_shared->wake.notify_all();
}

void RemoteViewChannel::finish()
{
    std::lock_guard lock(m_shared->mutex);
    m_shared->outgoing.push_back([shared = std::weak_ptr<Shared>(m_shared)] {
        const std::shared_ptr<Shared> alive = shared.lock();
        if (!alive || alive->isStopped())
            return;
        const Result<HttpResponse> answer =
            alive->ask(CeremonyApi::ViewOperation::Finish, {}, kFinishReadMs);
        Error outcome;
        if (!answer)
            outcome = answer.error();
        else if (answer->status != 200)
            outcome = ServiceClient::errorOf(*answer);
        alive->post([outcome](RemoteViewChannel *channel) {
            Q_EMIT channel->finished(outcome.code, outcome.message);
        });
    });
    m_shared->wake.notify_all();
}

} // namespace veetbot
