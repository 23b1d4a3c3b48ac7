#include "CeremonyRegistry.h"

#include <QMutexLocker>
#include <QUuid>

namespace veetbot {

CeremonyRegistry::CeremonyRegistry(Clock clock) : m_clock(std::move(clock)) {}

Error CeremonyRegistry::notFound()
{
    return Error{QStringLiteral("ceremony.not_found"),
                 QStringLiteral("The sign-in is not known to the profile service (it may have "
                                "ended more than a day ago, or the service restarted).")};
}

Error CeremonyRegistry::alreadyOpen()
{
    return Error{QStringLiteral("ceremony.open"),
                 QStringLiteral("A sign-in is already in progress for this profile; finish or "
                                "cancel it first.")};
}

void CeremonyRegistry::sweep()
{
    const QDateTime now = m_clock();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        Ceremony &ceremony = it->ceremony;
        if (ceremony.state == State::Open && ceremony.expiresAt <= now) {
            ceremony.state = State::Expired;
            ceremony.endedAt = now;
            it->capabilityHash.clear();
        }
        const bool terminal = ceremony.state != State::Open && ceremony.state != State::Verifying;
        if (terminal && ceremony.endedAt.addMSecs(kKeepOutcomeMs) <= now)
            it = m_entries.erase(it);
        else
            ++it;
    }
}

CeremonyRegistry::Entry *CeremonyRegistry::find(const QString &id)
{
    sweep();
    const auto it = m_entries.find(id);
    return it == m_entries.end() ? nullptr : &*it;
}

Result<CeremonyRegistry::Begun> CeremonyRegistry::begin(const Owner &owner,
                                                        const QStringList &origins)
{
    QMutexLocker lock(&m_mutex);
    sweep();
    for (const Entry &entry : std::as_const(m_entries)) {
        if (entry.ceremony.owner.profileId == owner.profileId &&
            (entry.ceremony.state == State::Open || entry.ceremony.state == State::Verifying))
            return alreadyOpen();
    }
    Begun begun;
    begun.ceremony.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toLower();
    begun.ceremony.owner = owner;
    begun.ceremony.origins = origins;
    begun.ceremony.expiresAt = m_clock().addMSecs(kLifeMs);
    begun.capability = KeyedHash::capability();
    m_entries.insert(begun.ceremony.id,
                     Entry{begun.ceremony, m_hash.of(begun.capability.toLatin1())});
    return begun;
}

bool CeremonyRegistry::matches(const QString &id, QByteArrayView capability)
{
    return peek(id, capability).has_value();
}

std::optional<CeremonyRegistry::Ceremony> CeremonyRegistry::peek(const QString &id,
                                                                 QByteArrayView capability)
{
    QMutexLocker lock(&m_mutex);
    if (capability.isEmpty() || capability.size() > kMaxCapabilityLength)
        return std::nullopt;
    const QByteArray presented = m_hash.of(capability);
    const Entry *entry = find(id);
    if (!entry || entry->ceremony.state != State::Open ||
        !KeyedHash::equal(entry->capabilityHash, presented))
        return std::nullopt;
    return entry->ceremony;
}

std::optional<CeremonyRegistry::Ceremony> CeremonyRegistry::claim(const QString &id,
                                                                  QByteArrayView capability)
{
    QMutexLocker lock(&m_mutex);
    if (capability.isEmpty() || capability.size() > kMaxCapabilityLength)
        return std::nullopt;
    const QByteArray presented = m_hash.of(capability);
    Entry *entry = find(id);
    if (!entry || entry->ceremony.state != State::Open ||
        !KeyedHash::equal(entry->capabilityHash, presented))
        return std::nullopt;
    entry->capabilityHash.clear(); // spent, whatever follows
    entry->ceremony.state = State::Verifying;
    return entry->ceremony;
}

bool CeremonyRegistry::isVerifying(const QString &id)
{
    QMutexLocker lock(&m_mutex);
    const Entry *entry = find(id);
    return entry && entry->ceremony.state == State::Verifying;
}

void CeremonyRegistry::finish(const QString &id, State outcome, const QString &code)
{
    QMutexLocker lock(&m_mutex);
    Entry *entry = find(id);
    if (!entry || entry->ceremony.state != State::Verifying)
        return; // cancelled meanwhile: that outcome stands
    entry->ceremony.state = outcome;
    entry->ceremony.code = outcome == State::Failed ? code : QString();
    entry->ceremony.endedAt = m_clock();
}

Result<CeremonyRegistry::Ceremony> CeremonyRegistry::status(const QString &id, const Owner &owner)
{
    QMutexLocker lock(&m_mutex);
    const Entry *entry = find(id);
    if (!entry || entry->ceremony.owner != owner)
        return notFound();
    return entry->ceremony;
}

Result<CeremonyRegistry::Ceremony> CeremonyRegistry::cancel(const QString &id, const Owner &owner)
{
    QMutexLocker lock(&m_mutex);
    Entry *entry = find(id);
    if (!entry || entry->ceremony.owner != owner)
        return notFound();
    if (entry->ceremony.state == State::Open || entry->ceremony.state == State::Verifying) {
        entry->ceremony.state = State::Cancelled;
        entry->ceremony.endedAt = m_clock();
        entry->capabilityHash.clear();
    }
    return entry->ceremony; // a terminal one keeps its outcome
}

void CeremonyRegistry::cancelWhere(const std::function<bool(const Ceremony &)> &matches)
{
    QMutexLocker lock(&m_mutex);
    sweep();
    for (Entry &entry : m_entries) {
        Ceremony &ceremony = entry.ceremony;
        if (matches(ceremony) &&
            (ceremony.state == State::Open || ceremony.state == State::Verifying)) {
            ceremony.state = State::Cancelled;
            ceremony.endedAt = m_clock();
            entry.capabilityHash.clear();
        }
    }
}

void CeremonyRegistry::cancelProfile(const QUuid &profileId)
{
    cancelWhere(
        [&profileId](const Ceremony &ceremony) { return ceremony.owner.profileId == profileId; });
}

void CeremonyRegistry::cancelOwner(const Owner &owner)
{
    cancelWhere([&owner](const Ceremony &ceremony) { return ceremony.owner == owner; });
}

} // namespace veetbot
