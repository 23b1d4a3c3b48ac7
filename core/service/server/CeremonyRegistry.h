#pragma once

#include "domain/Result.h"
#include "service/api/CeremonyRecord.h"
#include "service/server/KeyedHash.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>

#include <functional>
#include <optional>

namespace veetbot {

// The profile service's sign-in ceremonies (docs/signin.md), in memory only: a restarted
// service knows none, and the orchestration record then ends expired.
//  - begin mints a lowercase hyphenated UUID and a 256-bit capability; only a keyed hash of
//    the capability is kept. At most one open ceremony per profile; it expires 5 minutes
//    after it began.
//  - the capability is checked for its ceremony's mode only: a device capability authorizes
//    one hand-off, a remote one the owner's view and one finish. matches() checks it (constant
//    time) before a byte of the body is read; claim() spends it, so a repeat or a concurrent
//    hand-off or finish fails; a malformed body does not claim and leaves it usable.
//  - a claimed ceremony ends ready or failed (with its code); cancel ends an open or claimed
//    one (a verification still running then seals nothing); an open one past its expiry
//    ends expired.
//  - terminal outcomes are kept 24 hours for the orchestration record to learn.
// Thread-safe: the capability check runs on the HTTP server's connection threads.
class CeremonyRegistry
{
public:
    static constexpr qint64 kLifeMs = 5 * 60 * 1000;
    static constexpr qint64 kKeepOutcomeMs = 24LL * 60 * 60 * 1000;
    static constexpr int kMaxCapabilityLength = 128;

    using State = ServiceCeremony::State;
    using Owner = ServiceCeremony::Owner;
    using Mode = ServiceCeremony::Mode;
    using Ceremony = ServiceCeremony::Record;
    using Begun = ServiceCeremony::Begun;
    static QString stateName(State state) { return ServiceCeremony::stateName(state); }
    using Clock = std::function<QDateTime()>;

    explicit CeremonyRegistry(Clock clock = [] { return QDateTime::currentDateTimeUtc(); });

    // ceremony.open (409) when the profile has an open or verifying ceremony.
    Result<Begun> begin(const Owner &owner, const QStringList &origins, Mode mode);
    // Whether the profile has an open or verifying ceremony (a remote begin asks before its
    // browser starts).
    bool isLive(const QUuid &profileId);
    // Whether `capability` is the live capability of the open ceremony `id` of `mode`.
    bool matches(const QString &id, Mode mode, QByteArrayView capability);
    // The open ceremony of `mode` that `capability` is live for, without spending it (a
    // hand-off checks its body against the ceremony first; the owner's view uses it).
    std::optional<Ceremony> peek(const QString &id, Mode mode, QByteArrayView capability);
    // Spends the capability: the ceremony moves to Verifying and is returned; nullopt when it
    // does not match (or was spent).
    std::optional<Ceremony> claim(const QString &id, Mode mode, QByteArrayView capability);
    // The end of a verification; false when the ceremony is no longer verifying (cancelled
    // meanwhile): then nothing may be sealed.
    bool isVerifying(const QString &id);
    // Whether the ceremony `id` is open (not yet claimed, ended or expired).
    bool isOpen(const QString &id);
    void finish(const QString &id, State outcome, const QString &code = {},
                const QString &account = {});
    // The ceremony as its owner may read it; ceremony.not_found for another owner's, an
    // unknown one, or one whose outcome is no longer kept.
    Result<Ceremony> status(const QString &id, const Owner &owner);
    Result<Ceremony> cancel(const QString &id, const Owner &owner);
    // Every open or verifying ceremony of a profile ends cancelled (revocation, deletion),
    // or of exactly this owner.
    void cancelProfile(const QUuid &profileId);
    void cancelOwner(const Owner &owner);

    static Error notFound();
    static Error alreadyOpen();

private:
    struct Entry
    {
        Ceremony ceremony;
        QByteArray capabilityHash;
    };
    void sweep();                         // with the lock held
    bool hasLive(const QUuid &profileId); // likewise
    // The open entry of `mode` that `capability` is live for (with the lock held).
    Entry *live(const QString &id, Mode mode, QByteArrayView capability);
    void cancelWhere(const std::function<bool(const Ceremony &)> &matches);
    Entry *find(const QString &id);

    Clock m_clock;
    KeyedHash m_hash;
    QMutex m_mutex;
    QHash<QString, Entry> m_entries;
};

} // namespace veetbot
