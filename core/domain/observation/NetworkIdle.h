#pragma once

#include <QtGlobal>

#include <optional>

namespace veetbot {

// Device verification's network-idle rule (docs/signin.md "How the service verifies"): after
// DOMContentLoaded (deferred scripts included), the documents, scripts and stylesheets the
// page started, and its fetch, XMLHttpRequest and EventSource requests, must have finished
// and the network must have stayed idle for `quietMs`; an event stream counts as finished
// once its response headers arrived. Images never hold it. Pure: the browser adapter
// (webengine/NetworkWatch) gathers each round's probe.
class NetworkIdle
{
public:
    struct Timing
    {
        int boundMs = 5000;
        int quietMs = 500;
        int pollMs = 50;
    };
    struct Probe
    {
        bool contentLoaded = false; // DOMContentLoaded has fired
        int pendingResources = 0;   // documents, scripts and stylesheets not yet finished
        int pageRequests = 0;       // the page's own requests in flight (streams: until headers)
        qint64 quietMs = 0;         // since the last request started or finished
    };
    struct Step
    {
        // Set when the wait is over: true when the network was idle, false when the bound
        // passed first. Otherwise probe again after `waitMs`.
        std::optional<bool> idle;
        int waitMs = 0;
    };

    explicit NetworkIdle(Timing timing) : m_timing(timing) {}

    Step round(const Probe &probe, qint64 elapsedMs) const;

private:
    Timing m_timing;
};

} // namespace veetbot
