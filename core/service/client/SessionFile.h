#pragma once

#include "domain/Result.h"
#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"
#include "service/api/CeremonyApi.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace veetbot {

// A session file for a headless sign-in (`veetbot profiles sign-in --session-file`): a hand-off
// body ({confirmed_url, cookies, origins}) or a Playwright storage state ({cookies, origins})
// with a confirmed page given apart. Read only from a regular file of the caller with mode
// 0600 or stricter, opened without following a link and checked on the open descriptor;
// checked with the service's own hand-off rules (the service checks again). What is not the
// profile's is dropped and counted, never fatal: localStorage of an origin that is not one of
// the profile's, and cookies a browser keeps for one top-level site only (`partitionKey`).
// Never returns or prints a byte of the file's values in an error.
class SessionFile
{
public:
    // What was left out, by kind (counts only).
    struct Dropped
    {
        int cookies = 0;            // for no site of the profile, or expired (the service's filter)
        int partitionedCookies = 0; // a `partitionKey`: kept by a browser for one top site
        int localStorageOrigins =
            0; // an origin not on the profile (http, an address, another site)
        QJsonObject toJson() const;
        bool operator==(const Dropped &) const = default;
    };
    struct Contents
    {
        CeremonyApi::Handoff handoff;
        Dropped dropped;
    };

    // The file's bytes (at most one more than a hand-off's bound), or invalid_request naming
    // the rule it breaks, or session_file.unreadable.
    static Result<QByteArray> readPrivate(const QString &path);
    // The file's contents as the hand-off for a profile of `allowedOrigins`, or
    // invalid_request.
    static Result<Contents> parse(const QByteArray &bytes, const QString &confirmedUrl,
                                  const QList<Origin> &allowedOrigins, const QDateTime &now,
                                  const TestOverrides &overrides);
    static Result<Contents> read(const QString &path, const QString &confirmedUrl,
                                 const QList<Origin> &allowedOrigins,
                                 const TestOverrides &overrides);
};

} // namespace veetbot
