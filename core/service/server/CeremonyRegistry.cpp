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

bool CeremonyRegistry::isLive(const QUuid &profileId)
{
    QMutexLocker lock(&m_mutex);
    return hasLive(profileId);
}

bool CeremonyRegistry::hasLive(const QUuid &profileId)
{
    sweep();
    for (const Entry &entry : std::as_const(m_entries)) {
        if (entry.ceremony.owner.profileId == profileId &&
            (entry.ceremony.state == State::Open || entry.ceremony.state == State::Verifying))
            return true;
    }
    return false;
}

Result<CeremonyRegistry::Begun> CeremonyRegistry::begin(const Owner &owner,
                                                        const QStringList &origins, Mode mode)
{
    QMutexLocker lock(&m_mutex);
    if (hasLive(owner.profileId))
        return alreadyOpen();
    Begun begun;
    begun.ceremony.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toLower();
    begun.ceremony.owner = owner;
    begun.ceremony.mode = mode;
    begun.ceremony.origins = origins;
    begun.ceremony.expiresAt = m_clock().addMSecs(kLifeMs);
    begun.capability = KeyedHash::capability();
    m_entries.insert(begun.ceremony.id,
                     Entry{begun.ceremony, m_hash.of(begun.capability.toLatin1())});
    return begun;
}

CeremonyRegistry::Entry *CeremonyRegistry::live(const QString &id, Mode mode,
                                                QByteArrayView capability)
{
    if (capability.isEmpty() || capability.size() > kMaxCapabilityLength)
        return nullptr;
    const QByteArray presented = m_hash.of(capability);
    Entry *entry = find(id);
    // The hash is compared whatever the mode, so the mode costs no time of its own.
    const bool equal = entry && KeyedHash::equal(entry->capabilityHash, presented);
    if (!entry || !equal || entry->ceremony.state != State::Open || entry->ceremony.mode != mode)
        return nullptr;
    return entry;
}

bool CeremonyRegistry::matches(const QString &id, Mode mode, QByteArrayView capability)
{
    return peek(id, mode, capability).has_value();
}

std::optional<CeremonyRegistry::Ceremony> CeremonyRegistry::peek(const QString &id, Mode mode,
                                                                 QByteArrayView capability)
{
    QMutexLocker lock(&m_mutex);
    const Entry *entry = live(id, mode, capability);
    if (!entry)
        return std::nullopt;
    return entry->ceremony;
}

std::optional<CeremonyRegistry::Ceremony> CeremonyRegistry::claim(const QString &id, Mode mode,
                                                                  QByteArrayView capability)
{
    QMutexLocker lock(&m_mutex);
    Entry *entry = live(id, mode, capability);
    if (!entry)
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

bool CeremonyRegistry::isOpen(const QString &id)
{
    QMutexLocker lock(&m_mutex);
    const Entry *entry = find(id);
    return entry && entry->ceremony.state == State::Open;
}

void CeremonyRegistry::finish(const QString &id, State outcome, const QString &code,
                              const QString &account)
{
    QMutexLocker lock(&m_mutex);
    Entry *entry = find(id);
    if (!entry || entry->ceremony.state != State::Verifying)
        return; // cancelled meanwhile: that outcome stands
    entry->ceremony.state = outcome;
    entry->ceremony.code = outcome == State::Failed ? code : QString();
    entry->ceremony.account = outcome == State::Ready ? account : QString();
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
