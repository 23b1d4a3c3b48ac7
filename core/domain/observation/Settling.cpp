#include "Settling.h"

#include "domain/ToolJson.h"

#include <QJsonArray>
#include <QSet>

namespace veetbot {

Settling::Settling(Timing timing, QStringList inFlight, bool stalledLoad, After after)
    : m_timing(timing), m_inFlight(std::move(inFlight)), m_stalledLoad(stalledLoad), m_after(after)
{
    if (m_inFlight.size() > kMaxRequests)
        m_inFlight = m_inFlight.first(kMaxRequests);
}

void Settling::addStarted(const QStringList &urls, qint64 elapsedMs)
{
    if (!urls.isEmpty())
        m_lastActivityMs = qMax(m_lastActivityMs, elapsedMs);
    for (const QString &url : urls) {
        if (m_inFlight.size() >= kMaxRequests)
            return;
        m_inFlight.append(url);
    }
}

double Settling::quietFor(double domQuietMs, qint64 elapsedMs) const
{
    if (m_after == After::Load)
        return domQuietMs;
    return qMin(domQuietMs, double(elapsedMs - m_lastActivityMs));
}

std::optional<Readiness> Settling::expired(qint64 elapsedMs) const
{
    if (elapsedMs >= m_timing.boundMs)
        return Readiness::BoundExpired;
    return std::nullopt;
}

Settling::Step Settling::round(const QJsonObject &probe, bool pageLoading, qint64 elapsedMs)
{
    QSet<int> completed;
    for (const QJsonValue &index : probe.value(QStringLiteral("completed")).toArray()) {
        if (const auto i = ToolJson::integer(index, 0, kMaxRequests - 1))
            completed.insert(int(*i));
    }
    QStringList stillPending;
    for (int i = 0; i < m_inFlight.size(); ++i) {
        if (!completed.contains(i))
            stillPending.append(m_inFlight.at(i));
    }
    if (stillPending.size() < m_inFlight.size())
        m_lastActivityMs = qMax(m_lastActivityMs, elapsedMs);
    m_inFlight = stillPending;

    const QString readyState = probe.value(QStringLiteral("readyState")).toString();
    const double quietMs = quietFor(probe.value(QStringLiteral("quietMs")).toDouble(), elapsedMs);
    const bool documentReady =
        (m_stalledLoad || !pageLoading) && readyState != QLatin1String("loading");
    if (documentReady && m_inFlight.isEmpty() && quietMs >= m_timing.quietMs)
        return {Readiness::DomQuiet, 0};
    if (const auto bound = expired(elapsedMs))
        return {bound, 0};
    int wait = m_timing.pollMs;
    if (documentReady && m_inFlight.isEmpty())
        wait = qBound(1, int(m_timing.quietMs - quietMs), m_timing.quietMs);
    const qint64 left = m_timing.boundMs - elapsedMs;
    return {std::nullopt, int(qMin<qint64>(wait, left))};
}

} // namespace veetbot
