#pragma once

#include "domain/Result.h"
#include "service/api/ServiceLease.h"
#include "service/server/KeyedHash.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QUuid>

#include <functional>
#include <optional>

namespace veetbot {

// The profile service's browser leases (docs/service.md "Leases"), in memory only, so a
// restarted service honours none. One lease belongs to one profile, run and attempt:
//  - at most one live lease per profile; an acquire that repeats a live lease's profile,
//    principal, provider reference, run and attempt gets that lease back with its action
//    sequence; another run is refused (tool.browser.profile_unavailable);
//  - a requested deadline is capped at 15 minutes, a lease's life at 60 minutes after it was
//    acquired; renewing extends it by at most 15 minutes within that life; an expired lease
//    is gone;
//  - at most 3 browsers live at once (a lease counts one, a device verification two); beyond that a
//  new lease is refused
//    before its browser starts (the retryable tool.browser.provider_unavailable);
//  - references are 256-bit random capabilities (43 base64url characters, at most 128
//    accepted); only a keyed hash of each is kept, compared in constant time.
// Pure: the clock is injected; the caller owns the browsers and is told which leases ended.
class LeaseRegistry
{
public:
    static constexpr qint64 kMaxRequestMs = 15 * 60 * 1000;
    static constexpr qint64 kMaxLifeMs = 60 * 60 * 1000;
    static constexpr int kMaxBrowsers = 3;
    static constexpr int kMaxReferenceLength = kMaxLeaseReferenceLength;

    using Holder = LeaseHolder;
    using Lease = ServiceLease;
    struct Acquired
    {
        QString reference;
        Lease lease;
        bool reattached = false; // an identical acquire found it live
    };
    using Clock = std::function<QDateTime()>;

    explicit LeaseRegistry(Clock clock = [] { return QDateTime::currentDateTimeUtc(); });

    // `requestedDeadline`: the run attempt's deadline, if it has one.
    Result<Acquired> acquire(const Holder &holder, std::optional<QDateTime> requestedDeadline);
    // The live lease that `reference` names, held by exactly `holder`; an expired one is
    // removed (and reported by takeEnded()). tool.browser.profile_unavailable otherwise.
    Result<Lease> validate(QByteArrayView reference, const Holder &holder);
    Result<Lease> renew(QByteArrayView reference, const Holder &holder,
                        std::optional<QDateTime> requestedDeadline);
    // Advances the action sequence if it is `expected` (an act is sequence-bound).
    Result<Lease> advance(QByteArrayView reference, const Holder &holder, qint64 expected);
    // Removes the lease; nullopt when `reference` names no live lease of `holder` (closing
    // again is not an error for the caller to act on).
    std::optional<Lease> close(QByteArrayView reference, const Holder &holder);
    // Removes every lease of a profile (revocation), or the one with this internal id.
    QList<Lease> closeProfile(const QUuid &profileId);
    std::optional<Lease> closeId(const QString &id);
    // Leases that expired since the last call (their browsers close without sealing).
    QList<Lease> takeEnded();

    // The internal id of the live lease `reference` names (a lease keeper binds to it).
    std::optional<QString> idOf(QByteArrayView reference);
    // The live lease of run `runId` held for this tenant and principal (the owner's live view
    // finds an agent's browser by its run, never by its reference).
    std::optional<Lease> leaseOfRun(const QString &tenant, const QString &principal,
                                    const QString &runId);
    // Live browsers: one per lease, plus those reserved for other work.
    int liveCount();
    // Admission for browsers that are not a lease's (a device verification's two): false,
    // reserving nothing, when they would pass the limit; else they count until released.
    bool reserve(int browsers);
    void release(int browsers);

private:
    struct Entry
    {
        Lease lease;
        QByteArray referenceHash;
    };
    void expire();
    Entry *find(QByteArrayView reference);
    QByteArray hashOf(QByteArrayView reference) const;
    // A lease's reference is derived from its id under a key of this service start, so an
    // identical acquire can hand it back without the reference itself being kept.
    QString referenceOf(const QString &id) const;
    QDateTime deadlineFor(const QDateTime &acquiredAt, std::optional<QDateTime> requested) const;

    Clock m_clock;
    KeyedHash m_referenceKey; // random per service start
    KeyedHash m_hashKey;      // random per service start
    int m_reserved = 0;
    QHash<QString, Entry> m_entries;
    QList<Lease> m_ended;
};

} // namespace veetbot
