#pragma once

#include "domain/BrowserObservation.h"
#include "domain/Result.h"

#include <QObject>
#include <QUrl>

#include <functional>

namespace veetbot {

struct NavigateRequest
{
    QUrl url; // already validated by the caller; the provider checks its policy again
};

// Reserved for the observation issue (bounded live expansion).
struct ObservationExpansion
{
    QString cursor;
};

// Reserved for the actions issue.
struct ActionRequest
{
    QString kind;
    QString expectedRevision;
    QString ref;
};

struct ProviderCapabilities
{
    bool navigate = false;
    bool observe = false;
    bool expand = false;
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
    virtual void observe(ObservationCallback done) = 0;
    virtual void expand(const ObservationExpansion &request, ObservationCallback done) = 0;
    virtual void act(const ActionRequest &request, ObservationCallback done) = 0;
    // Releases the browser; pending calls fail with tool.browser.provider_unavailable.
    virtual void close() = 0;
};

} // namespace veetbot
