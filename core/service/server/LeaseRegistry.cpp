#include "LeaseRegistry.h"

#include "domain/observation/BrowserObservation.h"

#include <algorithm>

namespace veetbot {

namespace {

Error unavailable()
{
    return Error::fromReason(ReasonCode::ProfileUnavailable);
}

} // namespace

LeaseRegistry::LeaseRegistry(Clock clock) : m_clock(std::move(clock)) {}

QByteArray LeaseRegistry::hashOf(QByteArrayView reference) const
{
    return m_hashKey.of(reference);
}

QString LeaseRegistry::referenceOf(const QString &id) const
{
    return QString::fromLatin1(
        m_referenceKey.of(id.toUtf8())
            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QDateTime LeaseRegistry::deadlineFor(const QDateTime &acquiredAt,
                                     std::optional<QDateTime> requested) const
{
    const QDateTime now = m_clock();
    QDateTime deadline = now.addMSecs(kMaxRequestMs);
    if (requested && *requested < deadline)
        deadline = *requested;
    const QDateTime lifeEnd = acquiredAt.addMSecs(kMaxLifeMs);
    return deadline < lifeEnd ? deadline : lifeEnd;
}

void LeaseRegistry::expire()
{
    const QDateTime now = m_clock();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->lease.expiresAt <= now) {
            m_ended.append(it->lease);
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
}

LeaseRegistry::Entry *LeaseRegistry::find(QByteArrayView reference)
{
    expire();
    if (reference.isEmpty() || reference.size() > kMaxReferenceLength)
        return nullptr;
    const QByteArray presented = hashOf(reference);
    Entry *found = nullptr;
    // Every entry is compared, in constant time each.
    for (Entry &entry : m_entries) {
        if (KeyedHash::equal(entry.referenceHash, presented))
            found = &entry;
    }
    return found;
}

Result<LeaseRegistry::Acquired> LeaseRegistry::acquire(const Holder &holder,
                                                       std::optional<QDateTime> requestedDeadline)
{
    expire();
    if (requestedDeadline && *requestedDeadline <= m_clock())
        return Error::fromReason(ReasonCode::ProfileUnavailable); // the attempt is already over
    for (Entry &entry : m_entries) {
        if (entry.lease.holder.profileId != holder.profileId)
            continue;
        if (entry.lease.holder != holder)
            return unavailable(); // another run holds the profile
        // The same run and attempt again (say resumed in another process): its lease and
        // its action sequence, whatever deadline it asks for now.
        return Acquired{referenceOf(entry.lease.id), entry.lease, true};
    }
    if (m_entries.size() + m_reserved >= kMaxBrowsers)
        return Error::fromReason(ReasonCode::ProviderUnavailable); // retryable: no room
    Lease lease;
    lease.id = randomToken(16);
    lease.holder = holder;
    lease.acquiredAt = m_clock();
    lease.expiresAt = deadlineFor(lease.acquiredAt, requestedDeadline);
    const QString reference = referenceOf(lease.id);
    m_entries.insert(lease.id, Entry{lease, hashOf(reference.toLatin1())});
    return Acquired{reference, lease, false};
}

Result<LeaseRegistry::Lease> LeaseRegistry::validate(QByteArrayView reference, const Holder &holder)
{
    const Entry *entry = find(reference);
    if (!entry || entry->lease.holder != holder)
        return unavailable();
    return entry->lease;
}

Result<LeaseRegistry::Lease> LeaseRegistry::renew(QByteArrayView reference, const Holder &holder,
                                                  std::optional<QDateTime> requestedDeadline)
{
    Entry *entry = find(reference);
    if (!entry || entry->lease.holder != holder)
        return unavailable(); // an expired or closed lease is not renewed
    const QDateTime deadline = deadlineFor(entry->lease.acquiredAt, requestedDeadline);
    if (deadline > entry->lease.expiresAt)
        entry->lease.expiresAt = deadline;
    return entry->lease;
}

Result<LeaseRegistry::Lease> LeaseRegistry::advance(QByteArrayView reference, const Holder &holder,
                                                    qint64 expected)
{
    Entry *entry = find(reference);
    if (!entry || entry->lease.holder != holder || entry->lease.sequence != expected)
        return unavailable();
    ++entry->lease.sequence;
    return entry->lease;
}

std::optional<LeaseRegistry::Lease> LeaseRegistry::close(QByteArrayView reference,
                                                         const Holder &holder)
{
    const Entry *entry = find(reference);
    if (!entry || entry->lease.holder != holder)
        return std::nullopt;
    const Lease lease = entry->lease;
    m_entries.remove(lease.id);
    return lease;
}

QList<LeaseRegistry::Lease> LeaseRegistry::closeProfile(const QUuid &profileId)
{
    QList<Lease> closed;
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->lease.holder.profileId == profileId) {
            closed.append(it->lease);
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
    return closed;
}

std::optional<LeaseRegistry::Lease> LeaseRegistry::closeId(const QString &id)
{
    const auto it = m_entries.constFind(id);
    if (it == m_entries.constEnd())
        return std::nullopt;
    const Lease lease = it->lease;
    m_entries.remove(id);
    return lease;
}

bool LeaseRegistry::reserve(int browsers)
{
    expire();
    if (m_entries.size() + m_reserved + browsers > kMaxBrowsers)
        return false;
    m_reserved += browsers;
    return true;
}

void LeaseRegistry::release(int browsers)
{
    m_reserved = std::max(0, m_reserved - browsers);
}

QList<LeaseRegistry::Lease> LeaseRegistry::takeEnded()
{
    expire();
    return std::exchange(m_ended, {});
}

std::optional<QString> LeaseRegistry::idOf(QByteArrayView reference)
{
    const Entry *entry = find(reference);
    if (!entry)
        return std::nullopt;
    return entry->lease.id;
}

std::optional<LeaseRegistry::Lease>
LeaseRegistry::leaseOfRun(const QString &tenant, const QString &principal, const QString &runId)
{
    expire();
    for (const Entry &entry : std::as_const(m_entries)) {
        const Holder &holder = entry.lease.holder;
        if (holder.runId == runId && holder.tenant == tenant && holder.principal == principal)
            return entry.lease;
    }
    return std::nullopt;
}

int LeaseRegistry::liveCount()
{
    expire();
    return int(m_entries.size()) + m_reserved;
}

} // namespace veetbot
