#include "ThreadRunner.h"

#include <QMetaObject>
#include <QPointer>

#include <future>
#include <memory>

namespace veetbot {

HttpResponse runOnThread(QObject *context, std::function<HttpResponse()> work, int timeoutMs)
{
    // The promise is shared: a call that timed out may still run later and must find it.
    auto promise = std::make_shared<std::promise<HttpResponse>>();
    std::future<HttpResponse> answer = promise->get_future();
    const bool posted = QMetaObject::invokeMethod(
        context,
        [promise, work = std::move(work)] {
            try {
                promise->set_value(work());
            } catch (...) {
                promise->set_value(HttpError::response(HttpError::Kind::Internal));
            }
        },
        Qt::QueuedConnection);
    if (!posted ||
        answer.wait_for(std::chrono::milliseconds(timeoutMs)) != std::future_status::ready)
        return HttpError::response(HttpError::Kind::Internal);
    return answer.get();
}

} // namespace veetbot
