#include "Collector.h"

#include <QPointer>
#include <QTimer>
#include <QWebEnginePage>

#include <memory>

namespace veetbot::Collector {

QWebEngineScript installScript()
{
    QWebEngineScript script;
    script.setName(QStringLiteral("veetbot-collector"));
    script.setWorldId(kWorldId);
    script.setInjectionPoint(QWebEngineScript::DocumentCreation);
    script.setRunsOnSubFrames(false);
    script.setSourceCode(source());
    return script;
}

QWebEngineScript networkObserverScript(const QString &key)
{
    QWebEngineScript script;
    script.setName(QStringLiteral("veetbot-network"));
    script.setWorldId(QWebEngineScript::MainWorld);
    script.setInjectionPoint(QWebEngineScript::DocumentCreation);
    script.setRunsOnSubFrames(false);
    script.setSourceCode(networkObserverSource(key));
    return script;
}

CollectorRunner runnerFor(QWebEnginePage *page, int timeoutMs, quint32 worldId)
{
    return [page = QPointer<QWebEnginePage>(page), timeoutMs,
            worldId](const QString &source, std::function<void(std::optional<QJsonObject>)> done) {
        run(page, source, timeoutMs, std::move(done), worldId);
    };
}

void run(QWebEnginePage *page, const QString &source, int timeoutMs,
         std::function<void(std::optional<QJsonObject>)> done, quint32 worldId)
{
    struct Pending
    {
        std::function<void(std::optional<QJsonObject>)> done;
        QTimer timer;
        QMetaObject::Connection pageGone;
        void finish(std::optional<QJsonObject> result)
        {
            if (!done)
                return;
            timer.stop();
            // Break the reference cycles through the connections.
            QObject::disconnect(pageGone);
            QObject::disconnect(&timer, nullptr, nullptr, nullptr);
            auto callback = std::move(done);
            done = nullptr;
            callback(std::move(result));
        }
    };
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    if (!page) {
        pending->finish(std::nullopt);
        return;
    }
    pending->timer.setSingleShot(true);
    QObject::connect(&pending->timer, &QTimer::timeout, page,
                     [pending] { pending->finish(std::nullopt); });
    pending->pageGone = QObject::connect(page, &QObject::destroyed, &pending->timer,
                                         [pending] { pending->finish(std::nullopt); });
    pending->timer.start(timeoutMs);
    page->runJavaScript(source, worldId, [pending](const QVariant &value) {
        if (value.typeId() != QMetaType::QString) {
            pending->finish(std::nullopt);
            return;
        }
        pending->finish(parseAnswer(value.toString()));
    });
}

} // namespace veetbot::Collector
