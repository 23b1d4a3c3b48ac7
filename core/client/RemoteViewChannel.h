#pragma once

#include "domain/signin/OwnerInput.h"
#include "domain/signin/OwnerViewFrame.h"

#include <QObject>
#include <QSize>
#include <QString>

#include <memory>

namespace veetbot {

// The owner's remote sign-in view's channel to the profile service
// (docs/signin.md#in-a-secure-browser): frames in, the owner's input and the finish out, each on
// the ceremony's capability from its launch path, never with the service credential. Two
// workers of its own, so neither waits for the other nor blocks the window: one asks for the
// next frame (the service answers when one comes) while the view is showing and never
// otherwise; the other sends the owner's input in the order it happened, then the finish. When
// an input does not arrive, the rest still queued is dropped and inputFailed() says so, so a
// password is never sent with a character missing. Nothing is kept but the newest frame's
// number, and nothing of a frame or an input is ever logged. Going away does not wait for the
// workers: they end with their request in progress and their answers are dropped.
class RemoteViewChannel : public QObject
{
    Q_OBJECT
public:
    RemoteViewChannel(const QString &socketPath, const QString &ceremonyId,
                      const QString &launchPath, QObject *parent = nullptr);
    ~RemoteViewChannel() override;

    // Frames flow only while showing, each at most `max` (the view's size in pixels).
    void setShowing(bool showing, const QSize &max);
    void send(const OwnerInput &input);
    // After every input sent before it: the service reads its browser and verifies the sign-in.
    void finish();

Q_SIGNALS:
    void frameArrived(const veetbot::OwnerViewFrame &frame);
    // An input the service did not take: those queued behind it were dropped.
    void inputFailed();
    // The finish's answer: an empty code for ready, else the service's fixed code and message.
    void finished(const QString &code, const QString &message);
    // The service no longer knows the ceremony's capability (cancelled, expired, finished).
    void closed();

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;
};

} // namespace veetbot
