#pragma once

#include <QApplication>
#include <QObject>
#include <QPointer>
#include <QThread>

#include <utility>

namespace veetbot {

// Runs blocking work (the profile service's HTTP, the metadata store) on a thread of its
// own and hands its answer to `done` on the GUI thread, unless `owner` is gone by then.
template <typename Work, typename Done> void inBackground(QObject *owner, Work work, Done done)
{
    QPointer<QObject> guard(owner);
    QThread *worker = QThread::create([guard, work = std::move(work), done = std::move(done)] {
        auto answer = work();
        QMetaObject::invokeMethod(
            qApp,
            [guard, done, answer] {
                if (guard)
                    done(answer);
            },
            Qt::QueuedConnection);
    });
    QObject::connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

} // namespace veetbot
