#include "ThreadRunner.h"

#include <QMetaObject>
#include <QPointer>

#include <atomic>
#include <future>
#include <memory>

namespace veetbot {

HttpResponse runOnThread(QObject *context, std::function<void(HttpRoute::Reply)> work,
                         int timeoutMs)
{
    // Shared with the work: a reply that comes after the wait ended must find it.
    struct Answer
    {
        std::promise<HttpResponse> promise;
        std::atomic<bool> given = false;
        void give(HttpResponse response)
        {
            if (!given.exchange(true))
                promise.set_value(std::move(response));
        }
    };
    auto answer = std::make_shared<Answer>();
    std::future<HttpResponse> future = answer->promise.get_future();
    const bool posted = QMetaObject::invokeMethod(
        context,
        [answer, work = std::move(work)] {
            try {
                work([answer](HttpResponse response) { answer->give(std::move(response)); });
            } catch (...) {
                answer->give(HttpError::response(HttpError::Kind::Internal));
            }
        },
        Qt::QueuedConnection);
    if (!posted ||
        future.wait_for(std::chrono::milliseconds(timeoutMs)) != std::future_status::ready)
        return HttpError::response(HttpError::Kind::Internal);
    return future.get();
}

} // namespace veetbot
