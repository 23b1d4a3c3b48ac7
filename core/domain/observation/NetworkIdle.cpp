#include "NetworkIdle.h"

#include <algorithm>

namespace veetbot {

NetworkIdle::Step NetworkIdle::round(const Probe &probe, qint64 elapsedMs) const
{
    const bool busy = !probe.contentLoaded || probe.pendingResources > 0 || probe.pageRequests > 0;
    if (!busy && probe.quietMs >= m_timing.quietMs)
        return {true, 0};
    if (elapsedMs >= m_timing.boundMs)
        return {false, 0};
    // Quiet but not for long enough yet: look again when it would be.
    const qint64 quietLeft = qint64(m_timing.quietMs) - probe.quietMs;
    const qint64 wait =
        busy ? qint64(m_timing.pollMs) : std::clamp<qint64>(quietLeft, 1, m_timing.quietMs);
    return {std::nullopt, int(qMin<qint64>(wait, m_timing.boundMs - elapsedMs))};
}

} // namespace veetbot
