#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QUuid>

namespace veetbot {

// A device sign-in ceremony as the ceremony routes carry it (CeremonyApi) and the service keeps
// it (service/server/CeremonyRegistry, docs/signin.md).

namespace ServiceCeremony {

enum class State
{
    Open,      // waiting for its hand-off
    Verifying, // the hand-off claimed it
    Ready,
    Failed, // with a code; the orchestration record calls it cancelled
    Cancelled,
    Expired
};
// open, verifying, ready, failed, cancelled, expired
QString stateName(State state);

// Whose ceremony it is: compared whole on every call but the hand-off.
struct Owner
{
    QUuid profileId;
    QString tenant;
    QString principal;
    QString providerReference;
    friend bool operator==(const Owner &, const Owner &) = default;
};

struct Record
{
    QString id;
    Owner owner;
    QStringList origins; // the profile's allowed origins when it began
    QDateTime expiresAt;
    State state = State::Open;
    QString code; // Failed only: a fixed code
    QDateTime endedAt;
};

struct Begun
{
    Record ceremony;
    QString capability; // returned once; never kept
};

} // namespace ServiceCeremony

} // namespace veetbot
