#pragma once

#include "domain/ActRequest.h"
#include "domain/BrowserObservation.h"
#include "domain/ObserveRequest.h"
#include "domain/Result.h"

#include <QObject>
#include <QUrl>

#include <functional>

namespace veetbot {

struct NavigateRequest
{
    QUrl url; // already validated by the caller; the provider checks its policy again
};

// browser.act's arguments (domain/ActRequest.h); the older name stays for existing adapters.
using ActionRequest = ActRequest;

struct ProviderCapabilities
{
    bool navigate = false;
    bool observe = false;
    bool expand = false; // observe() accepts {after} and {cursor} (continuation windows)
    bool extract = false; // observe() accepts {extract} (typed collection rows, ADR-0161)
    bool act = false;
    bool upload = false;
};

using ObservationCallback = std::function<void(Result<BrowserObservation>)>;

// The provider port. Bound by trusted composition to exactly one principal, one profile
// reference and one origin policy. Calls are serialized in arrival order on one operation
// lock; each callback runs exactly once, on the provider's thread. Capabilities are
// declared, never inferred: an operation a provider does not declare fails with
// tool.browser.provider_unavailable without touching the browser.
class BrowserProvider : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~BrowserProvider() override = default;

    virtual ProviderCapabilities capabilities() const = 0;
    virtual void navigate(const NavigateRequest &request, ObservationCallback done) = 0;
    // Captures a new revision of the current page: the first candidate window ({}), or the
    // window after an element of the current revision ({after}) or at the current revision's
    // continuation cursor ({cursor}). A ref or cursor that is not current (another revision,
    // another document, a removed or moved anchor, a token this provider never minted) fails
    // with tool.browser.page_changed before any capture, and the current revision stays valid.
    // Any other failure invalidates the current revision like every failed capture.
    // {extract} (capability `extract`) is the first window plus typed rows of one collection,
    // refused the same way when its revision is not the current one.
    virtual void observe(const ObserveRequest &request, ObservationCallback done) = 0;
    // One action on an element of the current revision (capability `act`).
    virtual void act(const ActRequest &request, ObservationCallback done) = 0;
    // Releases the browser; pending calls fail with tool.browser.provider_unavailable.
    virtual void close() = 0;
};

} // namespace veetbot
