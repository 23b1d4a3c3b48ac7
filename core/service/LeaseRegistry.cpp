#include "LeaseRegistry.h"

#include "domain/BrowserObservation.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace veetbot {

namespace {

QByteArray randomKey()
{
    QByteArray key(32, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(key.data()), int(key.size())) != 1)
        std::abort(); // a broken process, not an input condition
    return key;
}

QByteArray hmac(const QByteArray &key, QByteArrayView data)
{
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), key.constData(), int(key.size()),
              reinterpret_cast<const unsigned char *>(data.data()), size_t(data.size()), out,
              &length))
        std::abort();
    return QByteArray(reinterpret_cast<const char *>(out), int(length));
}

Error unavailable()
{
    return Error::fromReason(ReasonCode::ProfileUnavailable);
}

} // namespace

LeaseRegistry::LeaseRegistry(Clock clock)
    : m_clock(std::move(clock)), m_referenceKey(randomKey()), m_hashKey(randomKey())
{
}

QByteArray LeaseRegistry::hashOf(QByteArrayView reference) const
{
    return hmac(m_hashKey, reference);
}

QString LeaseRegistry::referenceOf(const QString &id) const
{
    return QString::fromLatin1(
        hmac(m_referenceKey, id.toUtf8())
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
        if (CRYPTO_memcmp(entry.referenceHash.constData(), presented.constData(),
                          size_t(presented.size())) == 0)
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
    if (m_entries.size() >= kMaxBrowsers)
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

int LeaseRegistry::liveCount()
{
    expire();
    return int(m_entries.size());
}

} // namespace veetbot
