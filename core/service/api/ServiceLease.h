#pragma once

#include <QDateTime>
#include <QString>
#include <QUuid>

namespace veetbot {

// A lease of one of the service's browsers as the session routes carry it (SessionApi) and the
// service keeps it (service/server/LeaseRegistry, docs/service.md "Leases").

// A lease reference is a 256-bit capability (43 base64url characters); at most this many are
// accepted.
inline constexpr int kMaxLeaseReferenceLength = 128;

// Who holds a lease: compared whole on every call.
struct LeaseHolder
{
    QUuid profileId;
    QString tenant;
    QString principal;
    QString providerReference;
    QString runId;
    int attempt = 0;
    friend bool operator==(const LeaseHolder &, const LeaseHolder &) = default;
};

struct ServiceLease
{
    QString id; // internal, never leaves the service
    LeaseHolder holder;
    QDateTime acquiredAt;
    QDateTime expiresAt;
    qint64 sequence = 0; // acts dispatched under this lease
};

} // namespace veetbot
